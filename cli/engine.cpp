// --gpu: the proving engine of `cuzk prove` and `cuzk bench`. Asking for the GPU never falls back to
// the CPU: a binary without CUDA, or a machine without a visible GPU, ends the run with exit kGpuError.
#include "cli/commands.hpp"
#include "prover/pipeline/prove.hpp"

#ifdef CUZK_HAVE_CUDA
#include <string>

#include "gpu/cuda_check.hpp"
#include "gpu/device_info.hpp"
#include "gpu/groth16_engine.hpp"
#endif

namespace cuzk::cli {

void select_engine(pipeline::ProveOptions& options, bool use_gpu) {
  if (!use_gpu) return;
#ifdef CUZK_HAVE_CUDA
  // Before any work: a run that cannot use the GPU should not synthesize first and fail later.
  std::string why;
  if (gpu::list_devices(&why).empty()) throw gpu::GpuError("--gpu: no GPU is visible (" + why + ")");
  options.engine_factory = [](const groth16::Parameters& params) { return gpu::make_gpu_engine(params); };
  options.engine_name = "gpu";
#else
  (void)options;
  throw pipeline::PipelineError(pipeline::PipelineError::Kind::kNoGpu,
                                "--gpu: this cuzk was built without CUDA (rebuild where nvcc is installed)");
#endif
}

}  // namespace cuzk::cli
