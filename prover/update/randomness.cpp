#include "prover/update/randomness.hpp"

#include <array>
#include <span>

#include "prover/gadgets/poseidon_native.hpp"
#include "prover/update/errors.hpp"

namespace cuzk::update {
namespace {

Fr hash2(const Fr& a, const Fr& b) {
  const std::array<Fr, 2> preimage{a, b};
  return gadgets::poseidon::hash(gen_randomness_constants(), std::span<const Fr>(preimage));
}

}  // namespace

const gadgets::poseidon::Constants& gen_randomness_constants() {
  static const gadgets::poseidon::Constants constants = [] {
    gadgets::poseidon::Constants c = gadgets::poseidon::constants(2);
    // neptune hash_type.rs: CType::Arbitrary(id).domain_tag() = id * 2^40; the round constants and
    // matrices do not depend on the hash type (neptune poseidon.rs new_with_strength_and_type).
    Fr two_pow_40 = Fr::from_u64(std::uint64_t{1} << 40);
    c.domain_tag = two_pow_40;
    return c;
  }();
  return constants;
}

Fr phi(const Fr& comm_d_new, const Fr& comm_r_old) {
  return hash2(comm_d_new, comm_r_old);
}

Fr rho(const Fr& phi, std::uint32_t high) {
  return hash2(phi, Fr::from_u64(high));
}

std::uint32_t node_high_bits(const UpdateShape& shape, std::uint64_t node, std::size_t h) {
  return static_cast<std::uint32_t>(node >> (shape.challenge_bit_len - h));
}

std::vector<std::uint64_t> partition_challenges(const UpdateShape& shape, const Fr& comm_r_new,
                                                std::size_t k) {
  if (k >= shape.partition_count)
    throw UpdateError("partition " + std::to_string(k) + " exceeds the sector's " +
                      std::to_string(shape.partition_count) + " partitions");
  const std::size_t random_bits = shape.random_bits_per_challenge();
  const std::size_t per_digest = shape.challenges_per_digest();
  const std::uint64_t partition_bits = std::uint64_t{k} << random_bits;
  std::vector<std::uint64_t> challenges;
  challenges.reserve(shape.challenge_count);
  std::uint64_t digest_index = k * shape.digests_per_partition();
  while (challenges.size() < shape.challenge_count) {
    const auto digest = hash2(comm_r_new, Fr::from_u64(digest_index++)).to_canonical();
    for (std::size_t i = 0; i < per_digest && challenges.size() < shape.challenge_count; ++i) {
      std::uint64_t c = 0;
      for (std::size_t b = 0; b < random_bits; ++b) {
        const std::size_t bit = i * random_bits + b;
        if ((digest[bit / 64] >> (bit % 64)) & 1) c |= std::uint64_t{1} << b;
      }
      challenges.push_back(c | partition_bits);
    }
  }
  return challenges;
}

Fr k_and_h_select(const UpdateShape& shape, std::size_t k, std::size_t h) {
  if (k >= shape.partition_count)
    throw UpdateError("partition " + std::to_string(k) + " exceeds the sector's " +
                      std::to_string(shape.partition_count) + " partitions");
  return Fr::from_u64(std::uint64_t{k} | shape.h_select(h) << shape.partition_bit_len);
}

std::vector<Fr> public_inputs(const UpdateShape& shape, std::size_t k, std::size_t h, const Fr& comm_r_old,
                              const Fr& comm_d_new, const Fr& comm_r_new) {
  return {k_and_h_select(shape, k, h), comm_r_old, comm_d_new, comm_r_new};
}

}  // namespace cuzk::update
