// Pippenger's shape for an MSM (window bits, windows, buckets, sorted pairs) and the device bytes that
// shape costs, in plain C++: gpu/msm_impl.cuh sizes its buffers and launches by it, and the memory planner
// (gpu/memory_plan.hpp), which must run without a GPU and without CUDA, sizes plans by the same formulas.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "prover/algebra/host_device.hpp"

namespace cuzk::gpu {

// Bits of a whole scalar's windows (Fr < 2^255, one spare bit for the signed digits' last carry) and of
// each half of a scalar split by the G1 endomorphism (prover/algebra/endomorphism.hpp: halves below 2^128,
// plus the carry).
inline constexpr unsigned kWholeScalarBits = 256;
inline constexpr unsigned kHalfScalarBits = 129;
// The widest window the kernels take: bucket indices and the zero digit's key fit in the sort's key bits,
// and 2^23 buckets per window is past any MSM size where wider windows still pay.
inline constexpr unsigned kMaxWindowBits = 24;

// The windows of the scalars' `bits` bits (256; 129 for the halves of a split scalar). ceil(bits / c)
// windows of c bits overrun by up to c - 1 bits, so the lowest `narrow` windows get c - 1 bits instead and
// the windows cover exactly `bits` bits (or just over, when there are fewer windows than spare bits). A
// narrow window needs half the buckets, 2^(c-2): buckets are still laid out 2^(c-1) per window, but the
// bucket reduction skips a narrow window's upper half (25.2M -> 16.8M buckets at c = 22, 4 windows of 22
// bits and 8 of 21). Scalars are below r < 2^255 (halves below 2^128), so the top window's digit never
// carries out of the top bit.
struct WindowLayout {
  unsigned c = 0, windows = 0, narrow = 0;
  constexpr explicit WindowLayout(unsigned window_bits, unsigned bits = kWholeScalarBits) : c(window_bits) {
    windows = (bits + c - 1) / c;
    narrow = std::min(windows * c - bits, windows);
  }
  CUZK_HD unsigned width(unsigned w) const { return w < narrow ? c - 1 : c; }
  CUZK_HD unsigned offset(unsigned w) const {
    return w < narrow ? w * (c - 1) : narrow * (c - 1) + (w - narrow) * c;
  }
  // Buckets window w can use: digits of a width-bit window lie in [-2^(width-1), 2^(width-1)].
  CUZK_HD uint32_t used_buckets(unsigned w) const { return 1u << (width(w) - 1); }
  // Segments of seg_len buckets (a power of two) that hold window w's used buckets.
  CUZK_HD uint32_t used_segments(unsigned w, uint32_t seg_len) const {
    const uint32_t used = used_buckets(w);
    return used > seg_len ? used / seg_len : 1u;
  }
  // Used segments of all windows, numbered window by window (the narrow windows first).
  CUZK_HD std::size_t total_used_segments(uint32_t seg_len) const {
    return std::size_t(narrow) * used_segments(0, seg_len) +
           std::size_t(windows - narrow) * used_segments(windows - 1, seg_len);
  }
  // Used segment number u (< total_used_segments) as its window w and its segment within the window.
  CUZK_HD void used_segment(std::size_t u, uint32_t seg_len, uint32_t& w, uint32_t& segment) const {
    const uint32_t narrow_segs = used_segments(0, seg_len);
    const std::size_t narrow_total = std::size_t(narrow) * narrow_segs;
    if (u < narrow_total) {
      w = uint32_t(u / narrow_segs);
      segment = uint32_t(u % narrow_segs);
    } else {
      const uint32_t full_segs = used_segments(windows - 1, seg_len);
      w = narrow + uint32_t((u - narrow_total) / full_segs);
      segment = uint32_t((u - narrow_total) % full_segs);
    }
  }
};

// The window bits for m sorted pairs per window (tail scalars, or twice that for split scalars of `bits`
// bits) accumulated in `ranges` ranges, at most max_bits: the least modelled cost. Accumulation: one mixed
// addition per point and window. Buckets: about three full additions per bucket (fix-up and the two running
// sums), each ~1.4 mixed additions, and one more full addition per bucket for every range after the first
// (its sums added to those carried over).
inline unsigned choose_window_bits(std::size_t m, unsigned bits, unsigned max_bits = 22,
                                   std::size_t ranges = 1) {
  if (m < 32) return 4;
  unsigned best = 4;
  double best_cost = 1e300;
  for (unsigned c = 4; c <= std::min(max_bits, 22u); ++c) {
    const WindowLayout layout(c, bits);
    double buckets = 0;
    for (unsigned w = 0; w < layout.windows; ++w) buckets += layout.used_buckets(w);
    const double cost = double(m) * layout.windows + 4.0 * buckets + 1.4 * double(ranges - 1) * buckets;
    if (cost < best_cost) {
      best_cost = cost;
      best = c;
    }
  }
  return best;
}

// Pippenger's layout for m sorted pairs per window (m tail scalars, or 2m halves of split scalars) and
// windows of c bits over `bits` scalar bits: what Msm sizes its buffers and launches by, and what the memory
// bounds are computed from. With ranges (MsmOptions::max_range) the layout is that of the whole MSM and m
// that of one range.
struct PippengerShape {
  WindowLayout layout;  // window bits c, windows and their widths
  uint32_t buckets;     // laid out per window (signed digits of a full window: 2^(c-1))
  uint32_t chunk;       // sorted pairs per accumulating thread: enough threads to fill the GPU, at most 256
  std::size_t per_window;  // sorted pairs per window (m)
  std::size_t chunks, pairs;
  PippengerShape(std::size_t m, unsigned window_bits, unsigned bits)
      : layout(window_bits, bits), per_window(m) {
    buckets = 1u << (layout.c - 1);
    chunk = 256;
    while (chunk > 8 && (m * layout.windows) / chunk < (std::size_t{1} << 17)) chunk >>= 1;
    chunks = (m + chunk - 1) / chunk;
    pairs = m * layout.windows;
  }
  // For `tail` scalars, whole or split in two, accumulated in `ranges` ranges (window_bits 0: chosen, at
  // most max_bits).
  static PippengerShape for_tail(std::size_t tail, bool split, unsigned window_bits = 0,
                                 unsigned max_bits = 22, std::size_t ranges = 1) {
    const std::size_t m = split ? 2 * tail : tail;
    const unsigned bits = split ? kHalfScalarBits : kWholeScalarBits;
    return PippengerShape(m, window_bits ? window_bits : choose_window_bits(m, bits, max_bits, ranges), bits);
  }
  // The same layout over one range of `range_tail` tail scalars.
  PippengerShape for_range(std::size_t range_tail, bool split) const {
    return PippengerShape(split ? 2 * range_tail : range_tail, layout.c,
                          split ? kHalfScalarBits : kWholeScalarBits);
  }
  // Windows sorted and accumulated in one pass when a pass may hold at most `max_pairs` sorted pairs (0: no
  // limit): the windows go in groups, each group's digits computed, sorted and added into its buckets before
  // the next group's (MsmOptions::max_sort_pairs). At least one window per pass.
  unsigned windows_per_pass(std::size_t max_pairs) const {
    if (max_pairs == 0 || per_window == 0) return layout.windows;
    return unsigned(std::clamp<std::size_t>(max_pairs / per_window, 1, layout.windows));
  }
};

// Device bytes of an MSM's parts, for plans made before any allocation. All assume every scalar is outside
// the 0/1 split (random scalars: the most scratch). `point_bytes`: one affine base in the device layout (G1
// 96, G2 192); a bucket in XYZZ coordinates is twice that. `range`: scalars per range (0: one range);
// `sort_pairs`: sorted pairs per pass (0: every window in one pass).
struct MsmBytes {
  static std::size_t ranges_of(std::size_t count, std::size_t range) {
    return range ? std::max<std::size_t>(1, (count + range - 1) / range) : 1;
  }
  // The whole MSM's layout and that of its largest range, as Msm chooses them.
  struct Shapes {
    PippengerShape whole, one;
    unsigned pass_windows;  // windows per sort pass
    bool ranged;
  };
  static Shapes shapes(std::size_t count, std::size_t range, bool split, unsigned max_bits,
                       std::size_t sort_pairs) {
    const std::size_t n = range ? std::min(range, count) : count;
    const std::size_t ranges = ranges_of(count, n);
    const PippengerShape whole = PippengerShape::for_tail(count, split, 0, max_bits, ranges);
    const PippengerShape one = whole.for_range(n, split);
    return {whole, one, one.windows_per_pass(sort_pairs), ranges > 1};
  }
  // The base table: the bases, and as many again for the endomorphism table.
  static std::size_t table(std::size_t count, std::size_t point_bytes, bool endomorphism) {
    return (endomorphism ? 2 : 1) * count * point_bytes;
  }
  // What one Msm object keeps of its own: the bucket reduction's segments, the heavy-bucket list of a pass
  // and the small sums (the 0/1 split's partial sums, the window sums).
  static std::size_t own(std::size_t count, std::size_t range, std::size_t point_bytes, bool split,
                         unsigned max_bits = 22, std::size_t sort_pairs = 0) {
    const Shapes s = shapes(count, range, split, max_bits, sort_pairs);
    const std::size_t all_buckets = std::size_t(s.whole.buckets) * s.whole.layout.windows;
    // The reduction's two sums per segment (XYZZ) of 32 buckets or more (gpu/msm_reduction.cuh
    // segment_length; below 32 buckets a window is one segment, within the margin).
    return all_buckets / 32 * 2 * (2 * point_bytes) +
           s.one.per_window * s.pass_windows / 8 * sizeof(uint32_t)  // heavy buckets
           + (std::size_t{8} << 20);
  }
  // The bucket state of the Msm objects of one workspace (gpu/msm.hpp MsmWorkspace), which run one after
  // another: the bucket sums of every window, and for one pass the buckets' bounds, the partial runs and
  // (ranged) the pass's complete runs before they are added to the carried sums.
  static std::size_t shared_buckets(std::size_t count, std::size_t range, std::size_t point_bytes, bool split,
                                    unsigned max_bits = 22, std::size_t sort_pairs = 0) {
    return buffers(count, range, point_bytes, split, max_bits, sort_pairs).buckets();
  }
  // The bucket sums alone (the part of shared_buckets that each further vector of a batch adds:
  // gpu/msm.hpp Msm::run_streamed_batch).
  static std::size_t bucket_sums(std::size_t count, std::size_t range, std::size_t point_bytes, bool split,
                                 unsigned max_bits = 22, std::size_t sort_pairs = 0) {
    const Shapes s = shapes(count, range, split, max_bits, sort_pairs);
    return std::size_t(s.whole.buckets) * s.whole.layout.windows * 2 * point_bytes;
  }
  // A streamed run's scalars from host memory beyond the workspace's scalar buffer: two ranges per vector of
  // the run (one being uploaded while the other is computed on), the workspace's buffer one of them.
  static std::size_t prefetch_scalars(std::size_t range, std::size_t vectors) {
    return (2 * std::max<std::size_t>(vectors, 1) - 1) * range * 32;
  }
  // The group-agnostic scratch of one workspace: the sorted pairs in and out of one pass, the 0/1 split's
  // arrays, the scalars of host runs, CUB's sort of one window.
  static std::size_t workspace(std::size_t count, std::size_t range, bool split, unsigned max_bits = 22,
                               std::size_t sort_pairs = 0) {
    return buffers(count, range, 0, split, max_bits, sort_pairs).scratch();
  }

  // The workspace's buffers (gpu/msm.hpp MsmWorkspace) as one MSM sizes them, by kind. Every buffer grows
  // to the largest size that any MSM sharing the workspace asks of it (DeviceBuffer::ensure) and keeps it,
  // so the MSMs of one workspace need the sum over the buffers of each one's largest size (grow_to): more
  // than the largest MSM's total whenever one MSM needs the most sorted pairs and another the most bucket
  // sums (the G1 MSMs beside b_g2's, whose buckets are twice as large: 1.4 GiB more at ranges of 2^24).
  struct Buffers {
    std::size_t sorted_pairs = 0;   // keys and values, in and out of one pass
    std::size_t tail_arrays = 0;    // ones_index, tail_flag, tail_pos, tail_index
    std::size_t bitmap = 0;         // the 0/1 split's bitmap words and their counts
    std::size_t host_scalars = 0;   // the scalars of host runs (Fr)
    std::size_t cub_sort = 0;       // CUB's sort of one window
    std::size_t bucket_sums = 0;    // every window's bucket sums (XYZZ)
    std::size_t bucket_bounds = 0;  // one pass's buckets' start and end
    std::size_t range_runs = 0;     // a later range's complete runs of one pass
    std::size_t partial_runs = 0;   // the chunks' first and last partial runs of one pass
    // The small buffers and the allocator's rounding (16 MiB), as one margin.
    static constexpr std::size_t kMargin = std::size_t{16} << 20;

    void grow_to(const Buffers& o) {
      sorted_pairs = std::max(sorted_pairs, o.sorted_pairs);
      tail_arrays = std::max(tail_arrays, o.tail_arrays);
      bitmap = std::max(bitmap, o.bitmap);
      host_scalars = std::max(host_scalars, o.host_scalars);
      cub_sort = std::max(cub_sort, o.cub_sort);
      bucket_sums = std::max(bucket_sums, o.bucket_sums);
      bucket_bounds = std::max(bucket_bounds, o.bucket_bounds);
      range_runs = std::max(range_runs, o.range_runs);
      partial_runs = std::max(partial_runs, o.partial_runs);
    }
    std::size_t scratch() const {
      return sorted_pairs + tail_arrays + bitmap + host_scalars + cub_sort + kMargin;
    }
    std::size_t buckets() const { return bucket_sums + bucket_bounds + range_runs + partial_runs; }
    std::size_t total() const { return scratch() + buckets(); }
  };
  // `point_bytes` 0: the scratch alone (the bucket parts are then 0). A range's tail (its scalars outside the
  // 0/1 split) may be any length up to the range, and a shorter tail sorts more windows in one pass: the pass
  // buffers (bounds, complete runs, partial runs) are sized for the largest over the tail lengths m, m/2, m/4
  // ... (b's scalars are mostly 0 and 1: their short tails took every window in one pass, and the complete
  // runs of all buckets, 2.4 GiB for b_g2 at ranges of 2^24 where random scalars need 0.4).
  static Buffers buffers(std::size_t count, std::size_t range, std::size_t point_bytes, bool split,
                         unsigned max_bits = 22, std::size_t sort_pairs = 0) {
    const std::size_t n = range ? std::min(range, count) : count;
    const Shapes s = shapes(count, range, split, max_bits, sort_pairs);
    const std::size_t xyzz = 2 * point_bytes;
    const std::size_t all_buckets = std::size_t(s.whole.buckets) * s.whole.layout.windows;
    Buffers b;
    b.sorted_pairs = 4 * s.one.per_window * s.pass_windows * sizeof(uint32_t);
    b.tail_arrays = 4 * n * sizeof(uint32_t);
    b.bitmap = 3 * (n / 32 + 1) * sizeof(uint32_t);
    b.host_scalars = n * 32;
    b.cub_sort = s.one.per_window * 2 * sizeof(uint32_t);
    b.bucket_sums = all_buckets * xyzz;
    if (point_bytes == 0) return b;
    for (std::size_t m = s.one.per_window; m > 0; m /= 2) {
      const PippengerShape tail(m, s.whole.layout.c, split ? kHalfScalarBits : kWholeScalarBits);
      const unsigned pass_windows = tail.windows_per_pass(sort_pairs);
      const std::size_t pass_buckets = std::size_t(s.whole.buckets) * pass_windows;
      b.bucket_bounds = std::max(b.bucket_bounds, pass_buckets * 2 * sizeof(uint32_t));
      if (s.ranged) b.range_runs = std::max(b.range_runs, pass_buckets * xyzz);
      b.partial_runs = std::max(b.partial_runs, 2 * tail.chunks * pass_windows * xyzz);
    }
    return b;
  }
};

}  // namespace cuzk::gpu
