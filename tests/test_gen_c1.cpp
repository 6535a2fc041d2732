// gen-c1: generated C1 outputs are internally consistent (validated, roots recomputed natively), and
// the tree D root of an all-zero 2KiB sector equals rust-fil-proofs' published comm_d.
#include <gtest/gtest.h>

#include "prover/porep/c1_file.hpp"
#include "prover/porep/c1_validate.hpp"
#include "prover/porep/challenges.hpp"
#include "prover/porep/errors.hpp"
#include "prover/porep/gen_c1.hpp"
#include "prover/porep/labels.hpp"
#include "prover/porep/sparse_tree.hpp"

using namespace cuzk::porep;

namespace {

// Recomputes a Merkle root from a leaf and a path (rfp InclusionPath::root), independently of SparseTree.
Domain root_from(const Domain& leaf, const std::vector<const InclusionPath*>& paths,
                 Domain (*hash)(const Domain*, unsigned)) {
  Domain cur = leaf;
  for (const InclusionPath* p : paths)
    for (const auto& e : p->path) {
      std::vector<Domain> children = e.hashes;
      children.insert(children.begin() + static_cast<std::ptrdiff_t>(e.index), cur);
      cur = hash(children.data(), static_cast<unsigned>(children.size()));
    }
  return cur;
}

Domain merkle_root(const MerkleProof& m, Domain (*hash)(const Domain*, unsigned)) {
  return root_from(m.leaf, {&m.base, &m.sub, &m.top}, hash);
}

void check_consistency(const GeneratedC1& g) {
  const C1Output& c1 = g.c1;
  ASSERT_NO_THROW(validate_c1(c1, "generated"));
  const RegisteredSealProof& proof = *c1.registered_proof;
  EXPECT_EQ(c1.replica_id, replica_id(g.prover_id, g.sector_id, c1.ticket, c1.comm_d, proof.porep_id()));
  Domain roots[2] = {g.comm_c, g.comm_r_last};
  EXPECT_EQ(c1.comm_r, poseidon_node(roots, 2));
  StackedGraph graph(proof.shape->nodes, proof.porep_id(), proof.api_version);
  for (unsigned k = 0; k < c1.vanilla_proofs.size(); ++k) {
    auto challenges = partition_challenges(proof, c1.replica_id, c1.comm_r, c1.seed, k);
    for (std::size_t i = 0; i < c1.vanilla_proofs[k].size(); ++i) {
      const ChallengeProof& p = c1.vanilla_proofs[k][i];
      EXPECT_EQ(p.labeling_proofs[0].node, challenges[i]);
      EXPECT_EQ(merkle_root(p.comm_d_proofs, sha256_node), c1.comm_d);
      EXPECT_EQ(merkle_root(p.comm_r_last_proof, poseidon_node), g.comm_r_last);
      const auto& rc = p.replica_column_proofs;
      std::vector<const ColumnProof*> columns = {&rc.c_x};
      for (const auto& c : rc.drg_parents) columns.push_back(&c);
      for (const auto& c : rc.exp_parents) columns.push_back(&c);
      std::uint32_t parents[kGraphParents];
      graph.parents(challenges[i], parents);
      for (std::size_t j = 0; j < columns.size(); ++j) {
        if (j > 0) EXPECT_EQ(columns[j]->column.index, parents[j - 1]);
        EXPECT_EQ(merkle_root(columns[j]->inclusion_proof, poseidon_node), g.comm_c);
      }
      // Each layer's label of the challenged node is the hash of its parents' labels from the columns.
      for (unsigned l = 1; l <= proof.shape->layers; ++l) {
        Domain parent_labels[37];
        for (unsigned q = 0; q < 37; ++q) {
          unsigned slot = l == 1 ? q % kDrgParents : q % kGraphParents;
          const Column& col = columns[1 + slot]->column;
          parent_labels[q] = slot < kDrgParents ? col.rows[l - 1] : col.rows[l - 2];
        }
        EXPECT_EQ(label_node(c1.replica_id, l, challenges[i], parent_labels), rc.c_x.column.rows[l - 1])
            << "partition " << k << " challenge " << i << " layer " << l;
      }
      // Encoding: replica leaf = data leaf + last label.
      cuzk::algebra::Fr sum =
          domain_to_fr(p.comm_d_proofs.leaf, "d") + domain_to_fr(rc.c_x.column.rows.back(), "k");
      EXPECT_EQ(sum, domain_to_fr(p.comm_r_last_proof.leaf, "r"));
    }
  }
}

}  // namespace

TEST(TreeD, EmptySectorCommDMatchesRustFilProofs) {
  // rfp filecoin-proofs/tests/pieces.rs test_compute_comm_d_empty (docs/circuit.md §9), 2KiB of zeros.
  SparseTree tree(std::vector<unsigned>(6, 2), sha256_node, Domain{});
  tree.build();
  Domain expected = {252, 126, 146, 130, 150, 229, 22, 250, 173, 233, 134, 178, 143, 146, 212, 74,
                     79,  36,  185, 53,  72,  82,  35, 55,  106, 121, 144, 39,  188, 24,  248, 51};
  EXPECT_EQ(tree.root(), expected);
}

TEST(GenC1, Dense2KiBAllKinds) {
  for (const char* name : {"StackedDrg2KiBV1", "StackedDrg2KiBV1_1", "StackedDrg2KiBV1_1_Feat_SyntheticPoRep",
                           "StackedDrg2KiBV1_2_Feat_NonInteractivePoRep"}) {
    SCOPED_TRACE(name);
    GenC1Options o;
    o.proof = find_registered_seal_proof(name);
    o.seed = 7;
    GeneratedC1 g = generate_c1(o);
    EXPECT_FALSE(g.sparse);
    check_consistency(g);
    // Deterministic in the seed, and the JSON round-trips.
    EXPECT_EQ(cuzk::porep::c1_to_json(generate_c1(o).c1), cuzk::porep::c1_to_json(g.c1));
    EXPECT_EQ(cuzk::porep::parse_c1_json(cuzk::porep::c1_to_json(g.c1), "g"), g.c1);
  }
}

TEST(GenC1, Sparse2KiBAnd32GiB) {
  for (const char* name : {"StackedDrg2KiBV1_1", "StackedDrg32GiBV1_1"}) {
    SCOPED_TRACE(name);
    GenC1Options o;
    o.proof = find_registered_seal_proof(name);
    o.seed = 3;
    o.sparse = true;
    GeneratedC1 g = generate_c1(o);
    EXPECT_TRUE(g.sparse);
    check_consistency(g);
  }
  GenC1Options ni;
  ni.proof = find_registered_seal_proof("StackedDrg32GiBV1_2_Feat_NonInteractivePoRep");
  EXPECT_THROW(generate_c1(ni), PorepError);
}
