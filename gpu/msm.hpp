// Multi-scalar multiplication on the GPU for BLS12-381 G1 and G2: sum_i s_i * P_i.
//
// Bases are uploaded once and stay resident on the device (the SRS case); any number of scalar
// vectors can then be run against them (run_batch: the partitions of a batch share bases). Per scalar
// vector:
//   1. classification: scalars equal to 0 are skipped, scalars equal to 1 are marked in a bitmap and
//      summed by a batch addition of their bases (Groth16 witnesses are mostly bits), the rest ("tail")
//      are compacted into an index list;
//   2. Pippenger over the tail: signed digits in windows of c bits (the lowest ones c - 1, so that the
//      windows cover exactly 256 bits), one radix sort per window of (bucket, point index)
//      pairs (cub::DeviceRadixSort), bucket accumulation in XYZZ coordinates over equal-length chunks of
//      the sorted pairs (balanced whatever the digit distribution), then a parallel running-sum
//      reduction of the buckets of every window in three levels (segments, blocks, windows). With the
//      endomorphism table (G1, MsmTables::kEndomorphism) every scalar is first split in two halves of
//      128 bits, each with its own base (P_i, phi(P_i)): half the windows, the same number of additions;
//   3. the window sums and the batch-addition sum are combined on the host.
// Scalars are algebra::Fr in Montgomery form (the in-memory form of host Fr vectors).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "gpu/device_buffer.hpp"
#include "gpu/host_staging.hpp"
#include "gpu/msm_shape.hpp"
#include "prover/algebra/curve.hpp"

namespace cuzk::gpu {

struct MsmOptions {
  bool split_ones = true;    // batch-add the bases of scalars equal to 1 (and skip zeros)
  unsigned window_bits = 0;  // 0: chosen from the number of tail scalars, at most max_window_bits
  unsigned max_window_bits = 22;
  // Scalars per range (0: all at once). Each range's digits are sorted on their own, so the sort scratch is
  // that of a range, and its bucket sums are added to the earlier ranges': the buckets are reduced once.
  std::size_t max_range = 0;
  // Sorted (bucket, point) pairs per pass (0: every window of a range in one pass). With less room than the
  // windows of a range need, the windows go in groups: each group's digits are computed, sorted and added
  // into its own buckets, which are then complete for that range, so the groups add no carry; only the
  // digits are computed again per group.
  std::size_t max_sort_pairs = 0;
};

// Where a run's time went, summed over its ranges (device time by CUDA events, milliseconds): what a
// ranged or streamed MSM costs beyond its arithmetic.
struct MsmRangeTotals {
  std::size_t ranges = 0;
  float wall_ms = 0;       // the run's first event to its last
  float stall_ms = 0;      // the stream idle before a range began: its window's copy not done
  float host_gap_ms = 0;   // the stream idle while the host read a range's classification counts
  float classify_ms = 0;   // classification and compaction
  float ones_ms = 0;       // the batch addition of the bases of ones
  float pippenger_ms = 0;  // digits, sorts and bucket accumulation, every pass
  float copy_ms = 0;       // the copy stream loading windows
  std::size_t copied_bases = 0;
};

// Time of each phase of the last call (device time by CUDA events, milliseconds). The per-phase figures
// are those of the last range's last pass; `ranges` sums every range.
struct MsmTimings {
  float classify_ms = 0, ones_ms = 0, digits_ms = 0, sort_ms = 0, accumulate_ms = 0, reduce_ms = 0;
  std::size_t tail_count = 0, ones_count = 0;
  unsigned window_bits = 0, windows = 0;
  MsmRangeTotals ranges;
};

// The MSM's device scratch that does not depend on the group, grown on demand and kept: the sorted
// (bucket, point) pairs of every window (4 x 4 bytes per tail scalar and window: 25.8 GB for a 2^27
// random-scalar G1 MSM), the 0/1 split's arrays, the scalars of run() on host memory, CUB's temporary
// storage; and the pinned chunks that host bases and scalars go through (64 MiB). Msm objects that never
// run at the same time (the GPU prover's five) share one, so that the scratch is that of the largest MSM
// instead of the sum of all of them, which would not fit beside the bases of a 32GiB sector on an H200.
//
// The bucket state of a run lives here too, as bytes (G1 and G2 buckets differ in size): the sums of every
// bucket of every window, and for one pass the buckets' bounds, the chunks' partial runs and a later range's
// complete runs. An Msm holds them only from the start of a run to its end, so the objects of a workspace
// must run one after another, never at the same time.
struct MsmWorkspace {
  std::optional<HostStaging> staging;  // made by the first upload from host memory
  DeviceBuffer<algebra::Fr> scalars;
  DeviceBuffer<uint32_t> ones_bitmap, ones_per_word, ones_offset, ones_index, tail_flag, tail_pos, tail_index;
  DeviceBuffer<uint32_t> keys_in, values_in, keys_out, values_out;
  DeviceBuffer<unsigned char> cub_temp;
  DeviceBuffer<uint32_t> bucket_start, bucket_end;
  DeviceBuffer<unsigned char> bucket_sums, range_sums, partial_first, partial_last;
  // The bucket sums of a batch's vectors beyond the first (Msm::run_streamed_batch), one buffer each.
  std::vector<DeviceBuffer<unsigned char>> batch_bucket_sums;
  // A streamed run's host scalars beyond `scalars`: two buffers per vector (one range's each), so that a
  // range's upload overlaps the range before it (gpu/msm_impl.cuh start_load).
  std::vector<DeviceBuffer<algebra::Fr>> prefetch_scalars;
};

// The workspace's device bytes by buffer, "name bytes" pairs joined by commas (the memory trace).
inline std::string describe_workspace(const MsmWorkspace& ws) {
  std::string out;
  const auto add = [&](const char* name, std::size_t bytes) {
    out += std::string(out.empty() ? "" : ", ") + name + " " + std::to_string(bytes >> 20) + " MiB";
  };
  add("scalars", ws.scalars.bytes());
  add("ones", ws.ones_bitmap.bytes() + ws.ones_per_word.bytes() + ws.ones_offset.bytes());
  add("tail", ws.ones_index.bytes() + ws.tail_flag.bytes() + ws.tail_pos.bytes() + ws.tail_index.bytes());
  add("pairs", ws.keys_in.bytes() + ws.values_in.bytes() + ws.keys_out.bytes() + ws.values_out.bytes());
  add("cub", ws.cub_temp.bytes());
  add("bounds", ws.bucket_start.bytes() + ws.bucket_end.bytes());
  add("sums", ws.bucket_sums.bytes());
  add("range_sums", ws.range_sums.bytes());
  add("partial", ws.partial_first.bytes() + ws.partial_last.bytes());
  std::size_t batch = 0, prefetch = 0;
  for (const auto& b : ws.batch_bucket_sums) batch += b.bytes();
  for (const auto& b : ws.prefetch_scalars) prefetch += b.bytes();
  add("batch_sums", batch);
  add("prefetch", prefetch);
  return out;
}

// The base tables an Msm keeps on the device.
enum class MsmTables {
  kBases,  // P_i
  // G1 only: P_i and phi(P_i) = (beta x_i, y_i) = lambda P_i (prover/algebra/endomorphism.hpp), twice the
  // memory. Every scalar splits into two halves below 2^128 (k = k1 + k2 lambda), pairs for (k1, P_i) and
  // (k2, phi(P_i)) share the buckets, and the windows over 129 bits instead of 256 halve the buckets
  // and their reduction; the additions stay as many.
  kEndomorphism,
};

template <class Cfg>
class Msm {
 public:
  using Affine = algebra::Affine<Cfg>;
  using Point = algebra::Jacobian<Cfg>;
  using Field = typename Cfg::Field;
  // Device layout of one base: x, y in Montgomery form; (0, 0) is the point at infinity.
  struct DeviceAffine {
    Field x, y;
  };

  // Uploads the bases (converted to the device layout) on the current device. `workspace`: scratch
  // shared with other Msm objects that never run at the same time (none: one of its own).
  explicit Msm(std::span<const Affine> bases, std::shared_ptr<MsmWorkspace> workspace = nullptr,
               MsmTables tables = MsmTables::kBases);
  // Takes bases already on the device in the DeviceAffine layout (cudaMalloc'd; ownership passes here).
  Msm(DeviceAffine* device_bases, std::size_t count, std::shared_ptr<MsmWorkspace> workspace = nullptr,
      MsmTables tables = MsmTables::kBases);
  // A window for run_streamed over two device buffers it does not own, each with room for `count` bases:
  // memory lent by an owner that leaves it alone while this Msm runs (the GPU prover's H step buffers,
  // free between two H steps). The buffers must outlive the Msm.
  struct LentWindows {
    DeviceAffine* first = nullptr;
    DeviceAffine* second = nullptr;
  };
  Msm(LentWindows windows, std::size_t count, std::shared_ptr<MsmWorkspace> workspace = nullptr);
  ~Msm();
  Msm(Msm&&) noexcept;
  Msm& operator=(Msm&&) noexcept;
  Msm(const Msm&) = delete;
  Msm& operator=(const Msm&) = delete;

  std::size_t size() const;
  const DeviceAffine* device_bases() const;

  // Replaces the first host_bases.size() (<= size()) bases with these (the device layout), queued on this
  // MSM's stream, so the next run uses them: a window over bases that stay in host memory (the GPU prover's
  // streamed tier). Not with the endomorphism table (its second half would be stale).
  void load_bases(std::span<const DeviceAffine> host_bases);

  // sum scalars[i] * bases[i] for i < scalars.size() (<= size()). Host scalars are copied first.
  Point run(std::span<const algebra::Fr> scalars, const MsmOptions& options = {});
  // Scalars already on the device (count <= size()).
  Point run_device(const algebra::Fr* d_scalars, std::size_t count, const MsmOptions& options = {});

  // Bases that stay off the device: load(first, count, dst, stream) queues, on `stream`, the copy of bases
  // [first, first + count) in the device layout to dst (count <= size()).
  using BaseLoader =
      std::function<void(std::size_t first, std::size_t count, DeviceAffine* dst, cudaStream_t stream)>;
  // The MSM over any number of scalars (no more than the loader has bases), with this Msm's bases as a
  // window: ranges of at most size() scalars, each range's bases loaded into one of two window buffers on a
  // copy stream while the range before is computed on the other. The bucket sums carry over from range to
  // range. Not with the endomorphism table.
  Point run_streamed(std::span<const algebra::Fr> scalars, const BaseLoader& load,
                     const MsmOptions& options = {});
  Point run_streamed_device(const algebra::Fr* d_scalars, std::size_t count, const BaseLoader& load,
                            const MsmOptions& options = {});
  // Several scalar vectors over streamed bases in one pass over them: each window is loaded once and serves
  // every vector before the next window's, so the bases cross PCIe once for all of them (the witness MSMs of
  // several partitions). Each vector keeps its own bucket sums (MsmWorkspace::batch_bucket_sums beyond the
  // first); the sums are those of run_streamed of each. Vectors may differ in length.
  std::vector<Point> run_streamed_batch(std::span<const std::span<const algebra::Fr>> vectors,
                                        const BaseLoader& load, const MsmOptions& options = {});
  // Several scalar vectors over the same bases, one after another on the same scratch memory.
  std::vector<Point> run_batch(std::span<const std::span<const algebra::Fr>> vectors,
                               const MsmOptions& options = {});

  cudaStream_t stream() const;
  const MsmTimings& last_timings() const;

  static DeviceAffine to_device(const Affine& p);

  // Upper bounds, in device bytes, for planning before any allocation: an Msm over `count` bases (the
  // base tables and its own scratch), and the MsmWorkspace of runs on up to `count` scalars (its scratch and
  // bucket state). Both assume every scalar is outside the 0/1 split (random scalars: the most scratch).
  // With options.max_range and max_sort_pairs, the bounds of an MSM run in ranges and passes
  // (gpu/msm_shape.hpp MsmBytes).
  static std::size_t device_bytes_bound(std::size_t count, MsmTables tables = MsmTables::kBases,
                                        const MsmOptions& options = {});
  static std::size_t workspace_bytes_bound(std::size_t count, MsmTables tables = MsmTables::kBases,
                                           const MsmOptions& options = {});

  // Implementation detail (public only because nvcc's generated kernel stubs name types inside it).
  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

using G1Msm = Msm<algebra::G1Config>;
using G2Msm = Msm<algebra::G2Config>;

// Test and benchmark inputs made on the device: `count` distinct points P_i = S_t + k Q (a walk from a
// start point per thread), returned in the device layout (cudaMalloc'd, caller owns: pass to Msm).
template <class Cfg>
typename Msm<Cfg>::DeviceAffine* generate_points_on_device(std::size_t count, std::uint64_t seed);
// Uniform scalars below r (Montgomery form is then also uniform), cudaMalloc'd; caller frees.
algebra::Fr* generate_scalars_on_device(std::size_t count, std::uint64_t seed, double zero_fraction = 0,
                                        double one_fraction = 0);

}  // namespace cuzk::gpu
