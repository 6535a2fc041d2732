// The scalars of a density-restricted multi-scalar multiplication: values[i] for the set bits i of a
// density bitset, in order (bellperson's DensityTracker; the A and B MSMs of the prover).
#pragma once

#include <cstdint>
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

// For a gather done elsewhere (the GPU engine gathers on its device from the witness z = (inputs, aux)):
//
// The density over z from its two parts: `input_count` bits for the inputs (those of `inputs`, or every input
// when `inputs` is null: the A scalars take all of them, bellperson's DensityTracker for A covers aux only)
// followed by `aux_count` bits of `aux`. Throws std::invalid_argument when a part has fewer bits than its
// count.
r1cs::DensityBits concat_density(const r1cs::DensityBits* inputs, std::size_t input_count,
                                 const r1cs::DensityBits& aux, std::size_t aux_count);
// Entry w: how many set bits of `density` below bit `count` come before word w, i.e. where the values of word
// w go in the gathered vector; one entry more than the words below `count`, the last the total.
std::vector<std::uint32_t> density_word_offsets(const r1cs::DensityBits& density, std::size_t count);

}  // namespace cuzk::groth16
