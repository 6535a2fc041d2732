// The witness of one PoRep partition with its challenges computed on several threads (synthesis at
// the speed of memory). The values are those of r1cs::WitnessGen over synthesize_stacked_circuit, in the
// same order: the variables the challenges share come first, then each challenge's, and every challenge of a
// shape allocates the same numbers of aux and input variables (its gadgets depend only on the shape), so
// challenge i's range is known before any is computed and each thread writes its own (r1cs::WitnessSlice).
#pragma once

#include <cstddef>
#include <vector>

#include "prover/algebra/bls12_381.hpp"
#include "prover/porep/circuit.hpp"
#include "prover/r1cs/challenge_witness.hpp"

namespace cuzk::porep {

// Variables of one partition circuit: those before the first challenge, and those of each challenge.
using PartitionLayout = r1cs::ChallengeLayout;

// Counted once per shape (r1cs::Counter over a blank partition's common part and first challenge), then
// remembered.
const PartitionLayout& partition_layout(const StackedCircuitShape& shape);

// Fills `inputs` (ONE first) and `aux` with the partition's witness, using up to `threads` threads (0: all).
// Their capacity is reused: a recycled buffer is not allocated again. Throws PorepError when `w` does not fit
// `shape`, or when a challenge allocates another number of variables than the layout says.
void generate_partition_witness(const StackedCircuitShape& shape, const PartitionWitness& w,
                                std::vector<algebra::Fr>& inputs, std::vector<algebra::Fr>& aux,
                                unsigned threads = 0);

}  // namespace cuzk::porep
