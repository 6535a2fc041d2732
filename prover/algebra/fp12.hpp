// The BLS12-381 extension tower above Fp2 (bls12_381.hpp):
//   Fp6  = Fp2[v] / (v^3 - xi),  xi = 1 + u  (Fp2::mul_by_nonresidue),
//   Fp12 = Fp6[w] / (w^2 - v),   so w^6 = xi.
// This is the tower of zkcrypto bls12_381 and blst, so the Montgomery limbs of each coefficient match
// theirs. Host code only (the pairing is a verifier-side operation).
//
// Frobenius constants are derived at first use from p alone: with gamma_n = xi^((p^n - 1) / 6),
// (c * w^k)^(p^n) = c^(p^n) * gamma_n^k * w^k for c in Fp2, and gamma_n = prod_{i<n} gamma_1^(p^i).
#pragma once

#include <array>
#include <cstddef>

#include "prover/algebra/bls12_381.hpp"

namespace cuzk::algebra {

namespace limbs {

// a / d for a small divisor d; `remainder` receives a mod d.
template <std::size_t N>
constexpr Limbs<N> div_small(const Limbs<N>& a, u64 d, u64& remainder) {
  Limbs<N> q{};
  u128 r = 0;
  for (std::size_t i = N; i-- > 0;) {
    u128 cur = (r << 64) | a[i];
    q[i] = static_cast<u64>(cur / d);
    r = cur % d;
  }
  remainder = static_cast<u64>(r);
  return q;
}

}  // namespace limbs

// Fp2 frobenius^n: conjugation when n is odd.
inline Fp2 fp2_frobenius_pow(const Fp2& a, unsigned n) {
  return (n & 1) ? a.conjugate() : a;
}

namespace detail {

// gamma[n][k] = xi^(k (p^n - 1) / 6) for n = 0..11, k = 0..5 (see the file comment).
struct FrobeniusTable {
  static constexpr u64 kPMinus1Mod6 = [] {
    u64 rem = 0;
    limbs::div_small(limbs::sub_small(Fp::kModulus, 1), 6, rem);
    return rem;
  }();
  static_assert(kPMinus1Mod6 == 0, "p = 1 mod 6, so xi^((p - 1) / 6) is defined");
  static constexpr Limbs<6> kPMinus1Over6 = [] {
    u64 rem = 0;
    return limbs::div_small(limbs::sub_small(Fp::kModulus, 1), 6, rem);
  }();

  std::array<std::array<Fp2, 6>, 12> gamma;

  FrobeniusTable() {
    const Fp2 xi = Fp2::one().mul_by_nonresidue();
    const Fp2 gamma1 = xi.pow(kPMinus1Over6);
    Fp2 gamma_n = Fp2::one();  // gamma_0
    for (unsigned n = 0; n < 12; ++n) {
      Fp2 power = Fp2::one();
      for (unsigned k = 0; k < 6; ++k) {
        gamma[n][k] = power;
        power *= gamma_n;
      }
      // gamma_{n+1} = gamma_n * gamma_1^(p^n), since (p^(n+1) - 1) / 6 = (p^n - 1) / 6 + p^n (p - 1) / 6.
      gamma_n *= fp2_frobenius_pow(gamma1, n);
    }
  }

  static const FrobeniusTable& get() {
    static const FrobeniusTable table;
    return table;
  }
};

}  // namespace detail

// Fp6 = Fp2[v] / (v^3 - xi), written c0 + c1 v + c2 v^2.
struct Fp6 {
  Fp2 c0, c1, c2;

  static constexpr Fp6 zero() { return {}; }
  static constexpr Fp6 one() { return {Fp2::one(), Fp2::zero(), Fp2::zero()}; }
  constexpr bool is_zero() const { return c0.is_zero() && c1.is_zero() && c2.is_zero(); }
  constexpr bool is_one() const { return c0.is_one() && c1.is_zero() && c2.is_zero(); }
  friend constexpr bool operator==(const Fp6& a, const Fp6& b) {
    return a.c0 == b.c0 && a.c1 == b.c1 && a.c2 == b.c2;
  }
  friend constexpr bool operator!=(const Fp6& a, const Fp6& b) { return !(a == b); }
  friend constexpr Fp6 operator+(const Fp6& a, const Fp6& b) {
    return {a.c0 + b.c0, a.c1 + b.c1, a.c2 + b.c2};
  }
  friend constexpr Fp6 operator-(const Fp6& a, const Fp6& b) {
    return {a.c0 - b.c0, a.c1 - b.c1, a.c2 - b.c2};
  }
  constexpr Fp6 operator-() const { return {-c0, -c1, -c2}; }
  constexpr Fp6 dbl() const { return {c0.dbl(), c1.dbl(), c2.dbl()}; }

  // Karatsuba-style interpolation: 6 Fp2 multiplications.
  friend constexpr Fp6 operator*(const Fp6& a, const Fp6& b) {
    Fp2 v0 = a.c0 * b.c0;
    Fp2 v1 = a.c1 * b.c1;
    Fp2 v2 = a.c2 * b.c2;
    return {v0 + ((a.c1 + a.c2) * (b.c1 + b.c2) - v1 - v2).mul_by_nonresidue(),
            (a.c0 + a.c1) * (b.c0 + b.c1) - v0 - v1 + v2.mul_by_nonresidue(),
            (a.c0 + a.c2) * (b.c0 + b.c2) - v0 - v2 + v1};
  }
  friend constexpr Fp6 operator*(const Fp6& a, const Fp2& s) { return {a.c0 * s, a.c1 * s, a.c2 * s}; }
  constexpr Fp6& operator+=(const Fp6& o) { return *this = *this + o; }
  constexpr Fp6& operator-=(const Fp6& o) { return *this = *this - o; }
  constexpr Fp6& operator*=(const Fp6& o) { return *this = *this * o; }

  // Chung-Hasan SQR2 ("Asymmetric squaring formulae", ARITH 2007): 2 multiplications, 3 squarings.
  constexpr Fp6 square() const {
    Fp2 s0 = c0.square();
    Fp2 s1 = (c0 * c1).dbl();
    Fp2 s2 = (c0 - c1 + c2).square();
    Fp2 s3 = (c1 * c2).dbl();
    Fp2 s4 = c2.square();
    return {s0 + s3.mul_by_nonresidue(), s1 + s4.mul_by_nonresidue(), s1 + s2 + s3 - s0 - s4};
  }

  // Multiplication by v: (c0, c1, c2) v = (xi c2, c0, c1).
  constexpr Fp6 mul_by_nonresidue() const { return {c2.mul_by_nonresidue(), c0, c1}; }

  // Multiplication by b0 + b1 v (5 Fp2 multiplications).
  constexpr Fp6 mul_by_01(const Fp2& b0, const Fp2& b1) const {
    Fp2 v0 = c0 * b0;
    Fp2 v1 = c1 * b1;
    return {v0 + (c2 * b1).mul_by_nonresidue(), (c0 + c1) * (b0 + b1) - v0 - v1, v1 + c2 * b0};
  }
  // Multiplication by b1 v (3 Fp2 multiplications).
  constexpr Fp6 mul_by_1(const Fp2& b1) const { return {(c2 * b1).mul_by_nonresidue(), c0 * b1, c1 * b1}; }

  // Inverse through the norm to Fp2; the inverse of zero is zero.
  constexpr Fp6 inverse() const {
    Fp2 t0 = c0.square() - (c1 * c2).mul_by_nonresidue();
    Fp2 t1 = c2.square().mul_by_nonresidue() - c0 * c1;
    Fp2 t2 = c1.square() - c0 * c2;
    Fp2 det = c0 * t0 + (c2 * t1 + c1 * t2).mul_by_nonresidue();
    Fp2 inv = det.inverse();
    return {t0 * inv, t1 * inv, t2 * inv};
  }

  // x^(p^n); v^j = w^(2j) picks up gamma_n^(2j).
  Fp6 frobenius_map(unsigned n) const {
    n %= 12;
    const auto& g = detail::FrobeniusTable::get().gamma[n];
    return {fp2_frobenius_pow(c0, n), fp2_frobenius_pow(c1, n) * g[2], fp2_frobenius_pow(c2, n) * g[4]};
  }

  template <std::size_t M>
  constexpr Fp6 pow(const Limbs<M>& e) const {
    Fp6 r = one();
    for (std::size_t i = limbs::bit_length(e); i-- > 0;) {
      r = r.square();
      if (limbs::bit(e, i)) r *= *this;
    }
    return r;
  }
};

// Fp12 = Fp6[w] / (w^2 - v), written c0 + c1 w. As a vector over Fp2 in the basis w^k (k = 0..5):
// w^0 = c0.c0, w^1 = c1.c0, w^2 = c0.c1, w^3 = c1.c1, w^4 = c0.c2, w^5 = c1.c2.
struct Fp12 {
  Fp6 c0, c1;

  static constexpr Fp12 zero() { return {}; }
  static constexpr Fp12 one() { return {Fp6::one(), Fp6::zero()}; }
  constexpr bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
  constexpr bool is_one() const { return c0.is_one() && c1.is_zero(); }
  friend constexpr bool operator==(const Fp12& a, const Fp12& b) { return a.c0 == b.c0 && a.c1 == b.c1; }
  friend constexpr bool operator!=(const Fp12& a, const Fp12& b) { return !(a == b); }
  friend constexpr Fp12 operator+(const Fp12& a, const Fp12& b) { return {a.c0 + b.c0, a.c1 + b.c1}; }
  friend constexpr Fp12 operator-(const Fp12& a, const Fp12& b) { return {a.c0 - b.c0, a.c1 - b.c1}; }
  constexpr Fp12 operator-() const { return {-c0, -c1}; }

  // Karatsuba: 3 Fp6 multiplications.
  friend constexpr Fp12 operator*(const Fp12& a, const Fp12& b) {
    Fp6 aa = a.c0 * b.c0;
    Fp6 bb = a.c1 * b.c1;
    return {aa + bb.mul_by_nonresidue(), (a.c0 + a.c1) * (b.c0 + b.c1) - aa - bb};
  }
  constexpr Fp12& operator+=(const Fp12& o) { return *this = *this + o; }
  constexpr Fp12& operator-=(const Fp12& o) { return *this = *this - o; }
  constexpr Fp12& operator*=(const Fp12& o) { return *this = *this * o; }

  // Complex squaring: (a + b w)^2 = (a + b)(a + v b) - ab - v ab + 2ab w (2 Fp6 multiplications).
  constexpr Fp12 square() const {
    Fp6 ab = c0 * c1;
    return {(c0 + c1) * (c0 + c1.mul_by_nonresidue()) - ab - ab.mul_by_nonresidue(), ab.dbl()};
  }

  // x^(p^6): w -> -w. Equals the inverse on the cyclotomic subgroup (after the easy part of the
  // final exponentiation).
  constexpr Fp12 conjugate() const { return {c0, -c1}; }

  // 1 / (a + b w) = (a - b w) / (a^2 - v b^2); the inverse of zero is zero.
  constexpr Fp12 inverse() const {
    Fp6 t = (c0.square() - c1.square().mul_by_nonresidue()).inverse();
    return {c0 * t, -(c1 * t)};
  }

  // Multiplication by a sparse element a + b w^2 + c w^3 (= (a + b v) + (c v) w), the shape of the
  // Miller-loop line functions for the M-twist: 13 Fp2 multiplications instead of 18.
  constexpr Fp12 mul_by_line(const Fp2& a, const Fp2& b, const Fp2& c) const {
    Fp6 t0 = c0.mul_by_01(a, b);
    Fp6 t1 = c1.mul_by_1(c);
    Fp6 mid = (c0 + c1).mul_by_01(a, b + c);
    return {t0 + t1.mul_by_nonresidue(), mid - t0 - t1};
  }

  // x^(p^n).
  Fp12 frobenius_map(unsigned n) const {
    n %= 12;
    const auto& g = detail::FrobeniusTable::get().gamma[n];
    return {
        {fp2_frobenius_pow(c0.c0, n), fp2_frobenius_pow(c0.c1, n) * g[2], fp2_frobenius_pow(c0.c2, n) * g[4]},
        {fp2_frobenius_pow(c1.c0, n) * g[1], fp2_frobenius_pow(c1.c1, n) * g[3],
         fp2_frobenius_pow(c1.c2, n) * g[5]}};
  }

  // Squaring in the cyclotomic subgroup G_{Phi_6(p^2)} (elements after the easy part of the final
  // exponentiation), Granger and Scott, "Faster squaring in the cyclotomic subgroup of sixth degree
  // extensions" (PKC 2010, eprint 2009/565). View Fp12 = Fp4[w] / (w^3 - s) with Fp4 = Fp2[s] / (s^2 - xi),
  // s = w^3, and f = A + B w + C w^2; then f^2 = 3 (A^2 + s C^2 w + B^2 w^2) - 2 conj(f), where
  // conj(f) = f^(p^6) = A' - B' w + C' w^2 and ' is the Fp4 conjugation s -> -s. 9 Fp2 squarings.
  constexpr Fp12 cyclotomic_square() const {
    // Fp4 squaring: (x0 + x1 s)^2 = (x0^2 + xi x1^2) + ((x0 + x1)^2 - x0^2 - x1^2) s.
    auto fp4_square = [](const Fp2& x0, const Fp2& x1, Fp2& out0, Fp2& out1) {
      Fp2 t0 = x0.square();
      Fp2 t1 = x1.square();
      out0 = t0 + t1.mul_by_nonresidue();
      out1 = (x0 + x1).square() - t0 - t1;
    };
    // A = w^0 + w^3 s, B = w^1 + w^4 s, C = w^2 + w^5 s (coefficients of w^k, see the layout above).
    Fp2 a0, a1, b0, b1, cc0, cc1;
    fp4_square(c0.c0, c1.c1, a0, a1);
    fp4_square(c1.c0, c0.c2, b0, b1);
    fp4_square(c0.c1, c1.c2, cc0, cc1);
    auto triple_minus_double = [](const Fp2& t, const Fp2& x) { return (t - x).dbl() + t; };  // 3t - 2x
    auto triple_plus_double = [](const Fp2& t, const Fp2& x) { return (t + x).dbl() + t; };   // 3t + 2x
    Fp12 r;
    r.c0.c0 = triple_minus_double(a0, c0.c0);                      // 3 (A^2)_0 - 2 A_0
    r.c1.c1 = triple_plus_double(a1, c1.c1);                       // 3 (A^2)_1 + 2 A_1
    r.c1.c0 = triple_plus_double(cc1.mul_by_nonresidue(), c1.c0);  // 3 xi (C^2)_1 + 2 B_0
    r.c0.c2 = triple_minus_double(cc0, c0.c2);                     // 3 (C^2)_0 - 2 B_1
    r.c0.c1 = triple_minus_double(b0, c0.c1);                      // 3 (B^2)_0 - 2 C_0
    r.c1.c2 = triple_plus_double(b1, c1.c2);                       // 3 (B^2)_1 + 2 C_1
    return r;
  }

  template <std::size_t M>
  constexpr Fp12 pow(const Limbs<M>& e) const {
    Fp12 r = one();
    for (std::size_t i = limbs::bit_length(e); i-- > 0;) {
      r = r.square();
      if (limbs::bit(e, i)) r *= *this;
    }
    return r;
  }
};

}  // namespace cuzk::algebra
