// The scalars of a density-restricted multi-scalar multiplication: values[i] for the set bits i of a
// density bitset, in order (bellperson's DensityTracker; the A and B MSMs of the prover).
#pragma once

#include <vector>

#include "prover/algebra/bls12_381.hpp"
#include "prover/r1cs/r1cs.hpp"

namespace cuzk::groth16 {

// Appends values[i] for every i < values.size() whose bit is set in `density` to `out`, in order. The
// bitset must hold at least values.size() bits. Blocks of 2^18 values are gathered in parallel (OpenMP)
// into their places, found from popcounts, in `out` grown once: at 32GiB sectors this is 130 M values,
// which one push_back loop took seconds over, between the GPU's H step and its MSMs.
void append_dense(const std::vector<algebra::Fr>& values, const r1cs::DensityBits& density,
                  std::vector<algebra::Fr>& out);

}  // namespace cuzk::groth16
