// Group laws of G1 and G2 on random points (random multiples of the generators, seed printed), subgroup
// membership, points on the curve outside the subgroup, and batch affine conversion.
#include <gtest/gtest.h>

#include <optional>
#include <random>
#include <vector>

#include "prover/algebra/curve.hpp"
#include "prover/algebra/encoding.hpp"
#include "prover/algebra/endomorphism.hpp"
#include "tests/test_util.hpp"

using namespace cuzk::algebra;
using cuzk::test::random_field;

namespace {

// Cofactors #E(Fp) / r and #E'(Fp2) / r: draft-irtf-cfrg-pairing-friendly-curves-11 section 4.2.1
// (BLS12_381, "h"); equal to (x-1)^2/3 and the degree-8 polynomial of zkcrypto bls12_381
// src/notes/design.rs for x = -0xd201000000010000.
constexpr Limbs<2> kG1Cofactor = hex_to_limbs<2>("396c8c005555e1568c00aaab0000aaab");
constexpr Limbs<8> kG2Cofactor = hex_to_limbs<8>(
    "5d543a95414e7f1091d50792876a202cd91de4547085abaa68a205b2e5a7ddfa628f1cb4d9e82ef21537e293a6691ae1616ec6e7"
    "86f0c70c"
    "f1c38e31c7238e5");

template <class J>
J random_point(std::mt19937_64& rng) {
  return J::generator() * random_field<Fr>(rng);
}

// The first point (x, y) with x = start, start+1, ... (G1) or x = start + u (G2) on the curve.
G1Affine first_g1_point_from(std::uint64_t start) {
  for (std::uint64_t i = start;; ++i) {
    Fp x = Fp::from_u64(i), y;
    if ((x.square() * x + G1Config::b()).sqrt(y)) return G1Affine::from_xy(x, y);
  }
}
G2Affine first_g2_point_from(std::uint64_t start) {
  for (std::uint64_t i = start;; ++i) {
    Fp2 x{Fp::from_u64(i), Fp::one()}, y;
    if ((x.square() * x + G2Config::b()).sqrt(y)) return G2Affine::from_xy(x, y);
  }
}

}  // namespace

template <class J>
class CurveGroupLaws : public ::testing::Test {};
using Groups = ::testing::Types<G1, G2>;
TYPED_TEST_SUITE(CurveGroupLaws, Groups);

TYPED_TEST(CurveGroupLaws, GeneratorOnCurveAndOfOrderR) {
  using J = TypeParam;
  J g = J::generator();
  EXPECT_TRUE(g.is_on_curve());
  EXPECT_TRUE(g.to_affine().is_on_curve());
  EXPECT_FALSE(g.is_identity());
  EXPECT_TRUE(g.is_in_subgroup());
  EXPECT_TRUE(g.mul_limbs(Fr::kModulus).is_identity());
  EXPECT_FALSE(g.mul_limbs(limbs::sub_small(Fr::kModulus, 1)).is_identity());
  EXPECT_EQ(g.mul_limbs(limbs::sub_small(Fr::kModulus, 1)), -g) << "[r-1]G = -G";
}

TYPED_TEST(CurveGroupLaws, AdditionOnRandomPoints) {
  using J = TypeParam;
  using A = typename J::AffinePoint;
  auto rng = cuzk::test::seeded_rng("CurveGroupLaws.AdditionOnRandomPoints");
  const J o = J::identity();
  for (int i = 0; i < 8; ++i) {
    J p = random_point<J>(rng), q = random_point<J>(rng), r = random_point<J>(rng);
    ASSERT_TRUE(p.is_on_curve());
    ASSERT_TRUE((p + q).is_on_curve());
    ASSERT_EQ((p + q) + r, p + (q + r)) << "associativity";
    ASSERT_EQ(p + q, q + p) << "commutativity";
    ASSERT_EQ(p + o, p);
    ASSERT_EQ(o + p, p);
    ASSERT_TRUE((p + (-p)).is_identity());
    ASSERT_TRUE((p - p).is_identity());
    ASSERT_EQ(p.dbl(), p + p);
    ASSERT_EQ(p.dbl().dbl(), p + p + p + p);
    ASSERT_EQ((p + q) - q, p);
    // Mixed addition agrees with the general formula, including its special cases.
    A qa = q.to_affine();
    ASSERT_TRUE(qa.is_on_curve());
    ASSERT_EQ(p.add_mixed(qa), p + q);
    ASSERT_EQ(p.add_mixed(p.to_affine()), p.dbl());
    ASSERT_TRUE(p.add_mixed((-p).to_affine()).is_identity());
    ASSERT_EQ(p.add_mixed(A::identity()), p);
    ASSERT_EQ(o.add_mixed(qa), q);
    // Jacobian equality compares across different Z: p + q computed two ways has different Z.
    J s1 = (p + q) + r, s2 = (p + r) + q;
    ASSERT_EQ(s1, s2);
    ASSERT_EQ(s1.to_affine(), s2.to_affine());
    ASSERT_NE(p, q);
    ASSERT_NE(p, o);
    ASSERT_EQ(J::from_affine(p.to_affine()), p);
  }
}

TYPED_TEST(CurveGroupLaws, ScalarMultiplicationOnRandomPoints) {
  using J = TypeParam;
  auto rng = cuzk::test::seeded_rng("CurveGroupLaws.ScalarMultiplicationOnRandomPoints");
  for (int i = 0; i < 4; ++i) {
    J p = random_point<J>(rng);
    Fr a = random_field<Fr>(rng), b = random_field<Fr>(rng);
    ASSERT_EQ((p * b) * a, p * (a * b)) << "[a]([b]P) = [ab]P";
    ASSERT_EQ(p * a + p * b, p * (a + b));
    ASSERT_EQ(p * (-a), -(p * a));
    ASSERT_EQ(p * Fr::from_u64(3), p + p + p);
    ASSERT_EQ(p * Fr::one(), p);
    ASSERT_TRUE((p * Fr::zero()).is_identity());
    ASSERT_TRUE(p.mul_limbs(Fr::kModulus).is_identity()) << "[r]P = O";
    ASSERT_TRUE(p.is_in_subgroup());
    ASSERT_TRUE(J::identity().is_in_subgroup());
  }
}

TEST(CurveSubgroup, G1PointOutsideTheSubgroup) {
  // (0, 2): 2^2 = 0^3 + 4. Published as on the curve but outside G1 (aptos-core
  // aptos-move/framework/aptos-stdlib/sources/cryptography/bls12381_algebra.move, test_g1affine).
  G1Affine p = G1Affine::from_xy(Fp::zero(), Fp::from_u64(2));
  ASSERT_TRUE(p.is_on_curve());
  G1 pj = G1::from_affine(p);
  EXPECT_FALSE(pj.is_in_subgroup());
  EXPECT_FALSE(g1_in_subgroup(p));
  EXPECT_FALSE(pj.mul_limbs(Fr::kModulus).is_identity());
  // x = 0 makes (0, 2) an inflection point: a point of order 3 (3 divides h1, not r).
  EXPECT_FALSE(pj.dbl().is_identity());
  EXPECT_TRUE((pj.dbl() + pj).is_identity());
  EXPECT_TRUE(pj.mul_limbs(kG1Cofactor).is_identity());
  // More points found by search: with overwhelming probability (1 - 1/h1) none is in G1.
  for (std::uint64_t start = 1; start < 40; start += 7) {
    G1Affine q = first_g1_point_from(start);
    ASSERT_TRUE(q.is_on_curve());
    EXPECT_FALSE(g1_in_subgroup(q)) << "x = " << q.x.to_hex();
    // #E(Fp) = h1 * r: clearing the cofactor lands in G1.
    G1 cleared = G1::from_affine(q).mul_limbs(kG1Cofactor);
    EXPECT_FALSE(cleared.is_identity());
    EXPECT_TRUE(cleared.is_in_subgroup());
    EXPECT_TRUE(g1_in_subgroup(cleared.to_affine()));
  }
}

TEST(CurveSubgroup, G2PointOutsideTheSubgroup) {
  for (std::uint64_t start = 0; start < 30; start += 10) {
    G2Affine q = first_g2_point_from(start);
    ASSERT_TRUE(q.is_on_curve());
    G2 qj = G2::from_affine(q);
    EXPECT_FALSE(qj.is_in_subgroup()) << "x.c0 = " << q.x.c0.to_hex();
    EXPECT_FALSE(g2_in_subgroup(q));
    G2 cleared = qj.mul_limbs(kG2Cofactor);  // #E'(Fp2) = h2 * r
    EXPECT_FALSE(cleared.is_identity());
    EXPECT_TRUE(cleared.is_in_subgroup());
    EXPECT_TRUE(g2_in_subgroup(cleared.to_affine()));
  }
}

TYPED_TEST(CurveGroupLaws, BatchToAffineAgreesWithToAffine) {
  using J = TypeParam;
  auto rng = cuzk::test::seeded_rng("CurveGroupLaws.BatchToAffine");
  std::vector<J> points;
  for (int i = 0; i < 12; ++i) points.push_back(i % 5 == 2 ? J::identity() : random_point<J>(rng));
  points.push_back(J::generator());
  auto affine = batch_to_affine(points);
  ASSERT_EQ(affine.size(), points.size());
  for (std::size_t i = 0; i < points.size(); ++i) {
    EXPECT_EQ(affine[i], points[i].to_affine()) << "index " << i;
    EXPECT_EQ(affine[i].is_identity(), points[i].is_identity());
    EXPECT_TRUE(affine[i].is_on_curve());
  }
  EXPECT_TRUE(batch_to_affine(std::vector<J>{}).empty());
}

// The GLV constants (prover/algebra/endomorphism.hpp): lambda is a cube root of unity mod r, beta one
// mod p, and (beta x, y) = lambda (x, y) on random points of G1.
TEST(CurveEndomorphism, BetaActsAsLambdaOnG1) {
  const Limbs<4> lambda_limbs{glv::kLambda[0], glv::kLambda[1], 0, 0};
  const Fr lambda = Fr::from_canonical(lambda_limbs);
  EXPECT_TRUE((lambda.square() + lambda + Fr::one()).is_zero()) << "lambda^2 + lambda + 1 = 0 mod r";
  const Fp beta = Fp::from_canonical(hex_to_limbs<6>(glv::kBetaHex));
  EXPECT_NE(beta, Fp::one());
  EXPECT_EQ(beta.square() * beta, Fp::one()) << "beta^3 = 1 mod p";
  auto rng = cuzk::test::seeded_rng("CurveEndomorphism.BetaActsAsLambdaOnG1");
  for (int i = 0; i < 4; ++i) {
    const G1Affine p = random_point<G1>(rng).to_affine();
    const G1Affine phi = G1Affine::from_xy(beta * p.x, p.y);
    ASSERT_EQ(G1::from_affine(phi), G1::from_affine(p) * lambda);
  }
}

// split_scalar: k = k1 + k2 lambda exactly (as integers), k1 < lambda, k2 < 2^128, on edge and random k.
TEST(CurveEndomorphism, SplitScalarRecombines) {
  const Limbs<4> r = Fr::kModulus;
  const Limbs<4> lambda{glv::kLambda[0], glv::kLambda[1], 0, 0};
  std::vector<Limbs<4>> ks = {Limbs<4>{0, 0, 0, 0},
                              Limbs<4>{1, 0, 0, 0},
                              limbs::sub_small(r, 1),
                              limbs::sub_small(r, 2),
                              lambda,
                              limbs::sub_small(lambda, 1),
                              Limbs<4>{glv::kLambda[0] + 1, glv::kLambda[1], 0, 0}};
  // lambda^2, lambda^2 + lambda (= r - 1), lambda^2 - 1, 2^254.
  std::uint64_t sq[4];
  glv::detail::mul_wide<2, 2>(glv::kLambda, glv::kLambda, sq);
  const Limbs<4> lambda_sq{sq[0], sq[1], sq[2], sq[3]};
  ks.push_back(lambda_sq);
  ks.push_back(limbs::sub_small(lambda_sq, 1));
  ks.push_back(Limbs<4>{0, 0, 0, std::uint64_t{1} << 62});
  auto rng = cuzk::test::seeded_rng("CurveEndomorphism.SplitScalarRecombines");
  for (int i = 0; i < 2000; ++i) ks.push_back(random_field<Fr>(rng).to_canonical());
  for (const Limbs<4>& k : ks) {
    std::uint64_t k1[2], k2[2];
    glv::split_scalar(k.data(), k1, k2);
    ASSERT_TRUE(k1[1] < glv::kLambda[1] || (k1[1] == glv::kLambda[1] && k1[0] < glv::kLambda[0]))
        << "k1 < lambda for k = " << Fr::from_canonical(k).to_hex();
    std::uint64_t prod[4];
    glv::detail::mul_wide<2, 2>(k2, glv::kLambda, prod);
    unsigned __int128 carry = 0;
    Limbs<4> sum{};
    for (int j = 0; j < 4; ++j) {
      carry += static_cast<unsigned __int128>(prod[j]) + (j < 2 ? k1[j] : 0);
      sum[j] = static_cast<std::uint64_t>(carry);
      carry >>= 64;
    }
    ASSERT_EQ(carry, 0u);
    ASSERT_EQ(sum, k) << "k1 + k2 lambda = k for k = " << Fr::from_canonical(k).to_hex();
  }
}
