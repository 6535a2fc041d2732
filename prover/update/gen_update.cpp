#include "prover/update/gen_update.hpp"

#include <array>
#include <optional>
#include <string_view>

#include "prover/gadgets/merkle_native.hpp"
#include "prover/porep/hashing.hpp"
#include "prover/porep/sparse_tree.hpp"
#include "prover/update/errors.hpp"
#include "prover/update/randomness.hpp"

namespace cuzk::update {

namespace {

using porep::ChaCha8Rng;
using porep::Domain;
using porep::SparseTree;

// Dense instances keep every node of three trees in maps: 2^24 nodes is a few GB already.
constexpr std::uint64_t kMaxDenseNodes = std::uint64_t{1} << 24;
// Random old labels at random nodes of a sparse instance's TreeROld (the rest take its default label).
constexpr std::size_t kSparseRandomLabels = 64;

void say(const GenUpdateOptions& options, const std::string& message) {
  if (options.progress) options.progress(message);
}

ChaCha8Rng seeded_rng(std::uint64_t seed) {
  std::uint8_t seed_le[8];
  for (int b = 0; b < 8; ++b) seed_le[b] = static_cast<std::uint8_t>(seed >> (8 * b));
  constexpr std::string_view tag = "cuzk gen-update v1";
  return ChaCha8Rng(porep::sha256({{reinterpret_cast<const std::uint8_t*>(tag.data()), tag.size()},
                                   std::span<const std::uint8_t>(seed_le, 8)}));
}

// 32 random bytes with the top two bits clear: below 2^254, so always a canonical field element.
Domain random_fr32(ChaCha8Rng& rng) {
  Domain d;
  for (int i = 0; i < 4; ++i) {
    const std::uint64_t v = rng.next_u64();
    for (int b = 0; b < 8; ++b) d[8 * i + b] = static_cast<std::uint8_t>(v >> (8 * b));
  }
  d[31] &= 0x3f;
  return d;
}

Fr to_fr(const Domain& d) {
  Fr out;
  if (!Fr::from_bytes_le(d.data(), out)) throw UpdateError("gen-update: a node is not a field element");
  return out;
}

Domain to_domain(const Fr& value) {
  Domain out;
  value.to_bytes_le(out.data());
  return out;
}

// TreeR as one tree of levels: base levels of base arity, then sub, then top (sparse_tree.hpp).
std::vector<unsigned> tree_r_arities(const UpdateShape& shape) {
  const gadgets::merkle::TreeShape& t = shape.tree_r;
  std::vector<unsigned> a(gadgets::merkle::base_path_length(shape.sector_nodes, t),
                          static_cast<unsigned>(t.base_arity));
  if (t.sub_arity) a.push_back(static_cast<unsigned>(t.sub_arity));
  if (t.top_arity) a.push_back(static_cast<unsigned>(t.top_arity));
  return a;
}

SparseTree make_tree_r(const UpdateShape& shape, const Domain& default_leaf) {
  return SparseTree(tree_r_arities(shape), porep::poseidon_node, default_leaf);
}

SparseTree make_tree_d(const UpdateShape& shape) {
  return SparseTree(std::vector<unsigned>(shape.challenge_bit_len, 2), porep::sha256_node, Domain{});
}

Domain comm_r(const Domain& comm_c, const Domain& root) {
  const std::array<Fr, 2> children{to_fr(comm_c), to_fr(root)};
  return to_domain(gadgets::merkle::PoseidonHasher::node(children));
}

// The three trees of an instance. Sparse instances have no TreeRNew of their own: it is TreeROld.
struct Trees {
  SparseTree r_old, d_new;
  std::optional<SparseTree> r_new;
  const SparseTree& new_r() const { return r_new ? *r_new : r_old; }
};

// Random labels, random data, and labels_r_new[i] = labels_r_old[i] + data[i] * rho(phi, high(i)).
Trees build_dense(const UpdateShape& shape, std::size_t h, ChaCha8Rng& rng, GeneratedUpdate& g,
                  const GenUpdateOptions& options) {
  const std::uint64_t nodes = shape.sector_nodes;
  Trees t{make_tree_r(shape, Domain{}), make_tree_d(shape), make_tree_r(shape, Domain{})};
  say(options, "building TreeROld over " + std::to_string(nodes) + " random labels");
  std::vector<Fr> old_labels(nodes), data(nodes);
  for (std::uint64_t i = 0; i < nodes; ++i) {
    const Domain label = random_fr32(rng);
    old_labels[i] = to_fr(label);
    t.r_old.set_leaf(i, label);
  }
  t.r_old.build();
  g.comm_c = random_fr32(rng);
  g.root_r_old = t.r_old.root();
  g.comm_r_old = comm_r(g.comm_c, g.root_r_old);

  say(options, "building TreeDNew over " + std::to_string(nodes) + " random data nodes");
  for (std::uint64_t i = 0; i < nodes; ++i) {
    const Domain d = random_fr32(rng);
    data[i] = to_fr(d);
    t.d_new.set_leaf(i, d);
  }
  t.d_new.build();
  g.comm_d_new = t.d_new.root();

  say(options, "encoding and building TreeRNew");
  const Fr phi_value = phi(to_fr(g.comm_d_new), to_fr(g.comm_r_old));
  std::vector<std::optional<Fr>> rhos(std::size_t{1} << h);  // rho depends only on the h high bits
  for (std::uint64_t i = 0; i < nodes; ++i) {
    const std::uint32_t high = node_high_bits(shape, i, h);
    if (!rhos[high]) rhos[high] = rho(phi_value, high);
    t.r_new->set_leaf(i, to_domain(encode_node(old_labels[i], data[i], *rhos[high])));
  }
  t.r_new->build();
  g.root_r_new = t.r_new->root();
  g.comm_r_new = comm_r(g.comm_c, g.root_r_new);
  return t;
}

// No deal data (TreeDNew all zero): TreeRNew = TreeROld, a random default label and a few random ones.
Trees build_sparse(const UpdateShape& shape, ChaCha8Rng& rng, GeneratedUpdate& g) {
  Trees t{make_tree_r(shape, random_fr32(rng)), make_tree_d(shape), std::nullopt};
  for (std::size_t i = 0; i < kSparseRandomLabels; ++i) {
    const std::uint64_t node = rng.next_u64() & (shape.sector_nodes - 1);
    t.r_old.set_leaf(node, random_fr32(rng));
  }
  t.r_old.build();
  t.d_new.build();
  g.comm_c = random_fr32(rng);
  g.root_r_old = g.root_r_new = t.r_old.root();
  g.comm_r_old = g.comm_r_new = comm_r(g.comm_c, g.root_r_old);
  g.comm_d_new = t.d_new.root();
  return t;
}

// Partition k's vanilla proof as rfp's vanilla prover assembles it: comm_c, the partition's apex leaves
// (TreeDNew's nodes path_len_to_apex_leaf levels up) and per challenge the three Merkle proofs.
VanillaPartitionProof partition_proof(const UpdateShape& shape, const Trees& t, const GeneratedUpdate& g,
                                      std::size_t k) {
  VanillaPartitionProof v;
  v.comm_c = g.comm_c;
  for (std::size_t i = 0; i < shape.apex_leaf_count; ++i)
    v.apex_leafs.push_back(t.d_new.node(shape.path_len_to_apex_leaf(), k * shape.apex_leaf_count + i));
  const auto sub = static_cast<unsigned>(shape.tree_r.sub_arity);
  const auto top = static_cast<unsigned>(shape.tree_r.top_arity);
  for (std::uint64_t c : partition_challenges(shape, to_fr(g.comm_r_new), k)) {
    VanillaChallengeProof cp;
    cp.proof_r_old = t.r_old.proof(c, sub, top);
    cp.proof_d_new = t.d_new.proof(c, 0, 0);
    cp.proof_r_new = t.new_r().proof(c, sub, top);
    v.challenge_proofs.push_back(std::move(cp));
  }
  return v;
}

}  // namespace

GeneratedUpdate generate_update(const UpdateShape& shape, const GenUpdateOptions& options) {
  GeneratedUpdate g;
  g.shape = shape;
  g.h = shape.h_default();
  g.sparse = options.sparse.value_or(shape.sector_nodes > kDenseUpdateNodeLimit);
  if (!g.sparse && shape.sector_nodes > kMaxDenseNodes)
    throw UpdateError("gen-update: a dense instance of " + std::to_string(shape.sector_bytes()) +
                      " bytes would not fit in memory (at most " + std::to_string(kMaxDenseNodes << 5) +
                      "): use the sparse construction");
  ChaCha8Rng rng = seeded_rng(options.seed);
  const Trees trees = g.sparse ? build_sparse(shape, rng, g) : build_dense(shape, g.h, rng, g, options);
  say(options, "writing the vanilla proofs of " + std::to_string(shape.partition_count) + " partitions");
  for (std::size_t k = 0; k < shape.partition_count; ++k)
    g.vanilla_proofs.push_back(partition_proof(shape, trees, g, k));
  return g;
}

UpdateInput generate_update_input(const std::string& size_label, std::uint64_t sector_id,
                                  const GenUpdateOptions& options) {
  const RegisteredUpdateProof* proof = registered_update_proof_for_size(size_label);
  if (!proof) throw UpdateError("gen-update: no registered update proof for sector size " + size_label);
  GeneratedUpdate g = generate_update(proof->shape(), options);
  UpdateInput in;
  in.registered_proof = proof;
  in.sector_id = sector_id;
  in.comm_r_old = g.comm_r_old;
  in.comm_r_new = g.comm_r_new;
  in.comm_d_new = g.comm_d_new;
  in.vanilla_proofs = std::move(g.vanilla_proofs);
  return in;
}

}  // namespace cuzk::update
