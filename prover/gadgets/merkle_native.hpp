// Native Merkle trees as rust-fil-proofs builds them (docs/circuit.md §6): binary SHA-256 trees with Filecoin's
// trimming (tree D) and Poseidon trees with base / sub / top arities (trees C and R_last).
//
// Tree shape (rfp `MerkleTreeWrapper<H, S, Base, Sub, Top>`): the leaves are split into
// sub_count * top_count base trees of equal size (consecutive leaf ranges); each base tree is a full
// `base_arity`-ary tree; `sub_arity` base roots are hashed into a sub-tree root; `top_arity` sub roots
// into the top root. An arity of 0 means the layer is absent (rfp U0); top requires sub.
//
// Paths (rfp merkle/proof.rs `InclusionPath`): one element per level from the leaf up, base levels
// first, then one sub element, then one top element. An element holds the arity - 1 siblings in order
// and the index of the current node among its arity children; the parent is
// H(siblings with the current node inserted at index) (`InclusionPath::root`). The concatenated
// little-endian digits give the leaf index (`path_index`), which is also what the circuit's packed
// index bits equal (docs/circuit.md §6).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <vector>

#include "prover/algebra/bls12_381.hpp"

namespace cuzk::gadgets::merkle {

using algebra::Fr;
using Bytes32 = std::array<std::uint8_t, 32>;

// rfp `Sha256Function::multi_node` / `node`: SHA-256 of the concatenated children with Filecoin's
// trimming (digest[31] &= 0x3f, `trim_to_fr32`; native::sha256_trimmed), so every node is a valid Fr repr.
struct Sha256Hasher {
  using Node = Bytes32;
  static Node node(std::span<const Node> children);
};

// rfp `PoseidonFunction::multi_node`: neptune Poseidon (MerkleTree, Standard) of arity = children.
struct PoseidonHasher {
  using Node = Fr;
  static Node node(std::span<const Node> children);
};

struct TreeShape {
  std::size_t base_arity = 2;
  std::size_t sub_arity = 0;  // 0: no sub-tree layer
  std::size_t top_arity = 0;  // 0: no top-tree layer

  std::size_t base_tree_count() const { return (sub_arity ? sub_arity : 1) * (top_arity ? top_arity : 1); }
};

// rfp `base_path_length` (levels inside one base tree) and `compound_path_length` (all levels).
std::size_t base_path_length(std::size_t leaves, const TreeShape& shape);
std::size_t path_length(std::size_t leaves, const TreeShape& shape);
// The arity of each path element, leaf level first.
std::vector<std::size_t> path_arities(std::size_t leaves, const TreeShape& shape);
// Throws std::invalid_argument unless `leaves` fills the shape exactly (rfp requires this).
void check_shape(std::size_t leaves, const TreeShape& shape);

template <class NodeT>
struct PathElement {
  std::vector<NodeT> siblings;  // arity - 1
  std::size_t index = 0;        // position of the current node among the arity children
};

// Full tree root.
template <class H>
typename H::Node tree_root(std::span<const typename H::Node> leaves, const TreeShape& shape);
// Inclusion path of leaf `leaf_index`.
template <class H>
std::vector<PathElement<typename H::Node>> tree_path(std::span<const typename H::Node> leaves,
                                                     const TreeShape& shape, std::size_t leaf_index);
// rfp `InclusionPath::root`: hash from the leaf up the path.
template <class H>
typename H::Node root_from_path(const typename H::Node& leaf,
                                std::span<const PathElement<typename H::Node>> path);

// rfp `path_index`: the leaf index the path's digits encode (given each element's arity).
template <class NodeT>
std::size_t path_leaf_index(std::span<const PathElement<NodeT>> path) {
  std::size_t index = 0, scale = 1;
  for (const PathElement<NodeT>& e : path) {
    index += e.index * scale;
    scale *= e.siblings.size() + 1;
  }
  return index;
}

// --- implementation of the templates ---

namespace detail {

template <class H>
std::vector<typename H::Node> next_level(std::span<const typename H::Node> level, std::size_t arity) {
  std::vector<typename H::Node> out;
  out.reserve(level.size() / arity);
  for (std::size_t i = 0; i < level.size(); i += arity) out.push_back(H::node(level.subspan(i, arity)));
  return out;
}

// All levels of one full `arity`-ary tree, leaves first, root last.
template <class H>
std::vector<std::vector<typename H::Node>> tree_levels(std::span<const typename H::Node> leaves,
                                                       std::size_t arity) {
  std::vector<std::vector<typename H::Node>> levels;
  levels.emplace_back(leaves.begin(), leaves.end());
  while (levels.back().size() > 1) levels.push_back(next_level<H>(levels.back(), arity));
  return levels;
}

template <class NodeT>
PathElement<NodeT> element_for(std::span<const NodeT> level, std::size_t arity, std::size_t position) {
  PathElement<NodeT> e;
  std::size_t group = position / arity * arity;
  e.index = position % arity;
  for (std::size_t k = 0; k < arity; ++k) {
    if (k != e.index) e.siblings.push_back(level[group + k]);
  }
  return e;
}

}  // namespace detail

template <class H>
typename H::Node tree_root(std::span<const typename H::Node> leaves, const TreeShape& shape) {
  check_shape(leaves.size(), shape);
  const std::size_t base_leaves = leaves.size() / shape.base_tree_count();
  std::vector<typename H::Node> roots;
  for (std::size_t b = 0; b < shape.base_tree_count(); ++b) {
    roots.push_back(detail::tree_levels<H>(leaves.subspan(b * base_leaves, base_leaves), shape.base_arity)
                        .back()
                        .front());
  }
  if (shape.sub_arity) roots = detail::next_level<H>(roots, shape.sub_arity);
  if (shape.top_arity) roots = detail::next_level<H>(roots, shape.top_arity);
  return roots.front();
}

template <class H>
std::vector<PathElement<typename H::Node>> tree_path(std::span<const typename H::Node> leaves,
                                                     const TreeShape& shape, std::size_t leaf_index) {
  using Node = typename H::Node;
  check_shape(leaves.size(), shape);
  if (leaf_index >= leaves.size()) throw std::out_of_range("merkle: leaf index out of range");
  const std::size_t base_leaves = leaves.size() / shape.base_tree_count();
  const std::size_t base_tree = leaf_index / base_leaves;
  std::vector<PathElement<Node>> path;

  std::vector<Node> base_roots;
  for (std::size_t b = 0; b < shape.base_tree_count(); ++b) {
    auto levels = detail::tree_levels<H>(leaves.subspan(b * base_leaves, base_leaves), shape.base_arity);
    if (b == base_tree) {
      std::size_t position = leaf_index % base_leaves;
      for (std::size_t l = 0; l + 1 < levels.size(); ++l) {
        path.push_back(detail::element_for<Node>(levels[l], shape.base_arity, position));
        position /= shape.base_arity;
      }
    }
    base_roots.push_back(levels.back().front());
  }
  if (shape.sub_arity) {
    path.push_back(detail::element_for<Node>(base_roots, shape.sub_arity, base_tree));
    if (shape.top_arity) {
      std::vector<Node> sub_roots = detail::next_level<H>(base_roots, shape.sub_arity);
      path.push_back(detail::element_for<Node>(sub_roots, shape.top_arity, base_tree / shape.sub_arity));
    }
  }
  return path;
}

template <class H>
typename H::Node root_from_path(const typename H::Node& leaf,
                                std::span<const PathElement<typename H::Node>> path) {
  typename H::Node current = leaf;
  std::vector<typename H::Node> children;
  for (const auto& e : path) {
    if (e.index > e.siblings.size()) throw std::invalid_argument("merkle: path index exceeds the arity");
    children.assign(e.siblings.begin(), e.siblings.end());
    children.insert(children.begin() + static_cast<std::ptrdiff_t>(e.index), current);
    current = H::node(children);
  }
  return current;
}

}  // namespace cuzk::gadgets::merkle
