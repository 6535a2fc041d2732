// Multi-scalar multiplication on the CPU: multi-threaded Pippenger (bucket method) over G1 and G2.
// Scalars are Fr values (Montgomery form in memory, converted internally).
#pragma once

#include <span>

#include "prover/algebra/curve.hpp"

namespace cuzk::groth16 {

using algebra::Fr;

// Sum of scalars[i] * bases[i]; requires bases.size() == scalars.size(). Points at infinity and
// zero scalars are allowed. `threads` = 0 uses every hardware thread.
algebra::G1 msm_g1(std::span<const algebra::G1Affine> bases, std::span<const Fr> scalars, unsigned threads = 0);
algebra::G2 msm_g2(std::span<const algebra::G2Affine> bases, std::span<const Fr> scalars, unsigned threads = 0);

// The obviously-correct reference (double-and-add per term), for tests.
algebra::G1 msm_g1_naive(std::span<const algebra::G1Affine> bases, std::span<const Fr> scalars);
algebra::G2 msm_g2_naive(std::span<const algebra::G2Affine> bases, std::span<const Fr> scalars);

}  // namespace cuzk::groth16
