// `cuzk gen-c1`: writes a C1 output file whose every constraint is satisfied (test data).
#include "prover/porep/gen_c1.hpp"

#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <string>

#include "cli/commands.hpp"
#include "io/atomic_file.hpp"
#include "prover/porep/c1_file.hpp"
#include "prover/porep/errors.hpp"
#include "prover/porep/registered_proof.hpp"

namespace cuzk::cli {

namespace {

struct GenC1Flags {
  std::string sector_size = "2KiB";
  std::string proof;  // default: StackedDrg<size>V1_1
  std::uint64_t seed = 0;
  std::uint64_t sector_id = 1;
  bool sector_id_given = false;
  std::uint64_t miner_id = 1000;
  std::string output;
  bool envelope = false;
  bool sparse = false;
  bool dense = false;
};

void run_gen_c1(const GenC1Flags& f) {
  const porep::SectorShape* shape = porep::parse_sector_size(f.sector_size);
  if (!shape) throw CLI::ValidationError("--sector-size", "unknown sector size " + f.sector_size);
  std::string proof_name = f.proof.empty() ? "StackedDrg" + std::string(shape->label) + "V1_1" : f.proof;
  const porep::RegisteredSealProof* proof = porep::find_registered_seal_proof(proof_name);
  if (!proof) throw CLI::ValidationError("--proof", "unknown registered proof " + proof_name);
  if (proof->shape != shape)
    throw CLI::ValidationError("--proof", proof_name + " is not a " + std::string(shape->label) + " proof");

  // lotus's MaxSectorNumber is math.MaxInt64 (go-state-types abi), and the envelope's SectorNum is signed.
  if (f.sector_id > static_cast<std::uint64_t>(INT64_MAX))
    throw CLI::ValidationError("--sector-id", std::to_string(f.sector_id) + " is above 2^63 - 1");
  io::check_output_file(f.output);  // before the sealing: a device or FIFO is refused, not replaced
  if (f.envelope && !f.sector_id_given)
    spdlog::warn(
        "gen-c1 --envelope: SectorNum is 1 (no --sector-id given); cuzk prove names a proof by SectorNum, so "
        "a batch of such files all write 1.proof: give each its --sector-id, or prove them with --name-by "
        "stem");
  porep::GenC1Options options;
  options.proof = proof;
  options.seed = f.seed;
  options.sector_id = f.sector_id;
  options.miner_id = f.miner_id;
  if (f.sparse) options.sparse = true;
  if (f.dense) options.sparse = false;
  options.progress = [](const std::string& m) { spdlog::info("gen-c1: {}", m); };

  auto start = std::chrono::steady_clock::now();
  porep::GeneratedC1 g = porep::generate_c1(options);
  g.c1.sector_num = static_cast<std::int64_t>(f.sector_id);
  std::string json = f.envelope ? porep::c1_to_envelope_json(g.c1) : porep::c1_to_json(g.c1);
  io::write_file_atomic(f.output, {reinterpret_cast<const std::uint8_t*>(json.data()), json.size()});
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  spdlog::info("gen-c1: wrote {} ({} bytes, {}, {} construction, sector {} miner t0{}) in {:.1f} s", f.output,
               json.size(), proof->name, g.sparse ? "sparse" : "sealed", f.sector_id, f.miner_id, seconds);
}

}  // namespace

void register_gen_c1_command(CLI::App& app) {
  auto flags = std::make_shared<GenC1Flags>();
  CLI::App* cmd =
      app.add_subcommand("gen-c1", "Write a valid C1 output file for testing (not a real sector)");
  cmd->add_option("--sector-size", flags->sector_size, "2KiB, 8MiB, 512MiB, 32GiB or 64GiB")
      ->capture_default_str();
  cmd->add_option("--proof", flags->proof,
                  "registered seal proof, e.g. StackedDrg2KiBV1 (default: StackedDrg<size>V1_1)");
  cmd->add_option("--seed", flags->seed, "seed of the generated data, ticket and seed")
      ->check(u64_validator())
      ->capture_default_str();
  CLI::Option* sector_id = cmd->add_option("--sector-id", flags->sector_id, "sector number")
                               ->check(u64_validator())
                               ->capture_default_str();
  cmd->add_option("--miner-id", flags->miner_id, "miner actor id (prover id = its ID address payload)")
      ->check(u64_validator())
      ->capture_default_str();
  cmd->add_option("-o,--output", flags->output, "output file")->required();
  cmd->add_flag("--envelope", flags->envelope,
                "write the lotus-bench envelope {SectorNum, Phase1Out: base64, SectorSize}");
  auto* sparse =
      cmd->add_flag("--sparse", flags->sparse, "materialize only challenged nodes (default above 8MiB)");
  cmd->add_flag("--dense", flags->dense, "seal the whole sector for real (default up to 8MiB)")
      ->excludes(sparse);
  cmd->callback([flags, sector_id] {
    flags->sector_id_given = sector_id->count() > 0;
    run_gen_c1(*flags);
  });
}

}  // namespace cuzk::cli
