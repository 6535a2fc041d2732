// Device arithmetic for the BLS12-381 fields: Fp (12 x 32-bit limbs), Fr (8 x 32-bit limbs) and
// Fp2 = Fp[u]/(u^2 + 1), in Montgomery form.
//
// Memory layout: the host MontField<P> stores N little-endian 64-bit limbs of x * 2^(64N) mod p; on a
// little-endian machine those bytes are exactly 2N little-endian 32-bit limbs of the same number, and
// 2^(64N) = 2^(32 * 2N), so the Montgomery radix is the same. Host buffers of algebra::Fp / Fr / Fp2
// can be copied to the device as they are, and back.
//
// Multiplication is Montgomery's with the products of even and odd limbs in two independent carry
// chains (gpu/mont_mul.hpp, where the algorithm and its bounds are explained). The constants (modulus, -p^-1
// mod 2^32, R, R^2) come from prover/algebra/bls12_381.hpp at compile time and live in __constant__ memory,
// so they are instruction operands (c[bank][offset]) in SASS.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "gpu/mont_mul.hpp"
#include "prover/algebra/bls12_381.hpp"

namespace cuzk::gpu {

template <int N>
struct FieldConstants {
  uint32_t modulus[N];
  uint32_t one[N];  // R mod p: Montgomery form of 1
  uint32_t r2[N];   // R^2 mod p: to_montgomery(x) = x * R^2 * R^-1
  uint32_t inv;     // -p^-1 mod 2^32
};

// From the host field's 64-bit constants (the low 32 bits of -p^-1 mod 2^64 are -p^-1 mod 2^32).
template <class HostField>
constexpr FieldConstants<2 * HostField::N> make_field_constants() {
  FieldConstants<2 * HostField::N> c{};
  for (std::size_t i = 0; i < HostField::N; ++i) {
    c.modulus[2 * i] = static_cast<uint32_t>(HostField::kModulus[i]);
    c.modulus[2 * i + 1] = static_cast<uint32_t>(HostField::kModulus[i] >> 32);
    c.one[2 * i] = static_cast<uint32_t>(HostField::kR[i]);
    c.one[2 * i + 1] = static_cast<uint32_t>(HostField::kR[i] >> 32);
    c.r2[2 * i] = static_cast<uint32_t>(HostField::kR2[i]);
    c.r2[2 * i + 1] = static_cast<uint32_t>(HostField::kR2[i] >> 32);
  }
  c.inv = static_cast<uint32_t>(HostField::kInv);
  return c;
}

// One copy per translation unit (the gpu library is built without separable compilation).
static __constant__ FieldConstants<12> kFpConstants = make_field_constants<algebra::Fp>();
static __constant__ FieldConstants<8> kFrConstants = make_field_constants<algebra::Fr>();

struct FpTag {
  static constexpr int N = 12;
  static constexpr bool kMulAddFits = true;  // p < 2^381: 3p < 2^384
  using Host = algebra::Fp;
  __device__ static const FieldConstants<12>& c() { return kFpConstants; }
};
struct FrTag {
  static constexpr int N = 8;
  static constexpr bool kMulAddFits = false;  // 3r > 2^256
  using Host = algebra::Fr;
  __device__ static const FieldConstants<8>& c() { return kFrConstants; }
};

namespace ptx {
// The PTX integer instructions that gpu/mont_mul.hpp and the field code are written over, as the
// instruction policy `Ops` (the host tests emulate the same interface). The carry flag lives between
// consecutive asm volatile statements of one chain; nothing else is placed between them (the usual
// practice for multi-precision code in CUDA).
// One PTX instruction per member: r = insn(a, b) or r = insn(a, b, c).
#define CUZK_PTX_OP2(name, insn)                                            \
  __device__ __forceinline__ static uint32_t name(uint32_t a, uint32_t b) { \
    uint32_t r;                                                             \
    asm volatile(insn " %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));           \
    return r;                                                               \
  }
#define CUZK_PTX_OP3(name, insn)                                                        \
  __device__ __forceinline__ static uint32_t name(uint32_t a, uint32_t b, uint32_t c) { \
    uint32_t r;                                                                         \
    asm volatile(insn " %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));           \
    return r;                                                                           \
  }
struct Ops {
  CUZK_PTX_OP2(mul_lo, "mul.lo.u32")
  CUZK_PTX_OP2(mul_hi, "mul.hi.u32")
  CUZK_PTX_OP2(add_cc, "add.cc.u32")
  CUZK_PTX_OP2(addc_cc, "addc.cc.u32")
  CUZK_PTX_OP2(addc, "addc.u32")
  CUZK_PTX_OP2(sub_cc, "sub.cc.u32")
  CUZK_PTX_OP2(subc_cc, "subc.cc.u32")
  CUZK_PTX_OP2(subc, "subc.u32")
  CUZK_PTX_OP3(mad_lo_cc, "mad.lo.cc.u32")
  CUZK_PTX_OP3(madc_lo_cc, "madc.lo.cc.u32")
  CUZK_PTX_OP3(mad_hi_cc, "mad.hi.cc.u32")
  CUZK_PTX_OP3(madc_hi_cc, "madc.hi.cc.u32")
  CUZK_PTX_OP3(madc_hi, "madc.hi.u32")
};
#undef CUZK_PTX_OP2
#undef CUZK_PTX_OP3
}  // namespace ptx

template <class TagT>
struct DevField {
  using Tag = TagT;
  static constexpr int N = Tag::N;
  uint32_t v[N];

  __device__ __forceinline__ static DevField zero() {
    DevField r;
#pragma unroll
    for (int i = 0; i < N; ++i) r.v[i] = 0;
    return r;
  }
  __device__ __forceinline__ static DevField one() {
    DevField r;
#pragma unroll
    for (int i = 0; i < N; ++i) r.v[i] = Tag::c().one[i];
    return r;
  }
  __device__ __forceinline__ bool is_zero() const {
    uint32_t acc = 0;
#pragma unroll
    for (int i = 0; i < N; ++i) acc |= v[i];
    return acc == 0;
  }
  __device__ __forceinline__ bool is_one() const {
    uint32_t acc = 0;
#pragma unroll
    for (int i = 0; i < N; ++i) acc |= v[i] ^ Tag::c().one[i];
    return acc == 0;
  }
  __device__ __forceinline__ bool operator==(const DevField& o) const {
    uint32_t acc = 0;
#pragma unroll
    for (int i = 0; i < N; ++i) acc |= v[i] ^ o.v[i];
    return acc == 0;
  }

  // r = a + b mod p (inputs reduced).
  __device__ __forceinline__ friend DevField operator+(const DevField& a, const DevField& b) {
    uint32_t s[N], d[N];
    s[0] = ptx::Ops::add_cc(a.v[0], b.v[0]);
#pragma unroll
    for (int i = 1; i < N; ++i) s[i] = ptx::Ops::addc_cc(a.v[i], b.v[i]);
    uint32_t carry = ptx::Ops::addc(0, 0);
    d[0] = ptx::Ops::sub_cc(s[0], Tag::c().modulus[0]);
#pragma unroll
    for (int i = 1; i < N; ++i) d[i] = ptx::Ops::subc_cc(s[i], Tag::c().modulus[i]);
    uint32_t borrow = ptx::Ops::subc(carry, 0);  // all ones when s < p (and no carry out)
    DevField r;
#pragma unroll
    for (int i = 0; i < N; ++i) r.v[i] = borrow ? s[i] : d[i];
    return r;
  }

  __device__ __forceinline__ friend DevField operator-(const DevField& a, const DevField& b) {
    uint32_t d[N], e[N];
    d[0] = ptx::Ops::sub_cc(a.v[0], b.v[0]);
#pragma unroll
    for (int i = 1; i < N; ++i) d[i] = ptx::Ops::subc_cc(a.v[i], b.v[i]);
    uint32_t borrow = ptx::Ops::subc(0, 0);  // all ones when a < b
    e[0] = ptx::Ops::add_cc(d[0], Tag::c().modulus[0]);
#pragma unroll
    for (int i = 1; i < N; ++i) e[i] = ptx::Ops::addc_cc(d[i], Tag::c().modulus[i]);
    (void)ptx::Ops::addc(0, 0);
    DevField r;
#pragma unroll
    for (int i = 0; i < N; ++i) r.v[i] = borrow ? e[i] : d[i];
    return r;
  }

  // a - b + p, in (0, 2p) for reduced a, b: not reduced, so only for the second operand of operator*,
  // which takes any value below 2^(32N) there (mont::mul). Two add chains against operator-'s subtraction,
  // conditional correction and selects; a + p < 2p < 2^(32N), so neither chain carries out.
  __device__ __forceinline__ static DevField difference_unreduced(const DevField& a, const DevField& b) {
    uint32_t s[N];
    s[0] = ptx::Ops::add_cc(a.v[0], Tag::c().modulus[0]);
#pragma unroll
    for (int i = 1; i + 1 < N; ++i) s[i] = ptx::Ops::addc_cc(a.v[i], Tag::c().modulus[i]);
    s[N - 1] = ptx::Ops::addc(a.v[N - 1], Tag::c().modulus[N - 1]);
    DevField r;
    r.v[0] = ptx::Ops::sub_cc(s[0], b.v[0]);
#pragma unroll
    for (int i = 1; i + 1 < N; ++i) r.v[i] = ptx::Ops::subc_cc(s[i], b.v[i]);
    r.v[N - 1] = ptx::Ops::subc(s[N - 1], b.v[N - 1]);
    return r;
  }

  __device__ __forceinline__ DevField operator-() const {
    return zero() - *this;
  }
  __device__ __forceinline__ DevField dbl() const {
    return *this + *this;
  }

  // Montgomery product with two independent carry chains (gpu/mont_mul.hpp); b may be unreduced (below
  // 2^(32N), as difference_unreduced gives), a may not.
  __device__ __forceinline__ friend DevField operator*(const DevField& a, const DevField& b) {
    ptx::Ops ops;
    DevField r;
    mont::mul<N>(ops, r.v, a.v, b.v, Tag::c().modulus, Tag::c().inv);
    return r;
  }

  // Dedicated squaring (gpu/mont_mul.hpp): N^2 + N products instead of 2N^2.
  __device__ __forceinline__ DevField sqr() const {
    ptx::Ops ops;
    DevField r;
    mont::sqr<N>(ops, r.v, v, Tag::c().modulus, Tag::c().inv);
    return r;
  }
  // a * b - c * d with one Montgomery reduction: mont::mul_add on a * b + c * (p - d), 3N^2 products
  // against 4N^2 (the Y3 of every XYZZ formula has this form). Its bounds need 3p < 2^(32N): Fp only.
  __device__ __forceinline__ static DevField mul_sub(const DevField& a, const DevField& b, const DevField& c,
                                                     const DevField& d) {
    static_assert(Tag::kMulAddFits, "mont::mul_add needs 3p < 2^(32N)");
    // p - d, in (0, p]: d = 0 gives p, which mul_add allows. Not -d (operator-), whose conditional
    // correction for d = 0 made the G1 MSM measurably slower (see bench/RESULTS.md).
    uint32_t minus_d[N];
    minus_d[0] = ptx::Ops::sub_cc(Tag::c().modulus[0], d.v[0]);
#pragma unroll
    for (int i = 1; i + 1 < N; ++i) minus_d[i] = ptx::Ops::subc_cc(Tag::c().modulus[i], d.v[i]);
    minus_d[N - 1] = ptx::Ops::subc(Tag::c().modulus[N - 1], d.v[N - 1]);
    ptx::Ops ops;
    DevField r;
    mont::mul_add<N>(ops, r.v, a.v, b.v, c.v, minus_d, Tag::c().modulus, Tag::c().inv);
    return r;
  }
  __device__ __forceinline__ DevField& operator+=(const DevField& o) {
    return *this = *this + o;
  }
  __device__ __forceinline__ DevField& operator-=(const DevField& o) {
    return *this = *this - o;
  }
  __device__ __forceinline__ DevField& operator*=(const DevField& o) {
    return *this = *this * o;
  }

  // Canonical value (Montgomery reduction of x, i.e. x * 1 with 1 not in Montgomery form).
  __device__ __forceinline__ DevField from_montgomery() const {
    DevField unit = zero();
    unit.v[0] = 1;
    return *this * unit;
  }
  __device__ __forceinline__ DevField to_montgomery() const {
    DevField r2;
#pragma unroll
    for (int i = 0; i < N; ++i) r2.v[i] = Tag::c().r2[i];
    return *this * r2;
  }
  // x^e for a small public exponent (square and multiply).
  __device__ DevField pow(uint64_t e) const {
    DevField r = one(), b = *this;
    while (e) {
      if (e & 1) r *= b;
      b = b.sqr();
      e >>= 1;
    }
    return r;
  }
};

using DevFp = DevField<FpTag>;
using DevFr = DevField<FrTag>;
static_assert(sizeof(DevFp) == sizeof(algebra::Fp), "device and host Fp share one layout");
static_assert(sizeof(DevFr) == sizeof(algebra::Fr), "device and host Fr share one layout");

// Fp2 = Fp[u] / (u^2 + 1), written c0 + c1 u (the host algebra::Fp2 layout).
struct DevFp2 {
  DevFp c0, c1;
  __device__ __forceinline__ static DevFp2 zero() { return {DevFp::zero(), DevFp::zero()}; }
  __device__ __forceinline__ static DevFp2 one() { return {DevFp::one(), DevFp::zero()}; }
  __device__ __forceinline__ bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
  __device__ __forceinline__ bool operator==(const DevFp2& o) const { return c0 == o.c0 && c1 == o.c1; }
  __device__ __forceinline__ friend DevFp2 operator+(const DevFp2& a, const DevFp2& b) {
    return {a.c0 + b.c0, a.c1 + b.c1};
  }
  __device__ __forceinline__ friend DevFp2 operator-(const DevFp2& a, const DevFp2& b) {
    return {a.c0 - b.c0, a.c1 - b.c1};
  }
  __device__ __forceinline__ DevFp2 operator-() const { return {-c0, -c1}; }
  __device__ __forceinline__ DevFp2 dbl() const { return {c0.dbl(), c1.dbl()}; }
  // Karatsuba: 3 base multiplications.
  __device__ __forceinline__ friend DevFp2 operator*(const DevFp2& a, const DevFp2& b) {
    DevFp v0 = a.c0 * b.c0;
    DevFp v1 = a.c1 * b.c1;
    DevFp s = (a.c0 + a.c1) * (b.c0 + b.c1);
    return {v0 - v1, s - v0 - v1};
  }
  // a * b - c * d (no shared reduction over Fp2: Karatsuba already uses 3 base multiplications each).
  __device__ __forceinline__ static DevFp2 mul_sub(const DevFp2& a, const DevFp2& b, const DevFp2& c,
                                                   const DevFp2& d) {
    return a * b - c * d;
  }
  // (c0 + c1 u)^2 = (c0 + c1)(c0 - c1) + 2 c0 c1 u: 2 base multiplications.
  __device__ __forceinline__ DevFp2 sqr() const { return {(c0 + c1) * (c0 - c1), (c0 * c1).dbl()}; }
  __device__ __forceinline__ DevFp2& operator+=(const DevFp2& o) { return *this = *this + o; }
  __device__ __forceinline__ DevFp2& operator-=(const DevFp2& o) { return *this = *this - o; }
  __device__ __forceinline__ DevFp2& operator*=(const DevFp2& o) { return *this = *this * o; }
};
static_assert(sizeof(DevFp2) == sizeof(algebra::Fp2), "device and host Fp2 share one layout");

}  // namespace cuzk::gpu
