// Groth16 parameter generation with bellperson's semantics (src/groth16/generator.rs), for tests and
// for `cuzk params setup` (never for production: whoever ran it knows the toxic waste).
//
//   * the circuit's constraints, then one `input_i * 0 = 0` per input (A = input i, B = C = 0);
//   * m = the smallest power of two >= that number of constraints; omega as EvaluationDomain;
//   * Lagrange basis at tau: L_k(tau) = ifft(1, tau, ..., tau^(m-1))_k, computed here in closed form
//     (Z(tau) / m) * omega^k / (tau - omega^k), which is the same field value;
//   * u_i, v_i, w_i(tau) by walking the A, B, C matrices; ic_i = (beta u_i + alpha v_i + w_i) / gamma
//     for inputs, l_i = (...) / delta for aux (a zero l_i is bellperson's UnconstrainedVariable);
//   * h_j = tau^j Z(tau) / delta for j < m - 1;
//   * a = u_i(tau) for all inputs then the aux with A density; b_g1/b_g2 = v_i(tau) for inputs and
//     aux with B density (bellperson drops the points at infinity, which are exactly these).
// The generators are the standard G1/G2 generators (bellperson's generate_random_parameters draws
// random ones; verification does not depend on the choice).
#pragma once

#include "prover/algebra/bls12_381.hpp"
#include "prover/groth16/densities.hpp"
#include "prover/groth16/parameters.hpp"
#include "prover/r1cs/r1cs.hpp"

namespace cuzk::groth16 {

using algebra::Fr;

struct ToxicWaste {
  Fr tau, alpha, beta, gamma, delta;
  // Every element uniform and non-zero, from the CSPRNG.
  static ToxicWaste random();
};

// Throws Groth16Error: kMalformedInput for a badly shaped R1CS, kDomainTooLarge above 2^32
// constraints, kUnconstrainedVariable for an aux variable no constraint uses (named by index),
// kParameters when the toxic waste is degenerate (gamma or delta zero, tau in the domain, or a query
// element that would be the point at infinity: probability ~ size / r for random waste).
// `threads` = 0 uses every OpenMP thread.
Parameters generate_parameters(const r1cs::R1cs& cs, const ToxicWaste& waste, unsigned threads = 0);

}  // namespace cuzk::groth16
