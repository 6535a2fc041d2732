// The GPUs this process can see (CUDA_VISIBLE_DEVICES applies, as the CUDA runtime enumerates).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace cuzk::gpu {

struct DeviceInfo {
  int index = 0;  // CUDA runtime ordinal, after CUDA_VISIBLE_DEVICES
  std::string name;
  std::size_t total_memory = 0;  // bytes
  std::size_t free_memory = 0;   // bytes, at the time of the query
  int multiprocessors = 0;
  int major = 0, minor = 0;  // compute capability
  std::size_t l2_bytes = 0;
  std::string pci_bus_id;
  std::string uuid;  // "GPU-" and 32 hex digits in 8-4-4-4-12 groups, as nvidia-smi -L prints it
};

// Whether this build has the CUDA backend: false for the build without nvcc, whose gpu/ is gpu/no_cuda.cpp
// (it sees no GPU, and every request of one throws GpuError of kind kNoDevice).
bool built_with_cuda();

// Every visible GPU. Returns an empty list when there is no driver or no device (the reason is put in
// `why_none` when given; without CUDA: that the build has none); throws GpuError on any other CUDA failure.
std::vector<DeviceInfo> list_devices(std::string* why_none = nullptr);

// Number of visible GPUs, 0 (never throws) when CUDA cannot be used.
int visible_device_count();

// Makes CUDA ordinal `index` the calling thread's current device (cudaSetDevice): the GPU engine allocates
// and proves on the current device of the thread that makes or calls it, and CUDA keeps that per thread, so
// every thread that drives an engine of a multi-device run calls this first. Throws GpuError (kind
// kNoDevice without CUDA or when `index` is not visible).
void use_device(int index);

// Bytes in use on the current device (all processes: total minus free), 0 when it cannot be read. For the
// run report's peak device memory.
std::size_t device_memory_in_use();

}  // namespace cuzk::gpu
