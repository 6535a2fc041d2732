// The flags of a proving job, shared by `cuzk prove` and `cuzk bench`, and the choice of the proving
// engine. Asking for the GPU never falls back to the CPU: a binary without CUDA, or a machine without a
// visible GPU, ends the run with exit kGpuError before any work.
#include <spdlog/spdlog.h>

#include <cctype>
#include <optional>
#include <string>
#include <utility>

#include "cli/commands.hpp"
#include "io/byte_size.hpp"
#include "io/param_names.hpp"
#include "job/prove.hpp"

#ifdef CUZK_HAVE_CUDA
#include <string>

#include "gpu/cuda_check.hpp"
#include "gpu/device_info.hpp"
#include "gpu/groth16_engine.hpp"
#endif

namespace cuzk::cli {

namespace {

void select_engine(job::ProveOptions& options, bool use_gpu, const std::string& gpu_memory) {
  if (!use_gpu) {
    if (!gpu_memory.empty()) throw CLI::ValidationError("--gpu-memory", "only with --gpu");
    return;
  }
#ifdef CUZK_HAVE_CUDA
  gpu::GpuEngineOptions engine;
  if (!gpu_memory.empty()) {
    const std::optional<std::uint64_t> limit = io::parse_byte_size(gpu_memory);
    if (!limit || *limit == 0)
      throw CLI::ValidationError("--gpu-memory", "expected a size such as 22GiB, 40G or 24000000000, got '" +
                                                     gpu_memory.substr(0, 64) + "'");
    engine.memory_limit = *limit;
  }
  std::string why;
  if (gpu::list_devices(&why).empty()) throw gpu::GpuError("--gpu: no GPU is visible (" + why + ")");
  options.engine_factory = [engine](const std::string& params_path, const groth16::ParameterHeader& header) {
    return gpu::make_gpu_engine(params_path, header, engine);
  };
  options.engine_name = "gpu";
  options.device_memory_used = [] { return static_cast<std::uint64_t>(gpu::device_memory_in_use()); };
#else
  (void)options;
  (void)gpu_memory;
  throw job::JobError(job::JobError::Kind::kNoGpu,
                                "--gpu: this cuzk was built without CUDA (rebuild where nvcc is installed)");
#endif
}

}  // namespace

CLI::Option* add_job_flags(CLI::App* cmd, JobFlags& f) {
  cmd->add_option("c1", f.c1_files, "C1 output files (raw JSON or the lotus-bench envelope)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option(
      "--params-dir", f.params_dir,
      "parameter directory (default: $FIL_PROOFS_PARAMETER_CACHE or /var/tmp/filecoin-proof-parameters)");
  CLI::Option* no_pce = cmd->add_flag(
      "--no-pce", f.no_pce, "synthesize directly instead of through the pre-compiled constraint cache");
  cmd->add_flag(
      "--gpu", f.gpu,
      "H and the multi-scalar multiplications on the GPU (exit 8 when there is none; never the CPU)");
  cmd->add_option("--overlap", f.overlap,
                  "synthesize the next partition while one is proven: auto (with --gpu), on, off; costs the "
                  "memory of a second partition")
      ->check(CLI::IsMember({"auto", "on", "off"}))
      ->capture_default_str();
  cmd->add_option("--threads", f.threads, "CPU threads (0: all)")->capture_default_str();
  cmd->add_option("--synthesis-workers", f.synthesis_workers,
                  "partitions synthesized at once, sharing the threads (0: auto, 2 with --gpu, else 1); each "
                  "costs the memory of a synthesized partition, ~17 GB at 32GiB")
      ->check(CLI::Range(0u, 64u))
      ->capture_default_str();
  cmd->add_option("--gpu-memory", f.gpu_memory,
                  "with --gpu: device memory the prover may use (e.g. 22GiB); base vectors that do not fit are "
                  "streamed from pinned host memory per MSM (same proofs, slower)");
  cmd->add_option("--test-randomness", f.test_randomness,
                  "TEST ONLY: derive r and s from this seed, so that runs give identical proofs (such proofs are "
                  "not zero-knowledge)");
  cmd->add_option("--miner-id", f.miner_id, "miner actor id, to cross-check replica_id")
      ->capture_default_str();
  return no_pce;
}

void apply_job_flags(const JobFlags& f, job::ProveOptions& options) {
  options.params_dir = f.params_dir.empty() ? io::parameter_cache_dir().string() : f.params_dir;
  options.use_pce = !f.no_pce;
  options.threads = f.threads;
  options.miner_id = f.miner_id;
  select_engine(options, f.gpu, f.gpu_memory);
  if (f.test_randomness) {
    // Reproducible proofs for tests (the same r, s for every partition): NOT zero-knowledge.
    const std::uint64_t seed = *f.test_randomness;
    options.fixed_randomness = {algebra::Fr::from_u64(seed + 1).pow(5) + algebra::Fr::from_u64(0x72),
                                algebra::Fr::from_u64(seed + 2).pow(7) + algebra::Fr::from_u64(0x73)};
    spdlog::warn("--test-randomness {}: r and s are fixed (TEST ONLY: such proofs reveal the witness)", seed);
  }
  // On the CPU, synthesis and proving both use every core: running them at once gains nothing and
  // holds a second partition in memory. With the GPU, proving leaves the cores to synthesis.
  options.overlap = f.overlap == "on" || (f.overlap == "auto" && f.gpu);
  // With the GPU proving a partition in a few seconds, synthesis is the bottleneck: two partitions at a
  // time keep more of the cores busy (one partition's synthesis has serial stretches).
  options.synthesis_workers = f.synthesis_workers != 0 ? f.synthesis_workers : (f.gpu ? 2 : 1);
}

}  // namespace cuzk::cli
