// The flags of a proving job, shared by `cuzk prove` and `cuzk bench`, and the choice of the proving
// engine. Asking for the GPU never falls back to the CPU: a binary without CUDA, or a machine without a
// visible GPU, ends the run with exit kGpuError before any work.
#include "cli/commands.hpp"
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
  if (gpu::list_devices(&why).empty()) throw job::JobError(job::JobError::Kind::kNoGpu, "--gpu: no GPU is visible (" + why + ")");
  options.engine_factory = [](const groth16::Parameters& params) { return gpu::make_gpu_engine(params); };
  options.engine_name = "gpu";
#else
  (void)options;
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
  cmd->add_option("--miner-id", f.miner_id, "miner actor id, to cross-check replica_id")
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
