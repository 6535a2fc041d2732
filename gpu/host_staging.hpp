// Copies between pageable host memory (the prover's std::vectors) and the device through a few reused
// pinned chunks, so that the DMA runs at pinned speed and overlaps the host's copying of the next chunk.
//
// Why: cudaMemcpyAsync from pageable memory stages through a driver buffer one piece at a time and
// serialises; on an H200 the GPU prover's H step at 2^27 spent about seven times as long moving a, b, c up
// and h down that way as the same copies from pinned buffers take (see bench/RESULTS.md). Pinning
// the prover's vectors instead (cudaHostRegister) costs about as much per call as it saves.
#pragma once

#include <cuda_runtime_api.h>

#include <array>
#include <cstddef>
#include <functional>

#include "gpu/device_buffer.hpp"

namespace cuzk::gpu {

// fn(begin, end) over [0, count) split across up to 4 threads (this one included); one thread for small
// counts. For the memory-bound loops around host <-> device copies.
void split_across_threads(std::size_t count, std::size_t min_per_thread,
                          const std::function<void(std::size_t, std::size_t)>& fn);

class HostStaging {
 public:
  // 32 MiB chunks: large enough that the per-copy overhead vanishes, small enough that the first DMA
  // starts early. Two of them alternate.
  static constexpr std::size_t kDefaultChunkBytes = std::size_t{32} << 20;

  explicit HostStaging(std::size_t chunk_bytes = kDefaultChunkBytes);

  // host -> device, queued on `stream` after the work already there. Returns once the host memory may be
  // reused (it has been copied into the pinned chunks); the device copies complete in stream order.
  void upload(void* device_dst, const void* host_src, std::size_t bytes, cudaStream_t stream);
  // host -> device where the bytes are made chunk by chunk in pinned memory: fill(chunk, offset, length)
  // writes bytes [offset, offset + length) of the data, offsets and lengths whole multiples of `granule`
  // (one element: a base point converted to the device layout, say), so that no full-size host copy is
  // ever made. Same return and ordering as upload().
  void upload_generated(void* device_dst, std::size_t bytes, std::size_t granule,
                        const std::function<void(std::byte*, std::size_t, std::size_t)>& fill,
                        cudaStream_t stream);
  // device -> host after the work queued on `stream`. Returns when host_dst holds the data.
  void download(void* host_dst, const void* device_src, std::size_t bytes, cudaStream_t stream);

 private:
  struct Slot {
    PinnedBuffer<std::byte> buffer;
    Event copied;       // the DMA that last used the buffer
    bool busy = false;  // `copied` was recorded and not yet waited for
  };
  // Waits until the slot's last DMA is done.
  static void wait(Slot& slot);
  // Queues a DMA that uses the slot's buffer (as source or destination) and marks the slot busy.
  static void start_copy(Slot& slot, void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind,
                         cudaStream_t stream);

  std::size_t chunk_bytes_;
  std::array<Slot, 2> slots_;
};

}  // namespace cuzk::gpu
