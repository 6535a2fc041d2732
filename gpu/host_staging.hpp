// Copies between pageable host memory (the prover's std::vectors) and the device through a few reused
// pinned chunks, so that the DMA runs at pinned speed and overlaps the host's copying of the next chunk.
//
// Why: cudaMemcpyAsync from pageable memory stages through a driver buffer one piece at a time and
// serialises; on an H200 the GPU prover's H step at 2^27 spent about seven times as long moving a, b, c up
// and h down that way as the same copies from pinned buffers take (see bench/RESULTS.md). Pinning
// the prover's vectors instead (cudaHostRegister) costs about as much per call as it saves.
//
// A large upload goes through copy lanes: each lane is a thread with two pinned chunks of its own that takes
// the next chunk of the source, copies it in and queues its DMA, so that the host's copying (~5-10 GB/s per
// thread) runs on several cores at once and keeps up with the DMA (~50 GB/s on PCIe 5). With one chunk
// split over four threads at a time, the 24 GiB plan's uploads of a, b, c and the MSM scalars ran at
// ~7-13 GB/s (bench/RESULTS.md, "windows in the H step's buffers").
#pragma once

#include <cuda_runtime_api.h>

#include <array>
#include <cstddef>
#include <functional>
#include <vector>

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

  // A lane's chunks: small enough that the lanes start at once, large enough for the DMA's ~10 us per copy.
  static constexpr std::size_t kLaneChunkBytes = std::size_t{8} << 20;
  // The most copy lanes: about where host memory bandwidth, shared with the DMA reading the same chunks,
  // stops giving more (scripts/device/h2d_paths.cu measured pread into pinned pieces at 17.5 / 31.7 / 33.2
  // GB/s with 4 / 8 / 16 threads on the H200 machine).
  static constexpr unsigned kMaxCopyLanes = 8;

  // `copy_lanes`: 0 picks copy_lanes_default(); 1 is the old way (one chunk at a time, split over up to
  // four threads).
  explicit HostStaging(std::size_t chunk_bytes = kDefaultChunkBytes, unsigned copy_lanes = 0);

  // Half the hardware threads (the rest synthesize the next partitions), at most kMaxCopyLanes; the
  // environment's CUZK_GPU_COPY_LANES (1-64) instead when set, for A/B runs.
  static unsigned copy_lanes_default();
  // Pinned bytes of the lanes when a large upload makes them (the host memory plan counts them).
  static constexpr std::size_t lane_bytes(unsigned lanes) { return std::size_t{lanes} * 2 * kLaneChunkBytes; }

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

  // upload() through the lanes (made at the first upload large enough to use them).
  void upload_in_lanes(std::byte* dst, const std::byte* src, std::size_t bytes, cudaStream_t stream);

  struct Lane {
    std::array<Slot, 2> slots;
  };

  std::size_t chunk_bytes_;
  std::array<Slot, 2> slots_;
  unsigned copy_lanes_;
  std::vector<Lane> lanes_;
};

}  // namespace cuzk::gpu
