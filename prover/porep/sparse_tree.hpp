// A Merkle tree whose leaves are given only where they are known; every other leaf takes a default
// value, so whole default subtrees hash to precomputed per-level defaults. With every leaf given it
// is an ordinary tree (small sectors sealed for real); with a few thousand given leaves it stands in
// for a 2^30-leaf tree (gen-c1's sparse construction for 512MiB..64GiB).
//
// The levels may have different arities: rfp's base/sub/top tree equals one tree whose levels are
// [base_arity x base levels] ++ [sub_arity] ++ [top_arity], because the base trees cover consecutive
// leaf ranges (docs/formats.md, "C1 files").
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <vector>

#include "prover/porep/vanilla_proof.hpp"

namespace cuzk::porep {

class SparseTree {
 public:
  // Hashes `arity` children (in order) into their parent.
  using NodeHasher = std::function<Domain(const Domain* children, unsigned arity)>;

  SparseTree(std::vector<unsigned> level_arities, NodeHasher hasher, const Domain& default_leaf);

  void set_leaf(std::uint64_t index, const Domain& value);
  // Hashes every level; call after the last set_leaf.
  void build();

  std::uint64_t leaf_count() const { return leaf_count_; }
  const Domain& root() const { return root_; }
  Domain leaf(std::uint64_t index) const { return node(0, index); }
  InclusionPath path(std::uint64_t leaf_index) const;  // every level
  // rfp's split: base levels in `base`, then one sub element, then one top element.
  MerkleProof proof(std::uint64_t leaf_index, unsigned sub_arity, unsigned top_arity) const;
  // The node at `index` of `level` (0: the leaves), given or default; after build() for level > 0.
  Domain node(std::size_t level, std::uint64_t index) const;

 private:
  std::vector<unsigned> arities_;
  NodeHasher hasher_;
  std::uint64_t leaf_count_ = 1;
  std::vector<std::map<std::uint64_t, Domain>> levels_;  // levels_[0] = given leaves
  std::vector<Domain> defaults_;                         // default node per level
  Domain root_{};
};

// rfp Sha256Function node: trim(sha256(children concatenated)).
Domain sha256_node(const Domain* children, unsigned arity);
// rfp PoseidonFunction node: neptune Poseidon (MerkleTree, Standard) of the children as Fr.
Domain poseidon_node(const Domain* children, unsigned arity);

}  // namespace cuzk::porep
