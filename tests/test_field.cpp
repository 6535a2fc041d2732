// Field laws for Fp, Fr and Fp2 on random values (seed printed) and edge values.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>

#include "prover/algebra/bls12_381.hpp"
#include "tests/test_util.hpp"

using namespace cuzk::algebra;

template <class F>
class FieldLaws : public ::testing::Test {};
using PrimeFields = ::testing::Types<Fp, Fr>;
TYPED_TEST_SUITE(FieldLaws, PrimeFields);

TYPED_TEST(FieldLaws, RingAxiomsOnRandomValues) {
  using F = TypeParam;
  auto rng = cuzk::test::seeded_rng("FieldLaws");
  for (int i = 0; i < 200; ++i) {
    F a = cuzk::test::random_field<F>(rng), b = cuzk::test::random_field<F>(rng),
      c = cuzk::test::random_field<F>(rng);
    ASSERT_EQ(a + b, b + a);
    ASSERT_EQ(a * b, b * a);
    ASSERT_EQ((a + b) + c, a + (b + c));
    ASSERT_EQ((a * b) * c, a * (b * c));
    ASSERT_EQ(a * (b + c), a * b + a * c);
    ASSERT_EQ(a - a, F::zero());
    ASSERT_EQ(a + (-a), F::zero());
    ASSERT_EQ(a.square(), a * a);
    ASSERT_EQ(a.dbl(), a + a);
    if (!a.is_zero()) {
      ASSERT_TRUE((a * a.inverse()).is_one());
    }
    F r;
    ASSERT_TRUE(a.square().sqrt(r));
    ASSERT_EQ(r.square(), a.square());
    ASSERT_EQ(a.square().legendre(), a.is_zero() ? 0 : 1);
  }
}

TYPED_TEST(FieldLaws, EdgeValues) {
  using F = TypeParam;
  F pm1 = -F::one();  // p - 1
  EXPECT_EQ(pm1 + F::one(), F::zero());
  EXPECT_EQ(pm1 * pm1, F::one());
  EXPECT_EQ(F::zero() * pm1, F::zero());
  EXPECT_EQ(-F::zero(), F::zero());
  EXPECT_TRUE(F::zero().inverse().is_zero());
  EXPECT_EQ(pm1.inverse(), pm1);
  auto canon = pm1.to_canonical();
  EXPECT_EQ(canon, limbs::sub_small(F::kModulus, 1));
  EXPECT_FALSE(F::is_canonical(F::kModulus));
  EXPECT_TRUE(F::is_canonical(canon));
  // Round trip through bytes.
  std::uint8_t bytes[F::kBytes];
  pm1.to_bytes_le(bytes);
  F back;
  ASSERT_TRUE(F::from_bytes_le(bytes, back));
  EXPECT_EQ(back, pm1);
}

TEST(Fr, TwoAdicRootOfUnity) {
  // blstrs v0.7.1 src/scalar.rs (docs/circuit.md §10): ROOT_OF_UNITY = 7^t has order exactly 2^32, with the published canonical value.
  Fr root = Fr::generator().pow(Fr::kTrace);
  EXPECT_EQ(root.to_hex(), "0x16a2a19edfe81f20d09b681922c813b4b63683508c2280b93829971f439f0d2b");
  Fr x = root;
  for (int i = 0; i < 31; ++i) x = x.square();
  EXPECT_EQ(x, -Fr::one());
  EXPECT_EQ(Fr::generator().legendre(), -1) << "7 is a quadratic non-residue";
  // blstrs stores MULTIPLICATIVE_GENERATOR in Montgomery form as these limbs (blstrs v0.7.1 src/scalar.rs).
  Limbs<4> mont7 = {0x0000000efffffff1, 0x17e363d300189c0f, 0xff9c57876f8457b0, 0x351332208fc5a8c4};
  EXPECT_EQ(Fr::from_u64(7).montgomery(), mont7);
}

TEST(Fp2, LawsAndSqrt) {
  auto rng = cuzk::test::seeded_rng("Fp2");
  for (int i = 0; i < 100; ++i) {
    Fp2 a{cuzk::test::random_field<Fp>(rng), cuzk::test::random_field<Fp>(rng)};
    Fp2 b{cuzk::test::random_field<Fp>(rng), cuzk::test::random_field<Fp>(rng)};
    ASSERT_EQ(a * b, b * a);
    ASSERT_EQ(a.square(), a * a);
    ASSERT_TRUE((a * a.inverse()).is_one());
    Fp2 r;
    ASSERT_TRUE(a.square().sqrt(r));
    ASSERT_EQ(r.square(), a.square());
  }
  Fp2 u{Fp::zero(), Fp::one()};
  EXPECT_EQ(u.square(), -Fp2::one()) << "u^2 = -1";
}
