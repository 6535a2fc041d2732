// The witness of one update partition with its challenges computed on several threads, as
// porep/parallel_witness.hpp does for PoRep. The values are those of r1cs::WitnessGen over
// synthesize_update_circuit, in the same order: the variables before the first challenge
// (synthesize_update_common) come first, then each challenge's (r1cs::fill_challenge_witness).
#pragma once

#include <cstddef>
#include <vector>

#include "prover/algebra/bls12_381.hpp"
#include "prover/r1cs/challenge_witness.hpp"
#include "prover/update/circuit.hpp"
#include "prover/update/shape.hpp"

namespace cuzk::update {

// Variables of one update partition circuit: those before the first challenge, and those of each challenge.
using UpdateLayout = r1cs::ChallengeLayout;

// Counted once per shape (r1cs::Counter over a blank partition's common part and first challenge), then
// remembered.
const UpdateLayout& update_layout(const UpdateShape& shape);

// Fills `inputs` (ONE first) and `aux` with the partition's witness on up to `threads` threads (0: all).
// Their capacity is reused. Throws UpdateError when `w` does not fit `shape`, or when a part allocates
// another number of variables than the layout says.
void generate_update_witness(const UpdateShape& shape, const PartitionWitness& w, std::vector<Fr>& inputs,
                             std::vector<Fr>& aux, unsigned threads = 0);

}  // namespace cuzk::update
