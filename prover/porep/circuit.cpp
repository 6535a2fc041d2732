#include "prover/porep/circuit.hpp"

#include <algorithm>
#include <optional>
#include <span>
#include <string>

#include "prover/gadgets/merkle_native.hpp"

namespace cuzk::porep {

namespace {

// Tree D is a binary tree over every node (rfp BinaryMerkleTree<DefaultPieceHasher>).
constexpr unsigned kTreeDArity = 2;

MerkleProof::Kind tree_kind(const StackedCircuitShape& shape) {
  return shape.top_arity   ? MerkleProof::Kind::kTop
         : shape.sub_arity ? MerkleProof::Kind::kSub
                           : MerkleProof::Kind::kSingle;
}

// The arity of each element of a C1 path (base, then sub, then top), as the circuit will read it.
std::vector<std::size_t> proof_arities(const MerkleProof& proof) {
  std::vector<std::size_t> arities;
  auto add = [&](const InclusionPath& p) {
    for (const PathElement& e : p.path) {
      // An index outside its arity would be truncated to its low bits by the circuit: refuse it.
      arities.push_back(e.index <= e.hashes.size() ? e.hashes.size() + 1 : 0);
    }
  };
  add(proof.base);
  if (proof.kind != MerkleProof::Kind::kSingle) add(proof.sub);
  if (proof.kind == MerkleProof::Kind::kTop) add(proof.top);
  return arities;
}

MerkleProof blank_proof(MerkleProof::Kind kind, std::span<const std::size_t> arities) {
  MerkleProof m;
  m.kind = kind;
  std::size_t extra = (kind == MerkleProof::Kind::kTop) ? 2 : (kind == MerkleProof::Kind::kSub) ? 1 : 0;
  for (std::size_t i = 0; i < arities.size(); ++i) {
    PathElement e;
    e.hashes.assign(arities[i] - 1, Domain{});
    InclusionPath& target =
        i + extra < arities.size() ? m.base : (i + extra == arities.size() ? m.sub : m.top);
    target.path.push_back(std::move(e));
  }
  return m;
}

class WitnessContext {
 public:
  explicit WitnessContext(unsigned partition) : partition_(partition) {}
  void at(std::size_t challenge) { challenge_ = challenge; }
  [[noreturn]] void fail(const std::string& what) const {
    throw PorepError("partition " + std::to_string(partition_) +
                     (challenge_ ? ", challenge " + std::to_string(*challenge_) : std::string()) + ": " +
                     what);
  }
  static constexpr const char* kNotCanonical = " is not a canonical field element (>= r)";
  static bool canonical(const Domain& d) {
    Fr unused;
    return Fr::from_bytes_le(d.data(), unused);
  }
  Fr fr(const Domain& d, const char* what) const {
    Fr f;
    if (!Fr::from_bytes_le(d.data(), f)) fail(std::string(what) + kNotCanonical);
    return f;
  }
  void path(const MerkleProof& proof, const std::string& what) const {
    auto check = [&](const InclusionPath& p) {
      for (std::size_t i = 0; i < p.path.size(); ++i) {
        const PathElement& e = p.path[i];
        if (e.index > e.hashes.size())
          fail(what + " path element " + std::to_string(i) + " has index " + std::to_string(e.index) +
               " >= its arity " + std::to_string(e.hashes.size() + 1));
        for (const Domain& h : e.hashes)
          if (!canonical(h)) fail(what + " path element " + std::to_string(i) + " sibling" + kNotCanonical);
      }
    };
    check(proof.base);
    if (proof.kind != MerkleProof::Kind::kSingle) check(proof.sub);
    if (proof.kind == MerkleProof::Kind::kTop) check(proof.top);
  }
  void column(const ColumnProof& c, const std::string& what) const {
    for (std::size_t r = 0; r < c.column.rows.size(); ++r)
      if (!canonical(c.column.rows[r])) fail(what + " row " + std::to_string(r) + kNotCanonical);
    path(c.inclusion_proof, what + " inclusion proof");
  }

 private:
  unsigned partition_;
  std::optional<std::size_t> challenge_;
};

}  // namespace

StackedCircuitShape StackedCircuitShape::from_sector(const SectorShape& sector) {
  StackedCircuitShape s;
  s.nodes = sector.nodes;
  s.layers = sector.layers;
  s.challenges = sector.challenges_per_partition;
  s.base_arity = sector.base_arity;
  s.sub_arity = sector.sub_arity;
  s.top_arity = sector.top_arity;
  return s;
}

unsigned StackedCircuitShape::tree_d_depth() const {
  return static_cast<unsigned>(__builtin_ctzll(nodes));
}

PartitionWitness PartitionWitness::from_c1(const C1Output& c1, unsigned k) {
  WitnessContext ctx(k);
  if (k >= c1.vanilla_proofs.size())
    ctx.fail("the C1 output has only " + std::to_string(c1.vanilla_proofs.size()) + " partitions");
  const std::vector<ChallengeProof>& partition = c1.vanilla_proofs[k];
  if (partition.empty()) ctx.fail("partition is empty");
  PartitionWitness w;
  w.replica_id = ctx.fr(c1.replica_id, "replica_id");
  w.comm_d = ctx.fr(c1.comm_d, "comm_d");
  w.comm_r = ctx.fr(c1.comm_r, "comm_r");
  const Domain& comm_r_last = partition[0].comm_r_last_proof.root;
  const Domain& comm_c = partition[0].replica_column_proofs.c_x.inclusion_proof.root;
  w.comm_r_last = ctx.fr(comm_r_last, "comm_r_last (tree R_last root)");
  w.comm_c = ctx.fr(comm_c, "comm_c (tree C root)");
  for (std::size_t i = 0; i < partition.size(); ++i) {
    ctx.at(i);
    const ChallengeProof& p = partition[i];
    // rfp StackedCompound::circuit: "inconsistent comm_r_lasts" / "inconsistent comm_cs".
    if (p.comm_r_last_proof.root != comm_r_last)
      ctx.fail("comm_r_last differs from the partition's first challenge");
    if (p.replica_column_proofs.c_x.inclusion_proof.root != comm_c)
      ctx.fail("comm_c differs from the partition's first challenge");
    if (p.labeling_proofs.empty()) ctx.fail("no labeling proofs (the challenged node is unknown)");
    ctx.fr(p.comm_d_proofs.leaf, "comm_d_proofs leaf");
    ctx.path(p.comm_d_proofs, "comm_d_proofs");
    ctx.path(p.comm_r_last_proof, "comm_r_last_proof");
    const ReplicaColumnProofs& rc = p.replica_column_proofs;
    ctx.path(rc.c_x.inclusion_proof, "c_x inclusion proof");
    for (std::size_t j = 0; j < rc.drg_parents.size(); ++j)
      ctx.column(rc.drg_parents[j], "DRG parent column " + std::to_string(j));
    for (std::size_t j = 0; j < rc.exp_parents.size(); ++j)
      ctx.column(rc.exp_parents[j], "expander parent column " + std::to_string(j));
  }
  w.challenges = partition;
  return w;
}

PartitionWitness PartitionWitness::blank(const StackedCircuitShape& shape) {
  PartitionWitness w;
  w.replica_id = w.comm_d = w.comm_r = w.comm_r_last = w.comm_c = Fr::zero();
  const std::vector<std::size_t> tree_d(shape.tree_d_depth(), kTreeDArity);
  const std::vector<std::size_t> tree_c = gadgets::merkle::path_arities(shape.nodes, shape.tree_shape());
  const MerkleProof::Kind kind = tree_kind(shape);
  ColumnProof column;
  column.column.rows.assign(shape.layers, Domain{});
  column.inclusion_proof = blank_proof(kind, tree_c);
  ChallengeProof p;
  p.comm_d_proofs = blank_proof(MerkleProof::Kind::kSingle, tree_d);
  p.comm_r_last_proof = blank_proof(kind, tree_c);
  p.replica_column_proofs.c_x = column;
  p.replica_column_proofs.drg_parents.assign(kDrgParents, column);
  p.replica_column_proofs.exp_parents.assign(kExpanderParents, column);
  p.labeling_proofs.resize(1);  // only labeling_proofs[0].node (the challenge) is read
  w.challenges.assign(shape.challenges, p);
  return w;
}

void check_witness_shape(const StackedCircuitShape& shape, const PartitionWitness& w) {
  auto fail = [](const std::string& what) { throw PorepError("partition witness: " + what); };
  if (w.challenges.size() != shape.challenges)
    fail(std::to_string(w.challenges.size()) + " challenges, the circuit has " +
         std::to_string(shape.challenges));
  const std::vector<std::size_t> tree_d(shape.tree_d_depth(), kTreeDArity);
  const std::vector<std::size_t> tree_c = gadgets::merkle::path_arities(shape.nodes, shape.tree_shape());
  const MerkleProof::Kind kind = tree_kind(shape);
  for (std::size_t i = 0; i < w.challenges.size(); ++i) {
    const ChallengeProof& p = w.challenges[i];
    const std::string where = "challenge " + std::to_string(i) + ": ";
    auto check_tree = [&](const MerkleProof& m, MerkleProof::Kind want_kind,
                          const std::vector<std::size_t>& want, const std::string& what) {
      if (m.kind != want_kind || proof_arities(m) != want)
        fail(where + what + " does not have the circuit's path shape");
    };
    check_tree(p.comm_d_proofs, MerkleProof::Kind::kSingle, tree_d, "comm_d_proofs");
    check_tree(p.comm_r_last_proof, kind, tree_c, "comm_r_last_proof");
    const ReplicaColumnProofs& rc = p.replica_column_proofs;
    check_tree(rc.c_x.inclusion_proof, kind, tree_c, "c_x inclusion proof");
    if (rc.drg_parents.size() != kDrgParents || rc.exp_parents.size() != kExpanderParents)
      fail(where + "needs 6 DRG and 8 expander parent columns");
    for (std::size_t j = 0; j < kDrgParents + kExpanderParents; ++j) {
      const ColumnProof& c =
          j < kDrgParents ? rc.drg_parents[j] : rc.exp_parents[j - kDrgParents];
      const std::string what = "parent column " + std::to_string(j);
      if (c.column.rows.size() != shape.layers)
        fail(where + what + " has " + std::to_string(c.column.rows.size()) + " rows, the circuit has " +
             std::to_string(shape.layers) + " layers");
      check_tree(c.inclusion_proof, kind, tree_c, what + " inclusion proof");
    }
    if (p.labeling_proofs.empty()) fail(where + "no labeling proofs (the challenged node is unknown)");
  }
}

namespace circuit_detail {

Fr to_fr(const Domain& d) {
  Fr f;
  if (!Fr::from_bytes_le(d.data(), f))
    throw PorepError("partition witness: a non-canonical field element (>= r)");
  return f;
}

std::vector<gadgets::PathElementValues> path_values(const MerkleProof& proof) {
  std::vector<gadgets::PathElementValues> out;
  auto add = [&](const InclusionPath& p) {
    for (const PathElement& e : p.path) {
      gadgets::PathElementValues v;
      v.siblings.reserve(e.hashes.size());
      for (const Domain& h : e.hashes) v.siblings.push_back(to_fr(h));
      v.index = static_cast<std::size_t>(e.index);
      out.push_back(std::move(v));
    }
  };
  out.reserve(proof.base.path.size() + 2);
  add(proof.base);
  if (proof.kind != MerkleProof::Kind::kSingle) add(proof.sub);
  if (proof.kind == MerkleProof::Kind::kTop) add(proof.top);
  return out;
}

}  // namespace circuit_detail

}  // namespace cuzk::porep
