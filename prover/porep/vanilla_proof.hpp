// The commit-phase-1 output (C1) as plain data: filecoin-proofs-api SealCommitPhase1Output and the
// vanilla proofs inside it (docs/formats.md, "C1 files"). Field elements stay as their 32 serialized bytes here;
// conversion to Fr (with the canonicity check) happens where they are used, with context.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "prover/porep/registered_proof.hpp"

namespace cuzk::porep {

using Domain = std::array<std::uint8_t, 32>;  // PoseidonDomain / Sha256Domain: LE Fr repr bytes

struct PathElement {
  std::vector<Domain> hashes;  // the arity - 1 siblings
  std::uint64_t index = 0;     // position of the current node among its siblings
  friend bool operator==(const PathElement&, const PathElement&) = default;
};

struct InclusionPath {
  std::vector<PathElement> path;  // leaf to root
  friend bool operator==(const InclusionPath&, const InclusionPath&) = default;
};

// rfp MerkleProof: ProofData::Single | Sub | Top.
struct MerkleProof {
  enum class Kind { kSingle, kSub, kTop };
  Kind kind = Kind::kSingle;
  Domain root{}, leaf{};
  InclusionPath base;  // "path" for Single, "base_proof" for Sub/Top
  InclusionPath sub;   // Sub and Top only
  InclusionPath top;   // Top only
  friend bool operator==(const MerkleProof&, const MerkleProof&) = default;
};

struct Column {
  std::uint32_t index = 0;
  std::vector<Domain> rows;  // rows[l - 1] = label at layer l
  friend bool operator==(const Column&, const Column&) = default;
};

struct ColumnProof {
  Column column;
  MerkleProof inclusion_proof;
  friend bool operator==(const ColumnProof&, const ColumnProof&) = default;
};

struct ReplicaColumnProofs {
  ColumnProof c_x;
  std::vector<ColumnProof> drg_parents;  // 6
  std::vector<ColumnProof> exp_parents;  // 8
  friend bool operator==(const ReplicaColumnProofs&, const ReplicaColumnProofs&) = default;
};

// LabelingProof and EncodingProof share this layout (parents, layer_index, node).
struct LabelingProof {
  std::vector<Domain> parents;  // 37
  std::uint32_t layer_index = 0;
  std::uint64_t node = 0;
  friend bool operator==(const LabelingProof&, const LabelingProof&) = default;
};

struct ChallengeProof {
  MerkleProof comm_d_proofs;      // tree D, binary SHA-256, Single
  MerkleProof comm_r_last_proof;  // tree R_last, Poseidon base-sub-top
  ReplicaColumnProofs replica_column_proofs;
  std::vector<LabelingProof> labeling_proofs;  // one per layer
  LabelingProof encoding_proof;
  friend bool operator==(const ChallengeProof&, const ChallengeProof&) = default;
};

struct C1Output {
  const RegisteredSealProof* registered_proof = nullptr;
  std::string vanilla_variant;                            // e.g. "StackedDrg2KiBV1"
  std::vector<std::vector<ChallengeProof>> vanilla_proofs;  // [partition][challenge]
  Domain comm_r{}, comm_d{}, replica_id{}, seed{}, ticket{};
  // Present when the file was a lotus-bench / curio envelope {"SectorNum","Phase1Out","SectorSize"}.
  std::optional<std::int64_t> sector_num;
  std::optional<std::uint64_t> envelope_sector_size;
  friend bool operator==(const C1Output&, const C1Output&) = default;
};

}  // namespace cuzk::porep
