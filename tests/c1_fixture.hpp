// A structurally valid C1 output with random (canonical) field elements, for parser and validator
// tests. Its paths, indices and commitments are consistent; its hashes are not (the circuit would
// reject it: that is gen-c1's job).
#pragma once

#include <random>

#include "prover/porep/vanilla_proof.hpp"

namespace cuzk::test {

inline porep::Domain random_domain(std::mt19937_64& rng) {
  porep::Domain d;
  for (auto& b : d) b = static_cast<std::uint8_t>(rng());
  d[31] &= 0x3f;  // below 2^254 < r: canonical
  return d;
}

inline porep::InclusionPath random_path(std::mt19937_64& rng, std::size_t length, unsigned arity,
                                        std::uint64_t& index) {
  porep::InclusionPath p;
  for (std::size_t i = 0; i < length; ++i) {
    porep::PathElement e;
    e.index = index % arity;
    index /= arity;
    for (unsigned j = 0; j + 1 < arity; ++j) e.hashes.push_back(random_domain(rng));
    p.path.push_back(std::move(e));
  }
  return p;
}

inline porep::MerkleProof random_tree_proof(std::mt19937_64& rng, const porep::SectorShape& s, std::uint64_t node,
                                            const porep::Domain& root) {
  porep::MerkleProof m;
  m.kind = s.top_arity ? porep::MerkleProof::Kind::kTop
           : s.sub_arity ? porep::MerkleProof::Kind::kSub
                         : porep::MerkleProof::Kind::kSingle;
  m.root = root;
  m.leaf = random_domain(rng);
  m.base = random_path(rng, s.base_path_length(), s.base_arity, node);
  if (s.sub_arity) m.sub = random_path(rng, 1, s.sub_arity, node);
  if (s.top_arity) m.top = random_path(rng, 1, s.top_arity, node);
  return m;
}

inline porep::ColumnProof random_column(std::mt19937_64& rng, const porep::SectorShape& s, std::uint64_t node,
                                        const porep::Domain& comm_c) {
  porep::ColumnProof c;
  c.column.index = static_cast<std::uint32_t>(node);
  for (unsigned l = 0; l < s.layers; ++l) c.column.rows.push_back(random_domain(rng));
  c.inclusion_proof = random_tree_proof(rng, s, node, comm_c);
  return c;
}

inline porep::C1Output random_c1(std::mt19937_64& rng, const char* registered_proof_name) {
  porep::C1Output c1;
  c1.registered_proof = porep::find_registered_seal_proof(registered_proof_name);
  const porep::SectorShape& s = *c1.registered_proof->shape;
  c1.vanilla_variant = std::string(s.vanilla_variant);
  c1.comm_r = random_domain(rng);
  c1.comm_d = random_domain(rng);
  c1.replica_id = random_domain(rng);
  c1.seed = random_domain(rng);
  c1.ticket = random_domain(rng);
  for (unsigned k = 0; k < c1.registered_proof->partitions(); ++k) {
    porep::Domain comm_c = random_domain(rng), comm_r_last = random_domain(rng);
    auto& partition = c1.vanilla_proofs.emplace_back();
    for (unsigned i = 0; i < s.challenges_per_partition; ++i) {
      std::uint64_t node = 1 + rng() % (s.nodes - 1);
      porep::ChallengeProof p;
      p.comm_d_proofs.kind = porep::MerkleProof::Kind::kSingle;
      p.comm_d_proofs.root = c1.comm_d;
      p.comm_d_proofs.leaf = random_domain(rng);
      std::uint64_t idx = node;
      p.comm_d_proofs.base = random_path(rng, s.tree_d_depth(), 2, idx);
      p.comm_r_last_proof = random_tree_proof(rng, s, node, comm_r_last);
      p.replica_column_proofs.c_x = random_column(rng, s, node, comm_c);
      for (int j = 0; j < 6; ++j)
        p.replica_column_proofs.drg_parents.push_back(random_column(rng, s, rng() % s.nodes, comm_c));
      for (int j = 0; j < 8; ++j)
        p.replica_column_proofs.exp_parents.push_back(random_column(rng, s, rng() % s.nodes, comm_c));
      for (unsigned l = 1; l <= s.layers; ++l) {
        porep::LabelingProof lp;
        for (int j = 0; j < 37; ++j) lp.parents.push_back(random_domain(rng));
        lp.layer_index = l;
        lp.node = node;
        p.labeling_proofs.push_back(std::move(lp));
      }
      p.encoding_proof = p.labeling_proofs.back();
      partition.push_back(std::move(p));
    }
  }
  return c1;
}

}  // namespace cuzk::test
