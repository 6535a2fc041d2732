// pce/update_pce.hpp: the update (SnapDeals) circuit's cache key, its PCE, and the prover input built from
// a generated 2KiB input, checked constraint by constraint; and update::sector_public_inputs, what
// `cuzk verify --update` checks proofs against, equal to the prover's public inputs.
#include <gtest/gtest.h>

#include <string>

#include "io/temp_dir.hpp"
#include "pce/porep_pce.hpp"
#include "pce/update_pce.hpp"
#include "prover/porep/registered_proof.hpp"
#include "prover/update/gen_update.hpp"
#include "prover/update/input_file.hpp"

namespace cuzk {
namespace {

TEST(UpdatePce, CacheKeyNamesTheCircuitAndItsShape) {
  const update::UpdateShape two_kib = update::UpdateShape::from_sector_bytes(2048);
  const pce::CacheKey key = pce::update_cache_key(two_kib);
  EXPECT_EQ(key.name, "empty-sector-update-2KiB");
  EXPECT_EQ(key.description.rfind("empty-sector-update r1 nodes=64 ", 0), 0u) << key.description;
  const pce::CacheKey big =
      pce::update_cache_key(update::UpdateShape::from_sector_bytes(std::uint64_t{32} << 30));
  EXPECT_EQ(big.name, "empty-sector-update-32GiB");
  EXPECT_NE(big.description, key.description);
  // Never the PoRep circuit's file.
  const auto porep_shape = porep::StackedCircuitShape::from_sector(*porep::find_sector_shape(2048));
  EXPECT_NE(pce::porep_cache_key(porep_shape).name, key.name);
}

TEST(UpdatePce, TwoKiBProverInputSatisfiesEveryConstraint) {
  const update::UpdateShape& shape = update::find_registered_update_proof("StackedDrg2KiBV1")->shape();
  io::TempDir dir("cuzk-update-pce-");
  const pce::LoadResult built = pce::load_or_build_update(dir.path(), shape);
  EXPECT_TRUE(built.built);
  // The figures of `cuzk circuit info --circuit update --sector-size 2KiB`.
  EXPECT_EQ(built.pce.num_constraints(), 1'705'039u);
  EXPECT_EQ(built.pce.num_inputs, 5u);
  EXPECT_EQ(built.pce.num_aux, 1'703'569u);
  const pce::LoadResult loaded = pce::load_or_build_update(dir.path(), shape);
  EXPECT_FALSE(loaded.built);
  EXPECT_TRUE(loaded.pce == built.pce);

  update::GenUpdateOptions options;
  options.seed = 3;
  const update::UpdateInput in = update::generate_update_input("2KiB", 9, options);
  const groth16::ProverInput prover_input =
      pce::update_prover_input(loaded.pce, shape, update::partition_witness(in, 0, "u.json"));
  ASSERT_EQ(prover_input.a.size(), built.pce.num_constraints());
  std::size_t unsatisfied = 0;
  for (std::size_t k = 0; k < prover_input.a.size(); ++k)
    if (prover_input.a[k] * prover_input.b[k] != prover_input.c[k]) ++unsatisfied;
  EXPECT_EQ(unsatisfied, 0u);

  // What the verifier computes from the commitments alone is what the prover allocated as inputs.
  const auto public_inputs = update::sector_public_inputs(in, "u.json");
  ASSERT_EQ(public_inputs.size(), 1u);
  ASSERT_EQ(public_inputs[0].size(), 4u);
  for (std::size_t i = 0; i < 4; ++i) EXPECT_TRUE(public_inputs[0][i] == prover_input.inputs[i + 1]) << i;
  update::UpdateInput other = in;
  other.comm_r_new = in.comm_r_old;
  EXPECT_FALSE(update::sector_public_inputs(other, "u.json")[0][3] == prover_input.inputs[4]);
}

}  // namespace
}  // namespace cuzk
