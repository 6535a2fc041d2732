// The EmptySectorUpdate (SnapDeals) circuit of one partition: rust-fil-proofs
// `storage-proofs-update/src/circuit.rs` (`EmptySectorUpdateCircuit::synthesize`) with the gadgets of
// `storage-proofs-update/src/gadgets.rs` (apex_por, gen_challenge_bits, get_challenge_high_bits,
// label_r_new) and `storage-proofs-core/src/gadgets/por.rs` (`por_no_challenge_input`). docs/update.md
// walks through it.
//
// The sequence of alloc / alloc_input / enforce calls and their linear combinations are bellperson's, so
// the same Groth16 parameters serve both. Public inputs, in order: k_and_h_select, comm_r_old, comm_d_new,
// comm_r_new (randomness.hpp public_inputs computes them as the verifier does).
//
// Usage:
//   update::UpdateShape shape = update::UpdateShape::from_sector_bytes(bytes);
//   r1cs::Checker cs;
//   update::synthesize_update_circuit(cs, shape, witness);
// Counter and Recorder read no values: PartitionWitness::blank(shape) serves them (rfp's blank circuit).
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "prover/algebra/bls12_381.hpp"
#include "prover/gadgets/insertion.hpp"
#include "prover/gadgets/multipack.hpp"
#include "prover/gadgets/num.hpp"
#include "prover/gadgets/por.hpp"
#include "prover/gadgets/poseidon.hpp"
#include "prover/gadgets/sha256.hpp"
#include "prover/update/errors.hpp"
#include "prover/update/randomness.hpp"
#include "prover/update/shape.hpp"

namespace cuzk::update {

// Siblings of a Merkle path, one entry per level from the leaf up (base levels, then sub, then top); the
// circuit takes each level's insertion index from the challenge's bits, not from the path.
using PathSiblings = std::vector<std::vector<Fr>>;

// circuit.rs ChallengeProof: the challenged node in TreeROld, TreeDNew and TreeRNew. The circuit
// recomputes leaf_r_new from the other two leaves and rho, so it takes no leaf_r_new.
struct ChallengeWitness {
  Fr leaf_r_old, leaf_d_new;
  PathSiblings path_r_old, path_d_new, path_r_new;
};

// circuit.rs PublicInputs and PrivateInputs of one partition.
struct PartitionWitness {
  Fr k_and_h_select, comm_r_old, comm_d_new, comm_r_new;  // public, in the verifier's order
  Fr comm_c, root_r_old, root_r_new;
  std::vector<Fr> apex_leafs;  // this partition's apex leaves of TreeDNew
  std::vector<ChallengeWitness> challenges;

  // All values zero, every path of the shape's size (circuit.rs PrivateInputs::empty), for systems that
  // read only the structure.
  static PartitionWitness blank(const UpdateShape& shape);
};

// Throws UpdateError unless `w` has the shape's challenge and apex leaf counts and path lengths and
// arities, and every challenge shares the first one's partition path (circuit.rs' asserts).
void check_witness_shape(const UpdateShape& shape, const PartitionWitness& w);

namespace circuit_detail {

using gadgets::AllocatedBit;
using gadgets::AllocatedNum;
using gadgets::Boolean;
using gadgets::Variable;

template <class CS>
AllocatedNum alloc_named(CS& cs, const std::string& name, const Fr& value) {
  auto ns = cs.push_namespace(name);
  return AllocatedNum::alloc_value(cs, value);
}

// (Σ 2^i bits[i]) * ONE = num: the binary decomposition constraint of circuit.rs (k_and_h_select) and
// gadgets.rs allocated_num_to_allocated_bits (note: A is the sum, unlike AllocatedNum::to_bits_le).
template <class CS, class Name>
void enforce_decomposition(CS& cs, const Name& annotation, std::span<const AllocatedBit> bits,
                           const AllocatedNum& num) {
  using LC = typename CS::LC;
  LC sum;
  if constexpr (CS::kRecordsConstraints) {
    sum.reserve(static_cast<std::uint32_t>(bits.size()));
    for (std::size_t i = 0; i < bits.size(); ++i) sum.add(bits[i].variable(), r1cs::detail::pow2(i));
  }
  cs.enforce(annotation, sum, LC(Variable::one()), LC(num.variable()));
}

// gadgets.rs allocated_num_to_allocated_bits: Fr::NUM_BITS bits ("bit i") and "binary decomp".
template <class CS>
std::vector<AllocatedBit> num_to_bits(CS& cs, const AllocatedNum& num) {
  std::array<AllocatedBit, Fr::kBits> bits;
  gadgets::field_into_allocated_bits_le(cs, num.value(), bits.data());
  enforce_decomposition(cs, "binary decomp", std::span<const AllocatedBit>(bits), num);
  return {bits.begin(), bits.end()};
}

template <class CS>
AllocatedNum poseidon_gen_randomness(CS& cs, const AllocatedNum& a, const AllocatedNum& b) {
  const std::array<AllocatedNum, 2> preimage{a, b};
  return gadgets::poseidon_hash(cs, std::span<const AllocatedNum>(preimage), gen_randomness_constants());
}

// comm_r = H(comm_c || root_r), Poseidon-2 with the Merkle tree constants (rfp hash2_circuit).
template <class CS>
AllocatedNum poseidon_hash2(CS& cs, const AllocatedNum& a, const AllocatedNum& b) {
  const std::array<AllocatedNum, 2> preimage{a, b};
  return gadgets::poseidon_hash(cs, std::span<const AllocatedNum>(preimage));
}

// Allocates a path's siblings in rfp's order and namespaces ("<kind> sibling (c_index=.., tree_row=..,
// sibling_index=..)").
template <class CS>
std::vector<std::vector<AllocatedNum>> alloc_path(CS& cs, const char* kind, std::size_t c_index,
                                                  const PathSiblings& path, std::size_t levels) {
  std::vector<std::vector<AllocatedNum>> out(levels);
  for (std::size_t row = 0; row < levels; ++row) {
    for (std::size_t s = 0; s < path[row].size(); ++s) {
      auto ns = cs.push_namespace([&] {
        return std::string(kind) + " sibling (c_index=" + std::to_string(c_index) +
               ", tree_row=" + std::to_string(row) + ", sibling_index=" + std::to_string(s) + ")";
      });
      out[row].push_back(AllocatedNum::alloc_value(cs, path[row][s]));
    }
  }
  return out;
}

// por.rs por_no_challenge_input: hash `leaf` up the path, each level's insertion index taken from the
// next log2(arity) challenge bits (base, then sub, then top), then computed root * ONE = root.
template <class TreeHash, class CS>
void por_no_challenge_input(CS& cs, const gadgets::merkle::TreeShape& shape,
                            std::span<const AllocatedBit> bits, const AllocatedNum& leaf,
                            const std::vector<std::vector<AllocatedNum>>& path, const AllocatedNum& root) {
  using LC = typename CS::LC;
  const std::size_t extra = (shape.sub_arity ? 1 : 0) + (shape.top_arity ? 1 : 0);
  const std::size_t base_len = path.size() - extra;
  AllocatedNum cur = leaf;
  std::size_t next_bit = 0;
  for (std::size_t height = 0; height < path.size(); ++height) {
    const std::size_t arity =
        height < base_len ? shape.base_arity
                          : (height == base_len && shape.sub_arity ? shape.sub_arity : shape.top_arity);
    if (path[height].size() + 1 != arity)
      throw UpdateError("update circuit: path element arity differs from the tree");
    const std::size_t bit_count = static_cast<std::size_t>(std::countr_zero(arity));
    if (next_bit + bit_count > bits.size())
      throw UpdateError("update circuit: fewer challenge bits than path levels");
    std::vector<Boolean> index(bits.begin() + next_bit, bits.begin() + next_bit + bit_count);
    next_bit += bit_count;
    std::vector<AllocatedNum> preimage;
    {
      auto ns =
          cs.push_namespace([&] { return "merkle proof insert (height=" + std::to_string(height) + ")"; });
      preimage = gadgets::insert(cs, cur, std::span<const Boolean>(index),
                                 std::span<const AllocatedNum>(path[height]));
    }
    auto ns = cs.push_namespace([&] { return "merkle proof hash (height=" + std::to_string(height) + ")"; });
    cur = TreeHash::hash(cs, std::span<const AllocatedNum>(preimage));
  }
  if (next_bit != bits.size()) throw UpdateError("update circuit: challenge bits and tree arities disagree");
  cs.enforce("calculated root == provided root", LC(cur.variable()), LC(Variable::one()),
             LC(root.variable()));
}

// gadgets.rs apex_por: the partition's apex tree over `apex_leafs` (SHA-256 hash2, row by row), then its
// root proven in TreeDNew under comm_d along the partition path.
template <class CS>
void apex_por(CS& cs, const std::vector<AllocatedNum>& apex_leafs,
              std::span<const AllocatedBit> partition_bits,
              const std::vector<std::vector<AllocatedNum>>& partition_path, const AllocatedNum& comm_d) {
  std::vector<AllocatedNum> row = apex_leafs;
  for (std::size_t tree_row = 0; row.size() > 1; ++tree_row) {
    std::vector<AllocatedNum> parents;
    for (std::size_t i = 0; i + 1 < row.size(); i += 2) {
      auto ns = cs.push_namespace([&] {
        return "apex_tree generation hash (tree_row=" + std::to_string(tree_row) +
               ", siblings=" + std::to_string(i / 2) + ")";
      });
      parents.push_back(gadgets::sha256_hash2_circuit(cs, row[i], row[i + 1]));
    }
    row = std::move(parents);
  }
  auto ns = cs.push_namespace("partition-tree por");
  por_no_challenge_input<gadgets::Sha256TreeHash>(cs, gadgets::merkle::TreeShape{2, 0, 0}, partition_bits,
                                                  row[0], partition_path, comm_d);
}

// gadgets.rs gen_challenge_bits: per digest j, digest_index = k * digests + j (allocated and constrained),
// digest = H(comm_r_new || digest_index) as 255 bits, cut into challenges' random bits.
template <class CS>
std::vector<std::vector<AllocatedBit>> gen_challenge_bits(CS& cs, const UpdateShape& shape,
                                                          const AllocatedNum& comm_r_new,
                                                          const AllocatedNum& partition) {
  using LC = typename CS::LC;
  const std::size_t bits_per_challenge = shape.random_bits_per_challenge();
  const std::size_t per_digest = shape.challenges_per_digest();
  const std::size_t digests = shape.digests_per_partition();
  const Fr digests_fr = Fr::from_u64(digests);
  std::vector<std::vector<AllocatedBit>> generated;
  generated.reserve(shape.challenge_count);
  for (std::size_t j = 0; j < digests; ++j) {
    const Fr j_fr = Fr::from_u64(j);
    AllocatedNum digest_index;
    {
      auto ns = cs.push_namespace([&] { return "digest_index_" + std::to_string(j); });
      digest_index = AllocatedNum::alloc(cs, [&] { return partition.value() * digests_fr + j_fr; });
    }
    // rfp adds the constant j * ONE even for j = 0 (a zero coefficient), so the row is the same here.
    cs.enforce([&] { return "digest_index_" + std::to_string(j) + " == k * digests_per_partition + j"; },
               LC(partition.variable(), digests_fr).add(Variable::one(), j_fr), LC(Variable::one()),
               LC(digest_index.variable()));
    AllocatedNum digest;
    {
      auto ns = cs.push_namespace([&] { return "digest_" + std::to_string(j); });
      digest = poseidon_gen_randomness(cs, comm_r_new, digest_index);
    }
    std::vector<AllocatedBit> digest_bits;
    {
      auto ns = cs.push_namespace([&] { return "digest_" + std::to_string(j) + "_bits"; });
      digest_bits = num_to_bits(cs, digest);
    }
    const std::size_t take = j + 1 == digests ? shape.challenge_count - generated.size() : per_digest;
    for (std::size_t c = 0; c < take; ++c) {
      const auto first = digest_bits.begin() + static_cast<std::ptrdiff_t>(c * bits_per_challenge);
      generated.emplace_back(first, first + static_cast<std::ptrdiff_t>(bits_per_challenge));
    }
  }
  return generated;
}

// gadgets.rs get_challenge_high_bits: for each h of hs, the h high bits of the challenge packed and
// multiplied by its h_select bit; their sum is the selected high value.
template <class CS>
AllocatedNum challenge_high_bits(CS& cs, std::span<const AllocatedBit> c_bits,
                                 std::span<const AllocatedBit> h_select_bits,
                                 const std::array<std::size_t, kHsCount>& hs) {
  using LC = typename CS::LC;
  std::vector<Boolean> c_booleans(c_bits.begin(), c_bits.end());
  std::array<AllocatedNum, kHsCount> high_or_zero;
  for (std::size_t k = 0; k < kHsCount; ++k) {
    const std::size_t h = hs[k];
    auto label = [&] { return "(h=" + std::to_string(h) + ", k=" + std::to_string(k) + ")"; };
    AllocatedNum c_high;
    {
      auto ns = cs.push_namespace([&] { return "c_high " + label(); });
      c_high = gadgets::pack_bits(cs, std::span<const Boolean>(c_booleans).subspan(c_booleans.size() - h));
    }
    {
      auto ns = cs.push_namespace([&] { return "c_high_or_zero " + label(); });
      high_or_zero[k] =
          AllocatedNum::alloc(cs, [&] { return h_select_bits[k].value() ? c_high.value() : Fr::zero(); });
    }
    cs.enforce([&] { return "c_high_or_zero == c_high * h_select_bit " + label(); }, LC(c_high.variable()),
               LC(h_select_bits[k].variable()), LC(high_or_zero[k].variable()));
  }
  AllocatedNum selected;
  {
    auto ns = cs.push_namespace("c_high_selected");
    selected = AllocatedNum::alloc(cs, [&] {
      Fr sum = Fr::zero();
      for (const AllocatedNum& v : high_or_zero) sum += v.value();
      return sum;
    });
  }
  LC sum;
  for (const AllocatedNum& v : high_or_zero) sum.add(v.variable());
  cs.enforce("c_high_selected == dot(c_highs, h_select_bits)", sum, LC(Variable::one()),
             LC(selected.variable()));
  return selected;
}

// gadgets.rs label_r_new: label_d_new * rho ("label_d_new * rho"), then
// label_r_new = label_r_old + label_d_new * rho.
template <class CS>
AllocatedNum label_r_new(CS& cs, const AllocatedNum& label_r_old, const AllocatedNum& label_d_new,
                         const AllocatedNum& rho) {
  using LC = typename CS::LC;
  AllocatedNum product;
  {
    auto ns = cs.push_namespace("label_d_new * rho");
    product = label_d_new.mul(cs, rho);
  }
  AllocatedNum label;
  {
    auto ns = cs.push_namespace("label_r_new");
    label = AllocatedNum::alloc(cs, [&] { return label_r_old.value() + product.value(); });
  }
  cs.enforce("label_r_new == label_r_old + label_d_new * rho",
             LC(label_r_old.variable()).add(product.variable()), LC(Variable::one()), LC(label.variable()));
  return label;
}

// Public input 1: k_and_h_select allocated and inputized, then split into select_bit_len bits
// ("k_and_h_select_bit_i") bound to it by the binary decomposition constraint.
template <class CS>
std::vector<AllocatedBit> alloc_k_and_h_select_bits(CS& cs, const Fr& value, std::size_t select_bit_len) {
  const AllocatedNum k_and_h_select = alloc_named(cs, "k_and_h_select", value);
  {
    auto ns = cs.push_namespace("k_and_h_select (public input)");
    k_and_h_select.inputize(cs);
  }
  std::vector<AllocatedBit> select_bits;
  {
    typename Fr::Repr repr{};
    if constexpr (CS::kHasValues) repr = k_and_h_select.value().to_canonical();
    for (std::size_t i = 0; i < select_bit_len; ++i) {
      auto ns = cs.push_namespace([&] { return "k_and_h_select_bit_" + std::to_string(i); });
      select_bits.push_back(AllocatedBit::alloc(cs, ((repr[i / 64] >> (i % 64)) & 1) != 0));
    }
    enforce_decomposition(cs, "k_and_h_select binary decomp", std::span<const AllocatedBit>(select_bits),
                          k_and_h_select);
  }
  return select_bits;
}

// Public inputs 2-4: the value allocated under `name`, then inputized under `input_name`.
template <class CS>
AllocatedNum alloc_public_num(CS& cs, const char* name, const char* input_name, const Fr& value) {
  AllocatedNum num = alloc_named(cs, name, value);
  auto ns = cs.push_namespace(input_name);
  num.inputize(cs);
  return num;
}

// The partition path: the top partition_bit_len levels of the first challenge's TreeDNew path, one
// sibling per level ("partition_path_sibling_i").
template <class CS>
std::vector<std::vector<AllocatedNum>> alloc_partition_path(CS& cs, const UpdateShape& shape,
                                                            const PartitionWitness& w) {
  const std::size_t partition_bit_len = shape.partition_bit_len;
  std::vector<std::vector<AllocatedNum>> partition_path(partition_bit_len);
  const std::size_t partition_path_start = shape.challenge_bit_len - partition_bit_len;
  for (std::size_t i = 0; i < partition_bit_len; ++i) {
    partition_path[i].push_back(alloc_named(cs, "partition_path_sibling_" + std::to_string(i),
                                            w.challenges[0].path_d_new[partition_path_start + i][0]));
  }
  return partition_path;
}

// comm_r = H(comm_c || root), computed under `calc_name` and enforced equal to the public comm_r.
template <class CS>
void enforce_comm_r(CS& cs, const char* calc_name, const char* annotation, const AllocatedNum& comm_c,
                    const AllocatedNum& root, const AllocatedNum& comm_r) {
  using LC = typename CS::LC;
  AllocatedNum calc;
  {
    auto ns = cs.push_namespace(calc_name);
    calc = poseidon_hash2(cs, comm_c, root);
  }
  cs.enforce(annotation, LC(calc.variable()), LC(Variable::one()), LC(comm_r.variable()));
}

// The values every challenge of the partition reads, allocated once before the challenges.
struct SharedChallengeInputs {
  std::span<const AllocatedBit> partition_bits, h_select_bits;
  AllocatedNum phi, root_r_old, root_r_new;
  std::vector<AllocatedNum> apex_leafs;
};

// The challenged leaf's apex leaf, selected by the challenge bits just below the partition bits, and the
// challenged TreeDNew leaf proven under it along the first path_len_to_apex_leaf levels of its path.
template <class CS>
void prove_leaf_d_new_to_apex_leaf(CS& cs, const UpdateShape& shape, const ChallengeWitness& proof,
                                   std::size_t c_index, const std::vector<AllocatedBit>& c_bits,
                                   const std::vector<AllocatedNum>& apex_leafs,
                                   const AllocatedNum& leaf_d_new) {
  const gadgets::merkle::TreeShape tree_d{2, 0, 0};
  auto label = [&] { return " (c_index=" + std::to_string(c_index) + ")"; };
  const std::size_t to_apex = shape.path_len_to_apex_leaf();
  AllocatedNum apex_leaf;
  {
    const std::vector<Boolean> apex_bits(
        c_bits.begin() + static_cast<std::ptrdiff_t>(to_apex),
        c_bits.begin() + static_cast<std::ptrdiff_t>(to_apex + shape.apex_leaf_bit_len));
    auto ns = cs.push_namespace([&] { return "select_apex_leaf" + label(); });
    apex_leaf =
        gadgets::select(cs, std::span<const AllocatedNum>(apex_leafs), std::span<const Boolean>(apex_bits));
  }
  std::vector<std::vector<AllocatedNum>> path_to_apex(to_apex);
  for (std::size_t row = 0; row < to_apex; ++row) {
    auto ns = cs.push_namespace([&] {
      return "path_to_apex_leaf sibling (c_index=" + std::to_string(c_index) +
             ", tree_row=" + std::to_string(row) + ")";
    });
    path_to_apex[row].push_back(AllocatedNum::alloc_value(cs, proof.path_d_new[row][0]));
  }
  auto ns = cs.push_namespace([&] { return "por to_apex_leaf" + label(); });
  por_no_challenge_input<gadgets::Sha256TreeHash>(
      cs, tree_d, std::span<const AllocatedBit>(c_bits).first(to_apex), leaf_d_new, path_to_apex, apex_leaf);
}

// One challenge of circuit.rs synthesize: rho from its high bits, leaf_r_new from the old leaves and rho,
// both TreeR leaves proven under their roots, then leaf_d_new under its apex leaf.
template <class CS>
void synthesize_challenge(CS& cs, const UpdateShape& shape, const ChallengeWitness& proof,
                          std::size_t c_index, const std::vector<AllocatedBit>& random_bits,
                          const SharedChallengeInputs& shared) {
  auto label = [&] { return " (c_index=" + std::to_string(c_index) + ")"; };
  // The challenge: its random bits, then the partition bits (most significant).
  std::vector<AllocatedBit> c_bits = random_bits;
  c_bits.insert(c_bits.end(), shared.partition_bits.begin(), shared.partition_bits.end());

  AllocatedNum c_high;
  {
    auto ns = cs.push_namespace([&] { return "get_challenge_high_bits" + label(); });
    c_high = challenge_high_bits(cs, std::span<const AllocatedBit>(c_bits), shared.h_select_bits, shape.hs);
  }
  AllocatedNum rho;
  {
    auto ns = cs.push_namespace([&] { return "rho" + label(); });
    rho = poseidon_gen_randomness(cs, shared.phi, c_high);
  }

  const AllocatedNum leaf_r_old = alloc_named(cs, "leaf_r_old" + label(), proof.leaf_r_old);
  const AllocatedNum leaf_d_new = alloc_named(cs, "leaf_d_new" + label(), proof.leaf_d_new);
  AllocatedNum leaf_r_new;
  {
    auto ns = cs.push_namespace([&] { return "leaf_r_new" + label(); });
    leaf_r_new = circuit_detail::label_r_new(cs, leaf_r_old, leaf_d_new, rho);
  }

  const auto path_r_old = alloc_path(cs, "path_r_old", c_index, proof.path_r_old, proof.path_r_old.size());
  {
    auto ns = cs.push_namespace([&] { return "por tree_r_old" + label(); });
    por_no_challenge_input<gadgets::PoseidonTreeHash>(cs, shape.tree_r, std::span<const AllocatedBit>(c_bits),
                                                      leaf_r_old, path_r_old, shared.root_r_old);
  }
  const auto path_r_new = alloc_path(cs, "path_r_new", c_index, proof.path_r_new, proof.path_r_new.size());
  {
    auto ns = cs.push_namespace([&] { return "por tree_r_new" + label(); });
    por_no_challenge_input<gadgets::PoseidonTreeHash>(cs, shape.tree_r, std::span<const AllocatedBit>(c_bits),
                                                      leaf_r_new, path_r_new, shared.root_r_new);
  }

  prove_leaf_d_new_to_apex_leaf(cs, shape, proof, c_index, c_bits, shared.apex_leafs, leaf_d_new);
}

// What every challenge of a partition reads, made by synthesize_update_common: the select bits (which the
// shared spans point into), the shared values and each challenge's generated random bits.
struct UpdateCommon {
  std::vector<AllocatedBit> select_bits;
  SharedChallengeInputs shared;
  std::vector<std::vector<AllocatedBit>> generated;
};

}  // namespace circuit_detail

// circuit.rs EmptySectorUpdateCircuit::synthesize in two parts, so that the challenges can be computed apart
// (update/parallel_witness.hpp): synthesize_update_common allocates everything before the first challenge
// (public inputs, phi, the shared private inputs, the comm_r and apex checks, the generated challenge bits);
// synthesize_update_challenge then allocates challenge c_index, reading only `common` and the witness.
// Every challenge of a shape allocates the same variables: its gadgets depend only on the shape.
template <class CS>
circuit_detail::UpdateCommon synthesize_update_common(CS& cs, const UpdateShape& shape,
                                                      const PartitionWitness& w) {
  using namespace circuit_detail;
  check_witness_shape(shape, w);
  const std::size_t partition_bit_len = shape.partition_bit_len;
  const std::size_t select_bit_len = partition_bit_len + kHsCount;

  UpdateCommon common;
  // Public input 1: k and h_select packed into one element, split into bits.
  common.select_bits = alloc_k_and_h_select_bits(cs, w.k_and_h_select, select_bit_len);
  SharedChallengeInputs& shared = common.shared;
  shared.partition_bits = std::span<const AllocatedBit>(common.select_bits).first(partition_bit_len);
  shared.h_select_bits = std::span<const AllocatedBit>(common.select_bits).subspan(partition_bit_len);
  AllocatedNum partition;
  {
    auto ns = cs.push_namespace("pack partition bits");
    const std::vector<Boolean> bits(shared.partition_bits.begin(), shared.partition_bits.end());
    partition = gadgets::pack_bits(cs, std::span<const Boolean>(bits));
  }

  // Public inputs 2-4.
  const AllocatedNum comm_r_old = alloc_public_num(cs, "comm_r_old", "comm_r_old_input", w.comm_r_old);
  const AllocatedNum comm_d_new = alloc_public_num(cs, "comm_d_new", "comm_d_new_input", w.comm_d_new);
  const AllocatedNum comm_r_new = alloc_public_num(cs, "comm_r_new", "comm_r_new_input", w.comm_r_new);

  {
    auto ns = cs.push_namespace("phi");
    shared.phi = poseidon_gen_randomness(cs, comm_d_new, comm_r_old);
  }

  // Private inputs other than the challenges' paths.
  const AllocatedNum comm_c = alloc_named(cs, "comm_c", w.comm_c);
  shared.root_r_old = alloc_named(cs, "root_r_old", w.root_r_old);
  shared.root_r_new = alloc_named(cs, "root_r_new", w.root_r_new);
  shared.apex_leafs.reserve(w.apex_leafs.size());
  for (std::size_t i = 0; i < w.apex_leafs.size(); ++i)
    shared.apex_leafs.push_back(alloc_named(cs, "apex_leaf_" + std::to_string(i), w.apex_leafs[i]));
  const std::vector<std::vector<AllocatedNum>> partition_path = alloc_partition_path(cs, shape, w);

  // comm_r_old = H(comm_c || root_r_old), comm_r_new = H(comm_c || root_r_new).
  enforce_comm_r(cs, "comm_r_old_calc", "enforce comm_r_old_calc == comm_r_old", comm_c, shared.root_r_old,
                 comm_r_old);
  enforce_comm_r(cs, "comm_r_new_calc", "enforce comm_r_new_calc == comm_r_new", comm_c, shared.root_r_new,
                 comm_r_new);

  {
    auto ns = cs.push_namespace("apex_gadget");
    apex_por(cs, shared.apex_leafs, shared.partition_bits, partition_path, comm_d_new);
  }

  {
    auto ns = cs.push_namespace("gen_challenge_bits");
    common.generated = gen_challenge_bits(cs, shape, comm_r_new, partition);
  }
  return common;
}

template <class CS>
void synthesize_update_challenge(CS& cs, const UpdateShape& shape, const PartitionWitness& w,
                                 const circuit_detail::UpdateCommon& common, std::size_t c_index) {
  circuit_detail::synthesize_challenge(cs, shape, w.challenges[c_index], c_index, common.generated[c_index],
                                       common.shared);
}

// circuit.rs EmptySectorUpdateCircuit::synthesize. Throws UpdateError when `w` does not fit `shape`.
template <class CS>
void synthesize_update_circuit(CS& cs, const UpdateShape& shape, const PartitionWitness& w) {
  const circuit_detail::UpdateCommon common = synthesize_update_common(cs, shape, w);
  for (std::size_t c_index = 0; c_index < shape.challenge_count; ++c_index)
    synthesize_update_challenge(cs, shape, w, common, c_index);
}

}  // namespace cuzk::update
