// Generic prime field in Montgomery form over N 64-bit little-endian limbs.
//
// Every derived constant (R, R^2, -p^-1 mod 2^64, exponents for inversion, square roots and the
// Legendre symbol, the 2-adic decomposition p - 1 = t * 2^S) is computed at compile time from the
// modulus, so a field is defined by its modulus alone (plus a multiplicative generator where
// roots of unity are needed).
//
// The in-memory layout (N little-endian u64 limbs of x * 2^(64N) mod p) is the one blst/blstrs use,
// so buffers can be handed to GPU code that uses 32-bit limbs of the same Montgomery form.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "prover/algebra/field_x86.hpp"
#include "prover/algebra/hex_bytes.hpp"
#include "prover/algebra/host_device.hpp"

namespace cuzk::algebra {

using u64 = std::uint64_t;
using u128 = unsigned __int128;

template <std::size_t N>
using Limbs = std::array<u64, N>;

namespace limbs {

CUZK_HD constexpr u64 add_carry(u64 a, u64 b, u64& carry) {
  u128 t = static_cast<u128>(a) + b + carry;
  carry = static_cast<u64>(t >> 64);
  return static_cast<u64>(t);
}

CUZK_HD constexpr u64 sub_borrow(u64 a, u64 b, u64& borrow) {
  u128 t = static_cast<u128>(a) - b - borrow;
  borrow = static_cast<u64>(t >> 127);  // 1 when the subtraction wrapped
  return static_cast<u64>(t);
}

template <std::size_t N>
constexpr bool geq(const Limbs<N>& a, const Limbs<N>& b) {
  for (std::size_t i = N; i-- > 0;) {
    if (a[i] != b[i]) return a[i] > b[i];
  }
  return true;
}

template <std::size_t N>
constexpr bool is_zero(const Limbs<N>& a) {
  u64 acc = 0;
  for (u64 x : a) acc |= x;
  return acc == 0;
}

template <std::size_t N>
constexpr Limbs<N> sub(const Limbs<N>& a, const Limbs<N>& b) {
  Limbs<N> r{};
  u64 borrow = 0;
  for (std::size_t i = 0; i < N; ++i) r[i] = sub_borrow(a[i], b[i], borrow);
  return r;
}

template <std::size_t N>
constexpr Limbs<N> sub_small(const Limbs<N>& a, u64 b) {
  Limbs<N> bb{};
  bb[0] = b;
  return sub(a, bb);
}

template <std::size_t N>
constexpr Limbs<N> add_small(const Limbs<N>& a, u64 b) {
  Limbs<N> r{};
  u64 carry = b;
  for (std::size_t i = 0; i < N; ++i) r[i] = add_carry(a[i], 0, carry);
  return r;
}

template <std::size_t N>
constexpr Limbs<N> shr(const Limbs<N>& a, unsigned bits) {  // bits < 64
  Limbs<N> r{};
  for (std::size_t i = 0; i < N; ++i) {
    r[i] = a[i] >> bits;
    if (bits != 0 && i + 1 < N) r[i] |= a[i + 1] << (64 - bits);
  }
  return r;
}

template <std::size_t N>
constexpr bool bit(const Limbs<N>& a, std::size_t i) {
  return (a[i / 64] >> (i % 64)) & 1;
}

template <std::size_t N>
constexpr std::size_t bit_length(const Limbs<N>& a) {
  for (std::size_t i = N; i-- > 0;) {
    if (a[i] != 0) return i * 64 + 64 - static_cast<std::size_t>(__builtin_clzll(a[i]));
  }
  return 0;
}

// (2 * a) mod m, for a < m.
template <std::size_t N>
constexpr Limbs<N> double_mod(const Limbs<N>& a, const Limbs<N>& m) {
  Limbs<N> r{};
  u64 carry = 0;
  for (std::size_t i = 0; i < N; ++i) r[i] = add_carry(a[i], a[i], carry);
  if (carry || geq(r, m)) r = sub(r, m);
  return r;
}

}  // namespace limbs

// P must provide: `static constexpr std::size_t kLimbs`, `static constexpr Limbs<kLimbs> kModulus`,
// `static constexpr u64 kGenerator` (a multiplicative generator, used for roots of unity), and
// `static constexpr const char* kName`.
template <class P>
class MontField {
 public:
  static constexpr std::size_t N = P::kLimbs;
  using Repr = Limbs<N>;
  static constexpr Repr kModulus = P::kModulus;
  static constexpr std::size_t kBits = limbs::bit_length(kModulus);
  static constexpr std::size_t kBytes = (kBits + 7) / 8;

 private:
  // -p^-1 mod 2^64 by Newton iteration (each step doubles the number of correct bits).
  static constexpr u64 compute_inv() {
    u64 inv = 1;
    for (int i = 0; i < 6; ++i) inv *= 2 - kModulus[0] * inv;
    return ~inv + 1;
  }
  // 2^(64N * power) mod p by repeated doubling from 1.
  static constexpr Repr compute_r(int power) {
    Repr r{};
    r[0] = 1;
    for (std::size_t i = 0; i < 64 * N * static_cast<std::size_t>(power); ++i)
      r = limbs::double_mod(r, kModulus);
    return r;
  }
  static constexpr std::size_t compute_two_adicity() {
    Repr pm1 = limbs::sub_small(kModulus, 1);
    std::size_t s = 0;
    while (!limbs::bit(pm1, s)) ++s;
    return s;
  }
  static constexpr Repr compute_trace() {  // (p - 1) / 2^S
    Repr t = limbs::sub_small(kModulus, 1);
    std::size_t s = compute_two_adicity();
    while (s >= 63) {
      t = limbs::shr(t, 63);
      s -= 63;
    }
    return limbs::shr(t, static_cast<unsigned>(s));
  }

 public:
  static constexpr u64 kInv = compute_inv();
  static constexpr Repr kR = compute_r(1);
  static constexpr Repr kR2 = compute_r(2);
  static constexpr std::size_t kTwoAdicity = compute_two_adicity();
  static constexpr Repr kTrace = compute_trace();
  static constexpr Repr kPMinus2 = limbs::sub_small(kModulus, 2);
  static constexpr Repr kPMinus1Half = limbs::shr(limbs::sub_small(kModulus, 1), 1);
  static constexpr Repr kTraceMinus1Half = limbs::shr(limbs::sub_small(kTrace, 1), 1);
  static constexpr Repr kPPlus1Quarter = limbs::shr(limbs::add_small(kModulus, 1), 2);
  // The x86 fast paths (field_x86.hpp) need the top limb of p below 2^63 - 1: then 2p and every
  // intermediate CIOS sum fit in N (+ 1) limbs without a final carry.
  static constexpr bool kHasFastPath = kModulus[N - 1] < 0x7fffffffffffffffULL;

  Repr limbs_{};  // Montgomery form

  constexpr MontField() = default;

  static constexpr MontField zero() { return MontField(); }
  static constexpr MontField one() { return from_montgomery(kR); }
  static constexpr MontField from_montgomery(const Repr& mont) {
    MontField f;
    f.limbs_ = mont;
    return f;
  }
  // From a canonical integer < p (callers check canonicity; see from_canonical_checked).
  static constexpr MontField from_canonical(const Repr& x) {
    return from_montgomery(x) * from_montgomery(kR2);
  }
  static constexpr bool is_canonical(const Repr& x) { return !limbs::geq(x, kModulus); }
  static constexpr MontField from_u64(u64 x) {
    Repr r{};
    r[0] = x;
    return from_canonical(r);
  }
  static constexpr MontField generator() { return from_u64(P::kGenerator); }

  constexpr Repr to_canonical() const {
    Repr one_limb{};
    one_limb[0] = 1;
    return (*this * from_montgomery(one_limb)).limbs_;
  }
  constexpr const Repr& montgomery() const { return limbs_; }

  constexpr bool is_zero() const { return limbs::is_zero(limbs_); }
  constexpr bool is_one() const { return limbs_ == kR; }
  friend constexpr bool operator==(const MontField& a, const MontField& b) {
    return a.limbs_ == b.limbs_;
  }
  friend constexpr bool operator!=(const MontField& a, const MontField& b) { return !(a == b); }

  // The portable arithmetic (also what constant evaluation and non-x86 builds use).
  static constexpr MontField add_portable(const MontField& a, const MontField& b) {
    MontField r;
    u64 carry = 0;
    for (std::size_t i = 0; i < N; ++i) r.limbs_[i] = limbs::add_carry(a.limbs_[i], b.limbs_[i], carry);
    if (carry || limbs::geq(r.limbs_, kModulus)) r.limbs_ = limbs::sub(r.limbs_, kModulus);
    return r;
  }
  static constexpr MontField sub_portable(const MontField& a, const MontField& b) {
    MontField r;
    u64 borrow = 0;
    for (std::size_t i = 0; i < N; ++i) r.limbs_[i] = limbs::sub_borrow(a.limbs_[i], b.limbs_[i], borrow);
    if (borrow) {
      u64 carry = 0;
      for (std::size_t i = 0; i < N; ++i) r.limbs_[i] = limbs::add_carry(r.limbs_[i], kModulus[i], carry);
    }
    return r;
  }
  // Montgomery multiplication, CIOS (Koc, Acar, Kaliski 1996), with a final conditional subtraction.
  static constexpr MontField mul_portable(const MontField& a, const MontField& b) {
    u64 t[N + 2] = {};
    for (std::size_t i = 0; i < N; ++i) {
      u64 carry = 0;
      for (std::size_t j = 0; j < N; ++j) {
        u128 prod = static_cast<u128>(a.limbs_[j]) * b.limbs_[i] + t[j] + carry;
        t[j] = static_cast<u64>(prod);
        carry = static_cast<u64>(prod >> 64);
      }
      u128 s = static_cast<u128>(t[N]) + carry;
      t[N] = static_cast<u64>(s);
      t[N + 1] = static_cast<u64>(s >> 64);

      u64 m = t[0] * kInv;
      u128 prod = static_cast<u128>(m) * kModulus[0] + t[0];
      carry = static_cast<u64>(prod >> 64);
      for (std::size_t j = 1; j < N; ++j) {
        prod = static_cast<u128>(m) * kModulus[j] + t[j] + carry;
        t[j - 1] = static_cast<u64>(prod);
        carry = static_cast<u64>(prod >> 64);
      }
      s = static_cast<u128>(t[N]) + carry;
      t[N - 1] = static_cast<u64>(s);
      t[N] = t[N + 1] + static_cast<u64>(s >> 64);
    }
    MontField r;
    for (std::size_t i = 0; i < N; ++i) r.limbs_[i] = t[i];
    if (t[N] || limbs::geq(r.limbs_, kModulus)) r.limbs_ = limbs::sub(r.limbs_, kModulus);
    return r;
  }

  // The operators take the x86-64 ADX/BMI2 paths of field_x86.hpp at run time when compiled for
  // such a CPU (tests/test_field_x86.cpp checks them against the portable functions above). Each returns
  // one named variable on every path so that the result is built in place (NRVO), not copied.
  friend constexpr MontField operator+(const MontField& a, const MontField& b) {
    MontField r;
#if defined(CUZK_FIELD_X86_ASM)
    if constexpr (kHasFastPath && (N == 4 || N == 6)) {
      if (!std::is_constant_evaluated()) {
        if constexpr (N == 6) {
          x86::add_mod6(r.limbs_.data(), a.limbs_.data(), b.limbs_.data(), kModulus.data());
        } else {
          x86::add_mod4(r.limbs_.data(), a.limbs_.data(), b.limbs_.data(), kModulus.data());
        }
        return r;
      }
    }
#endif
    r = add_portable(a, b);
    return r;
  }
  friend constexpr MontField operator-(const MontField& a, const MontField& b) {
    MontField r;
#if defined(CUZK_FIELD_X86_ASM)
    if constexpr (kHasFastPath && (N == 4 || N == 6)) {
      if (!std::is_constant_evaluated()) {
        if constexpr (N == 6) {
          x86::sub_mod6(r.limbs_.data(), a.limbs_.data(), b.limbs_.data(), kModulus.data());
        } else {
          x86::sub_mod4(r.limbs_.data(), a.limbs_.data(), b.limbs_.data(), kModulus.data());
        }
        return r;
      }
    }
#endif
    r = sub_portable(a, b);
    return r;
  }
  constexpr MontField operator-() const { return is_zero() ? *this : from_montgomery(kModulus) - *this; }

  friend constexpr MontField operator*(const MontField& a, const MontField& b) {
    MontField r;
#if defined(CUZK_FIELD_X86_ASM)
    if constexpr (kHasFastPath && (N == 4 || N == 6)) {
      if (!std::is_constant_evaluated()) {
        if constexpr (N == 6) {
          x86::mont_mul6(r.limbs_.data(), a.limbs_.data(), b.limbs_.data(), kModulus.data(), kInv);
        } else {
          x86::mont_mul4(r.limbs_.data(), a.limbs_.data(), b.limbs_.data(), kModulus.data(), kInv);
        }
        return r;
      }
    }
#endif
    r = mul_portable(a, b);
    return r;
  }

  // In place: the asm writes straight into *this (no temporary to copy back).
  constexpr MontField& operator+=(const MontField& o) {
#if defined(CUZK_FIELD_X86_ASM)
    if constexpr (kHasFastPath && (N == 4 || N == 6)) {
      if (!std::is_constant_evaluated()) {
        if constexpr (N == 6) {
          x86::add_mod6(limbs_.data(), limbs_.data(), o.limbs_.data(), kModulus.data());
        } else {
          x86::add_mod4(limbs_.data(), limbs_.data(), o.limbs_.data(), kModulus.data());
        }
        return *this;
      }
    }
#endif
    return *this = add_portable(*this, o);
  }
  constexpr MontField& operator-=(const MontField& o) {
#if defined(CUZK_FIELD_X86_ASM)
    if constexpr (kHasFastPath && (N == 4 || N == 6)) {
      if (!std::is_constant_evaluated()) {
        if constexpr (N == 6) {
          x86::sub_mod6(limbs_.data(), limbs_.data(), o.limbs_.data(), kModulus.data());
        } else {
          x86::sub_mod4(limbs_.data(), limbs_.data(), o.limbs_.data(), kModulus.data());
        }
        return *this;
      }
    }
#endif
    return *this = sub_portable(*this, o);
  }
  constexpr MontField& operator*=(const MontField& o) {
#if defined(CUZK_FIELD_X86_ASM)
    if constexpr (kHasFastPath && (N == 4 || N == 6)) {
      if (!std::is_constant_evaluated()) {
        if constexpr (N == 6) {
          x86::mont_mul6(limbs_.data(), limbs_.data(), o.limbs_.data(), kModulus.data(), kInv);
        } else {
          x86::mont_mul4(limbs_.data(), limbs_.data(), o.limbs_.data(), kModulus.data(), kInv);
        }
        return *this;
      }
    }
#endif
    return *this = mul_portable(*this, o);
  }

  // The fast multiplication serves squaring too: a dedicated 6-limb squaring (21 limb products plus a
  // separate reduction) had ~13% more throughput but ~15% more latency, and did not speed up the MSM.
  constexpr MontField square() const { return *this * *this; }
  constexpr MontField dbl() const { return *this + *this; }

  template <std::size_t M>
  constexpr MontField pow(const Limbs<M>& exponent) const {
    MontField result = one();
    for (std::size_t i = limbs::bit_length(exponent); i-- > 0;) {
      result = result.square();
      if (limbs::bit(exponent, i)) result *= *this;
    }
    return result;
  }
  constexpr MontField pow(u64 exponent) const { return pow(Limbs<1>{exponent}); }

  // Multiplicative inverse by Fermat's little theorem; the inverse of zero is zero.
  constexpr MontField inverse() const { return pow(kPMinus2); }

  // Legendre symbol: 0 for zero, 1 for a non-zero square, -1 otherwise.
  constexpr int legendre() const {
    if (is_zero()) return 0;
    return pow(kPMinus1Half).is_one() ? 1 : -1;
  }

  // A square root when one exists (which one is unspecified; callers normalise the sign).
  constexpr bool sqrt(MontField& out) const {
    if (is_zero()) {
      out = zero();
      return true;
    }
    if constexpr (kTwoAdicity == 1) {  // p = 3 mod 4
      MontField r = pow(kPPlus1Quarter);
      if (r.square() != *this) return false;
      out = r;
      return true;
    } else {
      // Tonelli-Shanks, in the formulation of Bernstein's "Faster square roots in annoying finite fields".
      if (legendre() != 1) return false;
      MontField z = generator().pow(kTrace);  // primitive 2^S-th root of unity
      MontField w = pow(kTraceMinus1Half);
      MontField x = *this * w;
      MontField b = x * w;
      std::size_t v = kTwoAdicity;
      while (!b.is_one()) {
        std::size_t k = 0;
        MontField b2k = b;
        while (!b2k.is_one()) {
          b2k = b2k.square();
          ++k;
        }
        MontField w2 = z;
        for (std::size_t j = 0; j + 1 < v - k; ++j) w2 = w2.square();
        z = w2.square();
        b *= z;
        x *= w2;
        v = k;
      }
      out = x;
      return true;
    }
  }

  // Lexicographic "largest" test used by the ZCash encoding's y-sign: y > (p - 1) / 2.
  constexpr bool is_lexicographically_largest() const {
    return !limbs::geq(kPMinus1Half, to_canonical());
  }

  // Big-endian bytes of the canonical value (kBytes long).
  void to_bytes_be(std::uint8_t* out) const {
    Repr c = to_canonical();
    for (std::size_t i = 0; i < kBytes; ++i) out[kBytes - 1 - i] = static_cast<std::uint8_t>(c[i / 8] >> (8 * (i % 8)));
  }
  // Little-endian bytes of the canonical value (kBytes long).
  void to_bytes_le(std::uint8_t* out) const {
    Repr c = to_canonical();
    for (std::size_t i = 0; i < kBytes; ++i) out[i] = static_cast<std::uint8_t>(c[i / 8] >> (8 * (i % 8)));
  }
  // Returns false (leaving out untouched) when the value is not below p.
  static bool from_bytes_be(const std::uint8_t* in, MontField& out) {
    Repr c{};
    for (std::size_t i = 0; i < kBytes; ++i) c[i / 8] |= static_cast<u64>(in[kBytes - 1 - i]) << (8 * (i % 8));
    if (!is_canonical(c)) return false;
    out = from_canonical(c);
    return true;
  }
  static bool from_bytes_le(const std::uint8_t* in, MontField& out) {
    Repr c{};
    for (std::size_t i = 0; i < kBytes; ++i) c[i / 8] |= static_cast<u64>(in[i]) << (8 * (i % 8));
    if (!is_canonical(c)) return false;
    out = from_canonical(c);
    return true;
  }

  // Lowercase hex of the canonical value, big-endian, "0x"-prefixed.
  std::string to_hex() const {
    std::uint8_t bytes[kBytes];
    to_bytes_be(bytes);
    return "0x" + bytes_to_hex(bytes);
  }
};

// Inverts every element of `values` in place with one field inversion (Montgomery's trick).
// Zeros stay zero.
template <class F>
void batch_inverse(F* values, std::size_t count, F* scratch) {
  F acc = F::one();
  for (std::size_t i = 0; i < count; ++i) {
    scratch[i] = acc;
    if (!values[i].is_zero()) acc *= values[i];
  }
  acc = acc.inverse();
  for (std::size_t i = count; i-- > 0;) {
    if (values[i].is_zero()) continue;
    F inv = acc * scratch[i];
    acc *= values[i];
    values[i] = inv;
  }
}

}  // namespace cuzk::algebra
