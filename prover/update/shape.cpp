#include "prover/update/shape.hpp"

#include <bit>
#include <vector>

#include "prover/gadgets/multieq.hpp"
#include "prover/update/errors.hpp"

namespace cuzk::update {
namespace {

constexpr std::uint64_t kKiB = 1024 / 32;  // sector sizes in 32-byte nodes
constexpr std::uint64_t kMiB = kKiB * 1024;
constexpr std::uint64_t kGiB = kMiB * 1024;

// constants.rs partition_count: 1 up to 8KiB, 2 up to 32KiB, 4 up to 16MiB, else 16.
std::size_t partition_count(std::uint64_t nodes) {
  if (nodes <= 8 * kKiB) return 1;
  if (nodes <= 32 * kKiB) return 2;
  if (nodes <= 16 * kMiB) return 4;
  return 16;
}

// constants.rs challenge_count: 10 up to 16MiB, else 86.
std::size_t challenge_count(std::uint64_t nodes) {
  return nodes <= 16 * kMiB ? 10 : 86;
}

// constants.rs apex_leaf_count: 8 up to 8KiB, else 128.
std::size_t apex_leaf_count(std::uint64_t nodes) {
  return nodes <= 8 * kKiB ? 8 : 128;
}

// constants.rs hs: [1; 6] up to 32KiB, else [7, 8, 9, 10, 11, 12].
std::array<std::size_t, kHsCount> hs(std::uint64_t nodes) {
  if (nodes <= 32 * kKiB) return {1, 1, 1, 1, 1, 1};
  return {7, 8, 9, 10, 11, 12};
}

UpdateShape make(std::uint64_t nodes, gadgets::merkle::TreeShape tree_r, bool registered) {
  UpdateShape s;
  s.sector_nodes = nodes;
  s.challenge_count = challenge_count(nodes);
  s.challenge_bit_len = static_cast<std::size_t>(std::countr_zero(nodes));
  s.partition_count = partition_count(nodes);
  s.partition_bit_len = static_cast<std::size_t>(std::countr_zero(s.partition_count));
  s.apex_leaf_count = apex_leaf_count(nodes);
  s.apex_leaf_bit_len = static_cast<std::size_t>(std::countr_zero(s.apex_leaf_count));
  s.tree_r = tree_r;
  s.hs = hs(nodes);
  s.registered = registered;
  return s;
}

// constants.rs ALLOWED_SECTOR_SIZES with validate_tree_r_shape's (base, sub, top) arities; registered
// marks the sizes of filecoin-proofs' registered update proofs.
const std::vector<LabelledShape>& table() {
  static const std::vector<LabelledShape> sizes = {
      {"1KiB", make(1 * kKiB, {8, 4, 0}, false)},    {"2KiB", make(2 * kKiB, {8, 0, 0}, true)},
      {"4KiB", make(4 * kKiB, {8, 2, 0}, false)},    {"8KiB", make(8 * kKiB, {8, 4, 0}, false)},
      {"16KiB", make(16 * kKiB, {8, 8, 0}, false)},  {"32KiB", make(32 * kKiB, {8, 8, 2}, false)},
      {"8MiB", make(8 * kMiB, {8, 0, 0}, true)},     {"16MiB", make(16 * kMiB, {8, 2, 0}, false)},
      {"512MiB", make(512 * kMiB, {8, 0, 0}, true)}, {"32GiB", make(32 * kGiB, {8, 8, 0}, true)},
      {"64GiB", make(64 * kGiB, {8, 8, 2}, true)},
  };
  return sizes;
}

}  // namespace

std::span<const LabelledShape> all_sector_sizes() {
  return table();
}

UpdateShape UpdateShape::from_sector_bytes(std::uint64_t sector_bytes) {
  for (const LabelledShape& s : table()) {
    if (s.shape.sector_bytes() == sector_bytes) return s.shape;
  }
  throw UpdateError("no EmptySectorUpdate circuit for a sector of " + std::to_string(sector_bytes) +
                    " bytes");
}

const UpdateShape* UpdateShape::find(const std::string& label) {
  for (const LabelledShape& s : table()) {
    if (label == s.label) return &s.shape;
  }
  return nullptr;
}

std::uint64_t UpdateShape::h_select(std::size_t h) const {
  for (std::size_t i = 0; i < hs.size(); ++i) {
    if (hs[i] == h) return std::uint64_t{1} << i;
  }
  throw UpdateError("h = " + std::to_string(h) +
                    " is not one of the circuit's h values for this sector size");
}

std::size_t UpdateShape::challenges_per_digest() const {
  return gadgets::kFrCapacity / random_bits_per_challenge();
}

std::size_t UpdateShape::digests_per_partition() const {
  const std::size_t per_digest = challenges_per_digest();
  return (challenge_count + per_digest - 1) / per_digest;
}

}  // namespace cuzk::update
