// Groth16 verification with bellperson's equations (src/groth16/verifier.rs):
//   single: e(A, B) * e(acc, -gamma) * e(C, -delta) == e(alpha, beta),
//           acc = ic_0 + sum_i x_i ic_(i+1), in one Miller loop and one final exponentiation;
//   batch:  random 128-bit weights z_j (CSPRNG), as verify_proofs_batch:
//           prod_j e(z_j A_j, B_j) * e(sum_j z_j acc_j, -gamma) * e(sum_j z_j C_j, -delta)
//           == e(alpha, beta)^(sum_j z_j).
#pragma once

#include <span>
#include <vector>

#include "prover/algebra/pairing.hpp"
#include "prover/groth16/parameters.hpp"
#include "prover/groth16/proof.hpp"

namespace cuzk::groth16 {

using algebra::Fr;

struct PreparedVerifyingKey {
  algebra::Gt alpha_g1_beta_g2;  // e(alpha_g1, beta_g2)
  algebra::G2Prepared neg_gamma_g2;
  algebra::G2Prepared neg_delta_g2;
  std::vector<algebra::G1Affine> ic;
};

PreparedVerifyingKey prepare_verifying_key(const VerifyingKey& vk);

// `public_inputs` excludes ONE. Throws Groth16Error(kMalformedInput) unless
// public_inputs.size() == ic.size() - 1.
bool verify(const PreparedVerifyingKey& pvk, const Proof& proof, std::span<const Fr> public_inputs);

// All proofs at once (true when every one verifies, up to a 2^-128 chance of accepting a bad batch).
// `public_inputs[j]` belongs to `proofs[j]`; an empty batch is true (as bellperson). Throws
// Groth16Error(kMalformedInput) for mismatched counts or input lengths.
bool verify_batch(const PreparedVerifyingKey& pvk, std::span<const Proof> proofs,
                  std::span<const std::vector<Fr>> public_inputs);

}  // namespace cuzk::groth16
