#include "prover/update/circuit.hpp"

#include <string>

#include "prover/gadgets/merkle_native.hpp"

namespace cuzk::update {
namespace {

// circuit.rs ChallengeProof::empty: TreeR paths (base levels, then sub, then top), TreeD binary.
PathSiblings blank_tree_r_path(const UpdateShape& shape) {
  PathSiblings path;
  for (std::size_t arity : gadgets::merkle::path_arities(shape.sector_nodes, shape.tree_r))
    path.emplace_back(arity - 1, Fr::zero());
  return path;
}

void check_path(const std::string& what, const PathSiblings& path, const std::vector<std::size_t>& arities) {
  if (path.size() != arities.size())
    throw UpdateError(what + " has " + std::to_string(path.size()) + " levels, the tree " +
                      std::to_string(arities.size()));
  for (std::size_t row = 0; row < path.size(); ++row) {
    if (path[row].size() + 1 != arities[row])
      throw UpdateError(what + " level " + std::to_string(row) + " has " + std::to_string(path[row].size()) +
                        " siblings, the tree's arity is " + std::to_string(arities[row]));
  }
}

}  // namespace

PartitionWitness PartitionWitness::blank(const UpdateShape& shape) {
  PartitionWitness w;
  w.apex_leafs.assign(shape.apex_leaf_count, Fr::zero());
  ChallengeWitness c;
  c.path_r_old = blank_tree_r_path(shape);
  c.path_r_new = c.path_r_old;
  c.path_d_new.assign(shape.challenge_bit_len, std::vector<Fr>(1, Fr::zero()));
  w.challenges.assign(shape.challenge_count, c);
  return w;
}

void check_witness_shape(const UpdateShape& shape, const PartitionWitness& w) {
  if (w.challenges.size() != shape.challenge_count)
    throw UpdateError("update witness has " + std::to_string(w.challenges.size()) +
                      " challenges, the circuit " + std::to_string(shape.challenge_count));
  if (w.apex_leafs.size() != shape.apex_leaf_count)
    throw UpdateError("update witness has " + std::to_string(w.apex_leafs.size()) +
                      " apex leaves, the circuit " + std::to_string(shape.apex_leaf_count));
  const std::vector<std::size_t> r_arities = gadgets::merkle::path_arities(shape.sector_nodes, shape.tree_r);
  const std::vector<std::size_t> d_arities(shape.challenge_bit_len, 2);
  const std::size_t partition_start = shape.challenge_bit_len - shape.partition_bit_len;
  for (std::size_t i = 0; i < w.challenges.size(); ++i) {
    const ChallengeWitness& c = w.challenges[i];
    const std::string where = "challenge " + std::to_string(i) + ": ";
    check_path(where + "path_r_old", c.path_r_old, r_arities);
    check_path(where + "path_r_new", c.path_r_new, r_arities);
    check_path(where + "path_d_new", c.path_d_new, d_arities);
    // Every challenge of the partition ends in the same partition path (circuit.rs asserts it).
    for (std::size_t row = partition_start; row < shape.challenge_bit_len; ++row) {
      if (c.path_d_new[row] != w.challenges[0].path_d_new[row])
        throw UpdateError(where + "its TreeDNew path leaves the partition path of challenge 0 at level " +
                          std::to_string(row));
    }
  }
}

}  // namespace cuzk::update
