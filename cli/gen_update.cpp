// `cuzk gen-update`: writes an update input file whose every partition's vanilla proof is valid (test data).
#include "prover/update/gen_update.hpp"

#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <string>

#include "cli/commands.hpp"
#include "io/atomic_file.hpp"
#include "prover/update/input_file.hpp"

namespace cuzk::cli {

namespace {

struct GenUpdateFlags {
  std::string sector_size = "2KiB";
  std::uint64_t seed = 0;
  std::uint64_t sector_id = 1;
  std::string output;
  bool sparse = false;
  bool dense = false;
};

void run_gen_update(const GenUpdateFlags& f) {
  const update::RegisteredUpdateProof* proof = update::registered_update_proof_for_size(f.sector_size);
  if (!proof)
    throw CLI::ValidationError("--sector-size", "no registered update proof for sector size " +
                                                    f.sector_size + " (2KiB, 8MiB, 512MiB, 32GiB or 64GiB)");
  io::check_output_file(f.output);  // before the generation: a device or FIFO is refused, not replaced
  update::GenUpdateOptions options;
  options.seed = f.seed;
  if (f.sparse) options.sparse = true;
  if (f.dense) options.sparse = false;
  options.progress = [](const std::string& m) { spdlog::info("gen-update: {}", m); };

  const auto start = std::chrono::steady_clock::now();
  const bool sparse = options.sparse.value_or(proof->shape().sector_nodes > update::kDenseUpdateNodeLimit);
  const update::UpdateInput input = update::generate_update_input(proof->size_label, f.sector_id, options);
  const std::string json = update::update_input_to_json(input);
  io::write_file_atomic(f.output, {reinterpret_cast<const std::uint8_t*>(json.data()), json.size()});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  spdlog::info("gen-update: wrote {} ({} bytes, {}, {} construction, {} partitions, sector {}) in {:.1f} s",
               f.output, json.size(), proof->name, sparse ? "sparse no-deal-data" : "dense",
               input.vanilla_proofs.size(), f.sector_id, seconds);
}

}  // namespace

void register_gen_update_command(CLI::App& app) {
  auto flags = std::make_shared<GenUpdateFlags>();
  CLI::App* cmd =
      app.add_subcommand("gen-update", "Write a valid SnapDeals input file for testing (not a real sector)");
  cmd->add_option("--sector-size", flags->sector_size, "2KiB, 8MiB, 512MiB, 32GiB or 64GiB")
      ->capture_default_str();
  cmd->add_option("--seed", flags->seed, "seed of the generated labels and data")
      ->check(u64_validator())
      ->capture_default_str();
  cmd->add_option("--sector-id", flags->sector_id, "sector number (names the proof)")
      ->check(u64_validator())
      ->capture_default_str();
  cmd->add_option("-o,--output", flags->output, "output file")->required();
  auto* sparse =
      cmd->add_flag("--sparse", flags->sparse, "no deal data, trees not materialized (default above 8MiB)");
  cmd->add_flag("--dense", flags->dense, "random data, every tree built in full (default up to 8MiB)")
      ->excludes(sparse);
  cmd->callback([flags] { run_gen_update(*flags); });
}

}  // namespace cuzk::cli
