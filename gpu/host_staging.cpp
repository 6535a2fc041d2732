#include "gpu/host_staging.hpp"

#include <algorithm>
#include <cstring>
#include <thread>
#include <vector>

namespace cuzk::gpu {
namespace {

// One thread copies about 5-10 GB/s, well below the ~50 GB/s of the DMA: the chunk is split over a few
// threads. Four is where a memory-bound copy stops scaling on common servers; fewer on small machines.
void parallel_copy(std::byte* dst, const std::byte* src, std::size_t bytes) {
  constexpr std::size_t kMinBytesPerThread = std::size_t{4} << 20;
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t parts =
      std::min<std::size_t>({4, hw, std::max<std::size_t>(1, bytes / kMinBytesPerThread)});
  if (parts <= 1) {
    std::memcpy(dst, src, bytes);
    return;
  }
  const std::size_t step = (bytes + parts - 1) / parts;
  std::vector<std::thread> workers;
  workers.reserve(parts - 1);
  for (std::size_t i = 1; i < parts; ++i) {
    const std::size_t begin = std::min(bytes, i * step), end = std::min(bytes, begin + step);
    workers.emplace_back([=] { std::memcpy(dst + begin, src + begin, end - begin); });
  }
  std::memcpy(dst, src, std::min(bytes, step));
  for (auto& w : workers) w.join();
}

// Memory from cudaHostAlloc / cudaHostRegister needs no staging.
bool is_pinned(const void* p) {
  cudaPointerAttributes attr{};
  if (cudaPointerGetAttributes(&attr, p) != cudaSuccess) {
    (void)cudaGetLastError();  // older drivers report plain host memory as an error: clear it
    return false;
  }
  return attr.type == cudaMemoryTypeHost;
}

// Memory that is already pinned: one copy, waited for (the same contract as the staged path).
void copy_direct(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind, cudaStream_t stream) {
  CUDA_OK(cudaMemcpyAsync(dst, src, bytes, kind, stream));
  Event copied;
  copied.record(stream);
  copied.synchronize();
}

}  // namespace

HostStaging::HostStaging(std::size_t chunk_bytes) : chunk_bytes_(std::max<std::size_t>(chunk_bytes, 1)) {
  for (auto& slot : slots_) slot.buffer = PinnedBuffer<std::byte>(chunk_bytes_);
}

void HostStaging::wait(Slot& slot) {
  if (slot.busy) slot.copied.synchronize();
  slot.busy = false;
}

void HostStaging::start_copy(Slot& slot, void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind,
                             cudaStream_t stream) {
  CUDA_OK(cudaMemcpyAsync(dst, src, bytes, kind, stream));
  slot.copied.record(stream);
  slot.busy = true;
}

void HostStaging::upload(void* device_dst, const void* host_src, std::size_t bytes, cudaStream_t stream) {
  if (bytes && is_pinned(host_src))
    return copy_direct(device_dst, host_src, bytes, cudaMemcpyHostToDevice, stream);
  auto* dst = static_cast<std::byte*>(device_dst);
  const auto* src = static_cast<const std::byte*>(host_src);
  for (std::size_t offset = 0, k = 0; offset < bytes; offset += chunk_bytes_, ++k) {
    Slot& slot = slots_[k % slots_.size()];
    const std::size_t len = std::min(chunk_bytes_, bytes - offset);
    wait(slot);  // its previous DMA has read the buffer
    parallel_copy(slot.buffer.data(), src + offset, len);
    start_copy(slot, dst + offset, slot.buffer.data(), len, cudaMemcpyHostToDevice, stream);
  }
}

void HostStaging::download(void* host_dst, const void* device_src, std::size_t bytes, cudaStream_t stream) {
  if (bytes && is_pinned(host_dst))
    return copy_direct(host_dst, device_src, bytes, cudaMemcpyDeviceToHost, stream);
  auto* dst = static_cast<std::byte*>(host_dst);
  const auto* src = static_cast<const std::byte*>(device_src);
  const std::size_t chunks = (bytes + chunk_bytes_ - 1) / chunk_bytes_;
  auto issue = [&](std::size_t k) {
    Slot& slot = slots_[k % slots_.size()];
    wait(slot);
    const std::size_t offset = k * chunk_bytes_, len = std::min(chunk_bytes_, bytes - offset);
    start_copy(slot, slot.buffer.data(), src + offset, len, cudaMemcpyDeviceToHost, stream);
  };
  if (chunks) issue(0);
  for (std::size_t k = 0; k < chunks; ++k) {
    if (k + 1 < chunks) issue(k + 1);  // the other slot: its data was copied out in the last round
    Slot& slot = slots_[k % slots_.size()];
    wait(slot);
    const std::size_t offset = k * chunk_bytes_, len = std::min(chunk_bytes_, bytes - offset);
    parallel_copy(dst + offset, slot.buffer.data(), len);
  }
}

}  // namespace cuzk::gpu
