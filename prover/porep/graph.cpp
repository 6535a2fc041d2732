#include "prover/porep/graph.hpp"

#include <algorithm>
#include <cstring>
#include <string_view>

#include "prover/algebra/bits.hpp"
#include "prover/porep/hashing.hpp"

namespace cuzk::porep {

namespace {

std::span<const std::uint8_t> bytes_of(std::string_view s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

}  // namespace

StackedGraph::StackedGraph(std::uint64_t nodes, const std::array<std::uint8_t, 32>& porep_id, ApiVersion api_version)
    : nodes_(nodes), api_version_(api_version) {
  // docs/circuit.md §3, seeds.
  Digest32 drg = sha256({bytes_of("Filecoin_DRSample"), porep_id});
  std::memcpy(drg_seed_.data(), drg.data(), drg_seed_.size());
  Digest32 feistel = sha256({bytes_of("Filecoin_Feistel"), porep_id});
  for (int k = 0; k < 4; ++k) {
    std::uint64_t v = 0;
    for (int b = 0; b < 8; ++b) v |= static_cast<std::uint64_t>(feistel[8 * k + b]) << (8 * b);
    feistel_keys_[k] = v;
  }
  // Smallest L >= 1 with 4^L >= nodes * 8 (the expander's domain).
  std::uint64_t domain = nodes * kExpanderParents;
  const unsigned l = std::max(1u, (algebra::log2_ceil(domain) + 1) / 2);
  feistel_half_bits_ = l;
  feistel_right_mask_ = (std::uint64_t{1} << l) - 1;
  feistel_left_mask_ = feistel_right_mask_ << l;
}

void StackedGraph::drg_parents(std::uint64_t node, std::uint32_t out[kDrgParents]) const {
  if (node < 2) {
    for (unsigned i = 0; i < kDrgParents; ++i) out[i] = 0;
    return;
  }
  std::array<std::uint8_t, 32> seed{};
  std::memcpy(seed.data(), drg_seed_.data(), drg_seed_.size());
  auto node32 = static_cast<std::uint32_t>(node);
  for (int b = 0; b < 4; ++b) seed[28 + b] = static_cast<std::uint8_t>(node32 >> (8 * b));
  ChaCha8Rng rng(seed);

  constexpr std::uint64_t kMPrime = kDrgParents - 1;  // m' = 5
  std::uint64_t meta = node * kMPrime;
  std::uint64_t n_buckets = algebra::log2_ceil(meta);
  // V1_0_0 fills slots 0..5 and puts the predecessor last; later versions put it first.
  bool legacy = api_version_ == ApiVersion::kV1_0_0;
  unsigned first = legacy ? 0 : 1;
  for (unsigned k = first; k < first + kMPrime; ++k) {
    std::uint64_t bucket = rng.next_u64() % n_buckets + 1;
    std::uint64_t largest = std::min<std::uint64_t>(meta, std::uint64_t{1} << bucket);
    std::uint64_t smallest = std::max<std::uint64_t>(2, largest >> 1);
    std::uint64_t dist = smallest + rng.next_u64() % (largest - smallest + 1);
    std::uint64_t p = (meta - dist) / kMPrime;
    out[k] = static_cast<std::uint32_t>(p == node ? node - 1 : p);
  }
  out[legacy ? kMPrime : 0] = static_cast<std::uint32_t>(node - 1);
}

std::uint64_t StackedGraph::feistel_encode(std::uint64_t x) const {
  std::uint64_t left = (x & feistel_left_mask_) >> feistel_half_bits_;
  std::uint64_t right = x & feistel_right_mask_;
  for (int round = 0; round < 3; ++round) {  // rfp crypto/feistel.rs: 3 rounds with keys k0, k1, k2
    std::uint8_t input[16];
    for (int b = 0; b < 8; ++b) {
      input[b] = static_cast<std::uint8_t>(right >> (56 - 8 * b));
      input[8 + b] = static_cast<std::uint8_t>(feistel_keys_[round] >> (56 - 8 * b));
    }
    auto h = blake2b512(input);
    std::uint64_t f = 0;
    for (int b = 0; b < 8; ++b) f = (f << 8) | h[b];
    std::uint64_t next_right = left ^ (f & feistel_right_mask_);
    left = right;
    right = next_right;
  }
  return (left << feistel_half_bits_) | right;
}

std::uint64_t StackedGraph::feistel_permute(std::uint64_t n, std::uint64_t x) const {
  std::uint64_t u = feistel_encode(x);
  while (u >= n) u = feistel_encode(u);  // cycle walking keeps the result in [0, n)
  return u;
}

void StackedGraph::expander_parents(std::uint64_t node, std::uint32_t out[kExpanderParents]) const {
  std::uint64_t n = nodes_ * kExpanderParents;
  for (unsigned i = 0; i < kExpanderParents; ++i) {
    std::uint64_t t = feistel_permute(n, node * kExpanderParents + i);
    // V1_0_0 truncated the permuted value to 32 bits before dividing (the legacy bug, docs/circuit.md §3).
    if (api_version_ == ApiVersion::kV1_0_0) t &= 0xffffffffu;
    out[i] = static_cast<std::uint32_t>(t / kExpanderParents);
  }
}

void StackedGraph::parents(std::uint64_t node, std::uint32_t out[kGraphParents]) const {
  drg_parents(node, out);
  expander_parents(node, out + kDrgParents);
}

}  // namespace cuzk::porep
