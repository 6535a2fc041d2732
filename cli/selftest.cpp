// `cuzk selftest [-o DIR] [--keep]`: the whole Groth16 path on the built-in demo circuit. Test
// parameters (generated, or reused from DIR/demo.params), a proof with fresh random r and s, and
// verification of the proof as decoded back from its 192 bytes. Writes demo.params, demo.vk,
// demo.proof and demo.public.json (the inputs for scripts/noble/verify.mjs). Exit 0 only when the
// proof verifies (kVerificationFailed otherwise; kCircuitError if the demo witness were unsatisfied).
#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <stdlib.h>

#include <CLI/CLI.hpp>
#include <array>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/demo_params.hpp"
#include "cli/exit_codes.hpp"
#include "io/atomic_file.hpp"
#include "io/io_error.hpp"
#include "io/temp_dir.hpp"
#include "job/prove.hpp"
#include "prover/algebra/hex_bytes.hpp"
#include "prover/groth16/demo_circuit.hpp"
#include "prover/groth16/proof.hpp"
#include "prover/groth16/prover.hpp"
#include "prover/groth16/randomness.hpp"
#include "prover/groth16/verifier.hpp"

namespace cuzk::cli {
namespace {

namespace fs = std::filesystem;
using algebra::Fr;

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void run_selftest(const std::string& out_flag, bool keep) {
  // Without -o: a directory under $TMPDIR, removed at the end unless --keep.
  std::optional<io::TempDir> temp;
  fs::path dir = out_flag;
  if (out_flag.empty()) {
    temp.emplace("cuzk-selftest-");
    if (keep) temp->keep();
    dir = temp->path();
  }

  const groth16::DemoCircuit circuit = groth16::make_demo_circuit();
  fmt::print("circuit      demo: {} constraints, {} public inputs, {} aux variables\n",
             circuit.cs.num_constraints(), circuit.cs.num_inputs - 1, circuit.cs.num_aux);

  // Setup (or reuse).
  std::error_code ec;
  if (!fs::exists(dir / kDemoParamsFile, ec)) print_not_for_production_banner();
  const DemoParams setup = load_or_generate_demo_params(dir, circuit);
  if (setup.reused) spdlog::info("reusing the test parameters in {}", setup.params_path.string());

  // Prove.
  auto start = std::chrono::steady_clock::now();
  groth16::ProverInput input = groth16::witness_from_r1cs(circuit.cs, circuit.inputs, circuit.aux);
  if (auto k = groth16::first_unsatisfied(input)) {
    spdlog::error("demo witness does not satisfy constraint {}", *k);
    throw CLI::RuntimeError(kCircuitError);
  }
  const groth16::Proof proof =
      groth16::prove(setup.params, std::move(input), groth16::random_fr(), groth16::random_fr());
  const double prove_seconds = seconds_since(start);
  const std::array<std::uint8_t, groth16::Proof::kSize> proof_bytes = proof.to_bytes();

  // Verify what a reader of demo.proof gets: the proof decoded back from its bytes, fully checked.
  start = std::chrono::steady_clock::now();
  const groth16::PreparedVerifyingKey pvk = groth16::prepare_verifying_key(setup.params.vk);
  const groth16::Proof decoded = groth16::Proof::read(proof_bytes);
  const bool valid = decoded == proof && groth16::verify(pvk, decoded, circuit.public_inputs());
  const double verify_seconds = seconds_since(start);

  const fs::path proof_path = dir / "demo.proof";
  const fs::path inputs_path = dir / "demo.public.json";
  io::write_file_atomic(proof_path, proof_bytes);
  const std::vector<Fr> inputs(circuit.public_inputs().begin(), circuit.public_inputs().end());
  const std::string json = job::public_inputs_json({inputs});  // one partition
  io::write_file_atomic(inputs_path,
                        std::span(reinterpret_cast<const std::uint8_t*>(json.data()), json.size()));

  fmt::print("setup        {:8.3f} s  ({} {})\n", setup.seconds, setup.reused ? "reused" : "generated",
             setup.params_path.string());
  fmt::print("prove        {:8.3f} s\n", prove_seconds);
  fmt::print("verify       {:8.3f} s\n", verify_seconds);
  fmt::print("proof        {}\n", algebra::bytes_to_hex(proof_bytes));
  fmt::print("files        {}: {}, {}, {}, {}\n", dir.string(), kDemoParamsFile, kDemoVkFile,
             proof_path.filename().string(), inputs_path.filename().string());
  if (!out_flag.empty() || keep) {
    fmt::print("check        node scripts/noble/verify.mjs {} {} {}\n", setup.vk_path.string(),
               proof_path.string(), inputs_path.string());
  }
  fmt::print("result       {}\n", valid ? "VALID" : "INVALID");
  if (!valid) {
    spdlog::error("selftest: the demo proof does not verify");
    throw CLI::RuntimeError(kVerificationFailed);
  }
}

}  // namespace

void register_selftest_command(CLI::App& app) {
  auto out = std::make_shared<std::string>();
  auto keep = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand("selftest",
                                     "Setup (test parameters), prove and verify the built-in demo circuit; "
                                     "exit 0 only if the proof verifies");
  cmd->add_option("-o,--output", *out,
                  "Directory for demo.params, demo.vk, demo.proof, demo.public.json (reuses demo.params "
                  "when present). Default: a temporary directory, removed afterwards");
  cmd->add_flag("--keep", *keep, "Keep the temporary directory (when no -o is given)");
  cmd->callback([out, keep] { run_selftest(*out, *keep); });
}

}  // namespace cuzk::cli
