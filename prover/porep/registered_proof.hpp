// Filecoin's registered seal proofs and sector shapes.
// Sources: rust-filecoin-proofs-api src/registry.rs (names, ids, api versions; docs/circuit.md §1) and
// rust-fil-proofs filecoin-proofs/src/constants.rs + parameters.rs (shapes; docs/circuit.md §1).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cuzk::porep {

// The protocol constants of StackedDRG PoRep (docs/circuit.md §1), defined here once.
inline constexpr unsigned kDrgParents = 6;       // BASE_DEGREE, rfp storage-proofs-core/src/drgraph.rs
inline constexpr unsigned kExpanderParents = 8;  // EXP_DEGREE, rfp storage-proofs-porep/src/stacked/vanilla/graph.rs
inline constexpr unsigned kGraphParents = kDrgParents + kExpanderParents;  // column openings per challenge
inline constexpr unsigned kLabelParents = 37;    // TOTAL_PARENTS, rfp storage-proofs-porep/src/stacked/vanilla/proof.rs
inline constexpr unsigned kNodeBytes = 32;       // NODE_SIZE, rfp storage-proofs-core/src/lib.rs
// Public inputs of a partition (docs/circuit.md §7): replica_id, comm_d, comm_r, then per challenge
// tree D, the 14 parent columns, the challenge, tree R_last and the challenged column.
inline constexpr unsigned kSectorInputs = 3;
inline constexpr unsigned kInputsPerChallenge = 1 + kGraphParents + 3;
// Inputs including ONE (the length of the verifying key's ic): 40 for 2 challenges, 328 for 18.
constexpr unsigned inputs_per_partition(unsigned challenges) {
  return 1 + kSectorInputs + kInputsPerChallenge * challenges;
}

enum class ApiVersion { kV1_0_0, kV1_1_0, kV1_2_0 };
enum class PorepFeature { kInteractive, kSynthetic, kNonInteractive };

std::string_view to_string(ApiVersion v);

// One sector size's circuit shape (docs/circuit.md §1).
struct SectorShape {
  std::uint64_t sector_size;  // bytes
  std::string_view label;     // "2KiB", ...
  std::uint64_t nodes;        // sector_size / kNodeBytes
  unsigned layers;
  unsigned base_arity, sub_arity, top_arity;  // tree R_last / tree C: 8-0-0, 8-8-0, 8-8-2
  unsigned partitions;                        // interactive and synthetic PoRep
  unsigned challenges_per_partition;
  std::string_view vanilla_variant;  // the VanillaSealProof enum variant (encodes only the shape)

  unsigned tree_d_depth() const;        // log2(nodes)
  unsigned base_path_length() const;    // tree R_last / C base path elements (2, 6, 8, 9, 9)
  unsigned inputs_per_partition() const { return porep::inputs_per_partition(challenges_per_partition); }
};

// The five production sector sizes, in ascending order.
const std::vector<SectorShape>& all_sector_shapes();
const SectorShape* find_sector_shape(std::uint64_t sector_size);
// Accepts "2KiB", "8MiB", "512MiB", "32GiB", "64GiB" (case-insensitive) or the size in bytes.
const SectorShape* parse_sector_size(std::string_view text);

struct RegisteredSealProof {
  std::string_view name;  // e.g. "StackedDrg32GiBV1_1"
  std::uint64_t id;       // registry id 0..19
  const SectorShape* shape;
  ApiVersion api_version;
  PorepFeature feature;

  // porep_id[0..8] = id as u64 LE, [8..16] = nonce 0, rest zero (docs/circuit.md §1).
  std::array<std::uint8_t, 32> porep_id() const;
  // NI-PoRep uses 13 / 126 partitions (docs/circuit.md §1); the others use shape->partitions.
  unsigned partitions() const;
};

const std::vector<RegisteredSealProof>& all_registered_seal_proofs();
const RegisteredSealProof* find_registered_seal_proof(std::string_view name);
const RegisteredSealProof* find_registered_seal_proof(std::uint64_t id);

}  // namespace cuzk::porep
