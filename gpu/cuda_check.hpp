// The gpu layer's one exception type and the checks that raise it.
//
// Every CUDA runtime call goes through CUDA_OK(call); every kernel launch is followed by
// CUDA_LAUNCH_OK() (cudaGetLastError), so a failure is reported where it happened, with the call text,
// the file, the line and CUDA's own message. Nothing here falls back to the CPU silently.
#pragma once

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace cuzk::gpu {

class GpuError : public std::runtime_error {
 public:
  GpuError(const std::string& call, const char* file, int line, cudaError_t code)
      : std::runtime_error(call + " failed at " + file + ":" + std::to_string(line) + ": " +
                           cudaGetErrorName(code) + ": " + cudaGetErrorString(code)),
        code_(code) {}
  // For errors detected by this layer itself (bad sizes, missing device) rather than by CUDA.
  explicit GpuError(const std::string& what) : std::runtime_error(what), code_(cudaSuccess) {}
  // For a fault this layer found with CUDA's code for it (no device visible: cudaErrorNoDevice).
  GpuError(const std::string& what, cudaError_t code) : std::runtime_error(what), code_(code) {}
  cudaError_t code() const { return code_; }
  // No GPU to use at all (none visible, no driver, or not permitted), as gpu::list_devices tells it: a
  // permanent condition of the machine, unlike a fault on a GPU that is there.
  bool no_usable_device() const {
    return code_ == cudaErrorNoDevice || code_ == cudaErrorInsufficientDriver ||
           code_ == cudaErrorNotPermitted;
  }

 private:
  cudaError_t code_;
};

inline void check_cuda(cudaError_t code, const char* call, const char* file, int line) {
  if (code != cudaSuccess) throw GpuError(call, file, line, code);
}

}  // namespace cuzk::gpu

#define CUDA_OK(call) ::cuzk::gpu::check_cuda((call), #call, __FILE__, __LINE__)
// After every kernel launch: reports launch-configuration errors (and earlier asynchronous faults).
#define CUDA_LAUNCH_OK() ::cuzk::gpu::check_cuda(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)
