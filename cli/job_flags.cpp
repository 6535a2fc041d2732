// The flags of a proving job, shared by `cuzk prove` and `cuzk bench`, and the one mapping of the engine
// flags to a job::EngineConfig (also for `cuzk params load`). Asking for the GPU never falls back to the
// CPU: the job refuses a GPU config where no GPU can be used, a binary without CUDA included, with exit
// kGpuError (kind "no-device") before any work.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "cli/commands.hpp"
#include "cli/help_format.hpp"
#include "io/byte_size.hpp"
#include "io/json_reader.hpp"
#include "io/param_names.hpp"
#include "job/engine.hpp"
#include "job/prove.hpp"
#include "prover/groth16/randomness.hpp"

namespace cuzk::cli {

namespace {

// A memory limit flag's value in bytes (0 when not given).
std::size_t memory_limit(const char* flag, const std::string& text) {
  if (text.empty()) return 0;
  const std::optional<std::uint64_t> limit = io::parse_byte_size(text);
  if (!limit || *limit == 0)
    throw CLI::ValidationError(flag, "expected a size such as 22GiB, 40G or 24000000000, got '" +
                                         text.substr(0, 64) + "'");
  return *limit;
}

// --devices: "all" (empty: every visible GPU, which the job looks up) or CUDA ordinals separated by commas.
// An ordinal may repeat (two engines on one GPU); whether each is visible is the job's check (exit 8).
std::vector<int> device_list(const std::string& text) {
  if (text.empty()) return {0};
  if (text == "all") return {};
  auto refuse = [&] {
    return CLI::ValidationError(
        "--devices",
        "expected CUDA ordinals separated by commas, such as 0,1, or all; got '" + text.substr(0, 64) + "'");
  };
  constexpr std::size_t kMostEngines = 64;
  std::vector<int> devices;
  std::size_t begin = 0;
  for (;;) {
    const std::size_t end = std::min(text.find(',', begin), text.size());
    const std::string_view item = std::string_view(text).substr(begin, end - begin);
    if (item.empty() || item.size() > 3 ||
        !std::all_of(item.begin(), item.end(), [](char c) { return c >= '0' && c <= '9'; }))
      throw refuse();
    devices.push_back(std::stoi(std::string(item)));
    if (devices.size() > kMostEngines)
      throw CLI::ValidationError("--devices", "at most " + std::to_string(kMostEngines) + " engines");
    if (end == text.size()) return devices;
    begin = end + 1;
  }
}

job::EngineConfig engine_config(const JobFlags& f) {
  if (!f.gpu) {
    if (!f.gpu_memory.empty()) throw CLI::ValidationError("--gpu-memory", "only with --gpu");
    if (f.gpu_gather != "host") throw CLI::ValidationError("--gpu-gather", "only with --gpu");
    if (f.gpu_constraints == "device") throw CLI::ValidationError("--gpu-constraints", "only with --gpu");
    if (!f.devices.empty()) throw CLI::ValidationError("--devices", "only with --gpu");
    job::EngineConfig config;
    config.cpu_engines = f.cpu_engines;
    return config;
  }
  if (f.cpu_engines != 1) throw CLI::ValidationError("--cpu-engines", "not with --gpu (use --devices)");
  job::EngineConfig config = gpu_engine_config(f.gpu_memory, f.gpu_gather, f.gpu_constraints);
  config.devices = device_list(f.devices);
  return config;
}

}  // namespace

CLI::Validator u64_validator() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        // CLI11 2.1 converts with strtoull, which takes "-1" as 2^64 - 1 and saturates 2^64: check first.
        const bool digits = !text.empty() && std::all_of(text.begin(), text.end(),
                                                         [](char c) { return c >= '0' && c <= '9'; });
        if (!digits) return "expected a non-negative integer, got " + io::quote_for_message(text);
        const std::string kMax = "18446744073709551615";  // 2^64 - 1
        std::size_t first = text.find_first_not_of('0');
        std::string_view significant =
            first == std::string::npos ? "0" : std::string_view(text).substr(first);
        if (significant.size() > kMax.size() || (significant.size() == kMax.size() && significant > kMax))
          return text + " is out of range (at most 2^64 - 1)";
        return {};
      },
      "UINT64");
}

CLI::Validator thread_count_validator() {
  // 4x the hardware threads: more gains nothing, and OpenMP's runtime crashed at --threads 100000.
  const unsigned hardware = std::max(1u, std::thread::hardware_concurrency());
  return CLI::Range(0u, 4 * hardware, "THREADS (0..4x the hardware threads)");
}

CLI::Option* add_job_flags(CLI::App* cmd, JobFlags& f) {
  // Help texts stay short (cli/help_format.hpp); what each flag does in full is in docs/commands.md.
  // No CLI::ExistingFile: a missing or unreadable C1 file is an input error (exit 3, named by the job's
  // up-front checks), not a usage error.
  cmd->add_option("c1", f.c1_files, "C1 output files (raw JSON or the lotus-bench envelope)")->required();
  cmd->add_option(
         "--params-dir", f.params_dir,
         "parameter directory (default: $FIL_PROOFS_PARAMETER_CACHE or /var/tmp/filecoin-proof-parameters)")
      ->group(kInputsOutputsGroup);
  cmd->add_option("--miner-id", f.miner_id, "miner actor id, to cross-check replica_id")
      ->check(u64_validator())
      ->capture_default_str()
      ->group(kInputsOutputsGroup);
  cmd->add_option("--name-by", f.name_by,
                  "what names <sector>.proof: sector (SectorNum of an envelope, else the file stem) or stem")
      ->check(CLI::IsMember({"sector", "stem"}))
      ->capture_default_str()
      ->group(kInputsOutputsGroup);
  cmd->add_flag("--gpu", f.gpu, "prove on the GPU (exit 8 without one; never falls back to the CPU)")
      ->group(kGpuGroup);
  cmd->add_option("--gpu-memory", f.gpu_memory,
                  "device memory each engine may use, e.g. 22GiB; what does not fit is streamed")
      ->group(kGpuGroup);
  cmd->add_option(
         "--devices", f.devices,
         "GPUs to prove on, one engine each: LIST such as 0,1 (0,0: two on one), or all (default: 0)")
      ->group(kGpuGroup);
  cmd->add_option("--gpu-gather", f.gpu_gather, "where the A and B MSMs' scalars are gathered")
      ->check(CLI::IsMember({"host", "device"}))
      ->capture_default_str()
      ->group(kGpuGroup);
  cmd->add_option("--gpu-constraints", f.gpu_constraints,
                  "where a, b, c are evaluated (auto: device; host when they do not fit)")
      ->check(CLI::IsMember({"auto", "host", "device"}))
      ->capture_default_str()
      ->group(kGpuGroup);
  cmd->add_option("--threads", f.threads, "CPU threads (0: all; at most 4x the hardware threads)")
      ->check(thread_count_validator())
      ->capture_default_str()
      ->group(kTuningGroup);
  cmd->add_option("--overlap", f.overlap,
                  "synthesize the next partition while one is proven (auto: with --gpu)")
      ->check(CLI::IsMember({"auto", "on", "off"}))
      ->capture_default_str()
      ->group(kTuningGroup);
  cmd->add_option("--host-memory", f.host_memory,
                  "host memory the run may plan for, e.g. 64GiB (default: MemAvailable)")
      ->group(kTuningGroup);
  cmd->add_option("--synthesis-workers", f.synthesis_workers,
                  "partitions synthesized at once (0: auto, from the host memory plan)")
      ->check(CLI::Range(0u, 64u))
      ->capture_default_str()
      ->group(kTuningGroup);
  CLI::Option* no_pce =
      cmd->add_flag("--no-pce", f.no_pce, "synthesize directly, not through the constraint cache (slower)")
          ->group(kTuningGroup);
  cmd->add_option("--cpu-engines", f.cpu_engines,
                  "CPU engines proving at once, sharing the threads (tests the multi-engine scheduler)")
      ->check(CLI::Range(1u, 16u))
      ->capture_default_str()
      ->group(kTestOnlyGroup);
  cmd->add_option("--test-randomness", f.test_randomness,
                  "derive r and s from this seed: identical proofs, NOT zero-knowledge")
      ->check(u64_validator())
      ->group(kTestOnlyGroup);
  return no_pce;
}

job::EngineConfig gpu_engine_config(const std::string& memory, const std::string& gather,
                                    const std::string& constraints) {
  job::EngineConfig config;
  config.kind = job::EngineConfig::Kind::kGpu;
  config.memory_limit = memory_limit("--gpu-memory", memory);
  config.gather = gather == "device" ? job::EngineConfig::Place::kDevice : job::EngineConfig::Place::kHost;
  // auto: on the device, measured 2.4x the throughput of host at 32GiB with a third of the host memory
  // (bench/RESULTS.md).
  config.constraints =
      constraints == "host" ? job::EngineConfig::Place::kHost : job::EngineConfig::Place::kDevice;
  return config;
}

void apply_job_flags(const JobFlags& f, job::ProveOptions& options) {
  options.params_dir = f.params_dir.empty() ? io::parameter_cache_dir().string() : f.params_dir;
  options.use_pce = !f.no_pce;
  options.threads = f.threads;
  options.miner_id = f.miner_id;
  options.proof_naming = f.name_by == "stem" ? job::ProveOptions::ProofNaming::kFileStem
                                             : job::ProveOptions::ProofNaming::kSectorNumber;
  // The kind first: a run refused for a bad --gpu-memory is still the GPU engine's run in its metrics.
  if (f.gpu) options.engine.kind = job::EngineConfig::Kind::kGpu;
  options.engine = engine_config(f);
  options.host_memory_limit = memory_limit("--host-memory", f.host_memory);
  if (f.test_randomness) {
    // Reproducible proofs for tests (the same r, s for every partition): NOT zero-knowledge.
    const std::uint64_t seed = *f.test_randomness;
    options.fixed_randomness = groth16::test_randomness(seed);
    spdlog::warn("--test-randomness {}: r and s are fixed (TEST ONLY: such proofs reveal the witness)", seed);
  }
  // On the CPU, synthesis and proving both use every core: running them at once gains nothing and
  // holds a second partition in memory. With the GPU, proving leaves the cores to synthesis.
  options.overlap = f.overlap == "on" || (f.overlap == "auto" && f.gpu);
  // 0 (auto) is sized by the job from the run's host memory plan (job/run_memory.hpp).
  options.synthesis_workers = f.synthesis_workers;
}

}  // namespace cuzk::cli
