#include "prover/porep/sparse_tree.hpp"

#include <stdexcept>

#include "prover/gadgets/poseidon_native.hpp"
#include "prover/porep/challenges.hpp"
#include "prover/porep/hashing.hpp"

namespace cuzk::porep {

SparseTree::SparseTree(std::vector<unsigned> level_arities, NodeHasher hasher, const Domain& default_leaf)
    : arities_(std::move(level_arities)), hasher_(std::move(hasher)) {
  for (unsigned a : arities_) leaf_count_ *= a;
  levels_.resize(arities_.size() + 1);
  defaults_.push_back(default_leaf);
  for (unsigned a : arities_) {
    std::vector<Domain> children(a, defaults_.back());
    defaults_.push_back(hasher_(children.data(), a));
  }
}

void SparseTree::set_leaf(std::uint64_t index, const Domain& value) {
  if (index >= leaf_count_) throw std::out_of_range("SparseTree: leaf index out of range");
  levels_[0][index] = value;
}

Domain SparseTree::node(std::size_t level, std::uint64_t index) const {
  auto it = levels_[level].find(index);
  return it == levels_[level].end() ? defaults_[level] : it->second;
}

void SparseTree::build() {
  for (std::size_t level = 0; level < arities_.size(); ++level) {
    unsigned arity = arities_[level];
    auto& parents = levels_[level + 1];
    parents.clear();
    std::vector<Domain> children(arity);
    std::uint64_t last_parent = UINT64_MAX;
    for (const auto& [index, value] : levels_[level]) {
      std::uint64_t parent = index / arity;
      if (parent == last_parent) continue;  // siblings share a parent: hashed once
      last_parent = parent;
      for (unsigned k = 0; k < arity; ++k) children[k] = node(level, parent * arity + k);
      parents[parent] = hasher_(children.data(), arity);
    }
  }
  root_ = node(arities_.size(), 0);
}

InclusionPath SparseTree::path(std::uint64_t leaf_index) const {
  InclusionPath p;
  std::uint64_t position = leaf_index;
  for (std::size_t level = 0; level < arities_.size(); ++level) {
    unsigned arity = arities_[level];
    PathElement e;
    e.index = position % arity;
    std::uint64_t first = position - e.index;
    for (unsigned k = 0; k < arity; ++k)
      if (k != e.index) e.hashes.push_back(node(level, first + k));
    p.path.push_back(std::move(e));
    position /= arity;
  }
  return p;
}

MerkleProof SparseTree::proof(std::uint64_t leaf_index, unsigned sub_arity, unsigned top_arity) const {
  MerkleProof m;
  m.root = root_;
  m.leaf = leaf(leaf_index);
  InclusionPath all = path(leaf_index);
  std::size_t extra = (sub_arity ? 1 : 0) + (top_arity ? 1 : 0);
  m.base.path.assign(all.path.begin(), all.path.end() - static_cast<std::ptrdiff_t>(extra));
  m.kind = MerkleProof::Kind::kSingle;
  if (sub_arity) {
    m.kind = MerkleProof::Kind::kSub;
    m.sub.path.push_back(all.path[all.path.size() - extra]);
  }
  if (top_arity) {
    m.kind = MerkleProof::Kind::kTop;
    m.top.path.push_back(all.path.back());
  }
  return m;
}

Domain sha256_node(const Domain* children, unsigned arity) {
  Digest32 d = sha256(std::span<const std::uint8_t>(children->data(), 32 * static_cast<std::size_t>(arity)));
  trim_to_fr32(d);
  return d;
}

Domain poseidon_node(const Domain* children, unsigned arity) {
  std::vector<algebra::Fr> preimage;
  preimage.reserve(arity);
  for (unsigned k = 0; k < arity; ++k) preimage.push_back(domain_to_fr(children[k], "Poseidon tree node"));
  algebra::Fr h = gadgets::poseidon::hash(preimage);
  Domain out;
  h.to_bytes_le(out.data());
  return out;
}

}  // namespace cuzk::porep
