// BLS12-381 base field Fp, scalar field Fr and the quadratic extension Fp2 = Fp[u]/(u^2 + 1).
//
// Moduli: draft-irtf-cfrg-pairing-friendly-curves-11 section 4.2.1 (BLS12_381), identical to
// blstrs v0.7.1 / zkcrypto bls12_381.
#pragma once

#include "prover/algebra/field.hpp"
#include "prover/algebra/hex.hpp"

namespace cuzk::algebra {

struct FpParams {
  static constexpr const char* kName = "Fp";
  static constexpr std::size_t kLimbs = 6;
  static constexpr Limbs<6> kModulus = hex_to_limbs<6>(
      "1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab");
  static constexpr u64 kGenerator = 2;  // 2 generates Fp^* (zkcrypto bls12_381 fp.rs); not used for roots
};

struct FrParams {
  static constexpr const char* kName = "Fr";
  static constexpr std::size_t kLimbs = 4;
  static constexpr Limbs<4> kModulus =
      hex_to_limbs<4>("73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001");
  // blstrs v0.7.1 Scalar::MULTIPLICATIVE_GENERATOR = 7 (docs/circuit.md §10); bellperson's coset shift.
  static constexpr u64 kGenerator = 7;
};

using Fp = MontField<FpParams>;
using Fr = MontField<FrParams>;

static_assert(Fp::kBits == 381);
static_assert(Fr::kBits == 255);
static_assert(Fr::kTwoAdicity == 32, "r - 1 = t * 2^32 (blstrs Scalar::S)");
static_assert(Fp::kTwoAdicity == 1, "p = 3 mod 4");

// Fp2 = Fp[u] / (u^2 + 1). Written c0 + c1*u.
struct Fp2 {
  Fp c0, c1;

  static constexpr Fp2 zero() { return {}; }
  static constexpr Fp2 one() { return {Fp::one(), Fp::zero()}; }
  constexpr bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
  constexpr bool is_one() const { return c0.is_one() && c1.is_zero(); }
  friend constexpr bool operator==(const Fp2& a, const Fp2& b) { return a.c0 == b.c0 && a.c1 == b.c1; }
  friend constexpr bool operator!=(const Fp2& a, const Fp2& b) { return !(a == b); }
  friend constexpr Fp2 operator+(const Fp2& a, const Fp2& b) { return {a.c0 + b.c0, a.c1 + b.c1}; }
  friend constexpr Fp2 operator-(const Fp2& a, const Fp2& b) { return {a.c0 - b.c0, a.c1 - b.c1}; }
  constexpr Fp2 operator-() const { return {-c0, -c1}; }
  // Karatsuba: 3 base multiplications.
  friend constexpr Fp2 operator*(const Fp2& a, const Fp2& b) {
    Fp v0 = a.c0 * b.c0;
    Fp v1 = a.c1 * b.c1;
    return {v0 - v1, (a.c0 + a.c1) * (b.c0 + b.c1) - v0 - v1};
  }
  friend constexpr Fp2 operator*(const Fp2& a, const Fp& s) { return {a.c0 * s, a.c1 * s}; }
  constexpr Fp2& operator+=(const Fp2& o) { return *this = *this + o; }
  constexpr Fp2& operator-=(const Fp2& o) { return *this = *this - o; }
  constexpr Fp2& operator*=(const Fp2& o) { return *this = *this * o; }
  // (c0 + c1 u)^2 = (c0 + c1)(c0 - c1) + 2 c0 c1 u.
  constexpr Fp2 square() const { return {(c0 + c1) * (c0 - c1), (c0 * c1).dbl()}; }
  constexpr Fp2 dbl() const { return {c0.dbl(), c1.dbl()}; }
  constexpr Fp2 conjugate() const { return {c0, -c1}; }
  constexpr Fp norm() const { return c0.square() + c1.square(); }
  constexpr Fp2 inverse() const {
    Fp inv = norm().inverse();
    return {c0 * inv, -(c1 * inv)};
  }
  // Multiplication by the non-residue (1 + u) used to build Fp6 and the G2 twist.
  constexpr Fp2 mul_by_nonresidue() const { return {c0 - c1, c0 + c1}; }
  constexpr Fp2 frobenius() const { return conjugate(); }

  template <std::size_t M>
  constexpr Fp2 pow(const Limbs<M>& e) const {
    Fp2 r = one();
    for (std::size_t i = limbs::bit_length(e); i-- > 0;) {
      r = r.square();
      if (limbs::bit(e, i)) r *= *this;
    }
    return r;
  }

  // ZCash sign convention for Fp2 (zkcrypto bls12_381 fp2.rs lexicographically_largest):
  // compare c1 first, and c0 only when c1 is zero.
  constexpr bool is_lexicographically_largest() const {
    return c1.is_lexicographically_largest() || (c1.is_zero() && c0.is_lexicographically_largest());
  }

  // Square root for p = 3 mod 4 (Adj and Rodriguez-Henriquez, eprint 2012/685, algorithm 9).
  bool sqrt(Fp2& out) const {
    if (is_zero()) {
      out = zero();
      return true;
    }
    // (p - 3) / 4
    constexpr Limbs<6> kPMinus3Quarter = limbs::shr(limbs::sub_small(Fp::kModulus, 3), 2);
    Fp2 a1 = pow(kPMinus3Quarter);
    Fp2 alpha = a1.square() * *this;
    Fp2 x0 = a1 * *this;
    Fp2 candidate;
    if (alpha == -one()) {
      candidate = {-x0.c1, x0.c0};  // x0 * u
    } else {
      Fp2 b = (alpha + one()).pow(Fp::kPMinus1Half);
      candidate = b * x0;
    }
    if (candidate.square() != *this) return false;
    out = candidate;
    return true;
  }
};

}  // namespace cuzk::algebra
