// Benchmark and test inputs for the MSM made on the device: generate_points_on_device (declared in
// msm.hpp), distinct points by a walk from a start point per thread, converted to affine with one
// inversion per thread. msm_g1.cu and msm_g2.cu include it with msm_definitions.cuh and instantiate it.
#pragma once

#include <algorithm>
#include <cstring>

#include "gpu/msm_impl.cuh"

namespace cuzk::gpu {

namespace {

__device__ __forceinline__ DevFp field_inverse(const DevFp& a) {
  // a^(p - 2), square and multiply over the bits of p - 2 (p's low limb is odd and > 2).
  DevFp r = DevFp::one();
#pragma unroll 1
  for (int limb = 11; limb >= 0; --limb) {
    uint32_t e = kFpConstants.modulus[limb] - (limb == 0 ? 2u : 0u);
#pragma unroll 1
    for (int bit = 31; bit >= 0; --bit) {
      r = r.sqr();
      if ((e >> bit) & 1) r *= a;
    }
  }
  return r;
}
__device__ __forceinline__ DevFp2 field_inverse(const DevFp2& a) {
  DevFp inv = field_inverse(a.c0.sqr() + a.c1.sqr());
  return {a.c0 * inv, -(a.c1 * inv)};
}

// Thread t writes points (t + 1) D + k Q for k < per_thread, converted to affine with one inversion per
// thread (Montgomery's trick over ZZ * ZZZ). scratch: per_thread XYZZ points and prefix products each.
template <class F>
__global__ void __launch_bounds__(128)
    walk_points_kernel(DevAffine<F>* out, uint64_t first_thread, uint32_t threads, uint32_t per_thread,
                       uint64_t total, DevAffine<F> d, DevAffine<F> q, Xyzz<F>* scratch, F* prefix) {
  uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= threads) return;
  uint64_t global_t = first_thread + t;
  uint64_t first = global_t * per_thread;
  if (first >= total) return;
  uint32_t count = total - first < per_thread ? uint32_t(total - first) : per_thread;
  // start = (global_t + 1) D by double-and-add.
  uint64_t mult = global_t + 1;
  Xyzz<F> acc = Xyzz<F>::infinity();
  for (int bit = 63; bit >= 0; --bit) {
    acc = acc.is_infinity() ? acc : acc.dbl();
    if ((mult >> bit) & 1) acc.add_affine(d);
  }
  Xyzz<F>* my = scratch + size_t(t) * per_thread;
  F* pre = prefix + size_t(t) * per_thread;
  F running = F::one();
  for (uint32_t k = 0; k < count; ++k) {
    my[k] = acc;
    running = running * (acc.ZZ * acc.ZZZ);
    pre[k] = running;
    acc.add_affine(q);
  }
  F inv = field_inverse(running);
  for (uint32_t k = count; k-- > 0;) {
    Xyzz<F> p = my[k];
    F zinv = k ? inv * pre[k - 1] : inv;  // (ZZ * ZZZ)^-1 of point k
    inv = inv * (p.ZZ * p.ZZZ);
    DevAffine<F> a;
    a.x = p.X * (zinv * p.ZZZ);  // 1/ZZ = ZZZ / (ZZ ZZZ)
    a.y = p.Y * (zinv * p.ZZ);   // 1/ZZZ = ZZ / (ZZ ZZZ)
    out[first + k] = a;
  }
}

}  // namespace

template <class Cfg>
typename Msm<Cfg>::DeviceAffine* generate_points_on_device(std::size_t count, std::uint64_t seed) {
  using F = typename DeviceField<Cfg>::type;
  using DA = typename Msm<Cfg>::DeviceAffine;
  // Two random multiples of the generator, computed on the host.
  std::uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1;
  auto next = [&x] {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return x;
  };
  algebra::Limbs<4> kd{next(), next(), next(), next() >> 2}, kq{next(), next(), next(), next() >> 2};
  auto g = algebra::Jacobian<Cfg>::generator();
  DA d = Msm<Cfg>::to_device(g.mul_limbs(kd).to_affine());
  DA q = Msm<Cfg>::to_device(g.mul_limbs(kq).to_affine());
  DevAffine<F> dd, qq;
  std::memcpy(&dd, &d, sizeof dd);
  std::memcpy(&qq, &q, sizeof qq);

  DA* out = nullptr;
  CUDA_OK(cudaMalloc(reinterpret_cast<void**>(&out), std::max<std::size_t>(count, 1) * sizeof(DA)));
  const uint32_t per_thread = 64;
  const uint32_t threads_per_launch = 1u << 16;  // 2^22 points per launch
  DeviceBuffer<Xyzz<F>> scratch(std::size_t(threads_per_launch) * per_thread);
  DeviceBuffer<F> prefix(std::size_t(threads_per_launch) * per_thread);
  const uint64_t total_threads = (count + per_thread - 1) / per_thread;
  for (uint64_t first = 0; first < total_threads; first += threads_per_launch) {
    uint32_t threads = uint32_t(std::min<uint64_t>(threads_per_launch, total_threads - first));
    walk_points_kernel<F><<<(threads + 127) / 128, 128>>>(reinterpret_cast<DevAffine<F>*>(out), first,
                                                          threads, per_thread, count, dd, qq, scratch.data(),
                                                          prefix.data());
    CUDA_LAUNCH_OK();
  }
  CUDA_OK(cudaDeviceSynchronize());
  return out;
}

}  // namespace cuzk::gpu
