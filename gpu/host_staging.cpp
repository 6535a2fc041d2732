#include "gpu/host_staging.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <thread>
#include <vector>

namespace cuzk::gpu {
namespace {

// One thread copies about 5-10 GB/s, well below the ~50 GB/s of the DMA: the chunk is split over a few
// threads. Four is where a memory-bound copy stops scaling on common servers; fewer on small machines.
void parallel_copy(std::byte* dst, const std::byte* src, std::size_t bytes) {
  split_across_threads(bytes, std::size_t{4} << 20, [&](std::size_t begin, std::size_t end) {
    std::memcpy(dst + begin, src + begin, end - begin);
  });
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

void split_across_threads(std::size_t count, std::size_t min_per_thread,
                          const std::function<void(std::size_t, std::size_t)>& fn) {
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t parts = std::min<std::size_t>(
      {4, hw, std::max<std::size_t>(1, count / std::max<std::size_t>(min_per_thread, 1))});
  if (parts <= 1) {
    if (count) fn(0, count);
    return;
  }
  const std::size_t step = (count + parts - 1) / parts;
  std::vector<std::thread> workers;
  workers.reserve(parts - 1);
  for (std::size_t i = 1; i < parts; ++i) {
    const std::size_t begin = std::min(count, i * step), end = std::min(count, begin + step);
    if (begin < end) workers.emplace_back([&fn, begin, end] { fn(begin, end); });
  }
  fn(0, std::min(count, step));
  for (auto& w : workers) w.join();
}

HostStaging::HostStaging(std::size_t chunk_bytes, unsigned copy_lanes)
    : chunk_bytes_(std::max<std::size_t>(chunk_bytes, 1)),
      copy_lanes_(copy_lanes ? copy_lanes : copy_lanes_default()) {
  for (auto& slot : slots_) slot.buffer = PinnedBuffer<std::byte>(chunk_bytes_);
}

unsigned HostStaging::copy_lanes_default() {
  if (const char* forced = std::getenv("CUZK_GPU_COPY_LANES"); forced && *forced) {
    char* end = nullptr;
    const unsigned long value = std::strtoul(forced, &end, 10);
    if (*end == '\0' && value >= 1 && value <= 64) return unsigned(value);
    throw GpuError(std::string("CUZK_GPU_COPY_LANES=") + forced + ": not a number from 1 to 64");
  }
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  return std::clamp(hw / 2, 1u, kMaxCopyLanes);
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
  const auto* src = static_cast<const std::byte*>(host_src);
  // Lanes pay for themselves from a few of their chunks per lane on.
  if (copy_lanes_ > 1 && bytes >= 4 * kLaneChunkBytes)
    return upload_in_lanes(static_cast<std::byte*>(device_dst), src, bytes, stream);
  upload_generated(
      device_dst, bytes, 1,
      [src](std::byte* chunk, std::size_t offset, std::size_t len) {
        parallel_copy(chunk, src + offset, len);
      },
      stream);
}

void HostStaging::upload_in_lanes(std::byte* dst, const std::byte* src, std::size_t bytes,
                                  cudaStream_t stream) {
  if (lanes_.empty()) {
    lanes_.resize(copy_lanes_);
    for (Lane& lane : lanes_)
      for (Slot& slot : lane.slots) slot.buffer = PinnedBuffer<std::byte>(kLaneChunkBytes);
  }
  // The lanes' threads queue DMAs on `stream`: they must address the caller's device (CUDA's current
  // device is per thread).
  int device = 0;
  CUDA_OK(cudaGetDevice(&device));
  const std::size_t chunks = (bytes + kLaneChunkBytes - 1) / kLaneChunkBytes;
  const std::size_t used = std::min<std::size_t>(lanes_.size(), chunks);
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::vector<std::exception_ptr> errors(used);
  auto run_lane = [&](std::size_t l) {
    try {
      if (l > 0) CUDA_OK(cudaSetDevice(device));
      Lane& lane = lanes_[l];
      for (unsigned turn = 0; !failed.load(std::memory_order_relaxed); ++turn) {
        const std::size_t k = next.fetch_add(1, std::memory_order_relaxed);
        if (k >= chunks) break;
        Slot& slot = lane.slots[turn % lane.slots.size()];
        wait(slot);  // its previous DMA has read the chunk
        const std::size_t offset = k * kLaneChunkBytes, len = std::min(kLaneChunkBytes, bytes - offset);
        std::memcpy(slot.buffer.data(), src + offset, len);
        start_copy(slot, dst + offset, slot.buffer.data(), len, cudaMemcpyHostToDevice, stream);
      }
    } catch (...) {
      errors[l] = std::current_exception();
      failed = true;
    }
  };
  {
    std::vector<std::jthread> helpers;
    helpers.reserve(used - 1);
    for (std::size_t l = 1; l < used; ++l) helpers.emplace_back(run_lane, l);
    run_lane(0);
  }  // joined: every chunk is copied out of `src` (its DMA is queued in stream order)
  for (std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
}

void HostStaging::upload_generated(void* device_dst, std::size_t bytes, std::size_t granule,
                                   const std::function<void(std::byte*, std::size_t, std::size_t)>& fill,
                                   cudaStream_t stream) {
  if (granule == 0 || granule > chunk_bytes_)
    throw GpuError("HostStaging: element of " + std::to_string(granule) + " bytes for chunks of " +
                   std::to_string(chunk_bytes_));
  if (bytes % granule)
    throw GpuError("HostStaging: " + std::to_string(bytes) + " bytes are not whole elements");
  const std::size_t step = chunk_bytes_ / granule * granule;
  auto* dst = static_cast<std::byte*>(device_dst);
  for (std::size_t offset = 0, k = 0; offset < bytes; offset += step, ++k) {
    Slot& slot = slots_[k % slots_.size()];
    const std::size_t len = std::min(step, bytes - offset);
    wait(slot);  // its previous DMA has read the buffer
    fill(slot.buffer.data(), offset, len);
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
