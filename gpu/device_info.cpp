#include "gpu/device_info.hpp"

#include <cuda_runtime_api.h>

#include <string>

#include "gpu/cuda_check.hpp"
#include "gpu/errors.hpp"

namespace cuzk::gpu {

namespace {

// As nvidia-smi and NVML write a device's UUID: "GPU-" and the 16 bytes in hex, grouped 8-4-4-4-12.
std::string uuid_text(const cudaUUID_t& uuid) {
  constexpr char kHex[] = "0123456789abcdef";
  std::string out = "GPU-";
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out += '-';
    const auto byte = static_cast<unsigned char>(uuid.bytes[i]);
    out += kHex[byte >> 4];
    out += kHex[byte & 0xf];
  }
  return out;
}

}  // namespace

bool built_with_cuda() {
  return true;
}

int visible_device_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky-free error so later calls are not confused
    return 0;
  }
  return count;
}

std::vector<DeviceInfo> list_devices(std::string* why_none) {
  int count = 0;
  cudaError_t status = cudaGetDeviceCount(&count);
  if (is_no_device_code(status)) {
    if (why_none) *why_none = cudaGetErrorString(status);
    cudaGetLastError();
    return {};
  }
  CUDA_OK(status);
  if (count == 0 && why_none) *why_none = "no CUDA device is visible";
  std::vector<DeviceInfo> out;
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp prop{};
    CUDA_OK(cudaGetDeviceProperties(&prop, i));
    DeviceInfo info;
    info.index = i;
    info.name = prop.name;
    info.total_memory = prop.totalGlobalMem;
    info.multiprocessors = prop.multiProcessorCount;
    info.major = prop.major;
    info.minor = prop.minor;
    info.l2_bytes = static_cast<std::size_t>(prop.l2CacheSize);
    info.uuid = uuid_text(prop.uuid);
    char bus[32] = {};
    if (cudaDeviceGetPCIBusId(bus, sizeof bus, i) == cudaSuccess) info.pci_bus_id = bus;
    int previous = 0;
    CUDA_OK(cudaGetDevice(&previous));
    CUDA_OK(cudaSetDevice(i));
    reserve_kernel_stacks();
    std::size_t free_bytes = 0, total_bytes = 0;
    CUDA_OK(cudaMemGetInfo(&free_bytes, &total_bytes));
    info.free_memory = free_bytes;
    info.cuda_memory = total_bytes - free_bytes;
    CUDA_OK(cudaSetDevice(previous));
    out.push_back(info);
  }
  return out;
}

}  // namespace cuzk::gpu

namespace cuzk::gpu {

void use_device(int index) {
  const int visible = visible_device_count();
  if (index < 0 || index >= visible)
    throw GpuError("GPU " + std::to_string(index) + " is not visible (" + std::to_string(visible) +
                       " visible; CUDA_VISIBLE_DEVICES applies)",
                   GpuErrorKind::kNoDevice);
  CUDA_OK(cudaSetDevice(index));
}

void reserve_kernel_stacks() {
  std::size_t stack = 0;
  CUDA_OK(cudaDeviceGetLimit(&stack, cudaLimitStackSize));
  if (stack < kKernelStackBytes) CUDA_OK(cudaDeviceSetLimit(cudaLimitStackSize, kKernelStackBytes));
}

std::size_t device_memory_in_use() {
  std::size_t free_bytes = 0, total_bytes = 0;
  if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return total_bytes - free_bytes;
}

}  // namespace cuzk::gpu
