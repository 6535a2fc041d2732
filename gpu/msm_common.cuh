// What the MSM's parts share (gpu/msm_impl.cuh, gpu/msm_reduction.cuh): the device field of each group,
// whole-structure vector loads and stores, the window layout of the scalars' bits and Pippenger's shape
// (window size, buckets, chunks) chosen from it, and the block-wide point sum. Included by those two only
// (each .cu that includes them is one translation unit).
#pragma once
#include <algorithm>
#include <cstdint>

#include "gpu/cuda_check.hpp"
#include "gpu/curve.cuh"
#include "gpu/field.cuh"
#include "prover/algebra/curve.hpp"
#include "prover/algebra/endomorphism.hpp"

namespace cuzk::gpu {
namespace {

template <class Cfg>
struct DeviceField;
template <>
struct DeviceField<algebra::G1Config> {
  using type = DevFp;
};
template <>
struct DeviceField<algebra::G2Config> {
  using type = DevFp2;
};

// 16-byte vector loads and stores of whole structures (bases, scalars, buckets are 16-byte aligned). Loads
// take the read-only path, except load_vec_rw's, for memory written earlier in the same launch chain.
template <class T, bool kReadOnly>
__device__ __forceinline__ T load_words(const T* p) {
  static_assert(sizeof(T) % 16 == 0);
  union {
    T value;
    uint4 words[sizeof(T) / 16];
  } u;
  const uint4* src = reinterpret_cast<const uint4*>(p);
#pragma unroll
  for (int i = 0; i < int(sizeof(T) / 16); ++i) {
    if constexpr (kReadOnly) {
      u.words[i] = __ldg(src + i);
    } else {
      u.words[i] = src[i];
    }
  }
  return u.value;
}
template <class T>
__device__ __forceinline__ T load_vec(const T* p) {
  return load_words<T, true>(p);
}
template <class T>
__device__ __forceinline__ T load_vec_rw(const T* p) {
  return load_words<T, false>(p);
}
template <class T>
__device__ __forceinline__ void store_vec(T* p, const T& v) {
  static_assert(sizeof(T) % 16 == 0);
  union {
    T value;
    uint4 words[sizeof(T) / 16];
  } u;
  u.value = v;
  uint4* dst = reinterpret_cast<uint4*>(p);
#pragma unroll
  for (int i = 0; i < int(sizeof(T) / 16); ++i) dst[i] = u.words[i];
}

constexpr uint32_t kNegBit = 0x80000000u;  // sign of a digit, in the value of a sorted pair

// The windows of the scalars' `bits` bits (256; 129 for the halves of a split scalar). ceil(bits / c)
// windows of c bits overrun by up to c - 1 bits, so the lowest `narrow` windows get c - 1 bits instead and
// the windows cover exactly `bits` bits (or just over, when there are fewer windows than spare bits). A
// narrow window needs half the buckets, 2^(c-2): buckets are still laid out 2^(c-1) per window, but the
// bucket reduction skips a narrow window's upper half (25.2M -> 16.8M buckets at c = 22, 4 windows of 22
// bits and 8 of 21). Scalars are below r < 2^255 (halves below 2^128), so the top window's digit never
// carries out of the top bit.
struct WindowLayout {
  unsigned c = 0, windows = 0, narrow = 0;
  explicit WindowLayout(unsigned window_bits, unsigned bits = 256) : c(window_bits) {
    windows = (bits + c - 1) / c;
    narrow = std::min(windows * c - bits, windows);
  }
  __host__ __device__ unsigned width(unsigned w) const { return w < narrow ? c - 1 : c; }
  __host__ __device__ unsigned offset(unsigned w) const {
    return w < narrow ? w * (c - 1) : narrow * (c - 1) + (w - narrow) * c;
  }
  // Buckets window w can use: digits of a width-bit window lie in [-2^(width-1), 2^(width-1)].
  __host__ __device__ uint32_t used_buckets(unsigned w) const { return 1u << (width(w) - 1); }
  // Segments of seg_len buckets (a power of two) that hold window w's used buckets.
  __host__ __device__ uint32_t used_segments(unsigned w, uint32_t seg_len) const {
    const uint32_t used = used_buckets(w);
    return used > seg_len ? used / seg_len : 1u;
  }
  // Used segments of all windows, numbered window by window (the narrow windows first).
  __host__ __device__ std::size_t total_used_segments(uint32_t seg_len) const {
    return std::size_t(narrow) * used_segments(0, seg_len) +
           std::size_t(windows - narrow) * used_segments(windows - 1, seg_len);
  }
  // Used segment number u (< total_used_segments) as its window w and its segment within the window.
  __host__ __device__ void used_segment(std::size_t u, uint32_t seg_len, uint32_t& w,
                                        uint32_t& segment) const {
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

// --- reductions inside a block --------------------------------------------------------------------

// Threads per block for point reductions: 48 KiB of shared memory, one XYZZ point per thread.
template <class F>
constexpr int reduce_threads() {
  return int(49152 / sizeof(Xyzz<F>)) >= 256 ? 256 : 128;
}

// Tree sum of one point per thread; the total is returned to thread 0 (others get garbage).
template <class F, int NT>
__device__ Xyzz<F> block_sum(Xyzz<F> v, Xyzz<F>* buf) {
  buf[threadIdx.x] = v;
  __syncthreads();
#pragma unroll 1
  for (int d = NT / 2; d > 0; d >>= 1) {
    if (int(threadIdx.x) < d) {
      Xyzz<F> a = buf[threadIdx.x];
      a.add(buf[threadIdx.x + d]);
      buf[threadIdx.x] = a;
    }
    __syncthreads();
  }
  Xyzz<F> r = buf[0];
  __syncthreads();
  return r;
}

// m: pairs per window (tail scalars, or twice that for split scalars of `bits` bits).
unsigned choose_window_bits(std::size_t m, unsigned bits) {
  if (m < 32) return 4;
  unsigned best = 4;
  double best_cost = 1e300;
  for (unsigned c = 4; c <= 22; ++c) {
    const WindowLayout layout(c, bits);
    double buckets = 0;
    for (unsigned w = 0; w < layout.windows; ++w) buckets += layout.used_buckets(w);
    // Accumulation: one mixed addition per point and window. Buckets: about three full additions
    // per bucket (fix-up and the two running sums), each ~1.4 mixed additions.
    double cost = double(m) * layout.windows + 4.0 * buckets;
    if (cost < best_cost) {
      best_cost = cost;
      best = c;
    }
  }
  return best;
}

// Pippenger's layout for m sorted pairs per window (m tail scalars, or 2m halves of split scalars) and
// windows of c bits over `bits` scalar bits: what Impl::run sizes its buffers and launches by, and what
// the memory bounds are computed from.
struct PippengerShape {
  WindowLayout layout;  // window bits c, windows and their widths
  uint32_t buckets;     // laid out per window (signed digits of a full window: 2^(c-1))
  uint32_t chunk;       // sorted pairs per accumulating thread: enough threads to fill the GPU, at most 256
  std::size_t per_window;  // sorted pairs per window (m)
  std::size_t chunks, pairs;
  PippengerShape(std::size_t m, unsigned window_bits, unsigned bits)
      : layout(checked(window_bits), bits), per_window(m) {
    buckets = 1u << (layout.c - 1);
    chunk = 256;
    while (chunk > 8 && (m * layout.windows) / chunk < (std::size_t{1} << 17)) chunk >>= 1;
    chunks = (m + chunk - 1) / chunk;
    pairs = m * layout.windows;
  }
  // For `tail` scalars, whole or split in two (window_bits 0: chosen).
  static PippengerShape for_tail(std::size_t tail, bool split, unsigned window_bits = 0) {
    const std::size_t m = split ? 2 * tail : tail;
    const unsigned bits = split ? algebra::glv::kHalfBits : 256;
    return PippengerShape(m, window_bits ? window_bits : choose_window_bits(m, bits), bits);
  }
  static unsigned checked(unsigned c) {
    if (c < 2 || c > 24) throw GpuError("Msm: window_bits must be in 2..24");
    return c;
  }
};

CUZK_HD unsigned log2_floor(std::size_t x) {
  unsigned r = 0;
  while ((std::size_t{2} << r) <= x) ++r;
  return r;
}

}  // namespace
}  // namespace cuzk::gpu
