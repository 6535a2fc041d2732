// The EmptySectorUpdate (SnapDeals) circuit's shape per sector size: rust-fil-proofs
// `storage-proofs-update/src/constants.rs` (partition_count, challenge_count, hs, h_default,
// apex_leaf_count, validate_tree_r_shape) and `vanilla.rs` (`PublicParams::from_sector_size`).
//
// Filecoin registers update proofs for 2KiB, 8MiB, 512MiB, 32GiB and 64GiB (filecoin-proofs
// `api/update.rs` proves them with `EmptySectorUpdateCompound`, the circuit of circuit.hpp, not the
// single-partition Poseidon-challenge variant of `storage-proofs-update/src/poseidon/`). The other
// sizes upstream allows (1, 4, 8, 16 and 32 KiB) are test shapes; they are here because upstream
// publishes their constraint counts (tests/test_update_circuit.cpp pins them).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "prover/gadgets/merkle_native.hpp"

namespace cuzk::update {

// constants.rs `hs`: the `h` values a proof may select (6 of them, chosen by the one-hot h_select).
inline constexpr std::size_t kHsCount = 6;

struct UpdateShape {
  std::uint64_t sector_nodes = 0;     // 32-byte nodes
  std::size_t challenge_count = 0;    // per partition
  std::size_t challenge_bit_len = 0;  // log2(sector_nodes): the height of tree D
  std::size_t partition_count = 0;
  std::size_t partition_bit_len = 0;  // log2(partition_count): the partitions' tree inside tree D
  std::size_t apex_leaf_count = 0;    // per partition
  std::size_t apex_leaf_bit_len = 0;  // log2(apex_leaf_count): the height of each apex tree
  gadgets::merkle::TreeShape tree_r;  // TreeROld and TreeRNew: Poseidon, base arity 8
  std::array<std::size_t, kHsCount> hs{};
  bool registered = false;  // a size Filecoin registers an update proof for

  // Throws UpdateError for a size upstream does not allow.
  static UpdateShape from_sector_bytes(std::uint64_t sector_bytes);
  // "2KiB", "32GiB", ...: the sizes of `all_sector_sizes`; nullptr for any other label.
  static const UpdateShape* find(const std::string& label);

  std::uint64_t sector_bytes() const { return sector_nodes << 5; }
  // constants.rs h_default: the h filecoin-proofs proves with (hs[3]: 1 for the small test sizes, 10
  // for the production ones).
  std::size_t h_default() const { return hs[3]; }
  // constants.rs h_select: 2^i for h = hs[i] (the first such i); UpdateError for an h not in hs.
  std::uint64_t h_select(std::size_t h) const;
  // Bits of each challenge drawn from the digests (the partition index fills the rest).
  std::size_t random_bits_per_challenge() const { return challenge_bit_len - partition_bit_len; }
  // challenges.rs / gadgets.rs: challenges per Poseidon digest (Fr::CAPACITY / random bits) and the
  // digests each partition draws.
  std::size_t challenges_per_digest() const;
  std::size_t digests_per_partition() const;
  // Tree D levels from a challenged leaf up to its partition's apex leaf.
  std::size_t path_len_to_apex_leaf() const {
    return challenge_bit_len - partition_bit_len - apex_leaf_bit_len;
  }
  // Public inputs including ONE: ONE, k_and_h_select, comm_r_old, comm_d_new, comm_r_new.
  static constexpr std::size_t num_inputs() { return 5; }
};

// Every size of constants.rs ALLOWED_SECTOR_SIZES with its label, smallest first.
struct LabelledShape {
  const char* label;
  UpdateShape shape;
};
std::span<const LabelledShape> all_sector_sizes();

}  // namespace cuzk::update
