// AllocatedNum and Num: bellpepper-core `gadgets/num.rs`; plus rust-fil-proofs'
// `storage-proofs-core/src/gadgets/constraint.rs` helpers (equal, sum, add, sub, difference).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "prover/gadgets/boolean.hpp"

namespace cuzk::gadgets {

// A field element held by one variable (aux or input) and its value (zero when CS has no values).
class AllocatedNum {
 public:
  AllocatedNum() = default;
  AllocatedNum(Variable var, const Fr& value) : var_(var), value_(value) {}

  Variable variable() const { return var_; }
  const Fr& value() const { return value_; }

  // value_fn: () -> Fr, called only when CS::kHasValues. Annotation "num".
  template <class CS, class ValueFn>
  static AllocatedNum alloc(CS& cs, ValueFn&& value_fn) {
    Fr value = Fr::zero();
    Variable v = cs.alloc("num", [&] {
      value = value_fn();
      return value;
    });
    return {v, value};
  }
  template <class CS>
  static AllocatedNum alloc_value(CS& cs, const Fr& value) {
    return alloc(cs, [&] { return value; });
  }
  // An input variable. Annotation "input num".
  template <class CS, class ValueFn>
  static AllocatedNum alloc_input(CS& cs, ValueFn&& value_fn) {
    Fr value = Fr::zero();
    Variable v = cs.alloc_input("input num", [&] {
      value = value_fn();
      return value;
    });
    return {v, value};
  }

  // inputize: alloc_input x', then x' * ONE = x.
  template <class CS>
  void inputize(CS& cs) const {
    using LC = typename CS::LC;
    Variable input = cs.alloc_input("input variable", [&] { return value_; });
    cs.enforce("enforce input is correct", LC(input), LC(Variable::one()), LC(var_));
  }

  // to_bits_le: 255 AllocatedBits (namespaces "bit i") then the unpacking constraint
  // 0 * 0 = Σ 2^i b_i - x. Non-strict: the bits may encode x + r.
  template <class CS>
  std::vector<Boolean> to_bits_le(CS& cs) const {
    using LC = typename CS::LC;
    AllocatedBit bits[Fr::kBits];
    field_into_allocated_bits_le(cs, value_, bits);
    LC c;
    if constexpr (CS::kRecordsConstraints) {
      c.reserve(Fr::kBits + 1);
      for (std::size_t i = 0; i < Fr::kBits; ++i) c.add(bits[i].variable(), r1cs::detail::pow2(i));
      c.sub(var_);
    }
    cs.enforce("unpacking constraint", LC(), LC(), c);
    return std::vector<Boolean>(bits, bits + Fr::kBits);
  }

  // to_bits_le_strict: the decomposition is forced to be the canonical one (< r), bellpepper's
  // run-of-ones construction over the bits of r - 1.
  template <class CS>
  std::vector<Boolean> to_bits_le_strict(CS& cs) const;

  // self + other: alloc "sum num", (a + b) * ONE = sum.
  template <class CS>
  AllocatedNum add(CS& cs, const AllocatedNum& other) const {
    using LC = typename CS::LC;
    AllocatedNum r = alloc_named(cs, "sum num", [&] { return value_ + other.value_; });
    cs.enforce("addition constraint", LC(var_).add(other.var_), LC(Variable::one()), LC(r.var_));
    return r;
  }
  // self * other: alloc "product num", a * b = ab.
  template <class CS>
  AllocatedNum mul(CS& cs, const AllocatedNum& other) const {
    using LC = typename CS::LC;
    AllocatedNum r = alloc_named(cs, "product num", [&] { return value_ * other.value_; });
    cs.enforce("multiplication constraint", LC(var_), LC(other.var_), LC(r.var_));
    return r;
  }
  // self^2: alloc "squared num", a * a = aa.
  template <class CS>
  AllocatedNum square(CS& cs) const {
    using LC = typename CS::LC;
    AllocatedNum r = alloc_named(cs, "squared num", [&] { return value_.square(); });
    cs.enforce("squaring constraint", LC(var_), LC(var_), LC(r.var_));
    return r;
  }
  // assert_nonzero: alloc the inverse, a * inv = ONE. Throws ConstraintSystemError for a zero value
  // when values are present (bellpepper's DivisionByZero).
  template <class CS>
  void assert_nonzero(CS& cs) const {
    using LC = typename CS::LC;
    Variable inv = cs.alloc("ephemeral inverse", [&] {
      if (value_.is_zero()) throw r1cs::ConstraintSystemError("assert_nonzero: value is zero");
      return value_.inverse();
    });
    cs.enforce("nonzero assertion constraint", LC(var_), LC(inv), LC(Variable::one()));
  }

  // (b, a) if condition else (a, b): alloc c; (a - b) * cond = a - c; alloc d; (b - a) * cond = b - d.
  template <class CS>
  static std::pair<AllocatedNum, AllocatedNum> conditionally_reverse(CS& cs, const AllocatedNum& a,
                                                                     const AllocatedNum& b,
                                                                     const Boolean& condition) {
    using LC = typename CS::LC;
    bool swap = condition.value();
    AllocatedNum c;
    {
      auto ns = cs.push_namespace("conditional reversal result 1");
      c = alloc(cs, [&] { return swap ? b.value_ : a.value_; });
    }
    cs.enforce("first conditional reversal", LC(a.var_).sub(b.var_), condition.lc<LC>(),
               LC(a.var_).sub(c.var_));
    AllocatedNum d;
    {
      auto ns = cs.push_namespace("conditional reversal result 2");
      d = alloc(cs, [&] { return swap ? a.value_ : b.value_; });
    }
    cs.enforce("second conditional reversal", LC(b.var_).sub(a.var_), condition.lc<LC>(),
               LC(b.var_).sub(d.var_));
    return {c, d};
  }

 private:
  template <class CS, class ValueFn>
  static AllocatedNum alloc_named(CS& cs, const char* name, ValueFn&& value_fn) {
    Fr value = Fr::zero();
    Variable v = cs.alloc(name, [&] {
      value = value_fn();
      return value;
    });
    return {v, value};
  }

  Variable var_;
  Fr value_ = Fr::zero();
};

// A linear combination with its value (bellpepper-core Num), for packing bits.
template <class CS>
class Num {
 public:
  using LC = typename CS::LC;

  // this + coeff * bit.
  void add_bool_with_coeff(const Boolean& bit, const Fr& coeff) {
    if constexpr (CS::kHasValues) {
      if (bit.value()) value_ += coeff;
    }
    bit.add_to(lc_, coeff);
  }
  void add(const Num& other) {
    value_ += other.value_;
    lc_.add(other.lc_);
  }
  const LC& lc() const { return lc_; }
  const Fr& value() const { return value_; }

 private:
  LC lc_;
  Fr value_ = Fr::zero();
};

// rust-fil-proofs constraint::equal: a * ONE = b.
template <class CS, class Name>
void enforce_equal(CS& cs, const Name& annotation, const AllocatedNum& a, const AllocatedNum& b) {
  using LC = typename CS::LC;
  cs.enforce(annotation, LC(a.variable()), LC(Variable::one()), LC(b.variable()));
}

// rust-fil-proofs constraint::sum: (a + b) * ONE = sum.
template <class CS, class Name>
void enforce_sum(CS& cs, const Name& annotation, const AllocatedNum& a, const AllocatedNum& b,
                 const AllocatedNum& sum) {
  using LC = typename CS::LC;
  cs.enforce(annotation, LC(a.variable()).add(b.variable()), LC(Variable::one()), LC(sum.variable()));
}

// rust-fil-proofs constraint::difference: (difference + b) * ONE = a.
template <class CS, class Name>
void enforce_difference(CS& cs, const Name& annotation, const AllocatedNum& a, const AllocatedNum& b,
                        const AllocatedNum& difference) {
  using LC = typename CS::LC;
  cs.enforce(annotation, LC(difference.variable()).add(b.variable()), LC(Variable::one()), LC(a.variable()));
}

// rust-fil-proofs constraint::add: alloc a + b (namespace "add_num"), then enforce_sum "sum constraint".
template <class CS>
AllocatedNum add(CS& cs, const AllocatedNum& a, const AllocatedNum& b) {
  AllocatedNum res;
  {
    auto ns = cs.push_namespace("add_num");
    res = AllocatedNum::alloc(cs, [&] { return a.value() + b.value(); });
  }
  enforce_sum(cs, "sum constraint", a, b, res);
  return res;
}

// rust-fil-proofs constraint::sub: alloc a - b (namespace "sub_num"), then enforce_difference.
template <class CS>
AllocatedNum sub(CS& cs, const AllocatedNum& a, const AllocatedNum& b) {
  AllocatedNum res;
  {
    auto ns = cs.push_namespace("sub_num");
    res = AllocatedNum::alloc(cs, [&] { return a.value() - b.value(); });
  }
  enforce_difference(cs, "subtraction constraint", a, b, res);
  return res;
}

// ---------------------------------------------------------------------------------------------------------

template <class CS>
std::vector<Boolean> AllocatedNum::to_bits_le_strict(CS& cs) const {
  using LC = typename CS::LC;
  // r - 1, most significant bit first, starting at its top set bit (bit 254 for BLS12-381 Fr).
  const auto r_minus_one = (-Fr::one()).to_canonical();
  typename Fr::Repr a{};
  if constexpr (CS::kHasValues) a = value_.to_canonical();
  auto bit_of = [](const typename Fr::Repr& x, std::size_t i) { return ((x[i / 64] >> (i % 64)) & 1) != 0; };

  // k-ary AND by a left fold of AllocatedBit::and_ (namespaces "and i").
  auto kary_and = [&](const std::vector<AllocatedBit>& v) {
    AllocatedBit cur = v[0];
    for (std::size_t i = 1; i < v.size(); ++i) {
      auto ns = cs.push_namespace([&] { return "and " + std::to_string(i); });
      cur = AllocatedBit::and_(cs, cur, v[i]);
    }
    return cur;
  };

  std::vector<AllocatedBit> result;  // big-endian
  std::vector<AllocatedBit> current_run;
  bool have_last_run = false;
  AllocatedBit last_run;
  bool found_one = false;
  std::size_t i = 0;
  for (std::size_t pos = 4 * 64; pos-- > 0;) {
    bool b = bit_of(r_minus_one, pos);
    bool a_bit = bit_of(a, pos);
    found_one = found_one || b;
    if (!found_one) continue;
    if (b) {
      AllocatedBit bit;
      {
        auto ns = cs.push_namespace([&] { return "bit " + std::to_string(i); });
        bit = AllocatedBit::alloc(cs, a_bit);
      }
      current_run.push_back(bit);
      result.push_back(bit);
    } else {
      if (!current_run.empty()) {
        if (have_last_run) current_run.push_back(last_run);
        auto ns = cs.push_namespace([&] { return "run ending at " + std::to_string(i); });
        last_run = kary_and(current_run);
        have_last_run = true;
        current_run.clear();
      }
      auto ns = cs.push_namespace([&] { return "bit " + std::to_string(i); });
      result.push_back(AllocatedBit::alloc_conditionally(cs, a_bit, last_run));
    }
    ++i;
  }
  LC c;
  if constexpr (CS::kRecordsConstraints) {
    std::size_t k = 0;
    for (auto it = result.rbegin(); it != result.rend(); ++it) c.add(it->variable(), r1cs::detail::pow2(k++));
    c.sub(var_);
  }
  cs.enforce("unpacking constraint", LC(), LC(), c);
  std::vector<Boolean> le;
  le.reserve(result.size());
  for (auto it = result.rbegin(); it != result.rend(); ++it) le.push_back(*it);
  return le;
}

}  // namespace cuzk::gadgets
