// GPU G1/G2 MSM against the CPU prover's msm_g1/msm_g2 (and the naive double-and-add for small sizes):
// random scalars (seed printed), non-power-of-two sizes, all-zero and all-one scalars, small scalars,
// equal scalars (one crowded bucket), points at infinity, repeated and opposite points, several window
// sizes, with and without the 0/1 split, with and without the endomorphism table (split scalars), and the
// batch interface.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>
#include <type_traits>
#include <vector>

#include "gpu/cuda_check.hpp"
#include "gpu/msm.hpp"
#include "prover/algebra/endomorphism.hpp"
#include "prover/groth16/msm.hpp"
#include "tests/gpu/gpu_test_util.hpp"
#include "tests/test_util.hpp"

using namespace cuzk;
using algebra::Fr;

namespace {

// Distinct points P_k = [a]G + k [q]G, then some replaced by infinity, copies of others, and negations.
template <class Cfg>
std::vector<algebra::Affine<Cfg>> make_points(std::size_t n, std::mt19937_64& rng, bool specials) {
  using J = algebra::Jacobian<Cfg>;
  J g = J::generator();
  J p = g * test::random_field<Fr>(rng);
  algebra::Affine<Cfg> q = (g * test::random_field<Fr>(rng)).to_affine();
  std::vector<J> pts(n);
  for (std::size_t i = 0; i < n; ++i) {
    pts[i] = p;
    p += q;
  }
  std::vector<algebra::Affine<Cfg>> out = algebra::batch_to_affine(pts);
  if (specials && n >= 8) {
    for (std::size_t i = 3; i < n; i += 7) out[i] = algebra::Affine<Cfg>::identity();
    for (std::size_t i = 5; i < n; i += 11) out[i] = out[i / 2];
    for (std::size_t i = 6; i < n; i += 13) out[i] = -out[(i * 3) % n];
  }
  return out;
}

enum class Kind { kRandom, kZeros, kOnes, kSmall, kEqual, kWitness, kMinusOne };

std::vector<Fr> make_scalars(std::size_t n, Kind kind, std::mt19937_64& rng) {
  std::vector<Fr> s(n);
  for (auto& x : s) {
    switch (kind) {
      case Kind::kRandom:
        x = test::random_field<Fr>(rng);
        break;
      case Kind::kZeros:
        x = Fr::zero();
        break;
      case Kind::kOnes:
        x = Fr::one();
        break;
      case Kind::kSmall:
        x = Fr::from_u64(rng() % 70000);
        break;
      case Kind::kEqual:
        x = Fr::from_u64(5);
        break;
      case Kind::kMinusOne:
        x = -Fr::one();
        break;
      case Kind::kWitness: {
        unsigned r = rng() % 10;
        x = r < 4   ? Fr::zero()
            : r < 7 ? Fr::one()
            : r < 8 ? Fr::from_u64(rng() % 4)
                    : test::random_field<Fr>(rng);
        break;
      }
    }
  }
  return s;
}

const char* kind_name(Kind k) {
  switch (k) {
    case Kind::kRandom:
      return "random";
    case Kind::kZeros:
      return "zeros";
    case Kind::kOnes:
      return "ones";
    case Kind::kSmall:
      return "small";
    case Kind::kEqual:
      return "equal";
    case Kind::kWitness:
      return "witness";
    case Kind::kMinusOne:
      return "minus-one";
  }
  return "?";
}

const char* tables_name(gpu::MsmTables t) {
  return t == gpu::MsmTables::kBases ? "bases" : "endomorphism";
}
constexpr gpu::MsmTables kBothTables[] = {gpu::MsmTables::kBases, gpu::MsmTables::kEndomorphism};

// lambda + d (d small, either sign) as an Fr: the split's edges k1 = 0 and k1 = lambda - 1.
Fr lambda_plus(std::int64_t d) {
  const Fr lambda =
      Fr::from_canonical(algebra::Limbs<4>{algebra::glv::kLambda[0], algebra::glv::kLambda[1], 0, 0});
  return d >= 0 ? lambda + Fr::from_u64(std::uint64_t(d)) : lambda - Fr::from_u64(std::uint64_t(-d));
}

}  // namespace

class GpuMsmG1Tables : public ::testing::TestWithParam<gpu::MsmTables> {};
INSTANTIATE_TEST_SUITE_P(Tables, GpuMsmG1Tables, ::testing::ValuesIn(kBothTables),
                         [](const auto& info) { return std::string(tables_name(info.param)); });

TEST_P(GpuMsmG1Tables, MatchesCpuOnManyShapes) {
  CUZK_REQUIRE_GPU();
  auto rng = test::seeded_rng("GpuMsmG1.Shapes");
  const std::size_t max_n = 4097;
  auto bases = make_points<algebra::G1Config>(max_n, rng, true);
  gpu::G1Msm msm(bases, nullptr, GetParam());
  for (std::size_t n : {std::size_t{1}, std::size_t{2}, std::size_t{3}, std::size_t{31}, std::size_t{100},
                        std::size_t{1000}, std::size_t{1024}, max_n}) {
    std::span<const algebra::G1Affine> b(bases.data(), n);
    for (Kind kind : {Kind::kRandom, Kind::kZeros, Kind::kOnes, Kind::kSmall, Kind::kEqual, Kind::kWitness,
                      Kind::kMinusOne}) {
      std::vector<Fr> s = make_scalars(n, kind, rng);
      algebra::G1 want = groth16::msm_g1(b, s);
      if (n <= 100) ASSERT_EQ(groth16::msm_g1_naive(b, s), want) << "CPU oracles disagree, n " << n;
      for (bool split : {true, false}) {
        gpu::MsmOptions opt;
        opt.split_ones = split;
        ASSERT_EQ(msm.run(s, opt), want) << "n " << n << " scalars " << kind_name(kind) << " split " << split;
      }
    }
  }
}

TEST_P(GpuMsmG1Tables, EveryWindowSize) {
  CUZK_REQUIRE_GPU();
  auto rng = test::seeded_rng("GpuMsmG1.Windows");
  const std::size_t n = 3000;
  auto bases = make_points<algebra::G1Config>(n, rng, true);
  gpu::G1Msm msm(bases, nullptr, GetParam());
  std::vector<Fr> s = make_scalars(n, Kind::kRandom, rng);
  // The largest scalars (r - 1, r - 2) and top bits alone: the top window's digit and the carries into it.
  s[0] = -Fr::one();
  s[1] = -Fr::from_u64(2);
  s[2] = Fr::from_u64(1);
  for (int i = 0; i < 254; ++i) s[2] = s[2] + s[2];  // 2^254
  // Split scalars: r - 1 = lambda (lambda + 1) has the largest k2; lambda - 1, lambda, lambda + 1 the
  // edges of k1; 2^128 - 1 and 2^128 the top of the halves.
  s[3] = lambda_plus(-1);
  s[4] = lambda_plus(0);
  s[5] = lambda_plus(1);
  s[6] = Fr::from_canonical(algebra::Limbs<4>{~0ull, ~0ull, 0, 0});
  s[7] = Fr::from_canonical(algebra::Limbs<4>{0, 0, 1, 0});
  algebra::G1 want = groth16::msm_g1(bases, s);
  for (unsigned c = 2; c <= 22; ++c) {
    gpu::MsmOptions opt;
    opt.window_bits = c;
    ASSERT_EQ(msm.run(s, opt), want) << "window bits " << c;
  }
}

TEST_P(GpuMsmG1Tables, LargeRandomAndBatch) {
  CUZK_REQUIRE_GPU();
  auto rng = test::seeded_rng("GpuMsmG1.Large");
  const std::size_t n = (std::size_t{1} << 16) + 123;
  auto bases = make_points<algebra::G1Config>(n, rng, true);
  gpu::G1Msm msm(bases, nullptr, GetParam());
  std::vector<std::vector<Fr>> vectors = {make_scalars(n, Kind::kRandom, rng),
                                          make_scalars(n, Kind::kWitness, rng),
                                          make_scalars(n - 1000, Kind::kRandom, rng)};
  std::vector<std::span<const Fr>> spans(vectors.begin(), vectors.end());
  std::vector<algebra::G1> got = msm.run_batch(spans);
  ASSERT_EQ(got.size(), vectors.size());
  for (std::size_t i = 0; i < vectors.size(); ++i) {
    std::span<const algebra::G1Affine> b(bases.data(), vectors[i].size());
    ASSERT_EQ(got[i], groth16::msm_g1(b, vectors[i])) << "vector " << i;
  }
}

// The points the benchmark uses are made on the device: they must be distinct curve points in G1,
// and the MSM over them must match the CPU.
TEST_P(GpuMsmG1Tables, DeviceGeneratedPoints) {
  CUZK_REQUIRE_GPU();
  const std::size_t n = 5000;
  auto* d = gpu::generate_points_on_device<algebra::G1Config>(n, 42);
  gpu::G1Msm msm(d, n, nullptr, GetParam());
  std::vector<gpu::G1Msm::DeviceAffine> raw(n);
  CUDA_OK(cudaMemcpy(raw.data(), msm.device_bases(), n * sizeof raw[0], cudaMemcpyDeviceToHost));
  std::vector<algebra::G1Affine> pts(n);
  for (std::size_t i = 0; i < n; ++i) {
    pts[i] = algebra::G1Affine::from_xy(raw[i].x, raw[i].y);
    ASSERT_TRUE(pts[i].is_on_curve()) << i;
  }
  EXPECT_TRUE(algebra::G1::from_affine(pts[17]).is_in_subgroup());
  EXPECT_NE(pts[0], pts[1]);
  EXPECT_NE(pts[63], pts[64]);
  auto rng = test::seeded_rng("GpuMsmG1.DevicePoints");
  std::vector<Fr> s = make_scalars(n, Kind::kRandom, rng);
  EXPECT_EQ(msm.run(s), groth16::msm_g1(pts, s));
}

TEST(GpuMsmG2, MatchesCpu) {
  CUZK_REQUIRE_GPU();
  auto rng = test::seeded_rng("GpuMsmG2.Shapes");
  const std::size_t max_n = 2049;
  auto bases = make_points<algebra::G2Config>(max_n, rng, true);
  gpu::G2Msm msm(bases);
  for (std::size_t n : {std::size_t{1}, std::size_t{5}, std::size_t{64}, std::size_t{300}, max_n}) {
    std::span<const algebra::G2Affine> b(bases.data(), n);
    for (Kind kind : {Kind::kRandom, Kind::kZeros, Kind::kOnes, Kind::kWitness, Kind::kEqual}) {
      std::vector<Fr> s = make_scalars(n, kind, rng);
      algebra::G2 want = groth16::msm_g2(b, s);
      if (n <= 64) ASSERT_EQ(groth16::msm_g2_naive(b, s), want) << "CPU oracles disagree, n " << n;
      for (bool split : {true, false}) {
        gpu::MsmOptions opt;
        opt.split_ones = split;
        ASSERT_EQ(msm.run(s, opt), want)
            << "G2 n " << n << " scalars " << kind_name(kind) << " split " << split;
      }
    }
  }
}

// G2 has no endomorphism table (its endomorphism is not beta x): asking for one is an error, not a
// silent plain table.
TEST(GpuMsmG2, RefusesTheEndomorphismTable) {
  CUZK_REQUIRE_GPU();
  auto rng = test::seeded_rng("GpuMsmG2.Endomorphism");
  auto bases = make_points<algebra::G2Config>(16, rng, false);
  EXPECT_THROW(gpu::G2Msm(bases, nullptr, gpu::MsmTables::kEndomorphism), gpu::GpuError);
}

TEST(GpuMsmG2, DeviceGeneratedPoints) {
  CUZK_REQUIRE_GPU();
  const std::size_t n = 1000;
  auto* d = gpu::generate_points_on_device<algebra::G2Config>(n, 7);
  gpu::G2Msm msm(d, n);
  std::vector<gpu::G2Msm::DeviceAffine> raw(n);
  CUDA_OK(cudaMemcpy(raw.data(), msm.device_bases(), n * sizeof raw[0], cudaMemcpyDeviceToHost));
  std::vector<algebra::G2Affine> pts(n);
  for (std::size_t i = 0; i < n; ++i) {
    pts[i] = algebra::G2Affine::from_xy(raw[i].x, raw[i].y);
    ASSERT_TRUE(pts[i].is_on_curve()) << i;
  }
  auto rng = test::seeded_rng("GpuMsmG2.DevicePoints");
  std::vector<Fr> s = make_scalars(n, Kind::kRandom, rng);
  EXPECT_EQ(msm.run(s), groth16::msm_g2(pts, s));
}

// Msm objects sharing one workspace (the GPU prover's five), run in turn with sizes going up and down, so
// that each run finds the shared scratch grown, shrunk in use or overwritten by another group's MSM.
TEST(GpuMsm, SharedWorkspace) {
  CUZK_REQUIRE_GPU();
  auto rng = test::seeded_rng("GpuMsm.SharedWorkspace");
  auto workspace = std::make_shared<gpu::MsmWorkspace>();
  auto g1_small = make_points<algebra::G1Config>(300, rng, true);
  auto g1_large = make_points<algebra::G1Config>(5000, rng, false);
  auto g2_bases = make_points<algebra::G2Config>(1500, rng, true);
  gpu::G1Msm small(g1_small, workspace), large(g1_large, workspace);
  gpu::G2Msm g2(g2_bases, workspace);
  for (int round = 0; round < 2; ++round) {
    for (Kind kind : {Kind::kRandom, Kind::kWitness}) {
      std::vector<Fr> s_large = make_scalars(g1_large.size(), kind, rng);
      std::vector<Fr> s_g2 = make_scalars(g2_bases.size(), kind, rng);
      std::vector<Fr> s_small = make_scalars(g1_small.size(), kind, rng);
      ASSERT_EQ(large.run(s_large), groth16::msm_g1(g1_large, s_large)) << "round " << round;
      ASSERT_EQ(g2.run(s_g2), groth16::msm_g2(g2_bases, s_g2)) << "round " << round;
      ASSERT_EQ(small.run(s_small), groth16::msm_g1(g1_small, s_small)) << "round " << round;
    }
  }
}

// The planning bounds the GPU prover checks device memory against cover what an MSM really allocates:
// its bases and scratch, and the shared workspace, for random scalars (the most scratch). Measured as the
// drop in free device memory; CUDA rounds allocations up (2 MiB pages), hence the slack.
TEST_P(GpuMsmG1Tables, MemoryBoundsCoverARandomRun) {
  CUZK_REQUIRE_GPU();
  auto rng = test::seeded_rng("GpuMsm.MemoryBounds");
  constexpr std::size_t kSlack = std::size_t{64} << 20;
  const gpu::MsmTables tables = GetParam();
  for (std::size_t n : {std::size_t{1} << 16, std::size_t{1} << 20}) {
    auto bases = make_points<algebra::G1Config>(n, rng, false);
    std::vector<Fr> s = make_scalars(n, Kind::kRandom, rng);
    CUDA_OK(cudaDeviceSynchronize());
    std::size_t free_before = 0, free_after = 0, total = 0;
    CUDA_OK(cudaMemGetInfo(&free_before, &total));
    {
      auto workspace = std::make_shared<gpu::MsmWorkspace>();
      gpu::G1Msm msm(bases, workspace, tables);
      ASSERT_EQ(msm.run(s), groth16::msm_g1(bases, s));
      CUDA_OK(cudaMemGetInfo(&free_after, &total));
    }
    const std::size_t used = free_before - free_after;
    const std::size_t bound =
        gpu::G1Msm::device_bytes_bound(n, tables) + gpu::G1Msm::workspace_bytes_bound(n, tables);
    EXPECT_LE(used, bound + kSlack) << "n " << n << ": used " << used << " bytes, bound " << bound;
    std::printf("  n %zu: %.1f MiB used, bound %.1f MiB\n", n, double(used) / (1 << 20),
                double(bound) / (1 << 20));
  }
}

namespace {

gpu::DeviceBuffer<Fr> device_copy(const std::vector<Fr>& s) {
  gpu::DeviceBuffer<Fr> d(s.size());
  d.upload(std::span<const Fr>(s), nullptr);
  CUDA_OK(cudaDeviceSynchronize());
  return d;
}

template <class Cfg>
algebra::Jacobian<Cfg> cpu_msm(const std::vector<algebra::Affine<Cfg>>& bases, const std::vector<Fr>& s) {
  if constexpr (std::is_same_v<Cfg, algebra::G1Config>) {
    return groth16::msm_g1(bases, s);
  } else {
    return groth16::msm_g2(bases, s);
  }
}

}  // namespace

// MsmOptions::max_range: the scalars in ranges whose bucket sums carry over give the same sum as one range,
// whatever the range (1 point, not a power of two, past the end), the scalars (ranges with no tail or no
// ones) and the tables (with the endomorphism table, a range's phi bases lie `count` past its bases).
TEST_P(GpuMsmG1Tables, RangesGiveTheSameSum) {
  CUZK_REQUIRE_GPU();
  auto rng = test::seeded_rng("GpuMsmG1.Ranges");
  const std::size_t n = 5000;
  auto bases = make_points<algebra::G1Config>(n, rng, true);
  gpu::G1Msm msm(bases, nullptr, GetParam());
  for (Kind kind : {Kind::kRandom, Kind::kWitness, Kind::kOnes, Kind::kZeros, Kind::kSmall, Kind::kEqual}) {
    std::vector<Fr> s = make_scalars(n, kind, rng);
    // A block of zeros and a block of ones, so that some ranges have no tail and some no ones.
    if (kind == Kind::kRandom || kind == Kind::kWitness) {
      for (std::size_t i = 1000; i < 1700; ++i) s[i] = Fr::zero();
      for (std::size_t i = 2000; i < 2600; ++i) s[i] = Fr::one();
    }
    const algebra::G1 want = groth16::msm_g1(bases, s);
    for (std::size_t range : {std::size_t{1}, std::size_t{7}, std::size_t{500}, std::size_t{1024},
                              std::size_t{4999}, std::size_t{8192}}) {
      if (range == 1 && kind != Kind::kWitness) continue;  // 5000 ranges: once is enough
      gpu::MsmOptions opt;
      opt.max_range = range;
      ASSERT_EQ(msm.run(s, opt), want) << "range " << range << " scalars " << kind_name(kind);
      const gpu::DeviceBuffer<Fr> d_scalars = device_copy(s);
      ASSERT_EQ(msm.run_device(d_scalars.data(), n, opt), want)
          << "device scalars, range " << range << " scalars " << kind_name(kind);
    }
  }
}

// MsmOptions::max_sort_pairs: windows sorted and accumulated in groups (passes) give the same sum as all
// windows at once: one window per pass (any limit below a window's pairs), groups that divide the windows and
// groups that do not, alone and with ranges whose bucket sums carry over, host and device scalars.
TEST_P(GpuMsmG1Tables, SortPassesGiveTheSameSum) {
  CUZK_REQUIRE_GPU();
  auto rng = test::seeded_rng("GpuMsmG1.SortPasses");
  const std::size_t n = 5000;
  auto bases = make_points<algebra::G1Config>(n, rng, true);
  gpu::G1Msm msm(bases, nullptr, GetParam());
  for (Kind kind : {Kind::kRandom, Kind::kWitness, Kind::kOnes}) {
    std::vector<Fr> s = make_scalars(n, kind, rng);
    const algebra::G1 want = groth16::msm_g1(bases, s);
    for (std::size_t pairs : {std::size_t{1}, std::size_t{6000}, std::size_t{20000}, std::size_t{50000}}) {
      for (std::size_t range : {std::size_t{0}, std::size_t{1024}}) {
        gpu::MsmOptions opt;
        opt.max_range = range;
        opt.max_sort_pairs = pairs;
        ASSERT_EQ(msm.run(s, opt), want)
            << "pairs " << pairs << " range " << range << " scalars " << kind_name(kind);
        const gpu::DeviceBuffer<Fr> d_scalars = device_copy(s);
        ASSERT_EQ(msm.run_device(d_scalars.data(), n, opt), want)
            << "device scalars, pairs " << pairs << " range " << range << " scalars " << kind_name(kind);
      }
    }
  }
}

TEST(GpuMsmG2, SortPassesGiveTheSameSum) {
  CUZK_REQUIRE_GPU();
  auto rng = test::seeded_rng("GpuMsmG2.SortPasses");
  const std::size_t n = 2000;
  auto bases = make_points<algebra::G2Config>(n, rng, true);
  gpu::G2Msm msm(bases);
  std::vector<Fr> s = make_scalars(n, Kind::kWitness, rng);
  const algebra::G2 want = groth16::msm_g2(bases, s);
  for (std::size_t pairs : {std::size_t{1}, std::size_t{5000}}) {
    for (std::size_t range : {std::size_t{0}, std::size_t{700}}) {
      gpu::MsmOptions opt;
      opt.max_range = range;
      opt.max_sort_pairs = pairs;
      ASSERT_EQ(msm.run(s, opt), want) << "pairs " << pairs << " range " << range;
    }
  }
}

// Msm::run_streamed: bases that stay in host memory, loaded a window at a time into two window buffers on
// a copy stream, give the same sum as resident bases: windows that divide the count and that do not,
// ranges smaller than the window, host and device scalars, G1 and G2. `lent`: the two windows are device
// buffers the Msm does not own (Msm::LentWindows), and nothing past a window's room is written.
template <class Cfg>
void check_streamed(const char* name, bool lent = false) {
  using Msm = gpu::Msm<Cfg>;
  auto rng = test::seeded_rng(name);
  const std::size_t n = 3001;
  auto bases = make_points<Cfg>(n, rng, true);
  std::vector<typename Msm::DeviceAffine> host(n);
  for (std::size_t i = 0; i < n; ++i) host[i] = Msm::to_device(bases[i]);
  std::size_t loads = 0;
  const typename Msm::BaseLoader load = [&](std::size_t first, std::size_t count,
                                            typename Msm::DeviceAffine* dst, cudaStream_t stream) {
    ASSERT_LE(first + count, n);
    ++loads;
    CUDA_OK(cudaMemcpyAsync(dst, host.data() + first, count * sizeof(typename Msm::DeviceAffine),
                            cudaMemcpyHostToDevice, stream));
  };
  auto workspace = std::make_shared<gpu::MsmWorkspace>();
  for (std::size_t window : {std::size_t{64}, std::size_t{1000}, std::size_t{3001}}) {
    constexpr std::size_t kGuard = 16;  // points past each lent window, which must stay as they were
    constexpr unsigned char kGuardByte = 0xA5;
    const std::size_t guard_bytes = kGuard * sizeof(typename Msm::DeviceAffine);
    gpu::DeviceBuffer<typename Msm::DeviceAffine> lent_buffers[2];
    std::optional<Msm> made;
    if (lent) {
      for (auto& b : lent_buffers) {
        b.ensure(window + kGuard);
        CUDA_OK(cudaMemset(b.data() + window, kGuardByte, guard_bytes));
      }
      made.emplace(typename Msm::LentWindows{lent_buffers[0].data(), lent_buffers[1].data()}, window,
                   workspace);
    } else {
      made.emplace(std::span<const algebra::Affine<Cfg>>(bases.data(), window), workspace);
    }
    Msm& msm = *made;
    for (Kind kind : {Kind::kRandom, Kind::kWitness, Kind::kOnes}) {
      std::vector<Fr> s = make_scalars(n, kind, rng);
      const algebra::Jacobian<Cfg> want = cpu_msm<Cfg>(bases, s);
      for (std::size_t range : {std::size_t{0}, std::size_t{333}}) {
        gpu::MsmOptions opt;
        opt.max_range = range;
        opt.max_sort_pairs = range ? 1000 : 0;  // a ranged run sorts its windows in passes too
        loads = 0;
        ASSERT_EQ(msm.run_streamed(s, load, opt), want)
            << name << " window " << window << " range " << range << " scalars " << kind_name(kind);
        const std::size_t per = std::min(window, range ? range : window);
        EXPECT_EQ(loads, (n + per - 1) / per) << "every range loaded once";
        const gpu::DeviceBuffer<Fr> d_scalars = device_copy(s);
        ASSERT_EQ(msm.run_streamed_device(d_scalars.data(), n, load, opt), want)
            << name << " device scalars, window " << window << " range " << range;
      }
    }
    if (lent) {
      CUDA_OK(cudaDeviceSynchronize());
      for (auto& b : lent_buffers) {
        std::vector<unsigned char> guard(guard_bytes);
        CUDA_OK(cudaMemcpy(guard.data(), b.data() + window, guard_bytes, cudaMemcpyDeviceToHost));
        EXPECT_EQ(std::count(guard.begin(), guard.end(), kGuardByte), std::ptrdiff_t(guard_bytes))
            << name << ": a write past the lent window of " << window;
      }
    }
  }
}

TEST(GpuMsm, StreamedBasesG1) {
  CUZK_REQUIRE_GPU();
  check_streamed<algebra::G1Config>("GpuMsm.StreamedG1");
}
TEST(GpuMsm, StreamedBasesG2) {
  CUZK_REQUIRE_GPU();
  check_streamed<algebra::G2Config>("GpuMsm.StreamedG2");
}
TEST(GpuMsm, StreamedBasesInLentWindows) {
  CUZK_REQUIRE_GPU();
  check_streamed<algebra::G1Config>("GpuMsm.LentG1", true);
  check_streamed<algebra::G2Config>("GpuMsm.LentG2", true);
}

// Msm::run_streamed_batch: several scalar vectors in one pass over the streamed windows give each vector's
// own sum (against the CPU), with each window loaded once for all of them: vectors of different kinds and
// lengths (one shorter than a window, one empty), ranges smaller than the window, G1 and G2.
template <class Cfg>
void check_streamed_batch(const char* name) {
  using Msm = gpu::Msm<Cfg>;
  auto rng = test::seeded_rng(name);
  const std::size_t n = 2500;
  auto bases = make_points<Cfg>(n, rng, true);
  std::vector<typename Msm::DeviceAffine> host(n);
  for (std::size_t i = 0; i < n; ++i) host[i] = Msm::to_device(bases[i]);
  std::size_t loads = 0;
  const typename Msm::BaseLoader load = [&](std::size_t first, std::size_t count,
                                            typename Msm::DeviceAffine* dst, cudaStream_t stream) {
    ASSERT_LE(first + count, n);
    ++loads;
    CUDA_OK(cudaMemcpyAsync(dst, host.data() + first, count * sizeof(typename Msm::DeviceAffine),
                            cudaMemcpyHostToDevice, stream));
  };
  auto workspace = std::make_shared<gpu::MsmWorkspace>();
  const std::vector<std::vector<Fr>> vectors = {make_scalars(n, Kind::kWitness, rng),
                                                make_scalars(n, Kind::kRandom, rng),
                                                make_scalars(700, Kind::kOnes, rng),
                                                {},
                                                make_scalars(n - 1, Kind::kWitness, rng)};
  std::vector<algebra::Jacobian<Cfg>> want;
  for (const auto& v : vectors)
    want.push_back(
        cpu_msm<Cfg>(std::vector<algebra::Affine<Cfg>>(bases.begin(), bases.begin() + v.size()), v));
  for (std::size_t window : {std::size_t{512}, std::size_t{n}}) {
    Msm msm(std::span<const algebra::Affine<Cfg>>(bases.data(), window), workspace);
    for (std::size_t range : {std::size_t{0}, std::size_t{300}}) {
      for (std::size_t k : {std::size_t{1}, std::size_t{2}, vectors.size()}) {
        gpu::MsmOptions opt;
        opt.max_range = range;
        std::vector<std::span<const Fr>> batch(vectors.begin(), vectors.begin() + k);
        loads = 0;
        const auto got = msm.run_streamed_batch(batch, load, opt);
        ASSERT_EQ(got.size(), k);
        for (std::size_t v = 0; v < k; ++v)
          ASSERT_EQ(got[v], want[v]) << name << " window " << window << " range " << range << " batch of "
                                     << k << ", vector " << v;
        const std::size_t per = std::min(window, range ? range : window);
        EXPECT_EQ(loads, (n + per - 1) / per) << "each window loaded once for the whole batch";
        // And the batch leaves the Msm as it was: a single run after it gives its sum.
        ASSERT_EQ(msm.run_streamed(vectors[1], load, opt), want[1]) << name << " after a batch";
      }
    }
  }
}

TEST(GpuMsm, StreamedBatchG1) {
  CUZK_REQUIRE_GPU();
  check_streamed_batch<algebra::G1Config>("GpuMsm.StreamedBatchG1");
}
TEST(GpuMsm, StreamedBatchG2) {
  CUZK_REQUIRE_GPU();
  check_streamed_batch<algebra::G2Config>("GpuMsm.StreamedBatchG2");
}

// The bounds of a ranged MSM (what the memory planner counts, gpu/msm_shape.hpp) cover what it allocates.
TEST(GpuMsm, MemoryBoundsCoverARangedRun) {
  CUZK_REQUIRE_GPU();
  auto rng = test::seeded_rng("GpuMsm.RangedBounds");
  constexpr std::size_t kSlack = std::size_t{64} << 20;
  const std::size_t n = std::size_t{1} << 20;
  gpu::MsmOptions opt;
  opt.max_range = std::size_t{1} << 16;
  auto bases = make_points<algebra::G1Config>(n, rng, false);
  std::vector<Fr> s = make_scalars(n, Kind::kRandom, rng);
  CUDA_OK(cudaDeviceSynchronize());
  std::size_t free_before = 0, free_after = 0, total = 0;
  CUDA_OK(cudaMemGetInfo(&free_before, &total));
  {
    auto workspace = std::make_shared<gpu::MsmWorkspace>();
    gpu::G1Msm msm(bases, workspace);
    ASSERT_EQ(msm.run(s, opt), groth16::msm_g1(bases, s));
    CUDA_OK(cudaMemGetInfo(&free_after, &total));
  }
  const std::size_t used = free_before - free_after;
  const std::size_t bound = gpu::G1Msm::device_bytes_bound(n, gpu::MsmTables::kBases, opt) +
                            gpu::G1Msm::workspace_bytes_bound(n, gpu::MsmTables::kBases, opt);
  EXPECT_LE(used, bound + kSlack) << "used " << used << " bytes, bound " << bound;
  std::printf("  ranged n 2^20 in 2^16: %.1f MiB used, bound %.1f MiB\n", double(used) / (1 << 20),
              double(bound) / (1 << 20));
}

// The bounds of an MSM run in ranges and sort passes cover what it allocates, and the passes make them
// smaller than those of the same ranges in one pass (what the planner buys with a pass).
TEST(GpuMsm, MemoryBoundsCoverAPassedRun) {
  CUZK_REQUIRE_GPU();
  auto rng = test::seeded_rng("GpuMsm.PassedBounds");
  constexpr std::size_t kSlack = std::size_t{64} << 20;
  const std::size_t n = std::size_t{1} << 20;
  gpu::MsmOptions opt;
  opt.max_range = std::size_t{1} << 18;
  const std::size_t one_pass = gpu::G1Msm::device_bytes_bound(n, gpu::MsmTables::kBases, opt) +
                               gpu::G1Msm::workspace_bytes_bound(n, gpu::MsmTables::kBases, opt);
  opt.max_sort_pairs = std::size_t{1} << 19;
  auto bases = make_points<algebra::G1Config>(n, rng, false);
  std::vector<Fr> s = make_scalars(n, Kind::kRandom, rng);
  CUDA_OK(cudaDeviceSynchronize());
  std::size_t free_before = 0, free_after = 0, total = 0;
  CUDA_OK(cudaMemGetInfo(&free_before, &total));
  {
    auto workspace = std::make_shared<gpu::MsmWorkspace>();
    gpu::G1Msm msm(bases, workspace);
    ASSERT_EQ(msm.run(s, opt), groth16::msm_g1(bases, s));
    CUDA_OK(cudaMemGetInfo(&free_after, &total));
  }
  const std::size_t used = free_before - free_after;
  const std::size_t bound = gpu::G1Msm::device_bytes_bound(n, gpu::MsmTables::kBases, opt) +
                            gpu::G1Msm::workspace_bytes_bound(n, gpu::MsmTables::kBases, opt);
  EXPECT_LE(used, bound + kSlack) << "used " << used << " bytes, bound " << bound;
  EXPECT_LT(bound, one_pass) << "passes of 2^19 pairs need less than one pass of a 2^18 range";
  std::printf(
      "  n 2^20 in ranges of 2^18, passes of 2^19 pairs: %.1f MiB used, bound %.1f MiB (one pass %.1f)\n",
      double(used) / (1 << 20), double(bound) / (1 << 20), double(one_pass) / (1 << 20));
}
