// The checks that raise the gpu layer's exception (gpu/errors.hpp) from CUDA's codes.
//
// Every CUDA runtime call goes through CUDA_OK(call); every kernel launch is followed by
// CUDA_LAUNCH_OK() (cudaGetLastError), so a failure is reported where it happened, with the call text,
// the file, the line and CUDA's own message. Nothing here falls back to the CPU silently.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

#include "gpu/errors.hpp"

namespace cuzk::gpu {

// The CUDA codes that mean no GPU can be used at all (none visible, no driver, or not permitted), as
// gpu::list_devices tells them apart from a fault on a GPU that is there.
inline bool is_no_device_code(cudaError_t code) {
  return code == cudaErrorNoDevice || code == cudaErrorInsufficientDriver || code == cudaErrorNotPermitted;
}

// A GpuError of CUDA's `code`, of kind kNoDevice when the code says there is no GPU to use.
inline GpuError cuda_error(const std::string& what, cudaError_t code) {
  return GpuError(what, is_no_device_code(code) ? GpuErrorKind::kNoDevice : GpuErrorKind::kFault,
                  static_cast<int>(code));
}

inline void check_cuda(cudaError_t code, const char* call, const char* file, int line) {
  if (code != cudaSuccess)
    throw cuda_error(std::string(call) + " failed at " + file + ":" + std::to_string(line) + ": " +
                         cudaGetErrorName(code) + ": " + cudaGetErrorString(code),
                     code);
}

}  // namespace cuzk::gpu

#define CUDA_OK(call) ::cuzk::gpu::check_cuda((call), #call, __FILE__, __LINE__)
// After every kernel launch: reports launch-configuration errors (and earlier asynchronous faults).
#define CUDA_LAUNCH_OK() ::cuzk::gpu::check_cuda(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)
