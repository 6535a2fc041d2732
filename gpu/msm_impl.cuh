// G1/G2 multi-scalar multiplication: see msm.hpp for the algorithm. Included by msm_g1.cu and
// msm_g2.cu (one translation unit per group, so that the two compile in parallel).
#pragma once
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <future>
#include <optional>
#include <string_view>
#include <type_traits>
#include <vector>

#include "gpu/cuda_check.hpp"
#include "gpu/curve.cuh"
#include "gpu/device_buffer.hpp"
#include "gpu/host_staging.hpp"
#include "gpu/msm.hpp"
#include "gpu/msm_common.cuh"
#include "gpu/msm_reduction.cuh"
#include "prover/algebra/endomorphism.hpp"

namespace cuzk::gpu {
namespace {

using algebra::Fr;

// --- classification -------------------------------------------------------------------------------

// ones_bitmap bit i: scalar i == 1; ones_per_word[w] = popcount of bitmap word w. tail_flag[i]: scalar i
// is neither 0 nor 1.
__global__ void classify_kernel(const DevFr* __restrict__ scalars, uint32_t n,
                                uint32_t* __restrict__ ones_bitmap, uint32_t* __restrict__ ones_per_word,
                                uint32_t* __restrict__ tail_flag) {
  uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  bool one = false, tail = false;
  if (i < n) {
    DevFr s = load_vec(scalars + i);
    one = s.is_one();
    tail = !one && !s.is_zero();
    tail_flag[i] = tail ? 1u : 0u;
  }
  uint32_t word = __ballot_sync(0xffffffffu, one);
  if ((threadIdx.x & 31) == 0 && i < n) {
    ones_bitmap[i >> 5] = word;
    ones_per_word[i >> 5] = __popc(word);
  }
}

// *tail += the number of scalars that are neither 0 nor 1 (one atomic per warp).
__global__ void count_tail_kernel(const DevFr* __restrict__ scalars, std::size_t n,
                                  unsigned long long* __restrict__ tail) {
  const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  bool in_tail = false;
  if (i < n) {
    DevFr s = load_vec(scalars + i);
    in_tail = !s.is_one() && !s.is_zero();
  }
  const uint32_t votes = __ballot_sync(0xffffffffu, in_tail);
  if ((threadIdx.x & 31) == 0 && votes) atomicAdd(tail, (unsigned long long)__popc(votes));
}

// Bitmap-driven compaction of the scalars equal to one: bit j of word w goes to
// ones_index[word_offset[w] + number of set bits below j].
__global__ void scatter_ones_kernel(const uint32_t* __restrict__ ones_bitmap,
                                    const uint32_t* __restrict__ word_offset, uint32_t n,
                                    uint32_t* __restrict__ ones_index) {
  uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  uint32_t word = ones_bitmap[i >> 5];
  uint32_t bit = i & 31;
  if ((word >> bit) & 1) ones_index[word_offset[i >> 5] + __popc(word & ((1u << bit) - 1))] = i;
}

__global__ void scatter_tail_kernel(const uint32_t* __restrict__ flag, const uint32_t* __restrict__ position,
                                    uint32_t n, uint32_t* __restrict__ tail_index) {
  uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && flag[i]) tail_index[position[i]] = i;
}

// Batch addition of the bases of the scalars equal to one: thread t adds the bases of
// ones_index[t L .. t L + L) (no divergence: every lane has work), then one partial sum per block.
template <class F, int NT>
__global__ void __launch_bounds__(NT)
    ones_sum_kernel(const uint32_t* __restrict__ ones_index, uint32_t count, uint32_t per_thread,
                    const DevAffine<F>* __restrict__ bases, Xyzz<F>* __restrict__ partial) {
  __shared__ Xyzz<F> buf[NT];
  Xyzz<F> acc = Xyzz<F>::infinity();
  const uint32_t t = blockIdx.x * NT + threadIdx.x;
  const uint64_t lo = uint64_t(t) * per_thread;
  const uint64_t hi = lo + per_thread < count ? lo + per_thread : count;
  for (uint64_t i = lo; i < hi; ++i) acc.add_affine(load_vec(bases + __ldg(ones_index + i)));
  Xyzz<F> total = block_sum<F, NT>(acc, buf);
  if (threadIdx.x == 0) store_vec(partial + blockIdx.x, total);
}

// One block: out[0] = sum of in[0 .. count).
template <class F, int NT>
__global__ void __launch_bounds__(NT)
    sum_points_kernel(const Xyzz<F>* __restrict__ in, uint32_t count, Xyzz<F>* __restrict__ out) {
  __shared__ Xyzz<F> buf[NT];
  Xyzz<F> acc = Xyzz<F>::infinity();
  for (uint32_t i = threadIdx.x; i < count; i += NT) acc.add(load_vec_rw(in + i));
  Xyzz<F> total = block_sum<F, NT>(acc, buf);
  if (threadIdx.x == 0) store_vec(out, total);
}

// --- Pippenger ------------------------------------------------------------------------------------

// Windows [begin, end) of a pass (MsmOptions::max_sort_pairs): their digits are written, window `begin` at
// keys[0]; the windows below are still walked for their carries.
struct PassWindows {
  unsigned begin, end;
};

// Signed digits of one scalar (limbs: 32-bit, little-endian, zero above its bits and one limb past them)
// for the pass's windows, as sorted-pair keys and values at keys[(w - pass.begin) * stride + pos]. Digit d
// of window w (width b) lies in [-2^(b-1), 2^(b-1)]; bucket |d| - 1; d = 0 gets the key 2^(c-1) (one past
// the last bucket of a full window), which sorts after every bucket and is skipped.
__device__ __forceinline__ void write_digits(const uint32_t* limbs, const WindowLayout& layout,
                                             PassWindows pass, uint32_t point, uint32_t* __restrict__ keys,
                                             uint32_t* __restrict__ values, std::size_t stride,
                                             std::size_t pos) {
  const uint32_t zero_key = 1u << (layout.c - 1);
  uint32_t carry = 0;
  for (unsigned w = 0; w < pass.end; ++w) {
    const unsigned bit = layout.offset(w), width = layout.width(w);  // inside the scalar's bits
    const uint32_t half = 1u << (width - 1);
    const unsigned limb = bit >> 5, shift = bit & 31;
    const uint64_t pair = (uint64_t(limbs[limb + 1]) << 32) | limbs[limb];
    uint32_t raw = (uint32_t(pair >> shift) & ((1u << width) - 1)) + carry;
    uint32_t key, value;
    if (raw > half) {  // negative digit raw - 2^width, carry one into the next window
      carry = 1;
      uint32_t magnitude = (1u << width) - raw;  // 0 when raw == 2^width
      key = magnitude ? magnitude - 1 : zero_key;
      value = point | kNegBit;
    } else {
      carry = 0;
      key = raw ? raw - 1 : zero_key;
      value = point;
    }
    if (w >= pass.begin) {
      keys[(w - pass.begin) * stride + pos] = key;
      values[(w - pass.begin) * stride + pos] = value;
    }
  }
}

// The digits of every (tail) scalar in the pass's windows. Whole scalars: m pairs per window, pair i for
// point index[i]. Split scalars (phi_offset != 0, k = k1 + k2 lambda): 2m pairs per window, pair i for k1
// and point index[i], pair m + i for k2 and its phi(P), at phi_offset + index[i] in the bases.
__global__ void digits_kernel(const DevFr* __restrict__ scalars, const uint32_t* __restrict__ index,
                              uint32_t m, WindowLayout layout, PassWindows pass, uint32_t phi_offset,
                              uint32_t* __restrict__ keys, uint32_t* __restrict__ values) {
  uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m) return;
  uint32_t point = index ? index[i] : i;
  DevFr s = load_vec(scalars + point).from_montgomery();
  uint32_t limbs[9];
  if (phi_offset == 0) {
#pragma unroll
    for (int j = 0; j < 8; ++j) limbs[j] = s.v[j];
    limbs[8] = 0;
    write_digits(limbs, layout, pass, point, keys, values, m, i);
    return;
  }
  uint64_t k[4], k1[2], k2[2];
#pragma unroll
  for (int j = 0; j < 4; ++j) k[j] = (uint64_t(s.v[2 * j + 1]) << 32) | s.v[2 * j];
  algebra::glv::split_scalar(k, k1, k2);
  const std::size_t stride = std::size_t(2) * m;
#pragma unroll
  for (int j = 4; j < 9; ++j) limbs[j] = 0;
  for (int half = 0; half < 2; ++half) {
    const uint64_t* h = half ? k2 : k1;
    limbs[0] = uint32_t(h[0]);
    limbs[1] = uint32_t(h[0] >> 32);
    limbs[2] = uint32_t(h[1]);
    limbs[3] = uint32_t(h[1] >> 32);
    write_digits(limbs, layout, pass, half ? phi_offset + point : point, keys, values, stride,
                 half ? m + i : i);
  }
}

// phi(P_i) = (beta x_i, y_i) for the bases [0, n), written at out[i] (infinity, (0, 0), stays (0, 0)).
__global__ void endomorphism_bases_kernel(const DevAffine<DevFp>* __restrict__ bases, std::size_t n,
                                          DevFp beta, DevAffine<DevFp>* __restrict__ out) {
  const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  DevAffine<DevFp> p = load_vec(bases + i);
  p.x = p.x * beta;
  store_vec(out + i, p);
}

// start/end (exclusive) of every bucket's run in the sorted keys of every window; zeroed beforehand.
__global__ void bucket_bounds_kernel(const uint32_t* __restrict__ keys, uint32_t m, unsigned windows,
                                     uint32_t buckets, uint32_t* __restrict__ start,
                                     uint32_t* __restrict__ end) {
  size_t g = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (g >= size_t(m) * windows) return;
  uint32_t w = uint32_t(g / m), i = uint32_t(g % m);
  const uint32_t* k = keys + size_t(w) * m;
  uint32_t key = k[i];
  if (key >= buckets) return;
  size_t base = size_t(w) * buckets + key;
  if (i == 0 || k[i - 1] != key) start[base] = i;
  if (i + 1 == m || k[i + 1] != key) end[base] = i + 1;
}

// Thread t of window w adds the points of sorted pairs [t L, t L + L) into XYZZ sums, one per run of
// equal keys. A run that is a whole bucket goes to the bucket; a run cut by the chunk's end goes to
// partial_last[t], one cut by its start (and not its end) to partial_first[t]. fixup_kernel merges them.
// Registers (ptxas, sm_90, even/odd multiplication): G1 200 uncapped (8 warps per SM); capped at 168 for
// 12 warps (44 bytes spilled) it runs faster on an H200. With the earlier CIOS multiplication a cap of 128
// (16 warps) spilled and ran much slower. Keeping the warp converged (below) was the larger gain. The
// figures: bench/RESULTS.md, "Kernel measurements formerly in source comments".
template <class F>
__global__ void __launch_bounds__(128, 3)
    accumulate_kernel(const uint32_t* __restrict__ keys, const uint32_t* __restrict__ values, uint32_t m,
                      unsigned windows, uint32_t buckets, uint32_t chunk, uint32_t chunks,
                      const uint32_t* __restrict__ start, const uint32_t* __restrict__ end,
                      const DevAffine<F>* __restrict__ bases, Xyzz<F>* __restrict__ bucket_sums,
                      Xyzz<F>* __restrict__ partial_first, Xyzz<F>* __restrict__ partial_last) {
  const size_t g = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  const bool in_range = g < size_t(chunks) * windows;
  const uint32_t w = in_range ? uint32_t(g / chunks) : 0, t = in_range ? uint32_t(g % chunks) : 0;
  const uint32_t* k = keys + size_t(w) * m;
  const uint32_t* v = values + size_t(w) * m;
  const uint32_t lo = t * chunk, hi = min(lo + chunk, m);
  uint32_t key = in_range && lo < hi ? __ldg(k + lo) : buckets;
  // Lanes with work, decided before any lane leaves: every lane of the mask runs the loop below the same
  // number of times (chunk) and meets __syncwarp(mask) at the end of every iteration.
  const unsigned mask = __ballot_sync(0xffffffffu, key < buckets);
  if (key >= buckets) return;  // nothing, or only zero digits (sorted last)
  // Why a fixed trip count and no `break`: a lane leaving the loop from inside the divergent branch
  // that closes a run makes the loop's exit the branch's only join point, so the lanes that closed a
  // run and those that did not stayed split for the rest of the loop, each group running the whole
  // addition with part of the warp (Nsight Compute on an H200: 20.4 of 32 threads active, branch
  // efficiency 81.5%, with a per-run inner loop and with a flat loop that breaks alike).
  bool live = true;
  uint32_t run_start = lo;
  Xyzz<F> acc = Xyzz<F>::infinity();
  uint32_t next_val = __ldg(v + lo);
  for (uint32_t step = 0; step < chunk; ++step) {
    const uint32_t i = lo + step;
    if (live) {
      const uint32_t val = next_val;
      // The next pair's value is loaded one step ahead, so that the base load does not wait for it: two
      // dependent loads per addition became one. Prefetching the next base into L1 as well bought nothing
      // and was dropped (see bench/RESULTS.md).
      if (i + 1 < hi) next_val = __ldg(v + i + 1);
      DevAffine<F> p = load_vec(bases + (val & ~kNegBit));
      if (val & kNegBit) p = p.negated();
      acc.add_affine(p);
      const uint32_t next = i + 1 < hi ? __ldg(k + i + 1) : buckets;  // the chunk's end closes the run
      if (next != key) {
        const size_t b = size_t(w) * buckets + key;
        const uint32_t s = start[b], e = end[b];
        if (run_start == s && i + 1 == e) {
          store_vec(bucket_sums + b, acc);
        } else if (i + 1 < e) {
          store_vec(partial_last + g, acc);
        } else {
          store_vec(partial_first + g, acc);
        }
        live = next < buckets;  // false at the end of the chunk or at the zero digits
        key = next;
        run_start = i + 1;
        acc = Xyzz<F>::infinity();
      }
    }
    __syncwarp(mask);
  }
}

// Every bucket of every window gets its final sum: empty -> infinity; cut by chunk ends -> the sum of its
// partial runs (complete runs were written by accumulate_kernel). A bucket cut into more than
// `max_serial` partial runs (few distinct digits in a window: small or equal scalars, the top window)
// is left to heavy_fixup_kernel, which sums its runs with a whole block.
// With `carry` (a range after the first, MsmOptions::max_range) accumulate_kernel wrote the complete runs to
// range_sums instead, and every bucket's sum for this range is added to bucket_sums, which holds the earlier
// ranges' (the carry is here and not in accumulate_kernel, whose registers are at their limit: an addition
// more there spilled and ran the whole MSM several times slower on an H200).
template <class F>
__global__ void __launch_bounds__(128)
    fixup_kernel(uint32_t buckets, unsigned windows, uint32_t chunk, uint32_t chunks,
                 const uint32_t* __restrict__ start, const uint32_t* __restrict__ end,
                 const Xyzz<F>* __restrict__ partial_first, const Xyzz<F>* __restrict__ partial_last,
                 Xyzz<F>* __restrict__ bucket_sums, uint32_t max_serial, uint32_t* __restrict__ heavy_list,
                 uint32_t* __restrict__ heavy_count, bool carry, const Xyzz<F>* __restrict__ range_sums) {
  size_t g = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (g >= size_t(buckets) * windows) return;
  uint32_t w = uint32_t(g / buckets);
  uint32_t s = start[g], e = end[g];
  if (s == e) {
    if (!carry) store_vec(bucket_sums + g, Xyzz<F>::infinity());
    return;
  }
  uint32_t t0 = s / chunk, t1 = (e - 1) / chunk;
  if (t0 == t1) {
    if (carry) {
      Xyzz<F> sum = load_vec_rw(bucket_sums + g);
      sum.add(load_vec_rw(range_sums + g));
      store_vec(bucket_sums + g, sum);
    }
    return;
  }
  if (t1 - t0 + 1 > max_serial) {
    heavy_list[atomicAdd(heavy_count, 1u)] = uint32_t(g);
    return;
  }
  size_t base = size_t(w) * chunks;
  Xyzz<F> acc = load_vec_rw(partial_last + base + t0);
  for (uint32_t t = t0 + 1; t < t1; ++t) acc.add(load_vec_rw(partial_last + base + t));
  acc.add(load_vec_rw(partial_first + base + t1));
  if (carry) acc.add(load_vec_rw(bucket_sums + g));
  store_vec(bucket_sums + g, acc);
}

// One block per heavy bucket (blocks past *heavy_count exit): the partial runs t0 .. t1, strided over
// the threads, then a tree sum.
template <class F, int NT>
__global__ void __launch_bounds__(NT)
    heavy_fixup_kernel(uint32_t buckets, uint32_t chunk, uint32_t chunks, const uint32_t* __restrict__ start,
                       const uint32_t* __restrict__ end, const Xyzz<F>* __restrict__ partial_first,
                       const Xyzz<F>* __restrict__ partial_last, Xyzz<F>* __restrict__ bucket_sums,
                       const uint32_t* __restrict__ heavy_list, const uint32_t* __restrict__ heavy_count,
                       bool carry) {
  __shared__ Xyzz<F> buf[NT];
  if (blockIdx.x >= *heavy_count) return;
  const uint32_t g = heavy_list[blockIdx.x];
  const uint32_t w = g / buckets;
  const uint32_t t0 = start[g] / chunk, t1 = (end[g] - 1) / chunk;
  const size_t base = size_t(w) * chunks;
  Xyzz<F> acc = Xyzz<F>::infinity();
  for (uint32_t t = t0 + threadIdx.x; t <= t1; t += NT)
    acc.add(load_vec_rw((t == t1 ? partial_first : partial_last) + base + t));
  Xyzz<F> total = block_sum<F, NT>(acc, buf);
  if (threadIdx.x == 0) {
    if (carry) total.add(load_vec_rw(bucket_sums + g));
    store_vec(bucket_sums + g, total);
  }
}

// --- host side ------------------------------------------------------------------------------------

template <class Field>
algebra::Jacobian<
    typename std::conditional_t<std::is_same_v<Field, algebra::Fp>, algebra::G1Config, algebra::G2Config>>
jacobian_from_xyzz(const Field& X, const Field& Y, const Field& ZZ, const Field& ZZZ) {
  using Cfg = std::conditional_t<std::is_same_v<Field, algebra::Fp>, algebra::G1Config, algebra::G2Config>;
  algebra::Jacobian<Cfg> r;
  if (ZZ.is_zero()) return algebra::Jacobian<Cfg>::identity();
  Field zzz2 = ZZZ.square();
  r.Z = ZZ * ZZZ;
  r.X = X * ZZ * zzz2;
  r.Y = Y * ZZ.square() * ZZ * zzz2;
  return r;
}

}  // namespace

template <class Cfg>
struct Msm<Cfg>::Impl {
  using F = typename DeviceField<Cfg>::type;
  static constexpr int NT = reduce_threads<F>();
  static_assert(sizeof(DevAffine<F>) == sizeof(DeviceAffine));
  static_assert(sizeof(Xyzz<F>) == 4 * sizeof(Field));

  DevAffine<F>* bases = nullptr;  // count bases, then (MsmTables::kEndomorphism) their images under phi
  bool owns_bases = true;         // false: a lent window (Msm::LentWindows), with lent_second beside it
  DevAffine<F>* lent_second = nullptr;
  std::size_t count = 0;
  bool split_scalars = false;  // the phi table is there: scalars are split in two halves
  Stream stream;
  MsmTimings timings;
  Event ev[8];

  // Scratch, grown on demand and kept across calls: the sort scratch and the bucket state in the workspace
  // (shared with other Msm objects when the constructor was given one), the small rest here.
  std::shared_ptr<MsmWorkspace> ws;
  DeviceBuffer<uint32_t> heavy_list, heavy_count;
  DeviceBuffer<Xyzz<F>> window_sums, ones_partial, ones_total;
  DeviceBuffer<Xyzz<F>> ones_totals;  // one sum of the bases of ones per range and vector
  DeviceBuffer<unsigned long long> tail_counter;
  // This run's bucket state, in the workspace (ensure_bucket_buffers): the sums of every bucket of every
  // window; for one pass, the buckets' bounds, the chunks' partial runs and a later range's complete runs.
  Xyzz<F>* bucket_sums = nullptr;
  uint32_t *start = nullptr, *end = nullptr;
  Xyzz<F>*partial_first = nullptr, *partial_last = nullptr, *range_sums = nullptr;
  // Streaming (run with a BaseLoader): the second window buffer, the copy stream and its events.
  DeviceBuffer<DevAffine<F>> second_window;
  Stream copy_stream;
  Event loaded[2], released[2];
  // Per range of a run, for MsmRangeTotals: kept across runs, grown to the most ranges a run had.
  struct RangeEvents {
    Event begin, classified, resumed, ones, end, copy_begin, copy_end;
  };
  std::vector<RangeEvents> range_events;  // per range and vector: entry r * batch_ + v
  std::size_t batch_ = 1;                 // vectors of the current run
  BucketReduction<F, NT> reduction;

  ~Impl() {
    if (bases && owns_bases) cudaFree(bases);
  }

  void cub_ensure(std::size_t bytes) { ws->cub_temp.ensure(std::max<std::size_t>(bytes, 1)); }
  // `count` elements of T in a workspace byte buffer (grown on demand; old contents discarded on growth).
  template <class T>
  static T* typed(DeviceBuffer<unsigned char>& raw, std::size_t count) {
    raw.ensure(std::max<std::size_t>(count, 1) * sizeof(T));
    return reinterpret_cast<T*>(raw.data());
  }

  // Room for the bases and, with the endomorphism table, as many again (the sorted pairs' values hold
  // base indices below 2^31).
  static std::size_t table_entries(std::size_t count, MsmTables tables) {
    if (tables == MsmTables::kBases) return count;
    if (!std::is_same_v<Cfg, algebra::G1Config>) throw GpuError("Msm: the endomorphism table is for G1 only");
    if (count >= (std::size_t{1} << 30))
      throw GpuError("Msm: at most 2^30 - 1 bases with the endomorphism table");
    return 2 * count;
  }

  // phi(P_i) at bases[count + i], from the bases already in place.
  void fill_endomorphism_table() {
    if constexpr (std::is_same_v<Cfg, algebra::G1Config>) {
      const algebra::Fp beta = algebra::Fp::from_canonical(algebra::hex_to_limbs<6>(algebra::glv::kBetaHex));
      DevFp beta_dev;
      std::memcpy(&beta_dev, &beta, sizeof beta_dev);
      if (count > 0) {
        endomorphism_bases_kernel<<<uint32_t((count + 255) / 256), 256, 0, stream.get()>>>(
            bases, count, beta_dev, bases + count);
        CUDA_LAUNCH_OK();
        stream.synchronize();
      }
      split_scalars = true;
    }
  }

  // Where the Pippenger part finds its scalars: `count` of them, at the positions `index` lists
  // (nullptr: the first `count`, in order).
  struct Tail {
    const uint32_t* index = nullptr;
    std::size_t count = 0;
  };
  struct ScalarClasses {
    Tail tail;         // neither 0 nor 1
    std::size_t ones;  // equal to 1
  };

  // Where run() finds its scalars: on the device, or in host memory (uploaded a range at a time).
  struct Scalars {
    const Fr* device = nullptr;
    const Fr* host = nullptr;
  };

  // One scalar vector of a run and its state across the ranges: its own bucket sums (the workspace's
  // bucket_sums for the first vector, batch_bucket_sums for the others) and the sums of its bases of ones.
  struct VectorRun {
    Scalars in;
    std::size_t n = 0;
    std::size_t ranges = 0;
    std::optional<PippengerShape> whole;  // the layout of its whole MSM
    DeviceBuffer<unsigned char>* sums = nullptr;
    bool carry = false;           // its bucket sums hold an earlier range's
    std::size_t ones_ranges = 0;  // its ranges whose sum of the bases of ones is in ones_totals
  };

  // A streamed run's scalars in host memory: uploaded by start_load with the range's bases, on copy_stream,
  // into the buffers of the range's parity, so that range r + 1's scalars cross PCIe while range r is
  // computed (not on the queuing thread between two ranges, the stream idle meanwhile).
  std::vector<Scalars> prefetch_in_;    // per vector of the current run (its host scalars, or none)
  std::vector<std::size_t> prefetch_n_;  // their lengths

  // sum scalars[i] * P_i, i < n. The scalars go in ranges of at most opt.max_range (and at most a window,
  // when streaming): each range is classified and its digits sorted on its own, and its bucket sums are
  // added to those of the ranges before, so that the buckets are reduced once at the end. Bases: resident
  // (this Msm's table, `load` empty), or streamed: `load` fills a window buffer with range r's bases on
  // copy_stream while range r - 1 is computed on the other buffer.
  Point run(Scalars in, std::size_t n, const MsmOptions& opt, const BaseLoader* load = nullptr) {
    const VectorIn one{in, n};
    return run_vectors(std::span<const VectorIn>(&one, 1), opt, load).front();
  }

  struct VectorIn {
    Scalars in;
    std::size_t n = 0;
  };
  // run() of several scalar vectors over the same bases in one pass over them: each range's bases (a window,
  // when streaming) serve every vector before the next range's, so streamed bases cross PCIe once for all of
  // them. Each vector keeps its own bucket sums; the sums are those of run() of each.
  std::vector<Point> run_vectors(std::span<const VectorIn> vectors, const MsmOptions& opt,
                                 const BaseLoader* load = nullptr) {
    std::size_t n = 0;  // the longest vector
    for (const VectorIn& v : vectors) {
      if (v.n > count && !load) throw GpuError("Msm: more scalars than bases");
      if (v.n >= (std::size_t{1} << 31)) throw GpuError("Msm: at most 2^31 - 1 points");
      n = std::max(n, v.n);
    }
    if (opt.window_bits && (opt.window_bits < 2 || opt.window_bits > kMaxWindowBits))
      throw GpuError("Msm: window_bits must be in 2..24");
    if (load && split_scalars) throw GpuError("Msm: streamed bases with the endomorphism table");
    timings = {};
    cudaStream_t s = stream.get();
    ev[0].record(s);
    const std::size_t k = vectors.size();
    if (n == 0) return std::vector<Point>(k, Point::identity());

    std::size_t range = opt.max_range ? std::min(opt.max_range, n) : n;
    if (load) range = std::min(range, count);  // a window holds `count` bases
    const std::size_t ranges = (n + range - 1) / range;
    batch_ = k;
    std::vector<VectorRun> runs(k);
    while (ws->batch_bucket_sums.size() + 1 < k) ws->batch_bucket_sums.emplace_back();
    for (std::size_t v = 0; v < k; ++v) {
      VectorRun& vr = runs[v];
      vr.in = vectors[v].in;
      vr.n = vectors[v].n;
      vr.ranges = (vr.n + range - 1) / range;
      vr.sums = v == 0 ? &ws->bucket_sums : &ws->batch_bucket_sums[v - 1];
      if (vr.n == 0) continue;
      // The layout is the whole MSM's: from the tail count when the scalars are on the device (one counting
      // pass), else from n (an upper bound; the planner sized the buckets for it).
      const std::size_t tail_estimate =
          !opt.split_ones
              ? vr.n
              : (vr.in.device ? count_tail(reinterpret_cast<const DevFr*>(vr.in.device), vr.n, s) : vr.n);
      vr.whole.emplace(PippengerShape::for_tail(std::max<std::size_t>(tail_estimate, 1), split_scalars,
                                                opt.window_bits, opt.max_window_bits, vr.ranges));
    }
    while (range_events.size() < ranges * k) range_events.emplace_back();
    ones_totals.ensure(ranges * k);  // vector v's at v * ranges
    prefetch_in_.assign(k, Scalars{});
    prefetch_n_.assign(k, 0);
    if (load && scalar_prefetch_enabled()) {
      for (std::size_t v = 0; v < k; ++v)
        if (runs[v].n > 0 && !runs[v].in.device) {
          prefetch_in_[v] = runs[v].in;
          prefetch_n_[v] = runs[v].n;
          for (std::size_t parity = 0; parity < std::min<std::size_t>(2, ranges); ++parity)
            prefetched_scalars(parity, v).ensure(std::min(range, runs[v].n));  // here, not on the loader
        }
      if (!ws->staging && std::any_of(prefetch_n_.begin(), prefetch_n_.end(), [](std::size_t m) { return m; }))
        ws->staging.emplace();
    }
    // The load of the next range runs on a thread of its own (a loader may read the file first), so that
    // this thread goes on queuing the current range's work. Declared after everything it uses: a failure
    // here waits for it on the way out.
    int device = 0;
    CUDA_OK(cudaGetDevice(&device));
    std::future<void> next_load;
    if (load) start_load(*load, 0, 0, std::min(range, n));
    for (std::size_t r = 0; r < ranges; ++r) {
      const std::size_t first = r * range, len = std::min(range, n - first);
      const DevAffine<F>* range_bases = bases + first;
      if (load) {
        range_bases = window_buffer(r);
        if (next_load.valid()) next_load.get();  // range r's copies are queued (rethrows the loader's error)
        CUDA_OK(cudaStreamWaitEvent(s, loaded[r % 2].get(), 0));  // and done before its bases are read
        if (r + 1 < ranges) {
          window_buffer(r + 1);  // made here, not on the loading thread
          const std::size_t next_first = first + range, next_len = std::min(range, n - next_first);
          next_load = std::async(std::launch::async, [this, load, device, r, next_first, next_len] {
            CUDA_OK(cudaSetDevice(device));
            start_load(*load, r + 1, next_first, next_len);
          });
        }
      }
      for (std::size_t v = 0; v < k; ++v) {
        RangeEvents& re = range_events[r * k + v];
        if (first >= runs[v].n) {  // a shorter vector: nothing of it in this range
          re.begin.record(s);
          re.classified.record(s);
          re.resumed.record(s);
          re.ones.record(s);
          re.end.record(s);
          continue;
        }
        const std::size_t len_v = std::min(len, runs[v].n - first);
        const DevFr* scalars = prefetch_n_[v] ? reinterpret_cast<const DevFr*>(prefetched_scalars(r % 2, v).data())
                                              : range_scalars(runs[v].in, first, len_v, s);
        add_range(runs[v], v * ranges, first, len_v, scalars, range_bases, opt, re, s);
      }
      if (load) released[r % 2].record(s);  // the window buffer may be refilled after this
    }
    // 3. one reduction of each vector's buckets (none when every scalar was 0 or 1), the ones' sums added up.
    std::vector<std::vector<Xyzz<F>>> host_window_sums(k);
    std::vector<std::optional<WindowLayout>> layouts(k);
    std::vector<std::optional<Xyzz<F>>> ones_host_sums(k);
    ones_total.ensure(k);
    for (std::size_t v = 0; v < k; ++v) {
      VectorRun& vr = runs[v];
      if (vr.carry) {
        layouts[v] = vr.whole->layout;
        bucket_sums = reinterpret_cast<Xyzz<F>*>(vr.sums->data());
        host_window_sums[v] = reduce_windows(*vr.whole, s);
      }
      if (vr.ones_ranges) {
        ones_host_sums[v].emplace();
        Xyzz<F>* total = ones_totals.data() + v * ranges;
        if (vr.ones_ranges > 1) {
          sum_points_kernel<F, NT><<<1, NT, 0, s>>>(total, uint32_t(vr.ones_ranges), ones_total.data() + v);
          CUDA_LAUNCH_OK();
          total = ones_total.data() + v;
        }
        CUDA_OK(cudaMemcpyAsync(&*ones_host_sums[v], total, sizeof(Xyzz<F>), cudaMemcpyDeviceToHost, s));
      }
    }
    ev[6].record(s);
    CUDA_OK(cudaStreamSynchronize(s));
    record_phase_times(layouts.back());
    record_range_totals(ranges, k, load != nullptr, n);
    std::vector<Point> out;
    out.reserve(k);
    for (std::size_t v = 0; v < k; ++v)
      out.push_back(combine_on_host(layouts[v], host_window_sums[v], ones_host_sums[v]));
    return out;
  }

  // Range [first, first + len) of one vector of a run (its `scalars` on the device), against `range_bases`
  // (the range's first base):
  // 1. the scalars equal to one are summed apart (into ones_totals[ones_base + ...]); the others (0
  // excluded) are the tail. Without the split, every scalar is in the tail. 2. Pippenger over the tail:
  // signed digits sorted by bucket, bucket sums added to the vector's carried ones; the windows in passes of
  // at most opt.max_sort_pairs pairs, each pass into its windows' buckets.
  void add_range(VectorRun& vr, std::size_t ones_base, std::size_t first, std::size_t len, const DevFr* scalars,
                 const DevAffine<F>* range_bases, const MsmOptions& opt, RangeEvents& re, cudaStream_t s) {
    re.begin.record(s);
    ScalarClasses classes{.tail = {nullptr, len}, .ones = 0};
    if (opt.split_ones) {
      classes = classify_scalars(scalars, uint32_t(len), re.classified, s);
      re.resumed.record(s);  // after the host's wait: from `classified` to here, the stream idled
      if (classes.ones)
        sum_bases_of_ones(classes.ones, range_bases, ones_totals.data() + ones_base + vr.ones_ranges++, s);
    } else {
      ev[1].record(s);
      re.classified.record(s);
      re.resumed.record(s);
    }
    re.ones.record(s);
    ev[2].record(s);
    timings.ones_count += classes.ones;
    timings.tail_count += classes.tail.count;
    if (classes.tail.count > 0) {
      const PippengerShape shape = vr.whole->for_range(classes.tail.count, split_scalars);
      const unsigned per_pass = shape.windows_per_pass(opt.max_sort_pairs);
      ensure_bucket_buffers(*vr.whole, shape, per_pass, vr.ranges > 1, *vr.sums);
      for (unsigned w = 0; w < shape.layout.windows; w += per_pass) {
        const PassWindows pass{w, std::min(w + per_pass, shape.layout.windows)};
        sort_digits_by_bucket(scalars, classes.tail, shape, pass, s);
        accumulate_buckets(shape, pass, range_bases, vr.carry, s);
      }
      vr.carry = true;
    } else {
      ev[3].record(s);
      ev[4].record(s);
      ev[5].record(s);
    }
    re.end.record(s);
  }

  // The bases of a streamed MSM: load(first, count, dst, stream) queues the copy of bases [first, first +
  // count) into dst on `stream`.
  void start_load(const BaseLoader& load, std::size_t r, std::size_t first, std::size_t len) {
    cudaStream_t c = copy_stream.get();
    if (r >= 2) CUDA_OK(cudaStreamWaitEvent(c, released[r % 2].get(), 0));  // range r - 2 is done with it
    RangeEvents& re = range_events[r * batch_];  // a range's copy events are its first vector's
    re.copy_begin.record(c);
    load(first, len, reinterpret_cast<DeviceAffine*>(window_buffer(r)), c);
    // The scalars' buffers of this parity were last read by range r - 2, which `released` covers. Only this
    // thread uses the staging during a streamed run (the queuing thread reads the prefetched buffers).
    for (std::size_t v = 0; v < prefetch_n_.size(); ++v)
      if (first < prefetch_n_[v])
        ws->staging->upload(prefetched_scalars(r % 2, v).data(), prefetch_in_[v].host + first,
                            std::min(len, prefetch_n_[v] - first) * sizeof(Fr), c);
    re.copy_end.record(c);
    loaded[r % 2].record(c);
  }
  // Window buffer of range r: the table itself for even ranges, a second one of the same size for odd ones.
  DevAffine<F>* window_buffer(std::size_t r) {
    if (r % 2 == 0) return bases;
    if (lent_second) return lent_second;
    second_window.ensure(count);
    return second_window.data();
  }

  // Off with CUZK_GPU_SCALAR_PREFETCH=0 (for A/B runs): each range's host scalars are then uploaded on the
  // compute stream before the range, by the queuing thread.
  static bool scalar_prefetch_enabled() {
    static const bool enabled = [] {
      const char* value = std::getenv("CUZK_GPU_SCALAR_PREFETCH");
      return !(value && std::string_view(value) == "0");
    }();
    return enabled;
  }

  // The device buffer of vector v's prefetched scalars for ranges of this parity: the workspace's scalar
  // buffer for the first, the workspace's prefetch buffers for the others (MsmBytes::prefetch_scalars).
  DeviceBuffer<Fr>& prefetched_scalars(std::size_t parity, std::size_t v) {
    const std::size_t i = parity * batch_ + v;
    if (i == 0) return ws->scalars;
    while (ws->prefetch_scalars.size() < i) ws->prefetch_scalars.emplace_back();
    return ws->prefetch_scalars[i - 1];
  }

  // Range [first, first + len) of the scalars on the device: in place, or uploaded into the workspace.
  const DevFr* range_scalars(Scalars in, std::size_t first, std::size_t len, cudaStream_t s) {
    if (in.device) return reinterpret_cast<const DevFr*>(in.device + first);
    ws->scalars.ensure(std::max<std::size_t>(len, 1));
    std::optional<HostStaging>& staging = ws->staging;
    if (!staging) staging.emplace();
    staging->upload(ws->scalars.data(), in.host + first, len * sizeof(Fr), s);
    return reinterpret_cast<const DevFr*>(ws->scalars.data());
  }

  // The number of scalars that are neither 0 nor 1 (one pass; the layout of a ranged MSM is chosen by it).
  std::size_t count_tail(const DevFr* scalars, std::size_t n, cudaStream_t s) {
    tail_counter.ensure(1);
    tail_counter.zero(s);
    count_tail_kernel<<<uint32_t((n + 255) / 256), 256, 0, s>>>(scalars, n, tail_counter.data());
    CUDA_LAUNCH_OK();
    unsigned long long tail = 0;
    CUDA_OK(cudaMemcpyAsync(&tail, tail_counter.data(), sizeof tail, cudaMemcpyDeviceToHost, s));
    CUDA_OK(cudaStreamSynchronize(s));
    return std::size_t(tail);
  }

 private:
  // Classification and compaction: the positions of the tail scalars (neither 0 nor 1) into
  // ws->tail_index, those of the scalars equal to one into ws->ones_index. Waits for the stream: the
  // host needs both counts to size what follows.
  ScalarClasses classify_scalars(const DevFr* scalars, uint32_t n32, Event& classified, cudaStream_t s) {
    const std::size_t n = n32;
    const uint32_t words = (n32 + 31) / 32;
    ws->ones_bitmap.ensure(words);
    ws->ones_per_word.ensure(words);
    ws->ones_offset.ensure(words);
    ws->ones_index.ensure(n);
    ws->tail_flag.ensure(n);
    ws->tail_pos.ensure(n);
    ws->tail_index.ensure(n);
    classify_kernel<<<(n32 + 255) / 256, 256, 0, s>>>(scalars, n32, ws->ones_bitmap.data(),
                                                      ws->ones_per_word.data(), ws->tail_flag.data());
    CUDA_LAUNCH_OK();
    std::size_t bytes = 0, bytes2 = 0;
    CUDA_OK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, ws->tail_flag.data(), ws->tail_pos.data(), int(n32),
                                          s));
    CUDA_OK(cub::DeviceScan::ExclusiveSum(nullptr, bytes2, ws->ones_per_word.data(), ws->ones_offset.data(),
                                          int(words), s));
    cub_ensure(std::max(bytes, bytes2));
    CUDA_OK(cub::DeviceScan::ExclusiveSum(ws->cub_temp.data(), bytes, ws->tail_flag.data(),
                                          ws->tail_pos.data(), int(n32), s));
    CUDA_OK(cub::DeviceScan::ExclusiveSum(ws->cub_temp.data(), bytes2, ws->ones_per_word.data(),
                                          ws->ones_offset.data(), int(words), s));
    scatter_tail_kernel<<<(n32 + 255) / 256, 256, 0, s>>>(ws->tail_flag.data(), ws->tail_pos.data(), n32,
                                                          ws->tail_index.data());
    CUDA_LAUNCH_OK();
    scatter_ones_kernel<<<(n32 + 255) / 256, 256, 0, s>>>(ws->ones_bitmap.data(), ws->ones_offset.data(), n32,
                                                          ws->ones_index.data());
    CUDA_LAUNCH_OK();
    // The counts are the last exclusive prefix sums plus the last elements.
    uint32_t last[4] = {0, 0, 0, 0};
    CUDA_OK(cudaMemcpyAsync(&last[0], ws->tail_pos.data() + n32 - 1, 4, cudaMemcpyDeviceToHost, s));
    CUDA_OK(cudaMemcpyAsync(&last[1], ws->tail_flag.data() + n32 - 1, 4, cudaMemcpyDeviceToHost, s));
    CUDA_OK(cudaMemcpyAsync(&last[2], ws->ones_offset.data() + words - 1, 4, cudaMemcpyDeviceToHost, s));
    CUDA_OK(cudaMemcpyAsync(&last[3], ws->ones_per_word.data() + words - 1, 4, cudaMemcpyDeviceToHost, s));
    ev[1].record(s);
    classified.record(s);
    CUDA_OK(cudaStreamSynchronize(s));
    timings.classify_ms = ev[1].elapsed_ms_since(ev[0]);
    return {.tail = {ws->tail_index.data(), std::size_t(last[0]) + last[1]},
            .ones = std::size_t(last[2]) + last[3]};
  }

  // Batch addition of the bases of the `ones` scalars equal to one (ws->ones_index) into *out.
  void sum_bases_of_ones(std::size_t ones, const DevAffine<F>* range_bases, Xyzz<F>* out, cudaStream_t s) {
    constexpr int kOnesThreads = 128;
    uint32_t per_thread = 1;
    while (ones / per_thread > (std::size_t{1} << 17)) per_thread <<= 1;
    const uint32_t threads = uint32_t((ones + per_thread - 1) / per_thread);
    const uint32_t blocks = (threads + kOnesThreads - 1) / kOnesThreads;
    ones_partial.ensure(blocks);
    ones_sum_kernel<F, kOnesThreads><<<blocks, kOnesThreads, 0, s>>>(
        ws->ones_index.data(), uint32_t(ones), per_thread, range_bases, ones_partial.data());
    CUDA_LAUNCH_OK();
    sum_points_kernel<F, NT><<<1, NT, 0, s>>>(ones_partial.data(), blocks, out);
    CUDA_LAUNCH_OK();
  }

  // The sorted pairs, the bucket sums of every window, and a pass's bucket bounds, partial runs and (ranged)
  // complete runs, in the workspace for `shape` in passes of `per_pass` windows. The bucket sums' size is
  // the whole MSM's, the same for every range, so they are never reallocated (and lost) within a run.
  void ensure_bucket_buffers(const PippengerShape& whole, const PippengerShape& shape, unsigned per_pass,
                             bool ranged, DeviceBuffer<unsigned char>& sums) {
    const std::size_t all_buckets = std::size_t(whole.buckets) * whole.layout.windows;
    const std::size_t pass_buckets = std::size_t(whole.buckets) * per_pass;
    const std::size_t pass_pairs = shape.per_window * per_pass;
    const std::size_t pass_chunks = shape.chunks * per_pass;
    ws->keys_in.ensure(pass_pairs);
    ws->values_in.ensure(pass_pairs);
    ws->keys_out.ensure(pass_pairs);
    ws->values_out.ensure(pass_pairs);
    ws->bucket_start.ensure(pass_buckets);
    ws->bucket_end.ensure(pass_buckets);
    start = ws->bucket_start.data();
    end = ws->bucket_end.data();
    bucket_sums = typed<Xyzz<F>>(sums, all_buckets);
    partial_first = typed<Xyzz<F>>(ws->partial_first, pass_chunks);
    partial_last = typed<Xyzz<F>>(ws->partial_last, pass_chunks);
    range_sums = ranged ? typed<Xyzz<F>>(ws->range_sums, pass_buckets) : nullptr;
  }

  // The signed digits of the tail scalars in the pass's windows as (bucket, point) pairs, window by window,
  // sorted by bucket into ws->keys_out/values_out.
  void sort_digits_by_bucket(const DevFr* scalars, const Tail& tail, const PippengerShape& shape,
                             PassWindows pass, cudaStream_t s) {
    // Sorted pairs per window: one per tail scalar, or one per half of a split scalar.
    const uint32_t m32 = uint32_t(shape.per_window);
    const unsigned c = shape.layout.c, windows = pass.end - pass.begin;
    const uint32_t phi_offset = split_scalars ? uint32_t(count) : 0;
    digits_kernel<<<uint32_t((tail.count + 127) / 128), 128, 0, s>>>(
        scalars, tail.index, uint32_t(tail.count), shape.layout, pass, phi_offset, ws->keys_in.data(),
        ws->values_in.data());
    CUDA_LAUNCH_OK();
    ev[3].record(s);
    std::size_t bytes = 0;
    CUDA_OK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, ws->keys_in.data(), ws->keys_out.data(),
                                            ws->values_in.data(), ws->values_out.data(), int(m32), 0, int(c),
                                            s));
    cub_ensure(bytes);
    for (unsigned w = 0; w < windows; ++w) {
      std::size_t off = std::size_t(w) * m32;
      CUDA_OK(cub::DeviceRadixSort::SortPairs(ws->cub_temp.data(), bytes, ws->keys_in.data() + off,
                                              ws->keys_out.data() + off, ws->values_in.data() + off,
                                              ws->values_out.data() + off, int(m32), 0, int(c), s));
    }
    ev[4].record(s);
  }

  // The pass's buckets' sums into bucket_sums from the sorted pairs: the bounds of every bucket's run, the
  // runs of every thread's chunk, then the buckets cut by chunk ends (few runs: fixup_kernel; many: a block
  // each in heavy_fixup_kernel). The kernels see the pass's windows as windows 0, 1, ...
  void accumulate_buckets(const PippengerShape& shape, PassWindows pass, const DevAffine<F>* range_bases,
                          bool carry, cudaStream_t s) {
    const uint32_t m32 = uint32_t(shape.per_window);
    const unsigned windows = pass.end - pass.begin;
    const uint32_t nb = shape.buckets, chunk = shape.chunk, chunks = uint32_t(shape.chunks);
    const std::size_t pairs = std::size_t(m32) * windows;
    const std::size_t all_buckets = std::size_t(nb) * windows;
    Xyzz<F>* pass_sums = bucket_sums + std::size_t(pass.begin) * nb;
    CUDA_OK(cudaMemsetAsync(start, 0, all_buckets * sizeof(uint32_t), s));
    CUDA_OK(cudaMemsetAsync(end, 0, all_buckets * sizeof(uint32_t), s));
    bucket_bounds_kernel<<<uint32_t((pairs + 255) / 256), 256, 0, s>>>(ws->keys_out.data(), m32, windows, nb,
                                                                       start, end);
    CUDA_LAUNCH_OK();
    const std::size_t threads = std::size_t(chunks) * windows;
    // The first range writes the bucket sums; later ones write their complete runs apart, carried by fixup.
    Xyzz<F>* complete_runs = carry ? range_sums : pass_sums;
    accumulate_kernel<F><<<uint32_t((threads + 127) / 128), 128, 0, s>>>(
        ws->keys_out.data(), ws->values_out.data(), m32, windows, nb, chunk, chunks, start, end, range_bases,
        complete_runs, partial_first, partial_last);
    CUDA_LAUNCH_OK();
    // At most this many buckets can be cut into more than kMaxSerial runs.
    constexpr uint32_t kMaxSerial = 16;
    const std::size_t heavy_bound = pairs / (std::size_t(kMaxSerial - 1) * chunk) + 1;
    heavy_list.ensure(heavy_bound);
    heavy_count.ensure(1);
    heavy_count.zero(s);
    fixup_kernel<F><<<uint32_t((all_buckets + 127) / 128), 128, 0, s>>>(
        nb, windows, chunk, chunks, start, end, partial_first, partial_last, pass_sums, kMaxSerial,
        heavy_list.data(), heavy_count.data(), carry, complete_runs);
    CUDA_LAUNCH_OK();
    heavy_fixup_kernel<F, NT><<<uint32_t(std::min<std::size_t>(heavy_bound, all_buckets)), NT, 0, s>>>(
        nb, chunk, chunks, start, end, partial_first, partial_last, pass_sums, heavy_list.data(),
        heavy_count.data(), carry);
    CUDA_LAUNCH_OK();
    ev[5].record(s);
  }

  // Each window's bucket sums reduced to its sum, sum_b b B_b, copied to the host (enqueued on the
  // stream: valid once it is synchronised; moving the vector keeps its storage).
  std::vector<Xyzz<F>> reduce_windows(const PippengerShape& shape, cudaStream_t s) {
    const unsigned windows = shape.layout.windows;
    window_sums.ensure(windows);
    reduction.run(bucket_sums, shape.buckets, shape.layout, window_sums.data(), s);
    std::vector<Xyzz<F>> host_window_sums(windows);
    CUDA_OK(cudaMemcpyAsync(host_window_sums.data(), window_sums.data(), windows * sizeof(Xyzz<F>),
                            cudaMemcpyDeviceToHost, s));
    return host_window_sums;
  }

  // The phase times from the events run() recorded (the stream synchronised).
  void record_phase_times(const std::optional<WindowLayout>& layout) {
    timings.ones_ms = ev[2].elapsed_ms_since(ev[1]);
    timings.digits_ms = ev[3].elapsed_ms_since(ev[2]);
    timings.sort_ms = ev[4].elapsed_ms_since(ev[3]);
    timings.accumulate_ms = ev[5].elapsed_ms_since(ev[4]);
    timings.reduce_ms = ev[6].elapsed_ms_since(ev[5]);
    timings.window_bits = layout ? layout->c : 0;
    timings.windows = layout ? layout->windows : 0;
  }

  // The sums over the run's ranges (the stream synchronised), `vectors` entries of range_events a range. An
  // entry's stall is the time from the end of the entry before (the run's start for the first) to its
  // beginning, when its window's copy (or its scalars' upload) held it.
  void record_range_totals(std::size_t ranges, std::size_t vectors, bool streamed, std::size_t n) {
    MsmRangeTotals& t = timings.ranges;
    t = {};
    t.ranges = ranges;
    t.wall_ms = ev[6].elapsed_ms_since(ev[0]);
    for (std::size_t e = 0; e < ranges * vectors; ++e) {
      const RangeEvents& re = range_events[e];
      t.stall_ms += re.begin.elapsed_ms_since(e ? range_events[e - 1].end : ev[0]);
      t.classify_ms += re.classified.elapsed_ms_since(re.begin);
      t.host_gap_ms += re.resumed.elapsed_ms_since(re.classified);
      t.ones_ms += re.ones.elapsed_ms_since(re.resumed);
      t.pippenger_ms += re.end.elapsed_ms_since(re.ones);
      if (streamed && e % vectors == 0) t.copy_ms += re.copy_end.elapsed_ms_since(re.copy_begin);
    }
    t.copied_bases = streamed ? n : 0;
  }

  // Horner over the windows: sum_w 2^(offset w) Q_w, doubling by the width of each lower window; plus
  // the sum of the bases of the scalars equal to one.
  static Point combine_on_host(const std::optional<WindowLayout>& layout,
                               const std::vector<Xyzz<F>>& host_window_sums,
                               const std::optional<Xyzz<F>>& ones_sum) {
    auto to_point = [](const Xyzz<F>& x) {
      Field f[4];
      std::memcpy(f, &x, sizeof f);
      return jacobian_from_xyzz(f[0], f[1], f[2], f[3]);
    };
    Point result = Point::identity();
    for (unsigned w = layout ? layout->windows : 0; w-- > 0;) {
      for (unsigned j = 0; j < layout->width(w) && !result.is_identity(); ++j) result = result.dbl();
      result = result + to_point(host_window_sums[w]);
    }
    if (ones_sum) result = result + to_point(*ones_sum);
    return result;
  }
};

template <class Cfg>
std::size_t Msm<Cfg>::device_bytes_bound(std::size_t count, MsmTables tables, const MsmOptions& options) {
  const bool split = tables == MsmTables::kEndomorphism;
  return Impl::table_entries(count, tables) * sizeof(DeviceAffine) +
         MsmBytes::own(count, options.max_range, sizeof(DeviceAffine), split, options.max_window_bits,
                       options.max_sort_pairs);
}

template <class Cfg>
std::size_t Msm<Cfg>::workspace_bytes_bound(std::size_t count, MsmTables tables, const MsmOptions& options) {
  const bool split = tables == MsmTables::kEndomorphism;
  return MsmBytes::workspace(count, options.max_range, split, options.max_window_bits,
                             options.max_sort_pairs) +
         MsmBytes::shared_buckets(count, options.max_range, sizeof(DeviceAffine), split,
                                  options.max_window_bits, options.max_sort_pairs);
}

template <class Cfg>
typename Msm<Cfg>::DeviceAffine Msm<Cfg>::to_device(const Affine& p) {
  DeviceAffine d{};
  if (!p.infinity) {
    d.x = p.x;
    d.y = p.y;
  }
  return d;
}

template <class Cfg>
Msm<Cfg>::Msm(std::span<const Affine> bases, std::shared_ptr<MsmWorkspace> workspace, MsmTables tables)
    : impl_(std::make_unique<Impl>()) {
  impl_->ws = workspace ? std::move(workspace) : std::make_shared<MsmWorkspace>();
  impl_->count = bases.size();
  const std::size_t entries = Impl::table_entries(bases.size(), tables);
  if (bases.empty()) return;
  const std::size_t bytes = bases.size() * sizeof(DeviceAffine);
  CUDA_OK(cudaMalloc(reinterpret_cast<void**>(&impl_->bases), entries * sizeof(DeviceAffine)));
  // Converted to the device layout chunk by chunk in pinned memory (the SRS vectors are up to 12 GiB at
  // 32GiB sectors: no second full copy on the host, and pinned-speed copies).
  std::optional<HostStaging>& staging = impl_->ws->staging;
  if (!staging) staging.emplace();
  staging->upload_generated(
      impl_->bases, bytes, sizeof(DeviceAffine),
      [&](std::byte* chunk, std::size_t offset, std::size_t len) {
        auto* out = reinterpret_cast<DeviceAffine*>(chunk);
        const std::size_t first = offset / sizeof(DeviceAffine);
        split_across_threads(len / sizeof(DeviceAffine), 1 << 16, [&](std::size_t begin, std::size_t end) {
          for (std::size_t i = begin; i < end; ++i) out[i] = to_device(bases[first + i]);
        });
      },
      impl_->stream.get());
  impl_->stream.synchronize();
  if (tables == MsmTables::kEndomorphism) impl_->fill_endomorphism_table();
}

template <class Cfg>
Msm<Cfg>::Msm(DeviceAffine* device_bases, std::size_t count, std::shared_ptr<MsmWorkspace> workspace,
              MsmTables tables)
    : impl_(std::make_unique<Impl>()) {
  impl_->ws = workspace ? std::move(workspace) : std::make_shared<MsmWorkspace>();
  impl_->bases = reinterpret_cast<DevAffine<typename Impl::F>*>(device_bases);
  impl_->count = count;
  const std::size_t entries = Impl::table_entries(count, tables);
  if (tables == MsmTables::kEndomorphism && count > 0) {
    // The bases move into a buffer with room for the second table, which the Msm owns from its allocation
    // on; the given one is freed when this scope ends, whatever happens.
    const std::unique_ptr<void, cudaError_t (*)(void*)> given(device_bases, cudaFree);
    impl_->bases = nullptr;
    CUDA_OK(cudaMalloc(reinterpret_cast<void**>(&impl_->bases), entries * sizeof(DeviceAffine)));
    // On this Msm's stream, which the table's kernel then follows: a cudaMemcpy between device buffers
    // returns before the copy is done and runs on the legacy stream, which a non-blocking stream does not
    // wait for, so the kernel could read the new buffer before the bases are in it.
    CUDA_OK(cudaMemcpyAsync(impl_->bases, device_bases, count * sizeof(DeviceAffine),
                            cudaMemcpyDeviceToDevice, impl_->stream.get()));
    impl_->fill_endomorphism_table();  // synchronises the stream: the copy is done before `given` is freed
  }
}

template <class Cfg>
Msm<Cfg>::Msm(LentWindows windows, std::size_t count, std::shared_ptr<MsmWorkspace> workspace)
    : impl_(std::make_unique<Impl>()) {
  if (count > 0 && (!windows.first || !windows.second))
    throw GpuError("Msm: a lent window without its buffers");
  impl_->ws = workspace ? std::move(workspace) : std::make_shared<MsmWorkspace>();
  impl_->bases = reinterpret_cast<DevAffine<typename Impl::F>*>(windows.first);
  impl_->lent_second = reinterpret_cast<DevAffine<typename Impl::F>*>(windows.second);
  impl_->owns_bases = false;
  impl_->count = count;
}

template <class Cfg>
Msm<Cfg>::~Msm() = default;
template <class Cfg>
Msm<Cfg>::Msm(Msm&&) noexcept = default;
template <class Cfg>
Msm<Cfg>& Msm<Cfg>::operator=(Msm&&) noexcept = default;

template <class Cfg>
std::size_t Msm<Cfg>::size() const {
  return impl_->count;
}
template <class Cfg>
const typename Msm<Cfg>::DeviceAffine* Msm<Cfg>::device_bases() const {
  return reinterpret_cast<const DeviceAffine*>(impl_->bases);
}
template <class Cfg>
void Msm<Cfg>::load_bases(std::span<const DeviceAffine> host_bases) {
  if (impl_->split_scalars) throw GpuError("Msm::load_bases: not with the endomorphism table");
  if (host_bases.size() > impl_->count)
    throw GpuError("Msm::load_bases: " + std::to_string(host_bases.size()) + " bases for a window of " +
                   std::to_string(impl_->count));
  if (host_bases.empty()) return;
  CUDA_OK(cudaMemcpyAsync(impl_->bases, host_bases.data(), host_bases.size_bytes(), cudaMemcpyHostToDevice,
                          impl_->stream.get()));
}

template <class Cfg>
cudaStream_t Msm<Cfg>::stream() const {
  return impl_->stream.get();
}
template <class Cfg>
const MsmTimings& Msm<Cfg>::last_timings() const {
  return impl_->timings;
}

template <class Cfg>
typename Msm<Cfg>::Point Msm<Cfg>::run_device(const Fr* d_scalars, std::size_t count,
                                              const MsmOptions& options) {
  return impl_->run({.device = d_scalars}, count, options);
}

template <class Cfg>
typename Msm<Cfg>::Point Msm<Cfg>::run(std::span<const Fr> scalars, const MsmOptions& options) {
  if (scalars.size() > impl_->count) throw GpuError("Msm::run: more scalars than bases");
  return impl_->run({.host = scalars.data()}, scalars.size(), options);
}

template <class Cfg>
typename Msm<Cfg>::Point Msm<Cfg>::run_streamed(std::span<const Fr> scalars, const BaseLoader& load,
                                                const MsmOptions& options) {
  return impl_->run({.host = scalars.data()}, scalars.size(), options, &load);
}

template <class Cfg>
typename Msm<Cfg>::Point Msm<Cfg>::run_streamed_device(const Fr* d_scalars, std::size_t count,
                                                       const BaseLoader& load, const MsmOptions& options) {
  return impl_->run({.device = d_scalars}, count, options, &load);
}

template <class Cfg>
std::vector<typename Msm<Cfg>::Point> Msm<Cfg>::run_streamed_batch(
    std::span<const std::span<const Fr>> vectors, const BaseLoader& load, const MsmOptions& options) {
  std::vector<typename Impl::VectorIn> in;
  in.reserve(vectors.size());
  for (auto v : vectors) in.push_back({{.host = v.data()}, v.size()});
  return impl_->run_vectors(in, options, &load);
}

template <class Cfg>
std::vector<typename Msm<Cfg>::Point> Msm<Cfg>::run_batch(std::span<const std::span<const Fr>> vectors,
                                                          const MsmOptions& options) {
  std::vector<Point> out;
  out.reserve(vectors.size());
  for (auto v : vectors) out.push_back(run(v, options));
  return out;
}

}  // namespace cuzk::gpu
