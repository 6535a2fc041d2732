#include "prover/groth16/verifier.hpp"

#include <string>
#include <utility>

#include "prover/groth16/errors.hpp"
#include "prover/groth16/msm.hpp"
#include "prover/groth16/randomness.hpp"

namespace cuzk::groth16 {

namespace {

using algebra::G1;
using algebra::G1Affine;
using algebra::G2Prepared;

void check_input_count(const PreparedVerifyingKey& pvk, std::size_t count) {
  if (pvk.ic.empty() || count + 1 != pvk.ic.size()) {
    throw Groth16Error(Groth16ErrorKind::kMalformedInput,
                       std::to_string(count) + " public inputs given; the verifying key expects " +
                           std::to_string(pvk.ic.empty() ? 0 : pvk.ic.size() - 1));
  }
}

// ic_0 * weight + sum_i inputs_i ic_(i+1).
G1 input_accumulator(const PreparedVerifyingKey& pvk, std::span<const Fr> inputs, const Fr& weight) {
  std::span<const G1Affine> bases(pvk.ic);
  return G1::from_affine(pvk.ic[0]) * weight + msm_g1(bases.subspan(1), inputs);
}

}  // namespace

PreparedVerifyingKey prepare_verifying_key(const VerifyingKey& vk) {
  PreparedVerifyingKey pvk;
  pvk.alpha_g1_beta_g2 = algebra::pairing(vk.alpha_g1, vk.beta_g2);
  pvk.neg_gamma_g2 = G2Prepared::from(-vk.gamma_g2);
  pvk.neg_delta_g2 = G2Prepared::from(-vk.delta_g2);
  pvk.ic = vk.ic;
  return pvk;
}

bool verify(const PreparedVerifyingKey& pvk, const Proof& proof, std::span<const Fr> public_inputs) {
  check_input_count(pvk, public_inputs.size());
  const G1Affine acc = input_accumulator(pvk, public_inputs, Fr::one()).to_affine();
  // A*B + acc*(-gamma) + C*(-delta) = alpha*beta: one Miller loop, one final exponentiation.
  const std::pair<G1Affine, G2Prepared> terms[] = {
      {proof.a, G2Prepared::from(proof.b)}, {acc, pvk.neg_gamma_g2}, {proof.c, pvk.neg_delta_g2}};
  return algebra::final_exponentiation(algebra::miller_loop(terms)) == pvk.alpha_g1_beta_g2;
}

bool verify_batch(const PreparedVerifyingKey& pvk, std::span<const Proof> proofs,
                  std::span<const std::vector<Fr>> public_inputs) {
  if (proofs.size() != public_inputs.size()) {
    throw Groth16Error(Groth16ErrorKind::kMalformedInput, std::to_string(proofs.size()) + " proofs but " +
                                                              std::to_string(public_inputs.size()) +
                                                              " public input lists");
  }
  for (const auto& inputs : public_inputs) check_input_count(pvk, inputs.size());
  if (proofs.empty()) return true;

  const std::size_t num_inputs = pvk.ic.size() - 1;
  std::vector<Fr> weights(proofs.size());
  Fr weight_sum = Fr::zero();
  for (auto& z : weights) {
    z = random_fr_128();
    weight_sum += z;
  }
  // sum_j z_j x_(j,i) per input i, then one MSM with ic.
  std::vector<Fr> combined(num_inputs, Fr::zero());
  for (std::size_t j = 0; j < proofs.size(); ++j)
    for (std::size_t i = 0; i < num_inputs; ++i) combined[i] += weights[j] * public_inputs[j][i];
  const G1Affine acc_inputs = input_accumulator(pvk, combined, weight_sum).to_affine();

  std::vector<G1Affine> c_points(proofs.size());
  for (std::size_t j = 0; j < proofs.size(); ++j) c_points[j] = proofs[j].c;
  const G1Affine acc_c = msm_g1(c_points, weights).to_affine();

  std::vector<std::pair<G1Affine, G2Prepared>> terms;
  terms.reserve(proofs.size() + 2);
  for (std::size_t j = 0; j < proofs.size(); ++j)
    terms.emplace_back((G1::from_affine(proofs[j].a) * weights[j]).to_affine(),
                       G2Prepared::from(proofs[j].b));
  terms.emplace_back(acc_inputs, pvk.neg_gamma_g2);
  terms.emplace_back(acc_c, pvk.neg_delta_g2);
  const algebra::Gt lhs = algebra::final_exponentiation(algebra::miller_loop(terms));
  return lhs == pvk.alpha_g1_beta_g2.pow(weight_sum.to_canonical());
}

}  // namespace cuzk::groth16
