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
  std::size_t free_memory = 0;   // bytes, at the time of the query (the kernels' stacks reserved)
  // What this process's CUDA holds on the device besides buffers (its context, the kernels' stacks), read as
  // total minus free at the query: memory that other processes hold then is counted too.
  std::size_t cuda_memory = 0;
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

// The stack that every thread of the GPU prover's kernels may use. CUDA reserves local memory for it on the
// whole device (stack x resident threads: 0.77 GiB on a 132-SM H100) and grows the reservation when a kernel
// needs more than the current limit, after the memory plan was made: so list_devices and the engine reserve
// it first. The deepest kernel's frame is 2632 bytes (the G2 bucket reduction, reduce_entries_kernel;
// `cuobjdump -res-usage` of the sm_90 build with nvcc 13.0; the limit read 2640 after it ran), rounded up to
// 3 KiB for other architectures and compilers (docs/large-sectors.md, "What CUDA itself holds").
inline constexpr std::size_t kKernelStackBytes = 3072;
// CUDA's own memory where no GPU is visible (a dry run on another machine), as measured on an H100 (132 SMs):
// a context of 0.61 GiB and stacks of 0.77 GiB. Cards with fewer SMs reserve less.
inline constexpr std::size_t kCudaMemoryEstimate = std::size_t{1400} << 20;

// Reserves the kernels' stacks (kKernelStackBytes) on the current device unless its limit is higher already.
// Throws GpuError when CUDA fails.
void reserve_kernel_stacks();

// Bytes in use on the current device (all processes: total minus free), 0 when it cannot be read. For the
// run report's peak device memory.
std::size_t device_memory_in_use();

}  // namespace cuzk::gpu
