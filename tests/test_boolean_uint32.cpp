// Boolean / AllocatedBit / UInt32 / AllocatedNum / multipack gadgets against bellpepper's published tests
// (bellpepper-core gadgets/boolean.rs, num.rs; bellpepper gadgets/uint32.rs, multipack.rs) and the
// rules of docs/circuit.md §8.1.
#include <gtest/gtest.h>

#include <array>
#include <vector>

#include "prover/gadgets/boolean.hpp"
#include "prover/gadgets/multipack.hpp"
#include "prover/gadgets/num.hpp"
#include "prover/gadgets/uint32.hpp"
#include "prover/r1cs/constraint_system.hpp"
#include "tests/test_util.hpp"

namespace cuzk::gadgets {
namespace {

using r1cs::Checker;
using r1cs::Counter;

// bellpepper's OperandType.
enum class Operand {
  kTrue,
  kFalse,
  kAllocatedTrue,
  kAllocatedFalse,
  kNegatedAllocatedTrue,
  kNegatedAllocatedFalse
};
constexpr std::array<Operand, 6> kOperands = {Operand::kTrue,
                                              Operand::kFalse,
                                              Operand::kAllocatedTrue,
                                              Operand::kAllocatedFalse,
                                              Operand::kNegatedAllocatedTrue,
                                              Operand::kNegatedAllocatedFalse};
bool operand_value(Operand o) {
  return o == Operand::kTrue || o == Operand::kAllocatedTrue || o == Operand::kNegatedAllocatedFalse;
}
bool operand_is_constant(Operand o) {
  return o == Operand::kTrue || o == Operand::kFalse;
}

template <class CS>
Boolean make_operand(CS& cs, Operand o) {
  switch (o) {
    case Operand::kTrue:
      return Boolean::constant(true);
    case Operand::kFalse:
      return Boolean::constant(false);
    case Operand::kAllocatedTrue:
      return AllocatedBit::alloc(cs, true);
    case Operand::kAllocatedFalse:
      return AllocatedBit::alloc(cs, false);
    case Operand::kNegatedAllocatedTrue:
      return Boolean(AllocatedBit::alloc(cs, true)).not_();
    case Operand::kNegatedAllocatedFalse:
      return Boolean(AllocatedBit::alloc(cs, false)).not_();
  }
  return {};
}
int allocations(Operand o) {
  return operand_is_constant(o) ? 0 : 1;
}

TEST(AllocatedBit, TruthTablesAndCorruptedResultIsCaught) {
  struct Op {
    const char* constraint;
    bool (*fn)(bool, bool);
    AllocatedBit (*gadget)(Checker&, const AllocatedBit&, const AllocatedBit&);
  };
  const Op ops[] = {
      {"xor constraint", [](bool a, bool b) { return a != b; }, &AllocatedBit::xor_<Checker>},
      {"and constraint", [](bool a, bool b) { return a && b; }, &AllocatedBit::and_<Checker>},
      {"and not constraint", [](bool a, bool b) { return a && !b; }, &AllocatedBit::and_not<Checker>},
      {"nor constraint", [](bool a, bool b) { return !a && !b; }, &AllocatedBit::nor<Checker>},
  };
  for (const Op& op : ops) {
    for (bool a_val : {false, true}) {
      for (bool b_val : {false, true}) {
        for (bool corrupt : {false, true}) {
          Checker cs;
          bool expected = op.fn(a_val, b_val);
          // The result is aux 2; flipping it must break the operation's constraint (bellpepper's cs.set).
          if (corrupt) cs.corrupt_aux_on_alloc(2, expected ? Fr::zero() : Fr::one());
          AllocatedBit a, b;
          {
            auto ns = cs.push_namespace("a");
            a = AllocatedBit::alloc(cs, a_val);
          }
          {
            auto ns = cs.push_namespace("b");
            b = AllocatedBit::alloc(cs, b_val);
          }
          AllocatedBit c = op.gadget(cs, a, b);
          EXPECT_EQ(c.value(), expected);
          EXPECT_EQ(cs.num_constraints(), 3u);
          EXPECT_EQ(cs.aux()[0], a_val ? Fr::one() : Fr::zero());
          if (!corrupt) {
            EXPECT_TRUE(cs.is_satisfied()) << op.constraint;
            EXPECT_EQ(cs.aux()[2], expected ? Fr::one() : Fr::zero());
          } else {
            ASSERT_FALSE(cs.is_satisfied());
            EXPECT_EQ(cs.first_failure()->path, op.constraint);
          }
        }
      }
    }
  }
}

TEST(AllocatedBit, BooleanConstraintRejectsTwo) {
  // bellpepper test_allocated_bit: the bit set to 2 fails "boolean constraint"; 0 and 1 pass.
  for (std::uint64_t v : {0, 1, 2}) {
    Checker cs;
    cs.corrupt_aux_on_alloc(0, Fr::from_u64(v));
    {
      auto ns = cs.push_namespace("bit");
      AllocatedBit::alloc(cs, true);
    }
    EXPECT_EQ(cs.is_satisfied(), v != 2);
    if (v == 2) {
      EXPECT_EQ(cs.first_failure()->path, "bit/boolean constraint");
    }
  }
}

// bellpepper test_boolean_xor / test_boolean_and: the kind of the result for every operand pair, its value,
// and the constraint cost (one constraint exactly when neither operand is constant).
TEST(Boolean, XorAndOrOverAllOperandKinds) {
  using Kind = Boolean::Kind;
  for (Operand x : kOperands) {
    for (Operand y : kOperands) {
      bool both_allocated = !operand_is_constant(x) && !operand_is_constant(y);
      for (int op = 0; op < 3; ++op) {
        Checker cs;
        Boolean a = make_operand(cs, x);
        Boolean b = make_operand(cs, y);
        std::size_t before = cs.num_constraints();
        Boolean c = op == 0   ? Boolean::xor_(cs, a, b)
                    : op == 1 ? Boolean::and_(cs, a, b)
                              : Boolean::or_(cs, a, b);
        bool vx = operand_value(x), vy = operand_value(y);
        bool expected = op == 0 ? vx != vy : op == 1 ? vx && vy : vx || vy;
        EXPECT_EQ(c.value(), expected);
        EXPECT_TRUE(cs.is_satisfied());
        EXPECT_EQ(cs.num_constraints() - before, both_allocated ? 1u : 0u);
        EXPECT_EQ(cs.aux().size(),
                  static_cast<std::size_t>(allocations(x) + allocations(y) + both_allocated));
        if (op == 0) {
          // bellpepper test_boolean_xor's table, in closed form.
          bool x_negated = x == Operand::kNegatedAllocatedTrue || x == Operand::kNegatedAllocatedFalse;
          bool y_negated = y == Operand::kNegatedAllocatedTrue || y == Operand::kNegatedAllocatedFalse;
          if (operand_is_constant(x) && operand_is_constant(y)) {
            EXPECT_EQ(c.kind(), Kind::kConstant);
          } else if (operand_is_constant(x) || operand_is_constant(y)) {
            bool constant_value = operand_is_constant(x) ? vx : vy;
            bool other_negated = operand_is_constant(x) ? y_negated : x_negated;
            EXPECT_EQ(c.kind(), (other_negated != constant_value) ? Kind::kNot : Kind::kIs);
          } else {
            EXPECT_EQ(c.kind(), x_negated == y_negated ? Kind::kIs : Kind::kNot);
          }
        }
        if (op == 1 && both_allocated) {
          EXPECT_EQ(c.kind(), Kind::kIs);
        }
        if (op == 1 && (x == Operand::kFalse || y == Operand::kFalse)) {
          EXPECT_TRUE(c.is_constant(false));
        }
      }
    }
  }
}

TEST(Boolean, XorIsOperandIsFirstArgument) {
  // bellpepper-core boolean.rs xor, the Is/Not case (docs/circuit.md §8.1): for Is x and Not y, in either order, the xor constraint is (2x, y, x + y - c).
  for (bool is_first : {true, false}) {
    r1cs::Recorder rec;
    AllocatedBit x = AllocatedBit::alloc(rec, false);  // aux 0
    AllocatedBit y = AllocatedBit::alloc(rec, false);  // aux 1
    Boolean is = x, negated = Boolean(y).not_();
    if (is_first) {
      Boolean::xor_(rec, is, negated);
    } else {
      Boolean::xor_(rec, negated, is);
    }
    r1cs::R1cs r = rec.finish();
    ASSERT_EQ(r.num_constraints(), 3u);
    // Unified: ONE = 0, x = 1, y = 2, c = 3. Row 2: A = 2x, B = y.
    EXPECT_EQ(r.a.columns.back(), 1u);
    EXPECT_EQ(r.a.values.back(), Fr::from_u64(2));
    EXPECT_EQ(r.b.columns.back(), 2u);
  }
}

TEST(Boolean, EnforceEqualAllCombinations) {
  // bellpepper test_enforce_equal.
  for (bool a_bool : {false, true}) {
    for (bool b_bool : {false, true}) {
      for (bool a_neg : {false, true}) {
        for (bool b_neg : {false, true}) {
          bool equal = (a_bool != a_neg) == (b_bool != b_neg);
          for (int shape = 0; shape < 4; ++shape) {  // alloc/alloc, const/alloc, alloc/const, const/const
            Checker cs;
            Boolean a = (shape & 1) ? Boolean::constant(a_bool) : Boolean(AllocatedBit::alloc(cs, a_bool));
            Boolean b = (shape & 2) ? Boolean::constant(b_bool) : Boolean(AllocatedBit::alloc(cs, b_bool));
            if (a_neg) a = a.not_();
            if (b_neg) b = b.not_();
            if (shape == 3 && !equal) {
              EXPECT_THROW(Boolean::enforce_equal(cs, a, b), r1cs::ConstraintSystemError);
              continue;
            }
            Boolean::enforce_equal(cs, a, b);
            EXPECT_EQ(cs.is_satisfied(), equal);
          }
        }
      }
    }
  }
}

// sha256_ch and sha256_maj over every combination of operand kinds: the value, satisfaction, and the
// costs the rules of docs/circuit.md §8.1 give (0 when all constant or folded, 1 for ch's generic case, 2 for maj's).
TEST(Boolean, Sha256ChMajAllOperandKinds) {
  for (Operand x : kOperands) {
    for (Operand y : kOperands) {
      for (Operand z : kOperands) {
        for (int op = 0; op < 2; ++op) {
          Checker cs;
          Boolean a = make_operand(cs, x), b = make_operand(cs, y), c = make_operand(cs, z);
          std::size_t before = cs.num_constraints();
          Boolean r = op == 0 ? Boolean::sha256_ch(cs, a, b, c) : Boolean::sha256_maj(cs, a, b, c);
          bool va = operand_value(x), vb = operand_value(y), vc = operand_value(z);
          bool expected = op == 0 ? ((va && vb) != (!va && vc)) : (((va && vb) != (va && vc)) != (vb && vc));
          EXPECT_EQ(r.value(), expected);
          EXPECT_TRUE(cs.is_satisfied());
          std::size_t cost = cs.num_constraints() - before;
          int allocated = !operand_is_constant(x) + !operand_is_constant(y) + !operand_is_constant(z);
          if (allocated == 3) {
            EXPECT_EQ(cost, op == 0 ? 1u : 2u);
          }
          if (allocated == 0) {
            EXPECT_EQ(cost, 0u);
          }
          if (allocated <= 2) {
            EXPECT_LE(cost, 1u);
          }
          if (op == 0 && x == Operand::kFalse) {
            EXPECT_EQ(cost, 0u);
          }
          if (op == 0 && x == Operand::kTrue && allocated == 2) {
            EXPECT_EQ(cost, 1u);  // ch's generic case
          }
        }
      }
    }
  }
}

TEST(UInt32, XorMatchesNativeAndFoldsConstants) {
  // bellpepper test_uint32_xor: a (allocated) ^ b (constant) ^ c (allocated).
  auto rng = test::seeded_rng("UInt32.XorMatchesNativeAndFoldsConstants");
  for (int iter = 0; iter < 50; ++iter) {
    Checker cs;
    std::uint32_t a = static_cast<std::uint32_t>(rng()), b = static_cast<std::uint32_t>(rng()),
                  c = static_cast<std::uint32_t>(rng());
    UInt32 a_bits = UInt32::alloc(cs, a), b_bits = UInt32::constant(b), c_bits = UInt32::alloc(cs, c);
    std::size_t before = cs.num_constraints();
    UInt32 r = UInt32::xor_(cs, a_bits, b_bits);
    EXPECT_EQ(cs.num_constraints(), before);  // xor with a constant costs nothing
    r = UInt32::xor_(cs, r, c_bits);
    EXPECT_EQ(cs.num_constraints(), before + 32);
    EXPECT_TRUE(cs.is_satisfied());
    EXPECT_EQ(r.value, a ^ b ^ c);
    for (int i = 0; i < 32; ++i) EXPECT_EQ(r.bits[i].value(), (((a ^ b ^ c) >> i) & 1) != 0);
  }
}

TEST(UInt32, RotrShrAndBitOrder) {
  auto rng = test::seeded_rng("UInt32.RotrShrAndBitOrder");
  std::uint32_t num = static_cast<std::uint32_t>(rng());
  UInt32 a = UInt32::constant(num);
  for (int i = 0; i < 32; ++i) {
    UInt32 r = a.rotr(i);
    std::uint32_t expected = (num >> i) | (i == 0 ? 0 : num << (32 - i));
    EXPECT_EQ(r.value, expected);
    for (int j = 0; j < 32; ++j) EXPECT_TRUE(r.bits[j].is_constant(((expected >> j) & 1) != 0));
    UInt32 s = a.shr(i);
    EXPECT_EQ(s.value, num >> i);
    for (int j = 0; j < 32; ++j) EXPECT_TRUE(s.bits[j].is_constant(((num >> i >> j) & 1) != 0));
  }
  std::vector<Boolean> be;
  a.append_bits_be(be);
  UInt32 back = UInt32::from_bits_be(be);
  EXPECT_EQ(back.value, num);
  EXPECT_TRUE(be[0].is_constant((num >> 31) != 0));
}

TEST(UInt32, AddmanyConstantsFoldToConstant) {
  // bellpepper test_uint32_addmany_constants.
  auto rng = test::seeded_rng("UInt32.AddmanyConstantsFoldToConstant");
  Counter cs;
  for (int iter = 0; iter < 100; ++iter) {
    std::uint32_t a = static_cast<std::uint32_t>(rng()), b = static_cast<std::uint32_t>(rng()),
                  c = static_cast<std::uint32_t>(rng());
    UInt32 x = UInt32::constant(a), y = UInt32::constant(b), z = UInt32::constant(c);
    UInt32 r;
    {
      MultiEq<Counter> meq(cs);
      r = UInt32::addmany(meq, {&x, &y, &z});
    }
    EXPECT_EQ(r.value, a + b + c);
    EXPECT_TRUE(r.is_all_constant());
  }
  EXPECT_EQ(cs.num_constraints(), 0u);
  EXPECT_EQ(cs.num_aux(), 0u);
}

TEST(UInt32, AddmanyAllocatedWithCorruptedResultBit) {
  // bellpepper test_uint32_addmany: (a ^ b) + c + d with b, c constant; flipping result bit 0 breaks it.
  auto rng = test::seeded_rng("UInt32.AddmanyAllocatedWithCorruptedResultBit");
  for (int iter = 0; iter < 30; ++iter) {
    std::uint32_t a = static_cast<std::uint32_t>(rng()), b = static_cast<std::uint32_t>(rng()),
                  c = static_cast<std::uint32_t>(rng()), d = static_cast<std::uint32_t>(rng());
    std::uint32_t expected = (a ^ b) + c + d;
    for (bool corrupt : {false, true}) {
      Checker cs;
      // Aux 0..31 = a, 32..63 = d, 64.. = result bits.
      std::uint64_t wide = std::uint64_t{a ^ b} + c + d;
      if (corrupt) cs.corrupt_aux_on_alloc(64, (wide & 1) ? Fr::zero() : Fr::one());
      UInt32 a_bits, d_bits;
      {
        auto ns = cs.push_namespace("a_bit");
        a_bits = UInt32::alloc(cs, a);
      }
      UInt32 b_bits = UInt32::constant(b), c_bits = UInt32::constant(c);
      {
        auto ns = cs.push_namespace("d_bit");
        d_bits = UInt32::alloc(cs, d);
      }
      UInt32 x = UInt32::xor_(cs, a_bits, b_bits);
      UInt32 r;
      std::size_t before = cs.num_constraints();
      {
        MultiEq<Checker> meq(cs);
        auto ns = cs.push_namespace("addition");
        r = UInt32::addmany(meq, {&x, &c_bits, &d_bits});
      }
      // 3 operands: bitlen(3 * (2^32 - 1)) = 34 result bits + 1 MultiEq constraint.
      EXPECT_EQ(cs.num_constraints() - before, 35u);
      EXPECT_EQ(cs.aux().size(), 64u + 34u);
      EXPECT_EQ(r.value, expected);
      for (int i = 0; i < 32; ++i) EXPECT_EQ(r.bits[i].value(), ((expected >> i) & 1) != 0);
      if (!corrupt) {
        EXPECT_TRUE(cs.is_satisfied());
      } else {
        ASSERT_FALSE(cs.is_satisfied());
        EXPECT_EQ(cs.first_failure()->path, "multieq 0");
      }
    }
  }
}

TEST(UInt32, AddmanyResultBitWidths) {
  // bellpepper uint32.rs addmany (docs/circuit.md §8.1): n = 2 -> 33 bits, 3-4 -> 34, 5-8 -> 35, 9-10 -> 36.
  const std::size_t expected_bits[11] = {0, 0, 33, 34, 34, 35, 35, 35, 35, 36, 36};
  for (std::size_t n = 2; n <= 10; ++n) {
    Counter cs;
    std::vector<UInt32> ops;
    for (std::size_t i = 0; i < n; ++i) ops.push_back(UInt32::alloc(cs, 0));
    std::vector<const UInt32*> ptrs;
    for (const UInt32& op : ops) ptrs.push_back(&op);
    std::size_t before = cs.num_constraints();
    {
      MultiEq<Counter> meq(cs);
      UInt32::addmany(meq, std::span<const UInt32* const>(ptrs));
    }
    EXPECT_EQ(cs.num_constraints() - before, expected_bits[n] + 1) << n;
  }
}

TEST(MultiEq, PacksBelowCapacity) {
  // 7 additions of 35 bits = 245 bits fit in one constraint; the 8th (280 > 253) starts a second.
  Counter cs;
  std::vector<UInt32> ops;
  for (int i = 0; i < 6; ++i) ops.push_back(UInt32::alloc(cs, 0));
  std::size_t before = cs.num_constraints();
  {
    MultiEq<Counter> meq(cs);
    const UInt32* six[6] = {&ops[0], &ops[1], &ops[2], &ops[3], &ops[4], &ops[5]};
    for (int k = 0; k < 8; ++k) UInt32::addmany(meq, std::span<const UInt32* const>(six, 6));
    EXPECT_EQ(cs.num_constraints() - before, 8u * 35 + 1);  // the first batch was emitted
  }
  EXPECT_EQ(cs.num_constraints() - before, 8u * 35 + 2);
}

TEST(UInt32, Sha256ChMajMatchNative) {
  // bellpepper test_uint32_sha256_maj / _ch: a, c allocated, b constant.
  auto rng = test::seeded_rng("UInt32.Sha256ChMajMatchNative");
  for (int iter = 0; iter < 50; ++iter) {
    Checker cs;
    std::uint32_t a = static_cast<std::uint32_t>(rng()), b = static_cast<std::uint32_t>(rng()),
                  c = static_cast<std::uint32_t>(rng());
    UInt32 x = UInt32::alloc(cs, a), y = UInt32::constant(b), z = UInt32::alloc(cs, c);
    UInt32 maj = UInt32::sha256_maj(cs, x, y, z);
    UInt32 ch = UInt32::sha256_ch(cs, x, y, z);
    EXPECT_TRUE(cs.is_satisfied());
    std::uint32_t expected_maj = (a & b) ^ (a & c) ^ (b & c), expected_ch = (a & b) ^ (~a & c);
    EXPECT_EQ(maj.value, expected_maj);
    EXPECT_EQ(ch.value, expected_ch);
    for (int i = 0; i < 32; ++i) {
      EXPECT_EQ(maj.bits[i].value(), ((expected_maj >> i) & 1) != 0);
      EXPECT_EQ(ch.bits[i].value(), ((expected_ch >> i) & 1) != 0);
    }
    // With b constant every bit folds to a single AND: 32 + 32 constraints after the 64 allocations.
    EXPECT_EQ(cs.num_constraints(), 64u + 64u);
  }
}

// --- AllocatedNum ---------------------------------------------------------------------------------------

TEST(AllocatedNum, ToBitsLeCostsAndValues) {
  // bellpepper-core num.rs to_bits_le (docs/circuit.md §4): 255 booleanity constraints + 1 unpacking constraint; bits are the canonical LE bits.
  auto rng = test::seeded_rng("AllocatedNum.ToBitsLeCostsAndValues");
  for (int iter = 0; iter < 10; ++iter) {
    Fr r = test::random_field<Fr>(rng);
    for (bool strict : {false, true}) {
      Checker cs;
      AllocatedNum n = AllocatedNum::alloc_value(cs, r);
      std::vector<Boolean> bits = strict ? n.to_bits_le_strict(cs) : n.to_bits_le(cs);
      EXPECT_TRUE(cs.is_satisfied());
      ASSERT_EQ(bits.size(), 255u);
      auto canonical = r.to_canonical();
      for (std::size_t i = 0; i < 255; ++i)
        EXPECT_EQ(bits[i].value(), ((canonical[i / 64] >> (i % 64)) & 1) != 0);
      if (!strict) {
        EXPECT_EQ(cs.num_constraints(), 256u);
      }
    }
  }
  // A corrupted num fails the unpacking constraint (bellpepper test_into_bits: cs.set("num", random)).
  Checker cs;
  cs.corrupt_aux_on_alloc(0, Fr::from_u64(12345));
  AllocatedNum n = AllocatedNum::alloc_value(cs, Fr::from_u64(999));
  n.to_bits_le(cs);
  ASSERT_FALSE(cs.is_satisfied());
  EXPECT_EQ(cs.first_failure()->path, "unpacking constraint");
}

TEST(AllocatedNum, ToBitsLeStrictRejectsTheModulus) {
  // bellpepper test_into_bits_strict: for -1, setting "bit 254" (the least significant bit, allocated
  // last) to 1 encodes r itself, which the conditional boolean constraint rejects.
  Checker ok;
  AllocatedNum n = AllocatedNum::alloc_value(ok, -Fr::one());
  n.to_bits_le_strict(ok);
  EXPECT_TRUE(ok.is_satisfied());

  Counter counter;
  AllocatedNum m = AllocatedNum::alloc_value(counter, Fr::zero());
  m.to_bits_le_strict(counter);
  // Find the aux index of "bit 254": the last alloc before the final unpacking constraint.
  std::size_t last_bit = counter.num_aux() - 1;
  Checker bad;
  bad.corrupt_aux_on_alloc(last_bit, Fr::one());
  AllocatedNum k = AllocatedNum::alloc_value(bad, -Fr::one());
  k.to_bits_le_strict(bad);
  ASSERT_FALSE(bad.is_satisfied());
  EXPECT_EQ(bad.first_failure()->path, "bit 254/boolean constraint");
}

TEST(AllocatedNum, ArithmeticAndInputize) {
  auto rng = test::seeded_rng("AllocatedNum.ArithmeticAndInputize");
  Fr x = test::random_field<Fr>(rng), y = test::random_field<Fr>(rng);
  Checker cs;
  AllocatedNum a = AllocatedNum::alloc_value(cs, x), b = AllocatedNum::alloc_value(cs, y);
  EXPECT_EQ(a.add(cs, b).value(), x + y);
  EXPECT_EQ(a.mul(cs, b).value(), x * y);
  EXPECT_EQ(a.square(cs).value(), x * x);
  EXPECT_EQ(add(cs, a, b).value(), x + y);
  EXPECT_EQ(sub(cs, a, b).value(), x - y);
  a.assert_nonzero(cs);
  a.inputize(cs);
  EXPECT_EQ(cs.inputs().back(), x);
  enforce_equal(cs, "equal", a, a);
  for (bool swap : {false, true}) {
    auto [c, d] = AllocatedNum::conditionally_reverse(cs, a, b, Boolean::constant(swap));
    EXPECT_EQ(c.value(), swap ? y : x);
    EXPECT_EQ(d.value(), swap ? x : y);
    AllocatedBit cond = AllocatedBit::alloc(cs, swap);
    auto [e, f] = AllocatedNum::conditionally_reverse(cs, a, b, Boolean(cond));
    EXPECT_EQ(e.value(), swap ? y : x);
    EXPECT_EQ(f.value(), swap ? x : y);
  }
  EXPECT_TRUE(cs.is_satisfied());

  // bellpepper test_num_addition: (r - 1) + 1 = 0; setting the sum to 1 breaks it.
  Checker wrong;
  wrong.corrupt_aux_on_alloc(2, Fr::one());
  AllocatedNum p = AllocatedNum::alloc_value(wrong, -Fr::one()),
               q = AllocatedNum::alloc_value(wrong, Fr::one());
  EXPECT_EQ(p.add(wrong, q).value(), Fr::zero());
  ASSERT_FALSE(wrong.is_satisfied());
  EXPECT_EQ(wrong.first_failure()->path, "addition constraint");

  // assert_nonzero of zero has no witness (bellpepper: DivisionByZero).
  Checker zero;
  AllocatedNum z = AllocatedNum::alloc_value(zero, Fr::zero());
  EXPECT_THROW(z.assert_nonzero(zero), r1cs::ConstraintSystemError);
}

TEST(AllocatedNum, InputizeShape) {
  // bellpepper-core inputize: A = input, B = ONE, C = the variable.
  r1cs::Recorder rec;
  AllocatedNum n = AllocatedNum::alloc_value(rec, Fr::zero());
  n.inputize(rec);
  r1cs::R1cs r = rec.finish();
  ASSERT_EQ(r.num_constraints(), 1u);
  EXPECT_EQ(r.num_inputs, 2u);
  EXPECT_EQ(r.a.columns, (std::vector<std::uint32_t>{1}));
  EXPECT_EQ(r.b.columns, (std::vector<std::uint32_t>{0}));
  EXPECT_EQ(r.c.columns, (std::vector<std::uint32_t>{2}));
}

// --- multipack ------------------------------------------------------------------------------------------

TEST(Multipack, PackIntoInputsMatchesComputeMultipacking) {
  // bellpepper test_multipacking (every length 0..1500 there; a spread of lengths here).
  auto rng = test::seeded_rng("Multipack.PackIntoInputsMatchesComputeMultipacking");
  for (std::size_t num_bits : {0, 1, 7, 253, 254, 255, 508, 509, 777, 1499}) {
    Checker cs;
    std::vector<bool> bits;
    std::vector<Boolean> circuit_bits;
    for (std::size_t i = 0; i < num_bits; ++i) {
      bits.push_back(rng() & 1);
      circuit_bits.push_back(AllocatedBit::alloc(cs, bits.back()));
    }
    pack_into_inputs(cs, std::span<const Boolean>(circuit_bits));
    EXPECT_TRUE(cs.is_satisfied());
    std::vector<Fr> expected = compute_multipacking(bits);
    std::size_t chunks = (num_bits + 253) / 254;
    ASSERT_EQ(expected.size(), chunks);
    ASSERT_EQ(cs.inputs().size(), 1 + chunks);
    for (std::size_t i = 0; i < chunks; ++i) EXPECT_EQ(cs.inputs()[1 + i], expected[i]);
    EXPECT_EQ(cs.num_constraints(), num_bits + chunks);
  }
}

TEST(Multipack, BytesToBitsAndPackBits) {
  const std::uint8_t bytes[2] = {0x81, 0x02};
  EXPECT_EQ(bytes_to_bits(bytes), (std::vector<bool>{1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0}));
  EXPECT_EQ(bytes_to_bits_le(bytes), (std::vector<bool>{1, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0}));
  // compute_multipacking of the LE bits of 0x0281 is 0x0281.
  EXPECT_EQ(compute_multipacking(bytes_to_bits_le(bytes)), (std::vector<Fr>{Fr::from_u64(0x0281)}));

  // pack_bits keeps only the first 254 bits (Fr::CAPACITY): 256 ones pack to 2^254 - 1.
  Checker cs;
  std::vector<Boolean> ones(256, Boolean::constant(true));
  AllocatedNum packed = pack_bits(cs, std::span<const Boolean>(ones));
  EXPECT_EQ(packed.value() + Fr::one(), r1cs::detail::pow2(254));
  EXPECT_EQ(cs.num_constraints(), 1u);
  EXPECT_TRUE(cs.is_satisfied());
}

TEST(Multipack, ReverseBitNumberingAndUInt64) {
  std::vector<Boolean> bits;
  for (int i = 0; i < 10; ++i) bits.push_back(Boolean::constant(i == 0 || i == 9));
  std::vector<Boolean> r = reverse_bit_numbering(bits);
  ASSERT_EQ(r.size(), 16u);  // padded to whole bytes with false
  EXPECT_TRUE(r[7].is_constant(true));
  EXPECT_TRUE(r[14].is_constant(true));
  for (int i : {0, 1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12, 13, 15}) EXPECT_TRUE(r[i].is_constant(false));

  // rust-fil-proofs UInt64::alloc + pack_into_input: 64 bits + 1 packing constraint; input = the value.
  auto rng = test::seeded_rng("Multipack.ReverseBitNumberingAndUInt64");
  std::uint64_t v = rng();
  Checker cs;
  UInt64 u = UInt64::alloc(cs, v);
  u.pack_into_input(cs);
  EXPECT_TRUE(cs.is_satisfied());
  EXPECT_EQ(cs.num_constraints(), 65u);
  ASSERT_EQ(cs.inputs().size(), 2u);
  EXPECT_EQ(cs.inputs()[1], Fr::from_canonical({v, 0, 0, 0}));
  std::vector<Boolean> be = u.to_bits_be();
  EXPECT_EQ(be[0].value(), (v >> 63) != 0);
}

}  // namespace
}  // namespace cuzk::gadgets
