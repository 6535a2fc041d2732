// Device field arithmetic (gpu/field.cuh) equals the host MontField on random and edge values.
#include <gtest/gtest.h>

#include <vector>

#include "gpu/device_buffer.hpp"
#include "gpu/field.cuh"
#include "tests/gpu/gpu_test_util.hpp"
#include "tests/test_util.hpp"

using namespace cuzk;
using algebra::Fp;
using algebra::Fp2;
using algebra::Fr;

namespace {

// out[4i..4i+3] = a+b, a-b, a*b, a^2
template <class D>
__global__ void ops_kernel(const D* a, const D* b, D* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[4 * i + 0] = a[i] + b[i];
  out[4 * i + 1] = a[i] - b[i];
  out[4 * i + 2] = a[i] * b[i];
  out[4 * i + 3] = a[i].sqr();
}

template <class D>
__global__ void montgomery_kernel(const D* a, D* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[2 * i] = a[i].from_montgomery();
  out[2 * i + 1] = a[i].from_montgomery().to_montgomery();
}

// out[i] = w * (u - t) with the difference left unreduced (u - t + p, below 2p) as the product's second
// operand: the NTT's Gentleman-Sande butterfly.
template <class D>
__global__ void product_of_difference_kernel(const D* w, const D* u, const D* t, D* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i] = w[i] * D::difference_unreduced(u[i], t[i]);
}

template <class H>
H random_element(std::mt19937_64& rng) {
  if constexpr (std::is_same_v<H, Fp2>) {
    return Fp2{test::random_field<Fp>(rng), test::random_field<Fp>(rng)};
  } else {
    return test::random_field<H>(rng);
  }
}

template <class H>
std::vector<H> edge_values() {
  if constexpr (std::is_same_v<H, Fp2>) {
    Fp m1 = -Fp::one();
    return {Fp2::zero(), Fp2::one(), Fp2{m1, m1}, Fp2{Fp::zero(), Fp::one()}, Fp2{m1, Fp::zero()}};
  } else {
    return {H::zero(), H::one(), -H::one(), H::from_u64(2), -H::from_u64(2)};
  }
}

template <class H, class D>
void check_ops(const char* name) {
  auto rng = test::seeded_rng(name);
  std::vector<H> a, b;
  for (const H& x : edge_values<H>())
    for (const H& y : edge_values<H>()) {
      a.push_back(x);
      b.push_back(y);
    }
  for (int i = 0; i < 4000; ++i) {
    a.push_back(random_element<H>(rng));
    b.push_back(random_element<H>(rng));
  }
  const int n = int(a.size());
  gpu::DeviceBuffer<H> da(n), db(n), dout(4 * n);
  da.upload(a);
  db.upload(b);
  ops_kernel<D><<<(n + 127) / 128, 128>>>(reinterpret_cast<const D*>(da.data()),
                                          reinterpret_cast<const D*>(db.data()),
                                          reinterpret_cast<D*>(dout.data()), n);
  CUDA_LAUNCH_OK();
  std::vector<H> out(4 * n);
  dout.download(out);
  CUDA_OK(cudaDeviceSynchronize());
  for (int i = 0; i < n; ++i) {
    ASSERT_EQ(out[4 * i + 0], a[i] + b[i]) << "add, element " << i;
    ASSERT_EQ(out[4 * i + 1], a[i] - b[i]) << "sub, element " << i;
    ASSERT_EQ(out[4 * i + 2], a[i] * b[i]) << "mul, element " << i;
    ASSERT_EQ(out[4 * i + 3], a[i] * a[i]) << "sqr, element " << i;
  }
}

// Every triple of edge values (u - t + p at both ends of (0, 2p): u = 0 with t = p - 1, u = p - 1 with
// t = 0), then random ones.
template <class H, class D>
void check_product_of_difference(const char* name) {
  auto rng = test::seeded_rng(name);
  std::vector<H> w, u, t;
  for (const H& x : edge_values<H>())
    for (const H& y : edge_values<H>())
      for (const H& z : edge_values<H>()) {
        w.push_back(x);
        u.push_back(y);
        t.push_back(z);
      }
  for (int i = 0; i < 4000; ++i) {
    w.push_back(random_element<H>(rng));
    u.push_back(random_element<H>(rng));
    t.push_back(random_element<H>(rng));
  }
  const int n = int(w.size());
  gpu::DeviceBuffer<H> dw(n), du(n), dt(n), dout(n);
  dw.upload(w);
  du.upload(u);
  dt.upload(t);
  product_of_difference_kernel<D>
      <<<(n + 127) / 128, 128>>>(reinterpret_cast<const D*>(dw.data()), reinterpret_cast<const D*>(du.data()),
                                 reinterpret_cast<const D*>(dt.data()), reinterpret_cast<D*>(dout.data()), n);
  CUDA_LAUNCH_OK();
  std::vector<H> out(n);
  dout.download(out);
  CUDA_OK(cudaDeviceSynchronize());
  for (int i = 0; i < n; ++i) ASSERT_EQ(out[i], w[i] * (u[i] - t[i])) << name << ", element " << i;
}

}  // namespace

TEST(GpuField, ProductOfUnreducedDifference) {
  CUZK_REQUIRE_GPU();
  check_product_of_difference<Fr, gpu::DevFr>("GpuField.DifferenceFr");
  check_product_of_difference<Fp, gpu::DevFp>("GpuField.DifferenceFp");
}

TEST(GpuField, FpMatchesHost) {
  CUZK_REQUIRE_GPU();
  check_ops<Fp, gpu::DevFp>("GpuField.Fp");
}

TEST(GpuField, FrMatchesHost) {
  CUZK_REQUIRE_GPU();
  check_ops<Fr, gpu::DevFr>("GpuField.Fr");
}

TEST(GpuField, Fp2MatchesHost) {
  CUZK_REQUIRE_GPU();
  check_ops<Fp2, gpu::DevFp2>("GpuField.Fp2");
}

TEST(GpuField, MontgomeryConversions) {
  CUZK_REQUIRE_GPU();
  auto rng = test::seeded_rng("GpuField.Montgomery");
  std::vector<Fr> a = {Fr::zero(), Fr::one(), -Fr::one()};
  for (int i = 0; i < 1000; ++i) a.push_back(test::random_field<Fr>(rng));
  const int n = int(a.size());
  gpu::DeviceBuffer<Fr> da(n), dout(2 * n);
  da.upload(a);
  montgomery_kernel<gpu::DevFr><<<(n + 127) / 128, 128>>>(reinterpret_cast<const gpu::DevFr*>(da.data()),
                                                          reinterpret_cast<gpu::DevFr*>(dout.data()), n);
  CUDA_LAUNCH_OK();
  std::vector<Fr> out(2 * n);
  dout.download(out);
  CUDA_OK(cudaDeviceSynchronize());
  for (int i = 0; i < n; ++i) {
    ASSERT_EQ(out[2 * i].montgomery(), a[i].to_canonical()) << i;  // canonical limbs, raw
    ASSERT_EQ(out[2 * i + 1], a[i]) << i;
  }
}

TEST(GpuInfra, ErrorsCarryCallFileAndMessage) {
  CUZK_REQUIRE_GPU();
  try {
    CUDA_OK(cudaSetDevice(1 << 20));
    FAIL() << "cudaSetDevice with a bad ordinal did not fail";
  } catch (const gpu::GpuError& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("cudaSetDevice"), std::string::npos) << what;
    EXPECT_NE(what.find("test_field.cu"), std::string::npos) << what;
    EXPECT_NE(e.code(), static_cast<int>(cudaSuccess));
  }
  CUDA_OK(cudaSetDevice(0));
}
