// The flags of a proving job, shared by `cuzk prove` and `cuzk bench`, and the choice of the proving
// engine. Asking for the GPU never falls back to the CPU: a binary without CUDA, or a machine without a
// visible GPU, ends the run with exit kGpuError before any work.
#include <algorithm>
#include <string_view>
#include <thread>

#include "cli/commands.hpp"
#include "io/json_reader.hpp"
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

void select_engine(job::ProveOptions& options, bool use_gpu) {
  if (!use_gpu) return;
#ifdef CUZK_HAVE_CUDA
  std::string why;
  if (gpu::list_devices(&why).empty()) throw gpu::GpuError("--gpu: no GPU is visible (" + why + ")");
  options.engine_factory = [](const groth16::Parameters& params) { return gpu::make_gpu_engine(params); };
  options.engine_name = "gpu";
#else
  (void)options;
  throw job::JobError(job::JobError::Kind::kNoGpu,
                                "--gpu: this cuzk was built without CUDA (rebuild where nvcc is installed)");
#endif
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
  // No CLI::ExistingFile: a missing or unreadable C1 file is an input error (exit 3, named by the job's
  // up-front checks), not a usage error.
  cmd->add_option("c1", f.c1_files, "C1 output files (raw JSON or the lotus-bench envelope)")->required();
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
  cmd->add_option("--threads", f.threads, "CPU threads (0: all; at most 4x the hardware threads)")
      ->check(thread_count_validator())
      ->capture_default_str();
  cmd->add_option("--miner-id", f.miner_id, "miner actor id, to cross-check replica_id")
      ->check(u64_validator())
      ->capture_default_str();
  return no_pce;
}

void apply_job_flags(const JobFlags& f, job::ProveOptions& options) {
  options.params_dir = f.params_dir.empty() ? io::parameter_cache_dir().string() : f.params_dir;
  options.use_pce = !f.no_pce;
  options.threads = f.threads;
  options.miner_id = f.miner_id;
  select_engine(options, f.gpu);
  // On the CPU, synthesis and proving both use every core: running them at once gains nothing and
  // holds a second partition in memory. With the GPU, proving leaves the cores to synthesis.
  options.overlap = f.overlap == "on" || (f.overlap == "auto" && f.gpu);
}

}  // namespace cuzk::cli
