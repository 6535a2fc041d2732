// Merkle inclusion: rust-fil-proofs `storage-proofs-core/src/gadgets/por.rs` (`PoRCircuit::synthesize`,
// `SubPath::synthesize`) and `storage-proofs-porep/src/stacked/circuit/params.rs` `enforce_inclusion`
// (docs/circuit.md §6).
//
// Per path element (base levels, then the sub level, then the top level; namespaces "base"/"sub"/"top",
// then "merkle tree hash i"):
//   log2(arity) AllocatedBits of the element's index, LSB first ("index bit j"),
//   arity - 1 sibling AllocatedNums ("path element k"),
//   insert(cur, index bits, siblings)  (2 / 8 / 22 constraints for arity 2 / 4 / 8),
//   cur = hash_multi_leaf_circuit(inserted)  ("computation of commitment hash").
// Then pack_into_inputs of all index bits ("path"; one public input, equal to the leaf index) and
// constraint::equal(computed root, root) ("enforce root is correct").
//
// Path values are merkle::PathElement<Fr> (siblings and index). Systems without values only read the
// structure (the number of siblings per element), so a path of zeros with the right shape serves as
// rfp's blank circuit (see blank_path).
#pragma once

#include <cstddef>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "prover/algebra/bits.hpp"
#include "prover/gadgets/insertion.hpp"
#include "prover/gadgets/merkle_native.hpp"
#include "prover/gadgets/multipack.hpp"
#include "prover/gadgets/num.hpp"
#include "prover/gadgets/poseidon.hpp"
#include "prover/gadgets/sha256.hpp"

namespace cuzk::gadgets {

using merkle::TreeShape;
using PathElementValues = merkle::PathElement<Fr>;

// rfp PoseidonFunction::hash_multi_leaf_circuit: neptune legacy poseidon_hash with arity = children.
struct PoseidonTreeHash {
  template <class CS>
  static AllocatedNum hash(CS& cs, std::span<const AllocatedNum> children) {
    return poseidon_hash(cs, children);
  }
};

// rfp Sha256Function::hash_multi_leaf_circuit: to_bits_le of each child, SHA-256, pack 254 bits.
struct Sha256TreeHash {
  template <class CS>
  static AllocatedNum hash(CS& cs, std::span<const AllocatedNum> children) {
    return sha256_hash_multi_leaf_circuit(cs, children);
  }
};

// A path of the right shape with zero values (rfp `AuthPath::blank`), for systems without values.
inline std::vector<PathElementValues> blank_path(std::size_t leaves, const TreeShape& shape) {
  std::vector<PathElementValues> path;
  for (std::size_t arity : merkle::path_arities(leaves, shape)) {
    PathElementValues e;
    e.siblings.assign(arity - 1, Fr::zero());
    path.push_back(std::move(e));
  }
  return path;
}

namespace por_detail {

inline std::size_t log2_exact(std::size_t arity) {
  if (arity < 2 || (arity & (arity - 1)) != 0)
    throw std::invalid_argument("por: arity must be a power of two");
  return algebra::log2_floor(arity);
}

// rfp SubPath::synthesize over the given path elements.
template <class TreeHash, class CS>
AllocatedNum sub_path(CS& cs, AllocatedNum cur, std::span<const PathElementValues> path,
                      std::vector<Boolean>& all_bits) {
  for (std::size_t i = 0; i < path.size(); ++i) {
    const PathElementValues& element = path[i];
    auto ns = cs.push_namespace([&] { return "merkle tree hash " + std::to_string(i); });
    const std::size_t bit_count = log2_exact(element.siblings.size() + 1);
    std::vector<Boolean> index_bits;
    for (std::size_t j = 0; j < bit_count; ++j) {
      auto ns_bit = cs.push_namespace([&] { return "index bit " + std::to_string(j); });
      index_bits.push_back(AllocatedBit::alloc(cs, ((element.index >> j) & 1) != 0));
    }
    all_bits.insert(all_bits.end(), index_bits.begin(), index_bits.end());
    std::vector<AllocatedNum> siblings;
    for (std::size_t k = 0; k < element.siblings.size(); ++k) {
      auto ns_el = cs.push_namespace([&] { return "path element " + std::to_string(k); });
      siblings.push_back(AllocatedNum::alloc(cs, [&] { return element.siblings[k]; }));
    }
    std::vector<AllocatedNum> inserted = insert(cs, cur, index_bits, siblings);
    auto ns_hash = cs.push_namespace("computation of commitment hash");
    cur = TreeHash::hash(cs, std::span<const AllocatedNum>(inserted));
  }
  return cur;
}

}  // namespace por_detail

// Hashes `leaf` up `path` (base, sub, top as `shape` says) and returns the computed root; the index bits
// are appended to `index_bits` (base bits first), which then equal the leaf index LSB first.
template <class TreeHash, class CS>
AllocatedNum compute_merkle_root(CS& cs, const TreeShape& shape, const AllocatedNum& leaf,
                                 std::span<const PathElementValues> path, std::vector<Boolean>& index_bits) {
  const std::size_t extra = (shape.sub_arity ? 1 : 0) + (shape.top_arity ? 1 : 0);
  if (path.size() < extra) throw std::invalid_argument("por: path shorter than the shape's sub/top levels");
  const std::size_t base_len = path.size() - extra;
  auto check_arity = [&](std::span<const PathElementValues> part, std::size_t arity) {
    for (const PathElementValues& e : part) {
      if (e.siblings.size() + 1 != arity)
        throw std::invalid_argument("por: path element arity differs from shape");
    }
  };
  check_arity(path.subspan(0, base_len), shape.base_arity);
  AllocatedNum cur;
  {
    auto ns = cs.push_namespace("base");
    cur = por_detail::sub_path<TreeHash>(cs, leaf, path.subspan(0, base_len), index_bits);
  }
  std::size_t next = base_len;
  if (shape.sub_arity) {
    check_arity(path.subspan(next, 1), shape.sub_arity);
    auto ns = cs.push_namespace("sub");
    cur = por_detail::sub_path<TreeHash>(cs, cur, path.subspan(next++, 1), index_bits);
  }
  if (shape.top_arity) {
    check_arity(path.subspan(next, 1), shape.top_arity);
    auto ns = cs.push_namespace("top");
    cur = por_detail::sub_path<TreeHash>(cs, cur, path.subspan(next++, 1), index_bits);
  }
  return cur;
}

// rfp stacked `enforce_inclusion(cs, path, root, leaf)`: PoRCircuit with Root::Var leaf and root and
// private = true. Adds one public input (the leaf index).
template <class TreeHash, class CS>
void enforce_inclusion(CS& cs, const TreeShape& shape, std::span<const PathElementValues> path,
                       const AllocatedNum& root, const AllocatedNum& leaf) {
  std::vector<Boolean> bits;
  AllocatedNum computed = compute_merkle_root<TreeHash>(cs, shape, leaf, path, bits);
  {
    auto ns = cs.push_namespace("path");
    pack_into_inputs(cs, std::span<const Boolean>(bits));
  }
  enforce_equal(cs, "enforce root is correct", computed, root);
}

// rfp `PoRCircuit::synthesize` with Root::Val leaf and root (the circuit of rfp's por_circuit.rs tests):
// allocates the leaf ("value") first and the root ("root_value") after the packed index input; with
// private_root false the root is also inputized ("root").
template <class TreeHash, class CS>
void por_circuit(CS& cs, const TreeShape& shape, const Fr& leaf_value,
                 std::span<const PathElementValues> path, const Fr& root_value, bool private_root) {
  AllocatedNum leaf;
  {
    auto ns = cs.push_namespace("value");
    leaf = AllocatedNum::alloc(cs, [&] { return leaf_value; });
  }
  std::vector<Boolean> bits;
  AllocatedNum computed = compute_merkle_root<TreeHash>(cs, shape, leaf, path, bits);
  {
    auto ns = cs.push_namespace("path");
    pack_into_inputs(cs, std::span<const Boolean>(bits));
  }
  AllocatedNum root;
  {
    auto ns = cs.push_namespace("root_value");
    root = AllocatedNum::alloc(cs, [&] { return root_value; });
  }
  enforce_equal(cs, "enforce root is correct", computed, root);
  if (!private_root) {
    auto ns = cs.push_namespace("root");
    root.inputize(cs);
  }
}

}  // namespace cuzk::gadgets
