// The kernels of the G1/G2 multi-scalar multiplication (msm_impl.cuh drives them; msm.hpp has the
// algorithm): the classification of the scalars (0, 1, the rest), the signed digits sorted into buckets,
// the accumulation of each bucket and its fixups where chunks cut it, and the conversion of a sum from
// XYZZ to Jacobian coordinates on the host. Included by msm_impl.cuh only (each group's .cu is one
// translation unit).
#pragma once
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "gpu/cuda_check.hpp"
#include "gpu/curve.cuh"
#include "gpu/msm_common.cuh"
#include "prover/algebra/curve.hpp"

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
}  // namespace cuzk::gpu
