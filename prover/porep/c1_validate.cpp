#include "prover/porep/c1_validate.hpp"

#include <algorithm>

#include "io/json_reader.hpp"
#include "prover/algebra/bls12_381.hpp"
#include "prover/porep/errors.hpp"
#include "prover/porep/registered_proof.hpp"

namespace cuzk::porep {

namespace {

// Tree D is binary; trees C and R_last have the shape's base/sub/top arities.
constexpr unsigned kTreeDArity = 2;

bool is_zero(const Domain& d) {
  return std::all_of(d.begin(), d.end(), [](std::uint8_t b) { return b == 0; });
}

class Context {
 public:
  explicit Context(std::string source) : source_(std::move(source)) {}
  void at(std::size_t partition, std::size_t challenge) {
    where_ = "partition " + std::to_string(partition) + ", challenge " + std::to_string(challenge);
  }
  void top_level() { where_.clear(); }
  [[noreturn]] void fail(const std::string& what) const {
    throw PorepError(source_ + (where_.empty() ? "" : ": " + where_) + ": " + what);
  }
  void require(bool ok, const std::string& what) const {
    if (!ok) fail(what);
  }
  void canonical(const Domain& d, const std::string& what) const {
    if (!is_canonical_fr(d)) fail(what + " is not a canonical field element (>= r)");
  }

 private:
  std::string source_;
  std::string where_;
};

void check_path(const Context& ctx, const InclusionPath& path, std::size_t length, unsigned arity,
                const std::string& what) {
  ctx.require(path.path.size() == length, what + " has " + std::to_string(path.path.size()) +
                                              " elements, the shape needs " + std::to_string(length));
  for (std::size_t i = 0; i < path.path.size(); ++i) {
    const auto& e = path.path[i];
    std::string el = what + " element " + std::to_string(i);
    ctx.require(e.hashes.size() == arity - 1, el + " has " + std::to_string(e.hashes.size()) +
                                                  " siblings, arity " + std::to_string(arity) + " needs " +
                                                  std::to_string(arity - 1));
    ctx.require(e.index < arity, el + " index " + std::to_string(e.index) + " >= arity " + std::to_string(arity));
    for (const auto& h : e.hashes) ctx.canonical(h, el + " sibling");
  }
}

// Trees C and R_last: Poseidon 8-ary base with optional sub and top layers.
void check_tree_proof(const Context& ctx, const MerkleProof& m, const SectorShape& shape, const std::string& what) {
  MerkleProof::Kind expected = shape.top_arity   ? MerkleProof::Kind::kTop
                               : shape.sub_arity ? MerkleProof::Kind::kSub
                                                 : MerkleProof::Kind::kSingle;
  static const char* kNames[] = {"Single", "Sub", "Top"};
  ctx.require(m.kind == expected, what + " is a " + kNames[static_cast<int>(m.kind)] + " proof, the " +
                                      std::string(shape.label) + " shape needs " +
                                      kNames[static_cast<int>(expected)]);
  check_path(ctx, m.base, shape.base_path_length(), shape.base_arity, what + " base path");
  if (shape.sub_arity) check_path(ctx, m.sub, 1, shape.sub_arity, what + " sub path");
  if (shape.top_arity) check_path(ctx, m.top, 1, shape.top_arity, what + " top path");
  ctx.canonical(m.root, what + " root");
  ctx.canonical(m.leaf, what + " leaf");
}

void check_column(const Context& ctx, const ColumnProof& c, const SectorShape& shape, const std::string& what) {
  ctx.require(c.column.rows.size() == shape.layers, what + " has " + std::to_string(c.column.rows.size()) +
                                                        " rows, the shape has " + std::to_string(shape.layers) +
                                                        " layers");
  for (const auto& row : c.column.rows) ctx.canonical(row, what + " row");
  check_tree_proof(ctx, c.inclusion_proof, shape, what + " inclusion proof");
  std::uint64_t index = merkle_path_index(c.inclusion_proof, shape.base_arity, shape.sub_arity, shape.top_arity);
  ctx.require(index == c.column.index, what + " path leads to node " + std::to_string(index) +
                                           " but the column index is " + std::to_string(c.column.index));
}

}  // namespace

bool is_canonical_fr(const Domain& d) {
  algebra::Fr unused;
  return algebra::Fr::from_bytes_le(d.data(), unused);
}

std::uint64_t merkle_path_index(const MerkleProof& proof, unsigned base_arity, unsigned sub_arity,
                                unsigned top_arity) {
  // Path elements are leaf-to-root: the first element is the least significant digit.
  std::uint64_t index = 0, scale = 1;
  auto fold = [&](const InclusionPath& p, unsigned arity) {
    for (const auto& e : p.path) {
      index += e.index * scale;
      scale *= arity;
    }
  };
  fold(proof.base, base_arity);
  if (proof.kind != MerkleProof::Kind::kSingle) fold(proof.sub, sub_arity);
  if (proof.kind == MerkleProof::Kind::kTop) fold(proof.top, top_arity);
  return index;
}

void validate_c1(const C1Output& c1, const std::string& source_name) {
  Context ctx(source_name);
  ctx.require(c1.registered_proof != nullptr, "no registered_proof");
  const RegisteredSealProof& proof = *c1.registered_proof;
  const SectorShape& shape = *proof.shape;
  ctx.require(c1.vanilla_variant == shape.vanilla_variant,
              "vanilla_proofs variant " + io::quote_for_message(c1.vanilla_variant) + " does not match " +
                  std::string(proof.name) + " (expected " + std::string(shape.vanilla_variant) + ")");
  if (c1.envelope_sector_size)
    ctx.require(*c1.envelope_sector_size == shape.sector_size,
                "envelope SectorSize " + std::to_string(*c1.envelope_sector_size) + " does not match " +
                    std::string(proof.name) + " (" + std::to_string(shape.sector_size) + " bytes)");
  // rfp seal_commit_phase2_circuit_proofs preconditions (docs/circuit.md §10).
  ctx.require(!is_zero(c1.comm_d), "comm_d is all zero");
  ctx.require(!is_zero(c1.comm_r), "comm_r is all zero");
  ctx.require(!is_zero(c1.seed), "seed is all zero");
  ctx.canonical(c1.comm_r, "comm_r");
  ctx.canonical(c1.comm_d, "comm_d");
  ctx.canonical(c1.replica_id, "replica_id");
  ctx.require(c1.vanilla_proofs.size() == proof.partitions(),
              std::to_string(c1.vanilla_proofs.size()) + " partitions, " + std::string(proof.name) + " has " +
                  std::to_string(proof.partitions()));

  for (std::size_t k = 0; k < c1.vanilla_proofs.size(); ++k) {
    const auto& partition = c1.vanilla_proofs[k];
    ctx.at(k, 0);
    ctx.require(!partition.empty(), "partition is empty");
    ctx.require(partition.size() == shape.challenges_per_partition,
                std::to_string(partition.size()) + " challenges, the shape needs " +
                    std::to_string(shape.challenges_per_partition));
    const Domain& comm_c = partition[0].replica_column_proofs.c_x.inclusion_proof.root;
    const Domain& comm_r_last = partition[0].comm_r_last_proof.root;
    for (std::size_t i = 0; i < partition.size(); ++i) {
      ctx.at(k, i);
      const ChallengeProof& p = partition[i];
      ctx.require(p.labeling_proofs.size() == shape.layers,
                  std::to_string(p.labeling_proofs.size()) + " labeling proofs, the shape has " +
                      std::to_string(shape.layers) + " layers");
      for (std::size_t l = 0; l < p.labeling_proofs.size(); ++l)
        ctx.require(p.labeling_proofs[l].parents.size() == kLabelParents,
                    "labeling proof " + std::to_string(l) + " has " +
                        std::to_string(p.labeling_proofs[l].parents.size()) + " parents, expected 37");
      std::uint64_t challenge = p.labeling_proofs[0].node;
      ctx.require(challenge < shape.nodes, "challenge node " + std::to_string(challenge) + " is outside the sector");

      // Tree D: binary SHA-256, always Single.
      ctx.require(p.comm_d_proofs.kind == MerkleProof::Kind::kSingle, "comm_d_proofs is not a Single proof");
      check_path(ctx, p.comm_d_proofs.base, shape.tree_d_depth(), kTreeDArity, "comm_d_proofs path");
      ctx.require(p.comm_d_proofs.root == c1.comm_d, "comm_d_proofs root differs from comm_d");
      ctx.canonical(p.comm_d_proofs.leaf, "comm_d_proofs leaf");
      ctx.require(merkle_path_index(p.comm_d_proofs, kTreeDArity, 0, 0) == challenge,
                  "comm_d_proofs path does not lead to the challenged node " + std::to_string(challenge));

      check_tree_proof(ctx, p.comm_r_last_proof, shape, "comm_r_last_proof");
      ctx.require(p.comm_r_last_proof.root == comm_r_last,
                  "comm_r_last differs from the partition's first challenge");
      ctx.require(merkle_path_index(p.comm_r_last_proof, shape.base_arity, shape.sub_arity, shape.top_arity) ==
                      challenge,
                  "comm_r_last_proof path does not lead to the challenged node " + std::to_string(challenge));

      const auto& rc = p.replica_column_proofs;
      check_column(ctx, rc.c_x, shape, "c_x column");
      ctx.require(rc.c_x.column.index == challenge, "c_x column index differs from the challenged node");
      ctx.require(rc.drg_parents.size() == kDrgParents,
                  std::to_string(rc.drg_parents.size()) + " DRG parent columns, expected 6");
      ctx.require(rc.exp_parents.size() == kExpanderParents,
                  std::to_string(rc.exp_parents.size()) + " expander parent columns, expected 8");
      for (std::size_t j = 0; j < rc.drg_parents.size(); ++j)
        check_column(ctx, rc.drg_parents[j], shape, "DRG parent column " + std::to_string(j));
      for (std::size_t j = 0; j < rc.exp_parents.size(); ++j)
        check_column(ctx, rc.exp_parents[j], shape, "expander parent column " + std::to_string(j));
      auto same_comm_c = [&](const ColumnProof& c, const std::string& what) {
        ctx.require(c.inclusion_proof.root == comm_c, what + " comm_c differs from the partition's first challenge");
      };
      same_comm_c(rc.c_x, "c_x");
      for (std::size_t j = 0; j < rc.drg_parents.size(); ++j) same_comm_c(rc.drg_parents[j], "DRG parent column " + std::to_string(j));
      for (std::size_t j = 0; j < rc.exp_parents.size(); ++j) same_comm_c(rc.exp_parents[j], "expander parent column " + std::to_string(j));
    }
  }
}

}  // namespace cuzk::porep
