#include "prover/gadgets/merkle_native.hpp"

#include <string>

#include "prover/gadgets/poseidon_native.hpp"
#include "prover/gadgets/sha256_native.hpp"

namespace cuzk::gadgets::merkle {

namespace {

bool is_power_of_two(std::size_t x) {
  return x != 0 && (x & (x - 1)) == 0;
}

// Number of levels above the leaves of a full `arity`-ary tree with `leaves` leaves; throws unless
// `leaves` is a power of `arity`.
std::size_t levels_above(std::size_t leaves, std::size_t arity) {
  std::size_t levels = 0;
  while (leaves > 1) {
    if (leaves % arity != 0) throw std::invalid_argument("merkle: leaf count is not a power of the arity");
    leaves /= arity;
    ++levels;
  }
  return levels;
}

}  // namespace

Sha256Hasher::Node Sha256Hasher::node(std::span<const Node> children) {
  std::vector<std::uint8_t> buffer;
  buffer.reserve(children.size() * 32);
  for (const Node& c : children) buffer.insert(buffer.end(), c.begin(), c.end());
  return native::sha256_trimmed(buffer);
}

PoseidonHasher::Node PoseidonHasher::node(std::span<const Node> children) {
  return poseidon::hash(children);
}

void check_shape(std::size_t leaves, const TreeShape& shape) {
  if (!is_power_of_two(shape.base_arity) || shape.base_arity < 2) {
    throw std::invalid_argument("merkle: base arity must be a power of two >= 2");
  }
  if (shape.sub_arity && !is_power_of_two(shape.sub_arity)) {
    throw std::invalid_argument("merkle: sub arity must be a power of two");
  }
  if (shape.top_arity && !is_power_of_two(shape.top_arity)) {
    throw std::invalid_argument("merkle: top arity must be a power of two");
  }
  if (shape.top_arity && !shape.sub_arity)
    throw std::invalid_argument("merkle: a top layer needs a sub layer");
  if (leaves == 0 || leaves % shape.base_tree_count() != 0) {
    throw std::invalid_argument("merkle: " + std::to_string(leaves) + " leaves do not fill the shape");
  }
  levels_above(leaves / shape.base_tree_count(), shape.base_arity);
}

std::size_t base_path_length(std::size_t leaves, const TreeShape& shape) {
  check_shape(leaves, shape);
  return levels_above(leaves / shape.base_tree_count(), shape.base_arity);
}

std::size_t path_length(std::size_t leaves, const TreeShape& shape) {
  return base_path_length(leaves, shape) + (shape.sub_arity ? 1 : 0) + (shape.top_arity ? 1 : 0);
}

std::vector<std::size_t> path_arities(std::size_t leaves, const TreeShape& shape) {
  std::vector<std::size_t> arities(base_path_length(leaves, shape), shape.base_arity);
  if (shape.sub_arity) arities.push_back(shape.sub_arity);
  if (shape.top_arity) arities.push_back(shape.top_arity);
  return arities;
}

}  // namespace cuzk::gadgets::merkle
