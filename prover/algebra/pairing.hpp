// The optimal ate pairing on BLS12-381 (loop parameter x = -0xd201000000010000) with the final
// exponentiation, and multi-pairings (one shared Miller loop and one final exponentiation).
// Fp6 = Fp2[v]/(v^3 - (1+u)), Fp12 = Fp6[w]/(w^2 - v) are in fp12.hpp.
// The final exponent is 3 (p^12 - 1) / r, as in zkcrypto bls12_381, so Gt values equal theirs.
// Inputs are not validated here: callers pass points on the curves and in the prime-order subgroups
// (the decoders check both). Points at infinity contribute 1.
#pragma once

#include <array>
#include <span>
#include <utility>
#include <vector>

#include "prover/algebra/curve.hpp"
#include "prover/algebra/fp12.hpp"

namespace cuzk::algebra {

using Gt = Fp12;

// G2 point with its Miller-loop line coefficients precomputed (for repeated pairings with a fixed
// G2 argument, as in the Groth16 verifier).
struct G2Prepared {
  std::vector<std::array<Fp2, 3>> coeffs;
  bool infinity = true;
  static G2Prepared from(const G2Affine& q);
};

Fp12 miller_loop(std::span<const std::pair<G1Affine, G2Prepared>> terms);
Fp12 final_exponentiation(const Fp12& f);
Gt pairing(const G1Affine& p, const G2Affine& q);
// Product of pairings e(p_i, q_i), computed with one Miller loop and one final exponentiation.
Gt multi_pairing(std::span<const std::pair<G1Affine, G2Affine>> terms);

}  // namespace cuzk::algebra
