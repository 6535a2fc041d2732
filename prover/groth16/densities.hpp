// Shape checks for an R1CS before setup or proving, and bellperson's constraint count. The density
// bitsets themselves are r1cs::Densities (prover/r1cs/evaluate.hpp): a variable has A (B) density
// when it appears with a non-zero coefficient in the A (B) linear combination of some constraint
// (bellperson src/lc.rs eval_with_trackers); inputs are always dense in A (the `input_i * 0 = 0`
// constraints), so only the aux A density is tracked.
#pragma once

#include <cstddef>

#include "prover/r1cs/evaluate.hpp"
#include "prover/r1cs/r1cs.hpp"

namespace cuzk::groth16 {

using Densities = r1cs::Densities;

// Checks the shape of `cs`: the three matrices have the same number of rows, consistent row offsets,
// one non-zero value per column entry, every column below num_variables(), and num_inputs >= 1 (ONE).
// Throws Groth16Error(kMalformedInput) naming the first problem.
void validate_r1cs(const r1cs::R1cs& cs);

// Constraints as bellperson proves them: the circuit's own plus one `input_i * 0 = 0` per input
// (appended after them, in input order).
inline std::size_t num_constraints_with_inputs(const r1cs::R1cs& cs) {
  return cs.num_constraints() + cs.num_inputs;
}

}  // namespace cuzk::groth16
