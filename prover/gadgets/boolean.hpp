// AllocatedBit and Boolean: bellpepper-core `gadgets/boolean.rs` (docs/circuit.md §8.1), with its constant folding.
//
// Every operation here allocates and constrains exactly what bellpepper does, in the same order, and
// folds constants the same way (an operation whose result is decided by constant operands adds nothing).
// Values are carried as plain bools; when the constraint system has no values (CS::kHasValues false)
// they are meaningless and never influence which constraints are emitted.
#pragma once

#include <cstdint>
#include <string>

#include "prover/r1cs/constraint_system.hpp"

namespace cuzk::gadgets {

using algebra::Fr;
using r1cs::Variable;

namespace detail {
inline Fr bool_to_fr(bool b) {
  return b ? Fr::one() : Fr::zero();
}
}  // namespace detail

// A variable constrained (where bellpepper constrains it) to be 0 or 1.
class AllocatedBit {
 public:
  constexpr AllocatedBit() = default;
  constexpr AllocatedBit(Variable var, bool value) : var_(var), value_(value) {}

  constexpr Variable variable() const { return var_; }
  constexpr bool value() const { return value_; }

  // alloc: (ONE - v) * v = 0.
  template <class CS>
  static AllocatedBit alloc(CS& cs, bool value) {
    using LC = typename CS::LC;
    Variable v = cs.alloc("boolean", [&] { return detail::bool_to_fr(value); });
    cs.enforce("boolean constraint", LC(Variable::one()).sub(v), LC(v), LC());
    return {v, value};
  }

  // alloc_conditionally: (ONE - must_be_false - v) * v = 0, so v = 0 when must_be_false is 1.
  template <class CS>
  static AllocatedBit alloc_conditionally(CS& cs, bool value, const AllocatedBit& must_be_false) {
    using LC = typename CS::LC;
    Variable v = cs.alloc("boolean", [&] { return detail::bool_to_fr(value); });
    cs.enforce("boolean constraint", LC(Variable::one()).sub(must_be_false.var_).sub(v), LC(v), LC());
    return {v, value};
  }

  // xor: (2a) * b = a + b - c.
  template <class CS>
  static AllocatedBit xor_(CS& cs, const AllocatedBit& a, const AllocatedBit& b) {
    using LC = typename CS::LC;
    bool value = a.value_ != b.value_;
    Variable c = cs.alloc("xor result", [&] { return detail::bool_to_fr(value); });
    cs.enforce("xor constraint", LC(a.var_).add(a.var_), LC(b.var_), LC(a.var_).add(b.var_).sub(c));
    return {c, value};
  }

  // and: a * b = c.
  template <class CS>
  static AllocatedBit and_(CS& cs, const AllocatedBit& a, const AllocatedBit& b) {
    using LC = typename CS::LC;
    bool value = a.value_ && b.value_;
    Variable c = cs.alloc("and result", [&] { return detail::bool_to_fr(value); });
    cs.enforce("and constraint", LC(a.var_), LC(b.var_), LC(c));
    return {c, value};
  }

  // and_not (a AND NOT b): a * (ONE - b) = c.
  template <class CS>
  static AllocatedBit and_not(CS& cs, const AllocatedBit& a, const AllocatedBit& b) {
    using LC = typename CS::LC;
    bool value = a.value_ && !b.value_;
    Variable c = cs.alloc("and not result", [&] { return detail::bool_to_fr(value); });
    cs.enforce("and not constraint", LC(a.var_), LC(Variable::one()).sub(b.var_), LC(c));
    return {c, value};
  }

  // nor (NOT a AND NOT b): (ONE - a) * (ONE - b) = c.
  template <class CS>
  static AllocatedBit nor(CS& cs, const AllocatedBit& a, const AllocatedBit& b) {
    using LC = typename CS::LC;
    bool value = !a.value_ && !b.value_;
    Variable c = cs.alloc("nor result", [&] { return detail::bool_to_fr(value); });
    cs.enforce("nor constraint", LC(Variable::one()).sub(a.var_), LC(Variable::one()).sub(b.var_), LC(c));
    return {c, value};
  }

 private:
  Variable var_;
  bool value_ = false;
};

// A constant, an allocated bit (Is) or the negation of one (Not).
//
// Packed in one 64-bit word (variable | kind << 32 | bit value << 40) and always written whole: copying
// Booleans right after building them field by field caused store-forwarding stalls on the witness path.
class Boolean {
 public:
  enum class Kind : std::uint8_t { kConstant = 0, kIs = 1, kNot = 2 };

  constexpr Boolean() = default;              // Constant(false)
  constexpr Boolean(const AllocatedBit& bit)  // NOLINT(google-explicit-constructor): bellpepper's From
      : packed_(pack(bit.variable(), Kind::kIs, bit.value())) {}
  static constexpr Boolean constant(bool b) { return Boolean(pack(Variable::one(), Kind::kConstant, b)); }
  static constexpr Boolean is(const AllocatedBit& bit) { return Boolean(bit); }
  static constexpr Boolean negated(const AllocatedBit& bit) { return Boolean(bit).not_(); }

  constexpr Kind kind() const { return static_cast<Kind>((packed_ >> 32) & 0xff); }
  constexpr bool is_constant() const { return kind() == Kind::kConstant; }
  constexpr bool is_constant(bool b) const { return (packed_ >> 32) == (std::uint64_t{b} << 8); }
  // The value of this Boolean (negated for Not).
  constexpr bool value() const { return bit_value() != (kind() == Kind::kNot); }
  // The underlying allocated bit (Is or Not only).
  constexpr AllocatedBit bit() const { return {variable(), bit_value()}; }
  constexpr Variable variable() const { return Variable::from_raw(static_cast<std::uint32_t>(packed_)); }

  constexpr Boolean not_() const {
    // Constant: flip the value; Is <-> Not: kind 1 <-> 2.
    return Boolean(is_constant() ? packed_ ^ (std::uint64_t{1} << 40) : packed_ ^ (std::uint64_t{3} << 32));
  }

  // Appends coeff * this to lc: Constant(true) -> coeff*ONE, Constant(false) -> nothing,
  // Is(v) -> coeff*v, Not(v) -> coeff*ONE - coeff*v (the terms of bellpepper's Boolean::lc).
  template <class LC>
  void add_to(LC& lc, const Fr& coeff) const {
    switch (kind()) {
      case Kind::kConstant:
        if (bit_value()) lc.add(Variable::one(), coeff);
        break;
      case Kind::kIs:
        lc.add(variable(), coeff);
        break;
      case Kind::kNot:
        lc.add(Variable::one(), coeff);
        lc.sub(variable(), coeff);
        break;
    }
  }
  template <class LC>
  LC lc(const Fr& coeff) const {
    LC lc;
    add_to(lc, coeff);
    return lc;
  }
  template <class LC>
  LC lc() const {
    return lc<LC>(r1cs::detail::fr_one());
  }

  // Boolean::xor.
  template <class CS>
  static Boolean xor_(CS& cs, const Boolean& a, const Boolean& b) {
    if (a.is_constant(false)) return b;
    if (b.is_constant(false)) return a;
    if (a.is_constant(true)) return b.not_();
    if (b.is_constant(true)) return a.not_();
    if (a.kind() == b.kind()) return AllocatedBit::xor_(cs, a.bit(), b.bit());
    // One Is, one Not: NOT(is XOR bit-of-not); the Is operand is always the first argument.
    const Boolean& is_operand = a.kind() == Kind::kIs ? a : b;
    const Boolean& not_operand = a.kind() == Kind::kIs ? b : a;
    return Boolean(AllocatedBit::xor_(cs, is_operand.bit(), not_operand.bit())).not_();
  }

  // Boolean::and.
  template <class CS>
  static Boolean and_(CS& cs, const Boolean& a, const Boolean& b) {
    if (a.is_constant(false) || b.is_constant(false)) return constant(false);
    if (a.is_constant(true)) return b;
    if (b.is_constant(true)) return a;
    if (a.kind() == Kind::kIs && b.kind() == Kind::kNot) return AllocatedBit::and_not(cs, a.bit(), b.bit());
    if (a.kind() == Kind::kNot && b.kind() == Kind::kIs) return AllocatedBit::and_not(cs, b.bit(), a.bit());
    if (a.kind() == Kind::kNot) return AllocatedBit::nor(cs, a.bit(), b.bit());
    return AllocatedBit::and_(cs, a.bit(), b.bit());
  }

  // Boolean::or = NOT(AND(NOT a, NOT b)), in namespace "not and (not a) (not b)".
  template <class CS>
  static Boolean or_(CS& cs, const Boolean& a, const Boolean& b) {
    auto ns = cs.push_namespace("not and (not a) (not b)");
    return and_(cs, a.not_(), b.not_()).not_();
  }

  // Boolean::enforce_equal. Two different constants cannot be made equal: throws
  // r1cs::ConstraintSystemError (bellpepper's SynthesisError::Unsatisfiable).
  template <class CS>
  static void enforce_equal(CS& cs, const Boolean& a, const Boolean& b) {
    using LC = typename CS::LC;
    if (a.is_constant() && b.is_constant()) {
      if (a.bit_value() != b.bit_value())
        throw r1cs::ConstraintSystemError("enforce_equal: unequal constants");
      return;
    }
    if (a.is_constant(true) || b.is_constant(true)) {
      const Boolean& x = a.is_constant(true) ? b : a;
      LC c(Variable::one());
      c.sub(x.lc<LC>());
      cs.enforce("enforce equal to one", LC(), LC(), c);
      return;
    }
    if (a.is_constant(false) || b.is_constant(false)) {
      const Boolean& x = a.is_constant(false) ? b : a;
      cs.enforce("enforce equal to zero", LC(), LC(), x.lc<LC>());
      return;
    }
    LC c = a.lc<LC>();
    c.sub(b.lc<LC>());
    cs.enforce("enforce equal", LC(), LC(), c);
  }

  // Boolean::sha256_ch = (a AND b) XOR (NOT a AND c).
  template <class CS>
  static Boolean sha256_ch(CS& cs, const Boolean& a, const Boolean& b, const Boolean& c) {
    using LC = typename CS::LC;
    bool value = (a.value() && b.value()) != (!a.value() && c.value());
    if (a.is_constant() && b.is_constant() && c.is_constant()) return constant(value);
    if (a.is_constant(false)) return c;
    if (b.is_constant(false)) return and_(cs, a.not_(), c);
    if (c.is_constant(false)) return and_(cs, a, b);
    if (c.is_constant(true)) return and_(cs, a, b.not_()).not_();
    if (b.is_constant(true)) return and_(cs, a.not_(), c.not_()).not_();
    // Otherwise (a = true included): alloc ch, then a * (b - c) = ch - c, written (b - c, a, ch - c).
    Variable ch = cs.alloc("ch", [&] { return detail::bool_to_fr(value); });
    LC lhs = b.lc<LC>();
    lhs.sub(c.lc<LC>());
    LC rhs(ch);
    rhs.sub(c.lc<LC>());
    cs.enforce("ch computation", lhs, a.lc<LC>(), rhs);
    return AllocatedBit(ch, value);
  }

  // Boolean::sha256_maj = (a AND b) XOR (a AND c) XOR (b AND c).
  template <class CS>
  static Boolean sha256_maj(CS& cs, const Boolean& a, const Boolean& b, const Boolean& c) {
    using LC = typename CS::LC;
    bool value = ((a.value() && b.value()) != (a.value() && c.value())) != (b.value() && c.value());
    if (a.is_constant() && b.is_constant() && c.is_constant()) return constant(value);
    if (a.is_constant(false)) return and_(cs, b, c);
    if (b.is_constant(false)) return and_(cs, a, c);
    if (c.is_constant(false)) return and_(cs, a, b);
    if (c.is_constant(true)) return and_(cs, a.not_(), b.not_()).not_();
    if (b.is_constant(true)) return and_(cs, a.not_(), c.not_()).not_();
    if (a.is_constant(true)) return and_(cs, b.not_(), c.not_()).not_();
    // alloc maj; bc = b AND c; then (2bc - b - c) * a = bc - maj.
    Variable maj = cs.alloc("maj", [&] { return detail::bool_to_fr(value); });
    Boolean bc;
    {
      auto ns = cs.push_namespace("b and c");
      bc = and_(cs, b, c);
    }
    LC lhs = bc.lc<LC>();
    lhs.add(bc.lc<LC>());
    lhs.sub(b.lc<LC>());
    lhs.sub(c.lc<LC>());
    LC rhs = bc.lc<LC>();
    rhs.sub(maj);
    cs.enforce("maj computation", lhs, a.lc<LC>(), rhs);
    return AllocatedBit(maj, value);
  }

 private:
  constexpr explicit Boolean(std::uint64_t packed) : packed_(packed) {}
  static constexpr std::uint64_t pack(Variable v, Kind kind, bool bit_value) {
    return std::uint64_t{v.raw()} | std::uint64_t{static_cast<std::uint8_t>(kind)} << 32 |
           std::uint64_t{bit_value} << 40;
  }
  constexpr bool bit_value() const { return ((packed_ >> 40) & 1) != 0; }

  std::uint64_t packed_ = 0;  // the constant, or the underlying allocated bit's value, at bit 40
};

// field_into_allocated_bits_le: Fr::NUM_BITS (255) AllocatedBits of the canonical value, LSB first, in
// namespaces "bit i".
template <class CS>
void field_into_allocated_bits_le(CS& cs, const Fr& value, AllocatedBit* out /* 255 */) {
  constexpr std::size_t kNumBits = Fr::kBits;  // 255 = Fr::NUM_BITS
  typename Fr::Repr repr{};
  if constexpr (CS::kHasValues) repr = value.to_canonical();
  for (std::size_t i = 0; i < kNumBits; ++i) {
    auto ns = cs.push_namespace([&] { return "bit " + std::to_string(i); });
    out[i] = AllocatedBit::alloc(cs, ((repr[i / 64] >> (i % 64)) & 1) != 0);
  }
}

}  // namespace cuzk::gadgets
