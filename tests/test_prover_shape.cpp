// job/prover_shape.hpp: the built-in circuit figures (PoRep and update) against constraint caches built
// afresh (2KiB, 8MiB) and docs/circuit.md §9 / docs/update.md, the vector lengths derived from them against a
// real .params file, and the sources prover_shape_for takes the figures from.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "io/temp_dir.hpp"
#include "job/prover_shape.hpp"
#include "pce/cache_file.hpp"
#include "pce/porep_pce.hpp"
#include "pce/update_pce.hpp"
#include "prover/algebra/encoding.hpp"
#include "prover/porep/circuit.hpp"
#include "prover/porep/param_names.hpp"

namespace cuzk::job {
namespace {

const porep::SectorShape& sector(const char* label) {
  return *porep::parse_sector_size(label);
}

// The table's row of a size equals the header of the cache file `cuzk pce build` writes for it today.
void expect_row_matches_fresh_cache(const char* label) {
  io::TempDir dir("cuzk_shape_");
  const auto circuit = porep::StackedCircuitShape::from_sector(sector(label));
  const pce::CompactR1cs built = pce::build_porep_pce(circuit);
  const pce::CacheKey key = pce::porep_cache_key(circuit);
  const pce::CacheHeader header =
      pce::write_cache_file(pce::cache_path(dir.path(), key), built, key.description);
  ASSERT_NE(builtin_circuit_figures(sector(label)), nullptr);
  EXPECT_EQ(circuit_figures(built), *builtin_circuit_figures(sector(label))) << label;
  EXPECT_EQ(circuit_figures(header), *builtin_circuit_figures(sector(label))) << label;
  // prover_shape_for reads that header when the cache is there.
  const ProverShapeResult found =
      prover_shape_for(sector(label), dir.path(), (dir.path() / "none.params").string());
  EXPECT_NE(found.circuit_from.find("PCE cache"), std::string::npos) << found.circuit_from;
  EXPECT_FALSE(found.params_present);
  EXPECT_EQ(found.shape.nnz_a, built.a.nnz());
}

TEST(ProverShape, Row2KiBMatchesAFreshCache) {
  expect_row_matches_fresh_cache("2KiB");
}

TEST(ProverShape, Row8MiBMatchesAFreshCache) {
  expect_row_matches_fresh_cache("8MiB");
}

// docs/circuit.md §9 (32GiB: rust-fil-proofs PR #1325's 130,278,541 constraints and 328 inputs).
TEST(ProverShape, CountsAreThoseOfTheCircuitDoc) {
  struct Row {
    const char* label;
    std::uint64_t constraints, inputs, aux;
    unsigned log_domain;
  };
  for (const Row& r :
       {Row{"2KiB", 2'687'921, 40, 2'685'673, 22}, Row{"8MiB", 3'844'929, 40, 3'842'449, 22},
        Row{"512MiB", 4'423'433, 40, 4'420'837, 23}, Row{"32GiB", 130'278'541, 328, 130'169'893, 27},
        Row{"64GiB", 131'185'849, 328, 131'076'643, 27}}) {
    const CircuitFigures* f = builtin_circuit_figures(sector(r.label));
    ASSERT_NE(f, nullptr) << r.label;
    EXPECT_EQ(f->constraints, r.constraints) << r.label;
    EXPECT_EQ(f->inputs, r.inputs) << r.label;
    EXPECT_EQ(f->aux, r.aux) << r.label;
    const gpu::ProverShape s = prover_shape(*f);
    EXPECT_EQ(s.log_domain(), r.log_domain) << r.label;
    EXPECT_EQ(s.h, (std::size_t{1} << r.log_domain) - 1) << r.label;
    EXPECT_EQ(s.l, r.aux) << r.label;
  }
}

// The production 32GiB .params file is 47,373,928,632 bytes: the verifying key, then h, l, a, b_g1 in G1 and
// b_g2 in G2, each behind its u32 length.
TEST(ProverShape, Row32GiBGivesTheProductionParameterFileSize) {
  const gpu::ProverShape s = prover_shape(*builtin_circuit_figures(sector("32GiB")));
  const std::uint64_t g1 = algebra::kG1UncompressedSize, g2 = 2 * g1;
  const std::uint64_t vk = groth16::kVkFixedBytes + groth16::kLengthBytes + s.inputs * g1;
  const std::uint64_t vectors = 5 * groth16::kLengthBytes + (s.h + s.l + s.a + s.b_g1) * g1 + s.b_g2 * g2;
  EXPECT_EQ(s.a + 3 * s.b_g1, 229'090'466u);
  EXPECT_EQ(vk + vectors, 47'373'928'632u);
}

// bellperson's layout rule against a real 2KiB .params file: the test parameters the script tests share
// (tests/scripts/lib/shared_params.bash; `cuzk params setup --sector-size 2KiB`).
TEST(ProverShape, DerivedLengthsMatchThe2KiBTestParameters) {
  const std::filesystem::path params = std::filesystem::path(CUZK_BINARY_DIR) / "test-params" /
                                       porep::param_file_name(sector("2KiB"), porep::ParamFileKind::kParams);
  // Run by ctest before the script tests have made the file it skips, visibly; tests/scripts/memory_plan.sh
  // runs it again once the file is there, with CUZK_REQUIRE_TEST_PARAMS set, so it cannot skip there.
  if (!std::filesystem::exists(params)) {
    if (std::getenv("CUZK_REQUIRE_TEST_PARAMS")) FAIL() << params << " does not exist";
    GTEST_SKIP() << params << " is not made yet (tests/scripts/memory_plan.sh runs this test once it is)";
  }
  const groth16::ParameterHeader header = groth16::read_parameter_header(params.string());
  const gpu::ProverShape s = prover_shape(*builtin_circuit_figures(sector("2KiB")));
  EXPECT_EQ(header.vk.ic.size(), s.inputs);
  EXPECT_EQ(header.h, s.h);
  EXPECT_EQ(header.l, s.l);
  EXPECT_EQ(header.a, s.a);
  EXPECT_EQ(header.b_g1, s.b_g1);
  EXPECT_EQ(header.b_g2, s.b_g2);
  // And prover_shape_for takes the file's lengths when it is there.
  io::TempDir empty("cuzk_shape_");
  const ProverShapeResult found = prover_shape_for(sector("2KiB"), empty.path(), params.string());
  EXPECT_TRUE(found.params_present);
  EXPECT_EQ(found.vectors_from, params.string());
  EXPECT_EQ(found.shape.b_g2, header.b_g2);
}

// Nothing there: the table and the derived lengths; a damaged cache is passed over, not an error.
TEST(ProverShape, WithoutFilesTheTableIsUsed) {
  io::TempDir dir("cuzk_shape_");
  const ProverShapeResult bare =
      prover_shape_for(sector("32GiB"), dir.path(), (dir.path() / "x.params").string());
  EXPECT_EQ(bare.circuit_from, "the built-in table");
  EXPECT_EQ(bare.vectors_from, "derived from the circuit");
  EXPECT_FALSE(bare.params_present);
  EXPECT_EQ(bare.shape.constraints, 130'278'541u);
  const pce::CacheKey key = pce::porep_cache_key(porep::StackedCircuitShape::from_sector(sector("32GiB")));
  std::ofstream(pce::cache_path(dir.path(), key)) << "not a cache";
  const ProverShapeResult damaged =
      prover_shape_for(sector("32GiB"), dir.path(), (dir.path() / "x.params").string());
  EXPECT_EQ(damaged.circuit_from, "the built-in table");
  EXPECT_EQ(damaged.shape.nnz_b, bare.shape.nnz_b);
}

// The update circuit's row of a size equals the header of the cache `cuzk pce build --update` writes today.
void expect_update_row_matches_fresh_cache(const char* label) {
  io::TempDir dir("cuzk_shape_");
  const update::UpdateShape& shape = *update::UpdateShape::find(label);
  const pce::CompactR1cs built = pce::build_update_pce(shape);
  const pce::CacheKey key = pce::update_cache_key(shape);
  ASSERT_TRUE(key.figures.has_value()) << label;
  const pce::CacheHeader header =
      pce::write_cache_file(pce::cache_path(dir.path(), key), built, key.description);
  EXPECT_EQ(circuit_figures(built), *key.figures) << label;
  EXPECT_EQ(circuit_figures(header), *key.figures) << label;
  const ProverShapeResult found =
      update_prover_shape_for(shape, dir.path(), (dir.path() / "none.params").string());
  EXPECT_NE(found.circuit_from.find("PCE cache"), std::string::npos) << found.circuit_from;
  EXPECT_EQ(found.shape.nnz_c, built.c.nnz());
}

TEST(ProverShape, UpdateRow2KiBMatchesAFreshCache) {
  expect_update_row_matches_fresh_cache("2KiB");
}

TEST(ProverShape, UpdateRow8MiBMatchesAFreshCache) {
  expect_update_row_matches_fresh_cache("8MiB");
}

// docs/update.md: upstream's constraint counts (2KiB, 32GiB) and tests/test_update_circuit.cpp's pinned ones;
// five inputs (ONE, k_and_h_select, comm_r_old, comm_d_new, comm_r_new) at every size; the domain of each.
TEST(ProverShape, UpdateCountsAreThoseOfTheUpdateDoc) {
  struct Row {
    const char* label;
    std::uint64_t constraints;
    unsigned log_domain;
  };
  for (const Row& r : {Row{"2KiB", 1'705'039, 21}, Row{"8MiB", 10'007'503, 24}, Row{"512MiB", 57'450'479, 26},
                       Row{"32GiB", 81'049'499, 27}, Row{"64GiB", 85'006'101, 27}}) {
    const update::UpdateShape& shape = *update::UpdateShape::find(r.label);
    const CircuitFigures* f = pce::builtin_update_figures(shape.sector_bytes());
    ASSERT_NE(f, nullptr) << r.label;
    EXPECT_EQ(f->constraints, r.constraints) << r.label;
    EXPECT_EQ(f->inputs, update::UpdateShape::num_inputs()) << r.label;
    EXPECT_EQ(prover_shape(*f).log_domain(), r.log_domain) << r.label;
  }
  // A test shape (16KiB) has no row, and its cache key no figures to hold a cache to.
  EXPECT_EQ(pce::builtin_update_figures(std::uint64_t{16} << 10), nullptr);
  EXPECT_FALSE(pce::update_cache_key(*update::UpdateShape::find("16KiB")).figures.has_value());
}

TEST(ProverShape, UpdateWithoutFilesTheTableIsUsed) {
  io::TempDir dir("cuzk_shape_");
  const ProverShapeResult bare = update_prover_shape_for(*update::UpdateShape::find("32GiB"), dir.path(),
                                                         (dir.path() / "x.params").string());
  EXPECT_EQ(bare.circuit_from, "the built-in table");
  EXPECT_FALSE(bare.params_present);
  EXPECT_EQ(bare.shape.h, (std::size_t{1} << 27) - 1);
  EXPECT_EQ(bare.shape.l, 80'978'488u);
}

}  // namespace
}  // namespace cuzk::job
