// One registration function per subcommand file. Each adds its subcommand(s) to the app and sets a
// callback; callbacks throw the library's exceptions, which main.cpp maps to exit codes.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace cuzk::job {
struct EngineConfig;
struct ProveOptions;
}  // namespace cuzk::job

namespace cuzk::cli {

// cli/params.cpp: `cuzk params names|check|info|setup`.
void register_params_commands(CLI::App& app);
// cli/selftest.cpp: `cuzk selftest`.
void register_selftest_command(CLI::App& app);
// cli/proof.cpp: `cuzk proof inspect`.
void register_proof_commands(CLI::App& app);

// cli/prove.cpp: `cuzk prove`.
void register_prove_commands(CLI::App& app);
// cli/verify.cpp: `cuzk verify`.
void register_verify_command(CLI::App& app);
// cli/gen_c1.cpp: `cuzk gen-c1`.
void register_gen_c1_command(CLI::App& app);
// cli/gen_update.cpp: `cuzk gen-update`.
void register_gen_update_command(CLI::App& app);

// cli/circuit.cpp: `cuzk circuit info`.
void register_circuit_commands(CLI::App& app);

// cli/pce.cpp: `cuzk pce build|info` (pre-compiled constraint caches).
void register_pce_commands(CLI::App& app);

// cli/info.cpp: `cuzk info` (build and visible GPUs).
void register_info_command(CLI::App& app);
// The build and the visible GPUs as `cuzk info --json` prints them (also recorded by `cuzk bench`).
nlohmann::json build_info_json();
// The command line of this process (main() records it), for reports.
void remember_command_line(int argc, char** argv);
const std::vector<std::string>& command_line();
// What makes a run report comparable on its own (job::RunReport::context): date (UTC, `date` or now),
// version, commit, system (job::machine_json, with CUDA and the GPUs when `with_gpus`: listing them starts
// CUDA), environment, command line.
nlohmann::ordered_json report_context_json(const std::string& date, bool with_gpus);

// cli/job_flags.cpp: the flags of a proving job, shared by `cuzk prove` and `cuzk bench`.
struct JobFlags {
  std::vector<std::string> c1_files;
  std::string params_dir;  // empty: the parameter cache ($FIL_PROOFS_PARAMETER_CACHE or its default)
  bool no_pce = false;
  bool gpu = false;
  std::string overlap = "auto";  // auto (on with --gpu) | on | off
  unsigned threads = 0;
  std::uint64_t miner_id = 1000;
  std::string name_by = "sector";   // --name-by sector|stem: what names a proof file
  unsigned synthesis_workers = 0;   // 0: auto (the job's host memory plan: up to 2 with --gpu, else 1)
  std::string gpu_memory;           // --gpu-memory LIMIT (empty: the device's free memory)
  std::string host_memory;          // --host-memory LIMIT (empty: MemAvailable)
  std::string gpu_gather = "host";  // --gpu-gather host|device: where the A and B MSMs' scalars are gathered
  std::string gpu_constraints = "auto";  // --gpu-constraints auto|host|device: where a, b, c are evaluated
  std::string devices;       // --devices LIST|all: one GPU engine per CUDA ordinal (empty: device 0)
  unsigned cpu_engines = 1;  // --cpu-engines N: CPU engines proving at once (the scheduler without a GPU)
  std::optional<std::uint64_t> test_randomness;  // TEST ONLY: r, s derived from this seed
};
// Registers them on `cmd`; returns the --no-pce option (other flags may exclude it).
CLI::Option* add_job_flags(CLI::App* cmd, JobFlags& f);
// Into `options`, with the engine's config (data: the job makes the engine, and refuses --gpu where no GPU
// can be used, never falling back to the CPU). GPU flags without --gpu are usage errors.
void apply_job_flags(const JobFlags& f, job::ProveOptions& options);
// The GPU engine's config from its flags' values (--gpu-memory LIMIT or empty, --gpu-gather host|device,
// --gpu-constraints auto|host|device): each flag is parsed here alone, for every command that takes it.
job::EngineConfig gpu_engine_config(const std::string& memory, const std::string& gather,
                                    const std::string& constraints);

// cli/bench.cpp: `cuzk bench` (repeated proving, statistics per phase) and `cuzk compare`.
void register_bench_commands(CLI::App& app);
// cli/params_load.cpp: `cuzk params load` (after register_params_commands).
void register_params_load_command(CLI::App& app);
// cli/report.cpp: `cuzk report timeline`.
void register_report_commands(CLI::App& app);

// cli/job_flags.cpp: an unsigned 64-bit decimal (refuses "-1" and 2^64, which CLI11 would wrap), and a
// --threads bound (0..4x the hardware threads); both make CLI11 exit with kUsageError.
CLI::Validator u64_validator();
CLI::Validator thread_count_validator();

// Accepts a sector size as porep::parse_sector_size does (2KiB ... 64GiB, or bytes); cli/params.cpp.
CLI::Validator sector_size_validator();

}  // namespace cuzk::cli
