// Pippenger MSM (G1 and G2) against the double-and-add reference and against sums computed with the
// plain group law, on random inputs (seed printed) and on the edge cases that exercise the bucket
// formulas: zero scalars, scalar one, scalar r - 1, repeated bases (bucket doubling), a base and its
// negation (bucket cancelling to infinity), bases at infinity.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "prover/groth16/errors.hpp"
#include "prover/groth16/msm.hpp"
#include "tests/test_util.hpp"

using namespace cuzk::algebra;
using cuzk::groth16::msm_g1;
using cuzk::groth16::msm_g1_naive;
using cuzk::groth16::msm_g2;
using cuzk::groth16::msm_g2_naive;

namespace {

// Random points [s]G with random s: independent of the MSM code.
template <class Cfg>
std::vector<Affine<Cfg>> random_points(std::mt19937_64& rng, std::size_t n) {
  std::vector<Jacobian<Cfg>> jac;
  jac.reserve(n);
  const Jacobian<Cfg> g = Jacobian<Cfg>::generator();
  for (std::size_t i = 0; i < n; ++i) jac.push_back(g * cuzk::test::random_field<Fr>(rng));
  return batch_to_affine(jac);
}

std::vector<Fr> random_scalars(std::mt19937_64& rng, std::size_t n) {
  std::vector<Fr> s(n);
  for (auto& x : s) x = cuzk::test::random_field<Fr>(rng);
  return s;
}

template <class Cfg>
Jacobian<Cfg> plain_sum(const std::vector<Affine<Cfg>>& points) {
  Jacobian<Cfg> acc = Jacobian<Cfg>::identity();
  for (const auto& p : points) acc += p;
  return acc;
}

// Scalars whose bits sit on window and limb boundaries: 2^k, 2^k - 1 and 3 * 2^(k-1) for every k,
// which give Booth digits of +-2^(c-1) and long carry chains for every window width.
std::vector<Fr> structured_scalars() {
  std::vector<Fr> s;
  Fr pow2 = Fr::one();
  for (int k = 0; k < 255; ++k) {
    s.push_back(pow2);
    s.push_back(pow2 - Fr::one());
    s.push_back(pow2 + pow2.dbl());
    pow2 = pow2.dbl();
  }
  s.push_back(-Fr::one());
  s.push_back(-Fr::one().dbl());
  return s;
}

}  // namespace

TEST(MsmG1, MatchesNaiveOnRandomInputs) {
  auto rng = cuzk::test::seeded_rng("MsmG1.MatchesNaiveOnRandomInputs");
  for (std::size_t n : {1, 2, 3, 17, 100, 1000, 4097}) {
    auto bases = random_points<G1Config>(rng, n);
    auto scalars = random_scalars(rng, n);
    const G1 expected = msm_g1_naive(bases, scalars);
    for (unsigned threads : {1u, 2u, 0u}) {
      EXPECT_EQ(msm_g1(bases, scalars, threads), expected) << "n = " << n << ", threads = " << threads;
    }
  }
}

TEST(MsmG1, ManyThreadsSplitWindowsIntoRanges) {
  // More threads than windows makes each window use several point ranges.
  auto rng = cuzk::test::seeded_rng("MsmG1.ManyThreadsSplitWindowsIntoRanges");
  const std::size_t n = 1 << 16;
  std::vector<G1> jac;
  G1 step = G1::generator() * cuzk::test::random_field<Fr>(rng), acc = step;
  for (std::size_t i = 0; i < n; ++i) {
    jac.push_back(acc);
    acc += step;
  }
  auto bases = batch_to_affine(jac);
  auto scalars = random_scalars(rng, n);
  EXPECT_EQ(msm_g1(bases, scalars, 64), msm_g1(bases, scalars, 1));
  // Against the reference on a prefix (the full naive MSM would be slow).
  std::span<const G1Affine> b(bases.data(), 3000);
  std::span<const Fr> s(scalars.data(), 3000);
  EXPECT_EQ(msm_g1(b, s, 64), msm_g1_naive(b, s));
}

TEST(MsmG1, StructuredScalars) {
  auto rng = cuzk::test::seeded_rng("MsmG1.StructuredScalars");
  auto scalars = structured_scalars();
  auto bases = random_points<G1Config>(rng, scalars.size());
  EXPECT_EQ(msm_g1(bases, scalars, 1), msm_g1_naive(bases, scalars));
  // One point at a time, so that every scalar alone decides the windows.
  for (std::size_t i = 0; i < scalars.size(); ++i) {
    std::span<const G1Affine> b(&bases[i], 1);
    std::span<const Fr> s(&scalars[i], 1);
    ASSERT_EQ(msm_g1(b, s, 1), G1::from_affine(bases[i]) * scalars[i]) << "scalar " << scalars[i].to_hex();
  }
}

TEST(MsmG1, ZeroScalarsGiveIdentity) {
  auto rng = cuzk::test::seeded_rng("MsmG1.ZeroScalarsGiveIdentity");
  auto bases = random_points<G1Config>(rng, 100);
  std::vector<Fr> zeros(100, Fr::zero());
  EXPECT_TRUE(msm_g1(bases, zeros).is_identity());
  // Zeros mixed with random scalars.
  auto scalars = random_scalars(rng, 100);
  for (std::size_t i = 0; i < scalars.size(); i += 3) scalars[i] = Fr::zero();
  EXPECT_EQ(msm_g1(bases, scalars), msm_g1_naive(bases, scalars));
  // Empty input.
  EXPECT_TRUE(msm_g1({}, {}).is_identity());
}

TEST(MsmG1, OneScalarsGiveTheSumOfBases) {
  auto rng = cuzk::test::seeded_rng("MsmG1.OneScalarsGiveTheSumOfBases");
  auto bases = random_points<G1Config>(rng, 1000);
  std::vector<Fr> ones(bases.size(), Fr::one());
  EXPECT_EQ(msm_g1(bases, ones), plain_sum(bases));
}

TEST(MsmG1, ScalarRMinusOneNegates) {
  auto rng = cuzk::test::seeded_rng("MsmG1.ScalarRMinusOneNegates");
  auto bases = random_points<G1Config>(rng, 300);
  std::vector<Fr> minus_one(bases.size(), -Fr::one());
  EXPECT_EQ(msm_g1(bases, minus_one), -plain_sum(bases));
  EXPECT_EQ(msm_g1(bases, minus_one), msm_g1_naive(bases, minus_one));
}

TEST(MsmG1, RepeatedBasesAndCancellingPairs) {
  auto rng = cuzk::test::seeded_rng("MsmG1.RepeatedBasesAndCancellingPairs");
  const G1Affine p = random_points<G1Config>(rng, 1)[0];
  const Fr k = cuzk::test::random_field<Fr>(rng);
  // The same point with the same scalar lands in the same bucket in every window: the second
  // addition is a doubling.
  for (std::size_t copies : {2, 3, 5, 64}) {
    std::vector<G1Affine> bases(copies, p);
    std::vector<Fr> scalars(copies, k);
    EXPECT_EQ(msm_g1(bases, scalars, 1), G1::from_affine(p) * (k * Fr::from_u64(copies))) << copies;
  }
  // P and -P with equal scalars cancel inside the buckets.
  std::vector<G1Affine> bases = {p, -p, p, p};
  std::vector<Fr> scalars = {k, k, k, Fr::one()};
  EXPECT_EQ(msm_g1(bases, scalars, 1), G1::from_affine(p) * (k + Fr::one()));
  // Repeated bases with random scalars.
  auto few = random_points<G1Config>(rng, 5);
  std::vector<G1Affine> rep;
  for (int i = 0; i < 200; ++i) rep.push_back(few[i % 5]);
  auto rs = random_scalars(rng, rep.size());
  for (int i = 0; i < 200; i += 7) rs[i] = rs[0];
  EXPECT_EQ(msm_g1(rep, rs), msm_g1_naive(rep, rs));
}

TEST(MsmG1, BasesAtInfinityAreSkipped) {
  auto rng = cuzk::test::seeded_rng("MsmG1.BasesAtInfinityAreSkipped");
  auto bases = random_points<G1Config>(rng, 200);
  auto scalars = random_scalars(rng, bases.size());
  std::vector<G1Affine> kept_bases;
  std::vector<Fr> kept_scalars;
  for (std::size_t i = 0; i < bases.size(); ++i) {
    if (i % 4 == 1) {
      bases[i] = G1Affine::identity();
    } else {
      kept_bases.push_back(bases[i]);
      kept_scalars.push_back(scalars[i]);
    }
  }
  const G1 expected = msm_g1_naive(kept_bases, kept_scalars);
  EXPECT_EQ(msm_g1(bases, scalars), expected);
  EXPECT_EQ(msm_g1_naive(bases, scalars), expected);
  std::vector<G1Affine> all_infinity(10, G1Affine::identity());
  std::vector<Fr> ten(10, Fr::from_u64(10));
  EXPECT_TRUE(msm_g1(all_infinity, ten).is_identity());
}

TEST(MsmG1, MismatchedLengthsThrow) {
  auto rng = cuzk::test::seeded_rng("MsmG1.MismatchedLengthsThrow");
  auto bases = random_points<G1Config>(rng, 3);
  auto scalars = random_scalars(rng, 2);
  EXPECT_THROW(msm_g1(bases, scalars), cuzk::groth16::Groth16Error);
}

TEST(MsmG2, MatchesNaiveOnRandomInputs) {
  auto rng = cuzk::test::seeded_rng("MsmG2.MatchesNaiveOnRandomInputs");
  for (std::size_t n : {1, 2, 3, 17, 100, 600}) {
    auto bases = random_points<G2Config>(rng, n);
    auto scalars = random_scalars(rng, n);
    const G2 expected = msm_g2_naive(bases, scalars);
    for (unsigned threads : {1u, 2u}) {
      EXPECT_EQ(msm_g2(bases, scalars, threads), expected) << "n = " << n << ", threads = " << threads;
    }
  }
}

TEST(MsmG2, EdgeCases) {
  auto rng = cuzk::test::seeded_rng("MsmG2.EdgeCases");
  auto bases = random_points<G2Config>(rng, 100);
  std::vector<Fr> ones(bases.size(), Fr::one());
  EXPECT_EQ(msm_g2(bases, ones), plain_sum(bases));
  std::vector<Fr> minus_one(bases.size(), -Fr::one());
  EXPECT_EQ(msm_g2(bases, minus_one), -plain_sum(bases));
  std::vector<Fr> zeros(bases.size(), Fr::zero());
  EXPECT_TRUE(msm_g2(bases, zeros).is_identity());
  // Repeated base (bucket doubling), cancelling pair, and a base at infinity.
  const Fr k = cuzk::test::random_field<Fr>(rng);
  std::vector<G2Affine> rep = {bases[0], bases[0], bases[0], -bases[1], bases[1], G2Affine::identity()};
  std::vector<Fr> ks(rep.size(), k);
  EXPECT_EQ(msm_g2(rep, ks, 1), G2::from_affine(bases[0]) * (k * Fr::from_u64(3)));
  auto structured = structured_scalars();
  std::vector<G2Affine> sb(structured.size());
  for (std::size_t i = 0; i < sb.size(); ++i) sb[i] = bases[i % bases.size()];
  EXPECT_EQ(msm_g2(sb, structured), msm_g2_naive(sb, structured));
}
