// GPU Fr NTT and H step against independent references: a naive O(n^2) DFT for small sizes, the CPU
// prover's EvaluationDomain and compute_h (prover/groth16/domain.hpp) for larger ones, and round
// trips in every order.
#include <gtest/gtest.h>

#include <vector>

#include "gpu/device_buffer.hpp"
#include "gpu/h_step.hpp"
#include "gpu/ntt.hpp"
#include "prover/groth16/domain.hpp"
#include "tests/gpu/gpu_test_util.hpp"
#include "tests/test_util.hpp"

using namespace cuzk;
using algebra::Fr;
using gpu::NttDirection;
using gpu::NttOrder;

namespace {

// Primitive 2^lg-th root of unity: 7^((r - 1) / 2^32) squared 32 - lg times (docs/circuit.md §10).
Fr root_of_unity(unsigned lg) {
  Fr w = Fr::generator().pow(Fr::kTrace);
  for (unsigned i = lg; i < 32; ++i) w = w.square();
  return w;
}

std::size_t bitrev(std::size_t i, unsigned lg) {
  std::size_t r = 0;
  for (unsigned b = 0; b < lg; ++b) r |= ((i >> b) & 1) << (lg - 1 - b);
  return r;
}

std::vector<Fr> permuted(const std::vector<Fr>& x, unsigned lg) {
  std::vector<Fr> y(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) y[bitrev(i, lg)] = x[i];
  return y;
}

// The definition: y_j = sum_i x_i w^(ij) (forward), or with w^-1 and 1/n (inverse); coset variants
// scale coefficients by g^i before (forward) or g^-i after (inverse). Natural order in and out.
std::vector<Fr> naive(const std::vector<Fr>& x_in, unsigned lg, bool inverse, bool coset) {
  const std::size_t n = x_in.size();
  std::vector<Fr> x = x_in;
  Fr g = Fr::generator();
  if (coset && !inverse) {
    Fr p = Fr::one();
    for (auto& v : x) {
      v *= p;
      p *= g;
    }
  }
  Fr w = root_of_unity(lg);
  if (inverse) w = w.inverse();
  std::vector<Fr> y(n, Fr::zero());
  Fr wj = Fr::one();
  for (std::size_t j = 0; j < n; ++j) {
    Fr p = Fr::one();
    for (std::size_t i = 0; i < n; ++i) {
      y[j] += x[i] * p;
      p *= wj;
    }
    wj *= w;
  }
  if (inverse) {
    Fr ninv = Fr::from_u64(n).inverse();
    Fr gi = g.inverse(), p = Fr::one();
    for (auto& v : y) {
      v *= ninv;
      if (coset) {
        v *= p;
        p *= gi;
      }
    }
  }
  return y;
}

std::vector<Fr> random_vector(std::size_t n, std::mt19937_64& rng) {
  std::vector<Fr> v(n);
  for (auto& x : v) x = test::random_field<Fr>(rng);
  return v;
}

std::vector<Fr> run_gpu(const gpu::NttContext& ctx, const std::vector<Fr>& x, unsigned lg, NttDirection dir,
                        NttOrder in, NttOrder out, bool coset) {
  gpu::DeviceBuffer<Fr> d(x.size());
  d.upload(x);
  ctx.transform(d.data(), lg, dir, in, out, coset, nullptr);
  std::vector<Fr> y(x.size());
  d.download(y);
  CUDA_OK(cudaDeviceSynchronize());
  return y;
}

const NttOrder kOrders[] = {NttOrder::kNatural, NttOrder::kBitReversed};

}  // namespace

TEST(GpuNtt, MatchesNaiveDftEveryOrderAndCoset) {
  CUZK_REQUIRE_GPU();
  auto rng = test::seeded_rng("GpuNtt.Naive");
  gpu::NttContext ctx(12);
  for (unsigned lg = 1; lg <= 8; ++lg) {
    const std::size_t n = std::size_t{1} << lg;
    std::vector<Fr> x = random_vector(n, rng);
    for (bool inverse : {false, true})
      for (bool coset : {false, true}) {
        std::vector<Fr> expect = naive(x, lg, inverse, coset);
        for (NttOrder in : kOrders)
          for (NttOrder out : kOrders) {
            std::vector<Fr> input = in == NttOrder::kNatural ? x : permuted(x, lg);
            std::vector<Fr> got = run_gpu(
                ctx, input, lg, inverse ? NttDirection::kInverse : NttDirection::kForward, in, out, coset);
            std::vector<Fr> want = out == NttOrder::kNatural ? expect : permuted(expect, lg);
            ASSERT_EQ(got, want) << "lg " << lg << " inverse " << inverse << " coset " << coset << " in "
                                 << int(in) << " out " << int(out);
          }
      }
  }
}

TEST(GpuNtt, RootOfUnityAgreesWithCpuDomain) {
  for (unsigned lg : {1u, 5u, 20u, 27u}) {
    groth16::EvaluationDomain dom(std::size_t{1} << lg);
    EXPECT_EQ(dom.omega(), root_of_unity(lg)) << lg;
    EXPECT_EQ(root_of_unity(lg).pow(std::uint64_t{1} << (lg - 1)), -Fr::one()) << lg;
  }
}

TEST(GpuNtt, RoundTripsEveryOrder) {
  CUZK_REQUIRE_GPU();
  auto rng = test::seeded_rng("GpuNtt.RoundTrip");
  gpu::NttContext ctx(20);
  for (unsigned lg : {1u, 2u, 9u, 10u, 11u, 13u, 17u, 19u, 20u}) {
    const std::size_t n = std::size_t{1} << lg;
    std::vector<Fr> x = random_vector(n, rng);
    gpu::DeviceBuffer<Fr> d(n);
    for (bool coset : {false, true})
      for (NttOrder a : kOrders)
        for (NttOrder b : kOrders) {
          d.upload(x);
          ctx.transform(d.data(), lg, NttDirection::kForward, a, b, coset, nullptr);
          ctx.transform(d.data(), lg, NttDirection::kInverse, b, a, coset, nullptr);
          std::vector<Fr> y(n);
          d.download(y);
          CUDA_OK(cudaDeviceSynchronize());
          ASSERT_EQ(y, x) << "lg " << lg << " coset " << coset << " orders " << int(a) << int(b);
        }
  }
}

TEST(GpuNtt, MatchesCpuEvaluationDomain) {
  CUZK_REQUIRE_GPU();
  auto rng = test::seeded_rng("GpuNtt.CpuDomain");
  gpu::NttContext ctx(18);
  for (unsigned lg : {3u, 10u, 12u, 15u, 18u}) {
    const std::size_t n = std::size_t{1} << lg;
    groth16::EvaluationDomain dom(n);
    std::vector<Fr> x = random_vector(n, rng);
    for (int op = 0; op < 4; ++op) {
      std::vector<Fr> want = x;
      bool inverse = op & 1, coset = op & 2;
      if (op == 0) dom.fft(want);
      if (op == 1) dom.ifft(want);
      if (op == 2) dom.coset_fft(want);
      if (op == 3) dom.icoset_fft(want);
      std::vector<Fr> got = run_gpu(ctx, x, lg, inverse ? NttDirection::kInverse : NttDirection::kForward,
                                    NttOrder::kNatural, NttOrder::kNatural, coset);
      ASSERT_EQ(got, want) << "lg " << lg << " op " << op;
    }
  }
}

TEST(GpuH, MatchesCpuComputeH) {
  CUZK_REQUIRE_GPU();
  auto rng = test::seeded_rng("GpuH.Cpu");
  // Non-powers of two (zero padding), tiny domains, and a few larger ones.
  for (std::size_t n : {std::size_t{1}, std::size_t{2}, std::size_t{3}, std::size_t{5}, std::size_t{1000},
                        std::size_t{4096}, std::size_t{70001}, std::size_t{1} << 18}) {
    std::vector<Fr> a = random_vector(n, rng), b = random_vector(n, rng), c = random_vector(n, rng);
    std::vector<Fr> want = groth16::compute_h(a, b, c);
    std::vector<Fr> got = gpu::compute_h(a, b, c);
    ASSERT_EQ(got.size(), want.size()) << n;
    ASSERT_EQ(got, want) << "n = " << n;
  }
}

// The H step in two buffers (c after the product of a and b, in b's buffer) gives the CPU's h, call after
// call on one HStep (no values of an earlier call left in the padding), and lends the halves of its second
// buffer; with three it lends the second and third.
TEST(GpuH, TwoBuffersMatchTheCpu) {
  CUZK_REQUIRE_GPU();
  auto rng = test::seeded_rng("GpuH.TwoBuffers");
  for (unsigned lg : {1u, 4u, 12u, 17u}) {
    gpu::HStep two(lg, 2), three(lg, 3);
    EXPECT_EQ(two.buffers(), 2u);
    EXPECT_EQ(gpu::HStep::device_bytes(lg, 3) - gpu::HStep::device_bytes(lg, 2), (std::size_t{32} << lg));
    const std::size_t m = std::size_t{1} << lg;
    for (std::size_t n : {m, m / 2 + 1}) {
      std::vector<Fr> a = random_vector(n, rng), b = random_vector(n, rng), c = random_vector(n, rng);
      const std::vector<Fr> want = groth16::compute_h(a, b, c);
      EXPECT_EQ(two.run(a, b, c), want) << "lg " << lg << ", n " << n;
      EXPECT_EQ(three.run(a, b, c), want) << "lg " << lg << ", n " << n;
    }
    const gpu::HStep::Lendable lent2 = two.lendable(), lent3 = three.lendable();
    EXPECT_EQ(lent2.bytes, (std::size_t{32} << lg) / 2);
    EXPECT_EQ(static_cast<std::byte*>(lent2.second) - static_cast<std::byte*>(lent2.first),
              std::ptrdiff_t(lent2.bytes));
    EXPECT_EQ(lent3.bytes, std::size_t{32} << lg);
    EXPECT_EQ(lent3.first, static_cast<void*>(three.input_b()));
    EXPECT_THROW(two.input_c(), gpu::GpuError);
  }
}

TEST(GpuH, SatisfiedWitnessGivesExactQuotient) {
  CUZK_REQUIRE_GPU();
  // a*b - c vanishes on the domain when c = a*b: then h = (A B - C) / (X^m - 1) has degree <= m - 2 and
  // the GPU's top coefficient (m - 1) must be zero; also h(x) (x^m - 1) = A(x)B(x) - C(x) at a random x.
  auto rng = test::seeded_rng("GpuH.Satisfied");
  const unsigned lg = 12;
  const std::size_t m = std::size_t{1} << lg;
  std::vector<Fr> a = random_vector(m, rng), b = random_vector(m, rng), c(m);
  for (std::size_t i = 0; i < m; ++i) c[i] = a[i] * b[i];
  gpu::NttContext ctx(lg);
  gpu::DeviceBuffer<Fr> da(m), db(m), dc(m);
  da.upload(a);
  db.upload(b);
  dc.upload(c);
  ctx.compute_h(da.data(), db.data(), dc.data(), lg, nullptr);
  std::vector<Fr> h(m);
  da.download(h);
  CUDA_OK(cudaDeviceSynchronize());
  EXPECT_TRUE(h[m - 1].is_zero());
  // Coefficients of A, B, C by the naive inverse DFT are too slow at 4096; use the CPU domain's ifft.
  groth16::EvaluationDomain dom(m);
  std::vector<Fr> A = a, B = b, C = c;
  dom.ifft(A);
  dom.ifft(B);
  dom.ifft(C);
  auto eval = [](const std::vector<Fr>& p, const Fr& x) {
    Fr r = Fr::zero();
    for (std::size_t i = p.size(); i-- > 0;) r = r * x + p[i];
    return r;
  };
  Fr x = test::random_field<Fr>(rng);
  EXPECT_EQ(eval(h, x) * (x.pow(std::uint64_t{m}) - Fr::one()), eval(A, x) * eval(B, x) - eval(C, x));
}
