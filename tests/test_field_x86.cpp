// The x86-64 ADX/BMI2 paths of field_x86.hpp (used by MontField's operators when compiled for such a
// CPU) against the portable constexpr arithmetic, on random and boundary values.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "prover/algebra/bls12_381.hpp"
#include "tests/test_util.hpp"

using namespace cuzk::algebra;

template <class F>
class FastFieldPath : public ::testing::Test {};
using PrimeFields = ::testing::Types<Fp, Fr>;
TYPED_TEST_SUITE(FastFieldPath, PrimeFields);

// Values whose limbs sit at the edges: 0, 1, 2, p - 1, p - 2, R^-1-ish patterns (a single limb set to
// all ones), and the largest canonical values with low limbs cleared.
template <class F>
std::vector<F> boundary_values() {
  std::vector<F> v = {F::zero(), F::one(), F::one().dbl(), -F::one(), -F::one().dbl()};
  for (std::size_t i = 0; i < F::N; ++i) {
    typename F::Repr r{};
    r[i] = ~0ULL;
    if (F::is_canonical(r)) v.push_back(F::from_montgomery(r));
    typename F::Repr top = limbs::sub_small(F::kModulus, 1);
    for (std::size_t j = 0; j < i; ++j) top[j] = 0;
    v.push_back(F::from_montgomery(top));
  }
  return v;
}

TYPED_TEST(FastFieldPath, MatchesPortableArithmetic) {
  using F = TypeParam;
#if !defined(CUZK_FIELD_X86_ASM)
  GTEST_SKIP() << "built without the x86-64 ADX/BMI2 path";
#endif
  auto rng = cuzk::test::seeded_rng("FastFieldPath");
  std::vector<F> values = boundary_values<F>();
  for (int i = 0; i < 64; ++i) values.push_back(cuzk::test::random_field<F>(rng));
  for (const F& a : values) {
    ASSERT_EQ(a.square(), F::mul_portable(a, a)) << a.to_hex() << "^2";
    for (const F& b : values) {
      ASSERT_EQ(a * b, F::mul_portable(a, b)) << a.to_hex() << " * " << b.to_hex();
      ASSERT_EQ(a + b, F::add_portable(a, b)) << a.to_hex() << " + " << b.to_hex();
      ASSERT_EQ(a - b, F::sub_portable(a, b)) << a.to_hex() << " - " << b.to_hex();
      F c = a;
      c *= b;
      ASSERT_EQ(c, F::mul_portable(a, b));
      c = a;
      c += b;
      ASSERT_EQ(c, F::add_portable(a, b));
      c = a;
      c -= b;
      ASSERT_EQ(c, F::sub_portable(a, b));
    }
  }
  // Long random chains, in place and aliased (a *= a), with squarings.
  F x = cuzk::test::random_field<F>(rng), y = x;
  for (int i = 0; i < 100000; ++i) {
    F r = cuzk::test::random_field<F>(rng);
    x *= x;
    x = x.square();
    x += r;
    x -= r.dbl();
    y = F::mul_portable(y, y);
    y = F::mul_portable(y, y);
    y = F::add_portable(y, r);
    y = F::sub_portable(y, F::add_portable(r, r));
    ASSERT_EQ(x, y) << "step " << i;
  }
}
