// pce/compact_r1cs: the coefficient encoding (+-1, +-2^k, the table) and its limits.
#include "tests/pce_test_support.hpp"

namespace cuzk::pce {
namespace {

static_assert(r1cs::ConstraintSystem<CompactRecorder>);  // prover/r1cs/constraint_system.hpp

TEST(PceCoefficients, PowersOfTwoAndTable) {
  auto rng = test::seeded_rng("PceCoefficients.PowersOfTwoAndTable");
  CoefficientEncoder encoder;
  Fr p = Fr::one();
  for (unsigned k = 0; k <= kMaxExponent; ++k) {
    EXPECT_EQ(encoder.encode(p), power_of_two_code(k, false)) << k;
    EXPECT_EQ(encoder.encode(-p), power_of_two_code(k, true)) << k;
    p = p + p;
  }
  EXPECT_EQ(encoder.encode(Fr::one()), kPlusOne);
  EXPECT_EQ(encoder.encode(-Fr::one()), kMinusOne);
  // 2^255 mod r is not a power of two below r: a table value.
  EXPECT_TRUE(is_table_code(encoder.encode(p)));
  EXPECT_TRUE(is_table_code(encoder.encode(Fr::from_u64(3))));
  std::vector<Fr> values = {p, Fr::from_u64(3)};
  for (int i = 0; i < 100; ++i) {
    Fr v = rand_fr(rng);
    const CoeffCode code = encoder.encode(v);
    ASSERT_TRUE(is_table_code(code));
    EXPECT_EQ(encoder.encode(v), code) << "the same value gets the same code";
    if (table_index(code) == values.size()) values.push_back(v);
  }
  CompactR1cs holder;
  holder.table = encoder.table();
  EXPECT_EQ(holder.table, values);
  for (unsigned k = 0; k <= kMaxExponent; k += 17) {
    Fr expected = Fr::one();
    for (unsigned i = 0; i < k; ++i) expected = expected + expected;
    EXPECT_EQ(holder.coefficient(power_of_two_code(k, false)), expected);
    EXPECT_EQ(holder.coefficient(power_of_two_code(k, true)), -expected);
  }
}

TEST(PceCoefficients, TableLimitIsReported) {
  CoefficientEncoder encoder;
  for (std::size_t i = 0; i < kMaxTableSize; ++i) encoder.encode(Fr::from_u64(1000003 + 2 * i));
  try {
    encoder.encode(Fr::from_u64(999));
    FAIL() << "a 32,769th table value must be refused";
  } catch (const PceError& e) {
    EXPECT_EQ(e.kind(), PceErrorKind::kLimits);
  }
}

}  // namespace
}  // namespace cuzk::pce
