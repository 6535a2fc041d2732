// pce/porep_pce: the PoRep partition circuit through the PCE path against direct evaluation, and its cache.
#include "tests/pce_test_support.hpp"

namespace cuzk::pce {
namespace {

// rfp storage-proofs-porep/tests/stacked_circuit.rs: 2 layers, 1 challenge, nodes = 8 x base tree count,
// tree shapes 2-0-0, 8-0-0, 8-4-0 and 8-4-2 (docs/circuit.md §9).
TEST(PcePorep, OneChallengeTestCircuitsMatchDirectEvaluation) {
  auto rng = test::seeded_rng("PcePorep.OneChallengeTestCircuitsMatchDirectEvaluation");
  struct Arities {
    unsigned base, sub, top;
  };
  for (const Arities& a : {Arities{2, 0, 0}, Arities{8, 0, 0}, Arities{8, 4, 0}, Arities{8, 4, 2}}) {
    porep::StackedCircuitShape shape;
    shape.base_arity = a.base;
    shape.sub_arity = a.sub;
    shape.top_arity = a.top;
    shape.nodes = 8ull * (a.sub ? a.sub : 1) * (a.top ? a.top : 1);
    shape.layers = 2;
    shape.challenges = 1;
    expect_pce_matches_direct(PorepCircuit{shape, random_witness(shape, rng)},
                              porep_circuit_description(shape), {2u}, /*satisfied=*/false);
  }
}

TEST(PcePorep, Sector2KiBMatchesDirectEvaluation) {
  const porep::GeneratedC1 g = generated("StackedDrg2KiBV1_1", 5, false);
  const auto shape = porep::StackedCircuitShape::from_sector(*g.c1.registered_proof->shape);
  expect_pce_matches_direct(PorepCircuit{shape, porep::PartitionWitness::from_c1(g.c1, 0)},
                            porep_circuit_description(shape), {2u});
}

TEST(PcePorep, Sector8MiBMatchesDirectEvaluation) {
  const porep::GeneratedC1 g = generated("StackedDrg8MiBV1_1", 6, true);
  const auto shape = porep::StackedCircuitShape::from_sector(*g.c1.registered_proof->shape);
  expect_pce_matches_direct(PorepCircuit{shape, porep::PartitionWitness::from_c1(g.c1, 0)},
                            porep_circuit_description(shape), {2u});
}

// load_or_build_porep, then the proving path: the loaded PCE gives the same ProverInput as a freshly
// built one.
TEST(PcePorep, CacheRoundTrip2KiB) {
  io::TempDir dir("cuzk_pce_");
  const porep::GeneratedC1 g = generated("StackedDrg2KiBV1", 7, false);
  const auto shape = porep::StackedCircuitShape::from_sector(*g.c1.registered_proof->shape);
  const CacheKey key = porep_cache_key(shape);
  EXPECT_EQ(key.name, "stacked-drg-2KiB-c2-8-0-0");
  EXPECT_EQ(key.description, "stacked-drg r1 nodes=64 layers=2 challenges=2 arities=8-0-0");
  const LoadResult built = load_or_build_porep(dir.path(), shape);
  ASSERT_TRUE(built.built);
  EXPECT_EQ(built.pce.num_constraints(), 2'687'921u);  // docs/circuit.md §9
  EXPECT_EQ(built.pce.num_inputs, 40u);
  const LoadResult loaded = load_or_build_porep(dir.path(), shape, /*readonly=*/true);
  ASSERT_FALSE(loaded.built);
  EXPECT_EQ(loaded.pce, built.pce);
  const porep::PartitionWitness w = porep::PartitionWitness::from_c1(g.c1, 0);
  const groth16::ProverInput in = porep_prover_input(loaded.pce, shape, w, 2);
  EXPECT_EQ(groth16::first_unsatisfied(in), std::nullopt);
}

// The forged file of the hostile-input campaign, the demo circuit's matrices under the
// 2KiB PoRep circuit's name and description with every checksum consistent, was used; its faults were then
// blamed on the parameters or the C1. The production key carries the built-in figures, and the load
// checks them: a corrupt cache (rebuilt, or with --pce-readonly kReadonly, exit 9).
TEST(PcePorep, ForgedCacheOfConsistentChecksumsIsRefused) {
  io::TempDir dir("cuzk_pce_");
  const auto shape = porep::StackedCircuitShape::from_sector(*porep::parse_sector_size("2KiB"));
  const CacheKey key = porep_cache_key(shape);
  ASSERT_TRUE(key.figures.has_value());
  EXPECT_EQ(key.figures->constraints, 2'687'921u);  // docs/circuit.md §9
  const CompactR1cs demo = compact(groth16::make_demo_circuit().cs);
  write_cache_file(cache_path(dir.path(), key), demo, key.description);
  try {
    (void)load_or_build_porep(dir.path(), shape, /*readonly=*/true);
    ADD_FAILURE() << "a forged 2KiB cache was used";
  } catch (const PceError& e) {
    EXPECT_EQ(e.kind(), PceErrorKind::kReadonly) << e.what();
    EXPECT_NE(std::string(e.what()).find("2687921 constraints, 40 inputs, 2685673 aux"), std::string::npos)
        << e.what();
  }
  // A test shape (not a production one) has no built-in figures.
  porep::StackedCircuitShape small = shape;
  small.challenges = 1;
  EXPECT_FALSE(porep_cache_key(small).figures.has_value());
}

}  // namespace
}  // namespace cuzk::pce
