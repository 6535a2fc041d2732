// A small built-in circuit with its witness, for `cuzk selftest`, `make demo` and the tests:
// knowledge of secrets x_k with f^rounds(x_k) = y_k for public y_k, f(x) = x^3 + x + 5.
//
// Variables: inputs ONE, y_0..y_(P-1); per secret k the aux x_k, then per round sq, next.
// Constraints per secret and round (cur -> next):   cur * cur = sq
//                                                    sq * cur = next - cur - 5 ONE
// and a final binding of the last `next` (out) to y_k:  out * ONE = y_k  (k even)
//                                                        ONE * y_k = out  (k odd)
// so that ONE and the odd y_k have B density and the others do not. P (2 rounds + 1) constraints.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "prover/algebra/bls12_381.hpp"
#include "prover/r1cs/r1cs.hpp"

namespace cuzk::groth16 {

using algebra::Fr;

struct DemoCircuit {
  r1cs::R1cs cs;
  std::vector<Fr> inputs;  // ONE, then y_0..y_(P-1)
  std::vector<Fr> aux;

  // The public inputs as the verifier takes them (ONE excluded).
  std::span<const Fr> public_inputs() const { return std::span<const Fr>(inputs).subspan(1); }
};

// One public input per secret; rounds >= 1.
DemoCircuit make_demo_circuit(std::span<const Fr> secrets, std::size_t rounds);
// The fixed default: secrets 3, 5, 7 and 50 rounds (303 constraints, 3 public inputs, domain 512).
DemoCircuit make_demo_circuit();

}  // namespace cuzk::groth16
