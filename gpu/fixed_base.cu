#include <cuda_runtime.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "gpu/cuda_check.hpp"
#include "gpu/curve.cuh"
#include "gpu/device_buffer.hpp"
#include "gpu/device_info.hpp"
#include "gpu/field.cuh"
#include "gpu/fixed_base.hpp"
#include "gpu/fixed_base_table.hpp"
#include "gpu/host_staging.hpp"
#include "prover/algebra/encoding.hpp"

namespace cuzk::gpu {

namespace {

constexpr int kThreadsPerBlock = 128;
constexpr int kFpBytes = 48;

// a^(p - 2) = a^-1 for a != 0 (Fermat), square and multiply over the bits of p - 2 from the top; the
// exponent comes from the modulus constants (p is odd, so p - 2 only changes the lowest limb).
__device__ DevFp fp_inverse(const DevFp& a) {
  DevFp r = DevFp::one();
  for (int limb = DevFp::N - 1; limb >= 0; --limb) {
    const uint32_t e = FpTag::c().modulus[limb] - (limb == 0 ? 2u : 0u);
    for (int bit = 31; bit >= 0; --bit) {
      r = r.sqr();
      if ((e >> bit) & 1) r = r * a;
    }
  }
  return r;
}

// (c0 + c1 u)^-1 = (c0 - c1 u) / (c0^2 + c1^2), since u^2 = -1.
__device__ DevFp2 fp2_inverse(const DevFp2& a) {
  const DevFp t = fp_inverse(a.c0.sqr() + a.c1.sqr());
  return {a.c0 * t, -(a.c1 * t)};
}

__device__ __forceinline__ DevFp inverse(const DevFp& a) {
  return fp_inverse(a);
}
__device__ __forceinline__ DevFp2 inverse(const DevFp2& a) {
  return fp2_inverse(a);
}

// The canonical value of x as 48 big-endian bytes (prover/algebra/encoding.cpp: Fp::to_bytes_be).
__device__ __forceinline__ void write_fp(const DevFp& x, uint8_t* out) {
  const DevFp c = x.from_montgomery();
#pragma unroll
  for (int i = 0; i < DevFp::N; ++i) {
    const uint32_t w = c.v[i];
    out[kFpBytes - 1 - 4 * i] = static_cast<uint8_t>(w);
    out[kFpBytes - 2 - 4 * i] = static_cast<uint8_t>(w >> 8);
    out[kFpBytes - 3 - 4 * i] = static_cast<uint8_t>(w >> 16);
    out[kFpBytes - 4 - 4 * i] = static_cast<uint8_t>(w >> 24);
  }
}

// Uncompressed encodings (prover/algebra/encoding.cpp): G1 x || y; G2 x.c1 || x.c0 || y.c1 || y.c0. The
// flag bits stay clear (p < 2^381 leaves the top three bits of a coordinate zero).
__device__ __forceinline__ void write_coordinates(const DevFp& x, const DevFp& y, uint8_t* out) {
  write_fp(x, out);
  write_fp(y, out + kFpBytes);
}
__device__ __forceinline__ void write_coordinates(const DevFp2& x, const DevFp2& y, uint8_t* out) {
  write_fp(x.c1, out);
  write_fp(x.c0, out + kFpBytes);
  write_fp(y.c1, out + 2 * kFpBytes);
  write_fp(y.c0, out + 3 * kFpBytes);
}

template <class F>
constexpr int encoded_bytes() {
  return sizeof(F) == sizeof(DevFp) ? static_cast<int>(algebra::kG1UncompressedSize)
                                    : static_cast<int>(algebra::kG2UncompressedSize);
}

// out[i] = the encoding of scalars[i] * G: one mixed addition per non-zero 16-bit digit of the canonical
// scalar, then x = X / ZZ and y = Y / ZZZ with one inversion of ZZ ZZZ.
template <class F>
__global__ void fixed_base_kernel(const DevFr* __restrict__ scalars, std::size_t count,
                                  const DevAffine<F>* __restrict__ table, uint8_t* __restrict__ out) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= count) return;
  constexpr int kBytes = encoded_bytes<F>();
  uint8_t* dst = out + i * kBytes;
  const DevFr k = scalars[i].from_montgomery();
  Xyzz<F> acc = Xyzz<F>::infinity();
#pragma unroll 1
  for (unsigned j = 0; j < kFixedBaseWindows; ++j) {
    const uint32_t digit = (k.v[j / 2] >> (16 * (j % 2))) & 0xffffu;
    if (digit != 0) acc.add_affine(table[j * kFixedBaseDigits + digit - 1]);
  }
  if (acc.is_infinity()) {  // the scalar 0 (canonical scalars below r give no other multiple of r)
    dst[0] = 0x40;          // the infinity flag, every other bit zero
    for (int b = 1; b < kBytes; ++b) dst[b] = 0;
    return;
  }
  const F t = inverse(acc.ZZ * acc.ZZZ);
  const F x = acc.X * (t * acc.ZZZ);  // 1 / ZZ = ZZZ / (ZZ ZZZ)
  const F y = acc.Y * (t * acc.ZZ);   // 1 / ZZZ = ZZ / (ZZ ZZZ)
  write_coordinates(x, y, dst);
}

template <class Cfg, class F>
struct GroupTable {
  DeviceBuffer<DevAffine<F>> table;
  void upload(const std::vector<typename Msm<Cfg>::DeviceAffine>& host, cudaStream_t stream) {
    static_assert(sizeof(typename Msm<Cfg>::DeviceAffine) == sizeof(DevAffine<F>), "one layout");
    table = DeviceBuffer<DevAffine<F>>(host.size());
    CUDA_OK(cudaMemcpyAsync(table.data(), host.data(), host.size() * sizeof(DevAffine<F>),
                            cudaMemcpyHostToDevice, stream));
    CUDA_OK(cudaStreamSynchronize(stream));
  }
};

class GpuFixedBaseEncoder final : public groth16::FixedBaseEncoder {
 public:
  GpuFixedBaseEncoder(std::size_t chunk_points, std::string device_name)
      : chunk_points_(chunk_points ? chunk_points : kFixedBaseChunkPoints),
        device_name_(std::move(device_name)) {
    g1_.upload(g1_fixed_base_table(), stream_);
    g2_.upload(g2_fixed_base_table(), stream_);
    scalars_ = DeviceBuffer<algebra::Fr>(chunk_points_);
    bytes_ = DeviceBuffer<uint8_t>(chunk_points_ * algebra::kG2UncompressedSize);
  }

  std::string name() const override { return "gpu (" + device_name_ + ")"; }

  void encode_g1(std::span<const algebra::Fr> scalars, std::uint8_t* out) override {
    encode<DevFp>(scalars, out, g1_.table.data());
  }
  void encode_g2(std::span<const algebra::Fr> scalars, std::uint8_t* out) override {
    encode<DevFp2>(scalars, out, g2_.table.data());
  }

 private:
  template <class F>
  void encode(std::span<const algebra::Fr> scalars, std::uint8_t* out, const DevAffine<F>* table) {
    constexpr std::size_t kBytes = encoded_bytes<F>();
    for (std::size_t first = 0; first < scalars.size(); first += chunk_points_) {
      const std::size_t n = std::min(chunk_points_, scalars.size() - first);
      staging_.upload(scalars_.data(), scalars.data() + first, n * sizeof(algebra::Fr), stream_);
      const auto blocks = static_cast<unsigned>((n + kThreadsPerBlock - 1) / kThreadsPerBlock);
      fixed_base_kernel<F><<<blocks, kThreadsPerBlock, 0, stream_>>>(
          reinterpret_cast<const DevFr*>(scalars_.data()), n, table, bytes_.data());
      CUDA_LAUNCH_OK();
      staging_.download(out + first * kBytes, bytes_.data(), n * kBytes, stream_);
    }
  }

  std::size_t chunk_points_;
  std::string device_name_;
  Stream stream_;
  HostStaging staging_;
  GroupTable<algebra::G1Config, DevFp> g1_;
  GroupTable<algebra::G2Config, DevFp2> g2_;
  DeviceBuffer<algebra::Fr> scalars_;
  DeviceBuffer<uint8_t> bytes_;
};

}  // namespace

std::unique_ptr<groth16::FixedBaseEncoder> make_gpu_fixed_base_encoder(std::size_t chunk_points) {
  // Before any CUDA resource is made, so that a machine without a GPU gets the reason.
  std::string why;
  const std::vector<DeviceInfo> devices = list_devices(&why);
  if (devices.empty())
    throw cuda_error("the GPU fixed-base encoder was asked for, but no GPU is visible: " + why,
                     cudaErrorNoDevice);
  int device = 0;
  CUDA_OK(cudaGetDevice(&device));
  const auto it =
      std::find_if(devices.begin(), devices.end(), [&](const DeviceInfo& d) { return d.index == device; });
  return std::make_unique<GpuFixedBaseEncoder>(chunk_points,
                                               it != devices.end() ? it->name : devices.front().name);
}

}  // namespace cuzk::gpu
