// RAII owners for device memory, pinned host memory, streams and events. Move-only; every CUDA call
// is checked (cuda_check.hpp). Destructors never throw: a failing free is ignored there, since the
// context is then already broken and the next checked call reports it.
#pragma once

#include <cuda_runtime_api.h>

#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <span>
#include <utility>

#include "gpu/cuda_check.hpp"

namespace cuzk::gpu {

// Fault injection, for tests only: with CUZK_FAULT_CUDA_ALLOC=N in the environment the Nth device
// allocation of the process (counted from 1) fails as if the device were out of memory, so that a test
// can check that a failure mid-batch ends with exit 8, names the phase and partition and writes no
// partial proof (tests/gpu/fault_injection.sh). Unset or 0: never. A test in C++ arms it with
// fail_device_allocation_in() instead (tests/gpu/test_engine_recovery.cu).
struct AllocFaultHook {
  std::atomic<long> count{0};    // DeviceBuffer allocations so far
  std::atomic<long> fail_at{0};  // the one that fails (0: none)
  AllocFaultHook() {
    if (const char* env = std::getenv("CUZK_FAULT_CUDA_ALLOC")) fail_at = std::atol(env);
  }
};
inline AllocFaultHook& alloc_fault_hook() {
  static AllocFaultHook hook;
  return hook;
}
inline cudaError_t injected_alloc_fault() {
  AllocFaultHook& hook = alloc_fault_hook();
  const long n = ++hook.count;
  const long at = hook.fail_at.load();
  return at > 0 && n == at ? cudaErrorMemoryAllocation : cudaSuccess;
}
// Tests only: the nth DeviceBuffer allocation from now (1: the next) fails; 0 disarms the hook.
inline void fail_device_allocation_in(long n) {
  AllocFaultHook& hook = alloc_fault_hook();
  hook.fail_at = n > 0 ? hook.count.load() + n : 0;
}

// The bytes that DeviceBuffers hold now and at most so far in this process, for the memory trace
// (CUZK_GPU_MEMORY_TRACE, gpu/groth16_engine.cpp): what cudaMemGetInfo reports beyond them is CUDA's own
// (the context, local memory for the kernels' stacks, libraries' scratch). Released buffers stay counted.
struct DeviceBufferBytes {
  std::atomic<std::size_t> live{0}, peak{0};
  void add(std::size_t bytes) {
    const std::size_t now = live += bytes;
    std::size_t seen = peak.load();
    while (now > seen && !peak.compare_exchange_weak(seen, now)) {
    }
  }
};
inline DeviceBufferBytes& device_buffer_bytes() {
  static DeviceBufferBytes bytes;
  return bytes;
}

template <class T>
class DeviceBuffer {
 public:
  using value_type = T;
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t count) : count_(count) {
    if (count) {
      CUDA_OK(injected_alloc_fault());
      CUDA_OK(cudaMalloc(reinterpret_cast<void**>(&ptr_), count * sizeof(T)));
      device_buffer_bytes().add(count * sizeof(T));
    }
  }
  ~DeviceBuffer() { reset(); }
  DeviceBuffer(DeviceBuffer&& o) noexcept
      : ptr_(std::exchange(o.ptr_, nullptr)), count_(std::exchange(o.count_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      reset();
      ptr_ = std::exchange(o.ptr_, nullptr);
      count_ = std::exchange(o.count_, 0);
    }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void reset() noexcept {
    if (ptr_) {
      cudaFree(ptr_);
      device_buffer_bytes().live -= count_ * sizeof(T);
    }
    ptr_ = nullptr;
    count_ = 0;
  }
  // Gives up ownership (for an owner that takes cudaMalloc'd memory, e.g. Msm's device-bases constructor).
  T* release() noexcept {
    count_ = 0;
    return std::exchange(ptr_, nullptr);
  }
  // Grows (never shrinks) to at least `count` elements; old contents are discarded.
  void ensure(std::size_t count) {
    if (count > count_) {
      reset();
      *this = DeviceBuffer(count);
    }
  }
  T* data() const { return ptr_; }
  std::size_t size() const { return count_; }
  std::size_t bytes() const { return count_ * sizeof(T); }

  void upload(std::span<const T> host, cudaStream_t stream = nullptr, std::size_t offset = 0) {
    if (offset + host.size() > count_) throw GpuError("DeviceBuffer::upload: out of range");
    CUDA_OK(cudaMemcpyAsync(ptr_ + offset, host.data(), host.size_bytes(), cudaMemcpyHostToDevice, stream));
  }
  void download(std::span<T> host, cudaStream_t stream = nullptr, std::size_t offset = 0) const {
    if (offset + host.size() > count_) throw GpuError("DeviceBuffer::download: out of range");
    CUDA_OK(cudaMemcpyAsync(host.data(), ptr_ + offset, host.size_bytes(), cudaMemcpyDeviceToHost, stream));
  }
  // Zeroes elements [offset, size()).
  void zero(cudaStream_t stream = nullptr, std::size_t offset = 0) {
    if (offset < count_) CUDA_OK(cudaMemsetAsync(ptr_ + offset, 0, (count_ - offset) * sizeof(T), stream));
  }

 private:
  T* ptr_ = nullptr;
  std::size_t count_ = 0;
};

// Page-locked host memory (cudaHostAlloc): what asynchronous copies need to overlap and reach full
// PCIe bandwidth. Allocate once and reuse: pinning is expensive.
template <class T>
class PinnedBuffer {
 public:
  using value_type = T;
  PinnedBuffer() = default;
  explicit PinnedBuffer(std::size_t count) : count_(count) {
    if (count)
      CUDA_OK(cudaHostAlloc(reinterpret_cast<void**>(&ptr_), count * sizeof(T), cudaHostAllocDefault));
  }
  ~PinnedBuffer() { reset(); }
  PinnedBuffer(PinnedBuffer&& o) noexcept
      : ptr_(std::exchange(o.ptr_, nullptr)), count_(std::exchange(o.count_, 0)) {}
  PinnedBuffer& operator=(PinnedBuffer&& o) noexcept {
    if (this != &o) {
      reset();
      ptr_ = std::exchange(o.ptr_, nullptr);
      count_ = std::exchange(o.count_, 0);
    }
    return *this;
  }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;

  void reset() noexcept {
    if (ptr_) cudaFreeHost(ptr_);
    ptr_ = nullptr;
    count_ = 0;
  }
  T* data() const { return ptr_; }
  std::size_t size() const { return count_; }
  T& operator[](std::size_t i) const { return ptr_[i]; }
  std::span<T> span() const { return {ptr_, count_}; }

 private:
  T* ptr_ = nullptr;
  std::size_t count_ = 0;
};

class Stream {
 public:
  Stream() { CUDA_OK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  ~Stream() {
    if (stream_) cudaStreamDestroy(stream_);
  }
  Stream(Stream&& o) noexcept : stream_(std::exchange(o.stream_, nullptr)) {}
  Stream& operator=(Stream&& o) noexcept {
    if (this != &o) {
      if (stream_) cudaStreamDestroy(stream_);
      stream_ = std::exchange(o.stream_, nullptr);
    }
    return *this;
  }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  cudaStream_t get() const { return stream_; }
  operator cudaStream_t() const { return stream_; }
  void synchronize() const { CUDA_OK(cudaStreamSynchronize(stream_)); }

 private:
  cudaStream_t stream_ = nullptr;
};

class Event {
 public:
  Event() { CUDA_OK(cudaEventCreate(&event_)); }
  ~Event() {
    if (event_) cudaEventDestroy(event_);
  }
  Event(Event&& o) noexcept : event_(std::exchange(o.event_, nullptr)) {}
  Event& operator=(Event&& o) noexcept {
    if (this != &o) {
      if (event_) cudaEventDestroy(event_);
      event_ = std::exchange(o.event_, nullptr);
    }
    return *this;
  }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;

  cudaEvent_t get() const { return event_; }
  void record(cudaStream_t stream) { CUDA_OK(cudaEventRecord(event_, stream)); }
  void synchronize() const { CUDA_OK(cudaEventSynchronize(event_)); }
  // Work queued on `stream` after this call waits until the event's work is done (no host wait).
  void hold(cudaStream_t stream) const { CUDA_OK(cudaStreamWaitEvent(stream, event_, 0)); }
  // Milliseconds from `start` to this event (both recorded and complete).
  float elapsed_ms_since(const Event& start) const {
    float ms = 0;
    CUDA_OK(cudaEventElapsedTime(&ms, start.event_, event_));
    return ms;
  }

 private:
  cudaEvent_t event_ = nullptr;
};

}  // namespace cuzk::gpu
