#include "prover/porep/gen_c1.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <string_view>

#include "prover/gadgets/poseidon_native.hpp"
#include "prover/porep/challenges.hpp"
#include "prover/porep/errors.hpp"
#include "prover/porep/graph.hpp"
#include "prover/porep/hashing.hpp"
#include "prover/porep/labels.hpp"
#include "prover/porep/sparse_tree.hpp"

namespace cuzk::porep {

namespace {

constexpr std::uint64_t kDenseNodeLimit = 1ull << 18;  // 8MiB: the largest size sealed for real by default

std::span<const std::uint8_t> bytes_of(std::string_view s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

Domain random_bytes(ChaCha8Rng& rng) {
  Domain d;
  for (int i = 0; i < 4; ++i) {
    std::uint64_t v = rng.next_u64();
    for (int b = 0; b < 8; ++b) d[8 * i + b] = static_cast<std::uint8_t>(v >> (8 * b));
  }
  return d;
}

Domain random_fr32(ChaCha8Rng& rng) {
  Domain d = random_bytes(rng);
  d[31] &= 0x3f;  // fr32 padding: every 32-byte node of sector data is a valid Fr
  return d;
}

Domain add_fr(const Domain& a, const Domain& b) {
  algebra::Fr sum = domain_to_fr(a, "data") + domain_to_fr(b, "key");
  Domain out;
  sum.to_bytes_le(out.data());
  return out;
}

Domain column_hash(const std::vector<Domain>& rows) {
  std::vector<algebra::Fr> preimage;
  for (const auto& r : rows) preimage.push_back(domain_to_fr(r, "label"));
  algebra::Fr h = gadgets::poseidon::hash(preimage);
  Domain out;
  h.to_bytes_le(out.data());
  return out;
}

std::vector<unsigned> tree_arities(const SectorShape& s) {
  std::vector<unsigned> a(s.base_path_length(), s.base_arity);
  if (s.sub_arity) a.push_back(s.sub_arity);
  if (s.top_arity) a.push_back(s.top_arity);
  return a;
}

// Labels by (layer, node): dense vectors or a sparse map with default 0.
class LabelStore {
 public:
  LabelStore(unsigned layers, std::uint64_t nodes, bool dense) : dense_(dense) {
    if (dense) full_.assign(layers, std::vector<Domain>(nodes));
    else sparse_.resize(layers);
  }
  Domain get(unsigned layer, std::uint64_t node) const {
    if (dense_) return full_[layer - 1][node];
    auto it = sparse_[layer - 1].find(node);
    return it == sparse_[layer - 1].end() ? Domain{} : it->second;
  }
  void set(unsigned layer, std::uint64_t node, const Domain& v) {
    if (dense_) full_[layer - 1][node] = v;
    else sparse_[layer - 1][node] = v;
  }
  std::vector<std::vector<Domain>>& full() { return full_; }

 private:
  bool dense_;
  std::vector<std::vector<Domain>> full_;
  std::vector<std::map<std::uint64_t, Domain>> sparse_;
};

void label_parents(const StackedGraph& graph, const LabelStore& labels, unsigned layer, std::uint64_t node,
                   Domain out[kLabelParents]) {
  std::uint32_t parents[kGraphParents];
  graph.parents(node, parents);
  for (unsigned i = 0; i < kLabelParents; ++i) {
    if (layer == 1) {
      out[i] = labels.get(1, parents[i % kDrgParents]);
    } else {
      unsigned p = i % kGraphParents;
      out[i] = p < kDrgParents ? labels.get(layer, parents[p]) : labels.get(layer - 1, parents[p]);
    }
  }
}

// A progress message, where the caller asked for them.
void say(const GenC1Options& options, const std::string& message) {
  if (options.progress) options.progress(message);
}

// The generator's RNG: ChaCha8 seeded with sha256("cuzk gen-c1 v1" || the seed's 8 little-endian bytes).
ChaCha8Rng seeded_rng(std::uint64_t seed) {
  std::uint8_t seed_le[8];
  for (int b = 0; b < 8; ++b) seed_le[b] = static_cast<std::uint8_t>(seed >> (8 * b));
  return ChaCha8Rng(sha256({bytes_of("cuzk gen-c1 v1"), std::span<const std::uint8_t>(seed_le, 8)}));
}

// Tree D over the data: random fr32 nodes kept in `data` (dense), or all zero (sparse, `data` empty).
SparseTree build_tree_d(const GenC1Options& options, const SectorShape& shape, bool sparse, ChaCha8Rng& rng,
                        std::vector<Domain>& data) {
  const std::uint64_t nodes = shape.nodes;
  std::vector<unsigned> d_arities(shape.tree_d_depth(), 2);
  SparseTree tree_d(d_arities, sha256_node, Domain{});
  if (!sparse) {
    say(options, "generating " + std::to_string(nodes) + " data nodes");
    data.resize(nodes);
    for (std::uint64_t v = 0; v < nodes; ++v) {
      data[v] = random_fr32(rng);
      tree_d.set_leaf(v, data[v]);
    }
  }
  tree_d.build();
  return tree_d;
}

// The sparse construction's labels: every partition's interactive challenges (they depend only on
// replica_id and seed) and their parents are materialized; the parents get random labels, the challenged
// nodes labels computed from their parents as SDR does. Returns the materialized nodes.
std::set<std::uint64_t> materialize_sparse_labels(const RegisteredSealProof& proof, const StackedGraph& graph,
                                                  const C1Output& c1, ChaCha8Rng& rng, LabelStore& labels) {
  const SectorShape& shape = *proof.shape;
  const std::uint64_t nodes = shape.nodes;
  std::set<std::uint64_t> challenged, materialized;
  for (unsigned k = 0; k < proof.partitions(); ++k)
    for (std::uint64_t c : interactive_challenges(
             nodes, c1.replica_id, c1.seed, shape.challenges_per_partition, static_cast<std::uint8_t>(k)))
      challenged.insert(c);
  materialized = challenged;
  for (std::uint64_t c : challenged) {
    std::uint32_t parents[kGraphParents];
    graph.parents(c, parents);
    materialized.insert(parents, parents + kGraphParents);
  }
  for (std::uint64_t v : materialized) {
    if (challenged.count(v)) continue;
    for (unsigned l = 1; l <= shape.layers; ++l) labels.set(l, v, random_fr32(rng));
  }
  // Challenged labels layer by layer, ascending: DRG parents are smaller nodes of the same layer,
  // expander parents come from the previous layer, so every input is final when it is read.
  Domain parents[kLabelParents];
  for (unsigned l = 1; l <= shape.layers; ++l)
    for (std::uint64_t c : challenged) {
      label_parents(graph, labels, l, c, parents);
      labels.set(l, c, label_node(c1.replica_id, l, c, parents));
    }
  return materialized;
}

// Node v's column: its label in every layer.
Column column_of(const LabelStore& labels, unsigned layers, std::uint64_t v) {
  Column col;
  col.index = static_cast<std::uint32_t>(v);
  for (unsigned l = 1; l <= layers; ++l) col.rows.push_back(labels.get(l, v));
  return col;
}

// The leaves of tree C (column hashes) and tree R_last (data + last label): every node when dense, the
// materialized nodes over zero data when sparse.
void set_tree_c_and_r_leaves(const SectorShape& shape, bool sparse, const LabelStore& labels,
                             const std::vector<Domain>& data, const std::set<std::uint64_t>& materialized,
                             SparseTree& tree_c, SparseTree& tree_r) {
  const std::uint64_t nodes = shape.nodes;
  if (!sparse) {
    for (std::uint64_t v = 0; v < nodes; ++v) {
      tree_c.set_leaf(v, column_hash(column_of(labels, shape.layers, v).rows));
      tree_r.set_leaf(v, add_fr(data[v], labels.get(shape.layers, v)));
    }
  } else {
    for (std::uint64_t v : materialized) {
      tree_c.set_leaf(v, column_hash(column_of(labels, shape.layers, v).rows));
      tree_r.set_leaf(v, add_fr(Domain{}, labels.get(shape.layers, v)));
    }
  }
}

// What the vanilla proofs open: the graph, the labels, the data (dense only) and the three trees.
struct ProofSources {
  const SectorShape& shape;
  bool sparse;
  const StackedGraph& graph;
  const LabelStore& labels;
  const std::vector<Domain>& data;
  const SparseTree& tree_d;
  const SparseTree& tree_c;
  const SparseTree& tree_r;
};

// Node v's column and its inclusion proof in tree C.
ColumnProof column_proof(const ProofSources& src, std::uint64_t v) {
  ColumnProof cp;
  cp.column = column_of(src.labels, src.shape.layers, v);
  cp.inclusion_proof = src.tree_c.proof(v, src.shape.sub_arity, src.shape.top_arity);
  return cp;
}

// The vanilla proof of challenge c: its tree D and tree R_last openings, the columns of c and its
// parents, and c's labeling proof in every layer (the last one is also its encoding proof).
ChallengeProof challenge_proof(const ProofSources& src, std::uint64_t c) {
  const SectorShape& shape = src.shape;
  auto data_at = [&](std::uint64_t v) { return src.sparse ? Domain{} : src.data[v]; };
  ChallengeProof p;
  p.comm_d_proofs = src.tree_d.proof(c, 0, 0);
  if (!src.sparse && p.comm_d_proofs.leaf != data_at(c)) throw PorepError("gen-c1: internal tree D mismatch");
  p.comm_r_last_proof = src.tree_r.proof(c, shape.sub_arity, shape.top_arity);
  p.replica_column_proofs.c_x = column_proof(src, c);
  std::uint32_t parents[kGraphParents];
  src.graph.parents(c, parents);
  for (unsigned j = 0; j < kDrgParents; ++j)
    p.replica_column_proofs.drg_parents.push_back(column_proof(src, parents[j]));
  for (unsigned j = kDrgParents; j < kGraphParents; ++j)
    p.replica_column_proofs.exp_parents.push_back(column_proof(src, parents[j]));
  for (unsigned l = 1; l <= shape.layers; ++l) {
    LabelingProof lp;
    lp.parents.resize(kLabelParents);
    label_parents(src.graph, src.labels, l, c, lp.parents.data());
    lp.layer_index = l;
    lp.node = c;
    p.labeling_proofs.push_back(std::move(lp));
  }
  p.encoding_proof = p.labeling_proofs.back();  // rfp EncodingProof: the last layer's parents
  return p;
}

}  // namespace

GeneratedC1 generate_c1(const GenC1Options& options) {
  if (!options.proof) throw PorepError("gen-c1: no registered proof given");
  const RegisteredSealProof& proof = *options.proof;
  const SectorShape& shape = *proof.shape;
  const bool sparse = options.sparse.value_or(shape.nodes > kDenseNodeLimit);
  if (sparse && proof.feature != PorepFeature::kInteractive)
    throw PorepError("gen-c1: " + std::string(proof.name) +
                     " derives its challenges from comm_r; the sparse construction needs interactive "
                     "challenges (use a V1 or V1_1 proof, or --dense for small sizes)");

  ChaCha8Rng rng = seeded_rng(options.seed);

  GeneratedC1 out;
  out.sparse = sparse;
  out.sector_id = options.sector_id;
  out.prover_id = prover_id_from_miner_id(options.miner_id);
  C1Output& c1 = out.c1;
  c1.registered_proof = &proof;
  c1.vanilla_variant = std::string(shape.vanilla_variant);
  c1.ticket = random_bytes(rng);
  do {
    c1.seed = random_bytes(rng);
  } while (std::all_of(c1.seed.begin(), c1.seed.end(), [](std::uint8_t b) { return b == 0; }));

  const std::uint64_t nodes = shape.nodes;
  StackedGraph graph(nodes, proof.porep_id(), proof.api_version);

  std::vector<Domain> data;
  const SparseTree tree_d = build_tree_d(options, shape, sparse, rng, data);
  c1.comm_d = tree_d.root();
  c1.replica_id = replica_id(out.prover_id, options.sector_id, c1.ticket, c1.comm_d, proof.porep_id());

  // Labels.
  LabelStore labels(shape.layers, nodes, !sparse);
  std::set<std::uint64_t> materialized;
  if (!sparse) {
    say(options, "labelling " + std::to_string(shape.layers) + " layers");
    labels.full() = generate_labels(graph, shape.layers, c1.replica_id);
  } else {
    materialized = materialize_sparse_labels(proof, graph, c1, rng, labels);
  }

  // Tree C over column hashes and tree R_last over the replica.
  say(options, "building tree C and tree R_last");
  std::vector<Domain> default_column(shape.layers, Domain{});
  SparseTree tree_c(tree_arities(shape), poseidon_node, column_hash(default_column));
  SparseTree tree_r(tree_arities(shape), poseidon_node, Domain{});  // zero data + zero label
  set_tree_c_and_r_leaves(shape, sparse, labels, data, materialized, tree_c, tree_r);
  tree_c.build();
  tree_r.build();
  out.comm_c = tree_c.root();
  out.comm_r_last = tree_r.root();
  Domain roots[2] = {out.comm_c, out.comm_r_last};
  c1.comm_r = poseidon_node(roots, 2);

  // Vanilla proofs.
  say(options, "writing vanilla proofs");
  const ProofSources src{shape, sparse, graph, labels, data, tree_d, tree_c, tree_r};
  for (unsigned k = 0; k < proof.partitions(); ++k) {
    auto& partition = c1.vanilla_proofs.emplace_back();
    for (std::uint64_t c : partition_challenges(proof, c1.replica_id, c1.comm_r, c1.seed, k))
      partition.push_back(challenge_proof(src, c));
  }
  return out;
}

}  // namespace cuzk::porep
