// Shared by the GPU tests: skip (with the reason printed) when no GPU can be used.
#pragma once

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <string>

#include "gpu/cuda_check.hpp"

namespace cuzk::test {

// Empty when a GPU is usable, else why not.
inline std::string gpu_unavailable_reason() {
  int count = 0;
  cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    cudaGetLastError();
    return std::string("cudaGetDeviceCount failed: ") + cudaGetErrorString(status);
  }
  if (count == 0) return "no CUDA device visible";
  return {};
}

}  // namespace cuzk::test

#define CUZK_REQUIRE_GPU()                                         \
  do {                                                             \
    std::string why = ::cuzk::test::gpu_unavailable_reason();      \
    if (!why.empty()) GTEST_SKIP() << "GPU test skipped: " << why; \
  } while (0)
