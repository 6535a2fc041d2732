// A 2KiB update (SnapDeals) proof made against the shared test parameters
// (tests/scripts/lib/shared_params.bash; `cuzk params setup --circuit update --sector-size 2KiB`): the PCE
// prover input (pce/update_pce.hpp), the CPU Groth16 prover, then what `cuzk verify --update` checks: the
// update .vk and update::sector_public_inputs. The same path end to end through `cuzk prove u.json`, with
// `cuzk verify --update` and the @noble/curves verifier, is tests/scripts/verify_update.sh.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <vector>

#include "job/prove.hpp"
#include "pce/update_pce.hpp"
#include "prover/groth16/parameters.hpp"
#include "prover/groth16/prover.hpp"
#include "prover/groth16/randomness.hpp"
#include "prover/porep/param_names.hpp"
#include "prover/update/gen_update.hpp"
#include "prover/update/input_file.hpp"
#include "prover/update/param_names.hpp"

namespace cuzk {
namespace {

namespace fs = std::filesystem;

fs::path shared_update_file(porep::ParamFileKind kind) {
  return fs::path(CUZK_BINARY_DIR) / "test-params" /
         std::string(update::find_update_manifest_entry(2048, kind)->file_name);
}

TEST(UpdateProof, TwoKiBProofVerifiesAgainstTheSharedTestParameters) {
  const fs::path params_path = shared_update_file(porep::ParamFileKind::kParams);
  const fs::path vk_path = shared_update_file(porep::ParamFileKind::kVerifyingKey);
  // Run by ctest before the script tests have made the files it skips, visibly (CUZK_REQUIRE_TEST_PARAMS
  // set: it fails instead).
  if (!fs::exists(params_path) || !fs::exists(vk_path)) {
    if (std::getenv("CUZK_REQUIRE_TEST_PARAMS")) FAIL() << params_path << " does not exist";
    GTEST_SKIP() << params_path
                 << " is not made yet (the script tests make it: tests/scripts/lib/shared_params.bash)";
  }
  update::GenUpdateOptions options;
  options.seed = 21;
  const update::UpdateInput input = update::generate_update_input("2KiB", 4, options);
  const update::UpdateShape& shape = input.registered_proof->shape();
  const pce::CompactR1cs pce = pce::build_update_pce(shape);
  const groth16::Parameters params =
      groth16::Parameters::read(params_path.string(), algebra::PointCheck::kUnchecked);
  const std::vector<groth16::Proof> proofs{groth16::prove(
      params, pce::update_prover_input(pce, shape, update::partition_witness(input, 0, "u.json")),
      groth16::random_fr(), groth16::random_fr())};

  const groth16::VerifyingKey vk = groth16::VerifyingKey::read(vk_path.string());
  const auto public_inputs = update::sector_public_inputs(input, "u.json");
  EXPECT_TRUE(job::verify_sector_proofs(vk, proofs, public_inputs));
  // Another sector's commitments: the same proof does not verify.
  update::UpdateInput other = input;
  other.comm_d_new = input.comm_r_old;
  EXPECT_FALSE(job::verify_sector_proofs(vk, proofs, update::sector_public_inputs(other, "u.json")));
}

}  // namespace
}  // namespace cuzk
