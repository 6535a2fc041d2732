// Benchmark and test scalars made on the device (see msm.hpp).
#include <algorithm>

#include "gpu/cuda_check.hpp"
#include "gpu/field.cuh"
#include "gpu/msm.hpp"

namespace cuzk::gpu {
namespace {

using algebra::Fr;

__device__ __forceinline__ uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

__global__ void scalars_kernel(DevFr* out, uint64_t n, uint64_t seed, uint64_t zero_threshold,
                               uint64_t one_threshold, uint64_t top_limb_bound) {
  uint64_t i = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  uint64_t h = splitmix64(seed ^ (i * 0x632be59bd9b4e019ull));
  DevFr s;
  if (h < zero_threshold) {
    s = DevFr::zero();
  } else if (h < one_threshold) {
    s = DevFr::one();
  } else {
    uint64_t limbs[4];
    for (int j = 0; j < 4; ++j) limbs[j] = splitmix64(h + j * 0x9e3779b97f4a7c15ull);
    limbs[3] %= top_limb_bound;  // below r's top limb: the value is below r
    for (int j = 0; j < 4; ++j) {
      s.v[2 * j] = uint32_t(limbs[j]);
      s.v[2 * j + 1] = uint32_t(limbs[j] >> 32);
    }
  }
  out[i] = s;
}

}  // namespace

Fr* generate_scalars_on_device(std::size_t count, std::uint64_t seed, double zero_fraction,
                               double one_fraction) {
  Fr* out = nullptr;
  CUDA_OK(cudaMalloc(reinterpret_cast<void**>(&out), std::max<std::size_t>(count, 1) * sizeof(Fr)));
  const double two64 = 18446744073709551616.0;
  auto threshold = [&](double f) {
    f = std::clamp(f, 0.0, 1.0);
    return f >= 1.0 ? ~0ull : static_cast<unsigned long long>(f * two64);
  };
  uint64_t zt = threshold(zero_fraction), ot = threshold(zero_fraction + one_fraction);
  if (count) {
    scalars_kernel<<<uint32_t((count + 255) / 256), 256>>>(reinterpret_cast<DevFr*>(out), count, seed, zt, ot,
                                                           Fr::kModulus[3]);
    CUDA_LAUNCH_OK();
    CUDA_OK(cudaDeviceSynchronize());
  }
  return out;
}

}  // namespace cuzk::gpu
