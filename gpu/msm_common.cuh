// What the MSM's parts share (gpu/msm_kernels.cuh, gpu/msm_impl.cuh, gpu/msm_reduction.cuh): the device
// field of each group, whole-structure vector loads and stores, the window layout of the scalars' bits and
// Pippenger's shape (window size, buckets, chunks) chosen from it, and the block-wide point sum. Included
// by those only (each .cu that includes them is one translation unit).
#pragma once
#include <algorithm>
#include <cstdint>

#include "gpu/cuda_check.hpp"
#include "gpu/curve.cuh"
#include "gpu/field.cuh"
#include "gpu/msm_shape.hpp"
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

// WindowLayout, choose_window_bits and PippengerShape: gpu/msm_shape.hpp (plain C++, shared with the
// memory planner).
static_assert(kHalfScalarBits == algebra::glv::kHalfBits);

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

CUZK_HD unsigned log2_floor(std::size_t x) {
  unsigned r = 0;
  while ((std::size_t{2} << r) <= x) ++r;
  return r;
}

}  // namespace
}  // namespace cuzk::gpu
