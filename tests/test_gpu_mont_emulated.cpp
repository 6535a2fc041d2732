// The device Montgomery multiplication and squaring (gpu/mont_mul.hpp) run on the host with emulated
// PTX integer instructions (one carry flag, as the .cc / addc / madc forms use it), against the host
// fields. This checks the carry-chain algorithms in CI, where no GPU runs; tests/gpu/test_field.cu checks
// the same code on a device.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "gpu/mont_mul.hpp"
#include "prover/algebra/bls12_381.hpp"
#include "tests/test_util.hpp"

namespace {

using namespace cuzk;

// PTX semantics of the instructions the algorithm uses (PTX ISA, "Extended-Precision Integer
// Arithmetic Instructions"): .cc writes the carry flag, the c forms read it.
struct EmulatedPtx {
  uint32_t carry = 0;
  bool carry_valid = false;  // reading a flag nothing wrote is a bug in the algorithm

  uint32_t read_carry() {
    EXPECT_TRUE(carry_valid) << "carry flag read before any .cc instruction wrote it";
    return carry;
  }
  void write(uint64_t wide) {
    carry = uint32_t(wide >> 32);
    EXPECT_LE(carry, 1u);
    carry_valid = true;
  }
  static uint32_t lo(uint32_t a, uint32_t b) { return uint32_t(uint64_t(a) * b); }
  static uint32_t hi(uint32_t a, uint32_t b) { return uint32_t((uint64_t(a) * b) >> 32); }

  uint32_t mul_lo(uint32_t a, uint32_t b) { return lo(a, b); }
  uint32_t mul_hi(uint32_t a, uint32_t b) { return hi(a, b); }
  uint32_t add_cc(uint32_t a, uint32_t b) {
    uint64_t s = uint64_t(a) + b;
    write(s);
    return uint32_t(s);
  }
  uint32_t addc_cc(uint32_t a, uint32_t b) {
    uint64_t s = uint64_t(a) + b + read_carry();
    write(s);
    return uint32_t(s);
  }
  uint32_t addc(uint32_t a, uint32_t b) {
    uint64_t s = uint64_t(a) + b + read_carry();
    EXPECT_EQ(s >> 32, 0u) << "addc without .cc dropped a carry";
    return uint32_t(s);
  }
  uint32_t sub_cc(uint32_t a, uint32_t b) {
    uint64_t d = uint64_t(a) - b;
    carry = uint32_t(d >> 63);  // borrow
    carry_valid = true;
    return uint32_t(d);
  }
  uint32_t subc_cc(uint32_t a, uint32_t b) {
    uint64_t d = uint64_t(a) - b - read_carry();
    carry = uint32_t(d >> 63);
    return uint32_t(d);
  }
  uint32_t subc(uint32_t a, uint32_t b) { return uint32_t(uint64_t(a) - b - read_carry()); }
  uint32_t mad_lo_cc(uint32_t a, uint32_t b, uint32_t c) { return add_cc(lo(a, b), c); }
  uint32_t madc_lo_cc(uint32_t a, uint32_t b, uint32_t c) { return addc_cc(lo(a, b), c); }
  uint32_t madc_hi_cc(uint32_t a, uint32_t b, uint32_t c) { return addc_cc(hi(a, b), c); }
  uint32_t mad_hi_cc(uint32_t a, uint32_t b, uint32_t c) { return add_cc(hi(a, b), c); }
  uint32_t madc_hi(uint32_t a, uint32_t b, uint32_t c) { return addc(hi(a, b), c); }
};

template <class F>
struct Limbs32 {
  static constexpr int N = 2 * int(F::N);
  uint32_t v[N];
  static Limbs32 of(const F& x) {
    Limbs32 r;
    static_assert(sizeof r.v == sizeof x);
    std::memcpy(r.v, &x, sizeof r.v);
    return r;
  }
  static Limbs32 modulus() {
    Limbs32 r;
    for (std::size_t i = 0; i < F::N; ++i) {
      r.v[2 * i] = uint32_t(F::kModulus[i]);
      r.v[2 * i + 1] = uint32_t(F::kModulus[i] >> 32);
    }
    return r;
  }
  F to_field() const {
    F x;
    std::memcpy(&x, v, sizeof v);
    return x;
  }
};

enum class Algorithm { kEvenOdd, kCios };

template <class F>
F emulated_mul(const F& a, const F& b, Algorithm algorithm = Algorithm::kEvenOdd) {
  constexpr int N = Limbs32<F>::N;
  auto la = Limbs32<F>::of(a), lb = Limbs32<F>::of(b);
  const Limbs32<F> modulus = Limbs32<F>::modulus();
  Limbs32<F> out{};
  EmulatedPtx ops;
  if (algorithm == Algorithm::kEvenOdd) {
    gpu::mont::mul<N>(ops, out.v, la.v, lb.v, modulus.v, uint32_t(F::kInv));
  } else {
    gpu::mont::mul_cios<N>(ops, out.v, la.v, lb.v, modulus.v, uint32_t(F::kInv));
  }
  return out.to_field();
}

template <class F>
F emulated_sqr(const F& a) {
  constexpr int N = Limbs32<F>::N;
  auto la = Limbs32<F>::of(a);
  const Limbs32<F> modulus = Limbs32<F>::modulus();
  Limbs32<F> out{};
  EmulatedPtx ops;
  gpu::mont::sqr<N>(ops, out.v, la.v, modulus.v, uint32_t(F::kInv));
  return out.to_field();
}

// (a b + c d) R^-1 by mont::mul_add; `d_is_p` passes p itself as d (the limbs of c * (p - 0)).
template <class F>
F emulated_mul_add(const F& a, const F& b, const F& c, const F& d, bool d_is_p = false) {
  constexpr int N = Limbs32<F>::N;
  auto la = Limbs32<F>::of(a), lb = Limbs32<F>::of(b), lc = Limbs32<F>::of(c), ld = Limbs32<F>::of(d);
  const Limbs32<F> modulus = Limbs32<F>::modulus();
  Limbs32<F> out{};
  if (d_is_p) ld = modulus;
  EmulatedPtx ops;
  gpu::mont::mul_add<N>(ops, out.v, la.v, lb.v, lc.v, ld.v, modulus.v, uint32_t(F::kInv));
  return out.to_field();
}

template <class F>
void check_against_host(const char* name, int random_pairs) {
  auto rng = test::seeded_rng(name);
  std::vector<F> values = {F::zero(),
                           F::one(),
                           -F::one(),
                           F::from_u64(2),
                           -F::from_u64(2),
                           F::from_u64(0xffffffffu),
                           -F::from_u64(0xffffffffu)};
  for (const F& a : values)
    for (const F& b : values) ASSERT_EQ(emulated_mul(a, b), a * b) << name << " edge values";
  for (const F& a : values) ASSERT_EQ(emulated_sqr(a), a.square()) << name << " square, edge values";
  for (int i = 0; i < random_pairs; ++i) {
    F a = test::random_field<F>(rng), b = test::random_field<F>(rng);
    ASSERT_EQ(emulated_mul(a, b), a * b) << name << " pair " << i;
    ASSERT_EQ(emulated_mul(a, a), a.square()) << name << " square " << i;
    ASSERT_EQ(emulated_mul(a, b, Algorithm::kCios), a * b) << name << " CIOS pair " << i;
    ASSERT_EQ(emulated_sqr(a), a.square()) << name << " dedicated square " << i;
  }
}

TEST(GpuMontEmulated, FpMatchesHost) {
  check_against_host<algebra::Fp>("GpuMontEmulated.Fp", 20000);
}
TEST(GpuMontEmulated, FrMatchesHost) {
  check_against_host<algebra::Fr>("GpuMontEmulated.Fr", 20000);
}

// Values just under p: the largest intermediate sums, where a dropped carry would show.
template <class F>
void check_near_modulus(const char* name) {
  auto rng = test::seeded_rng(name);
  for (int i = 0; i < 2000; ++i) {
    F a = -F::from_u64(rng() % 1000 + 1), b = -F::from_u64(rng() % 1000 + 1);
    ASSERT_EQ(emulated_mul(a, b), a * b) << name << " " << i;
    F c = test::random_field<F>(rng);
    ASSERT_EQ(emulated_mul(a, c), a * c) << name << " " << i;
    ASSERT_EQ(emulated_sqr(a), a.square()) << name << " dedicated square " << i;
  }
}
TEST(GpuMontEmulated, NearModulus) {
  check_near_modulus<algebra::Fp>("GpuMontEmulated.NearModulusFp");
  check_near_modulus<algebra::Fr>("GpuMontEmulated.NearModulusFr");
}

// mont::mul with a reduced first operand and an unreduced second one (any value below 2^(32N), as the NTT's
// difference_unreduced passes it: u - t + p < 2p), against the host product with the second operand
// reduced (Fr and Fp). The emulated instructions fail the test on any carry dropped at the top of a chain.
template <class F>
void check_unreduced_second_operand(const char* name) {
  constexpr int N = Limbs32<F>::N;
  const Limbs32<F> modulus = Limbs32<F>::modulus();
  auto rng = test::seeded_rng(name);
  for (int i = 0; i < 20000; ++i) {
    const F a = i % 4 == 0 ? -F::from_u64(rng() % 1000 + 1) : test::random_field<F>(rng);
    Limbs32<F> b;
    for (int j = 0; j < N; ++j) {
      const uint64_t r = rng();
      b.v[j] = i % 3 == 0 ? 0xffffffffu - uint32_t(r % 4) : uint32_t(r);  // near 2^(32N) a third of the time
    }
    // b mod p, by the host's limb arithmetic on the same bytes (a few subtractions: 2^256 < 3r, 2^384 < 10p).
    algebra::Limbs<F::N> wide;
    std::memcpy(wide.data(), b.v, sizeof b.v);
    while (algebra::limbs::geq(wide, F::kModulus)) wide = algebra::limbs::sub(wide, F::kModulus);
    Limbs32<F> reduced;
    std::memcpy(reduced.v, wide.data(), sizeof reduced.v);
    EmulatedPtx ops;
    auto la = Limbs32<F>::of(a);
    Limbs32<F> out{};
    gpu::mont::mul<N>(ops, out.v, la.v, b.v, modulus.v, uint32_t(F::kInv));
    ASSERT_EQ(out.to_field(), a * reduced.to_field()) << name << " " << i;
  }
}
TEST(GpuMontEmulated, MulTakesAnUnreducedSecondOperand) {
  check_unreduced_second_operand<algebra::Fr>("GpuMontEmulated.UnreducedFr");
  check_unreduced_second_operand<algebra::Fp>("GpuMontEmulated.UnreducedFp");
}

}  // namespace

// The square before reduction (product_square) against a schoolbook product in 64-bit host arithmetic,
// at the carry extremes ((2^(32n) - 1)^2 = 2^(64n) - 2^(32n + 1) + 1) and on limbs that are mostly random,
// some all ones or zero.
template <int N>
void schoolbook_square(uint32_t* t, const uint32_t* a) {
  for (int j = 0; j < 2 * N; ++j) t[j] = 0;
  for (int i = 0; i < N; ++i) {
    uint64_t carry = 0;
    for (int j = 0; j < N; ++j) {
      const uint64_t x = uint64_t(a[i]) * a[j] + t[i + j] + carry;
      t[i + j] = uint32_t(x);
      carry = x >> 32;
    }
    t[i + N] = uint32_t(carry);
  }
}

template <int N>
void check_square_products() {
  EmulatedPtx ops;
  uint32_t ones[N], t[2 * N], q[2 * N];
  for (int j = 0; j < N; ++j) ones[j] = 0xffffffffu;
  gpu::mont::product_square<N>(ops, q, ones);
  for (int j = 0; j < 2 * N; ++j) {
    const uint32_t expected = j == 0 ? 1u : j < N ? 0u : j == N ? 0xfffffffeu : 0xffffffffu;
    ASSERT_EQ(q[j], expected) << "all-ones square, limb " << j;
  }
  auto rng = test::seeded_rng("GpuMontEmulated.SquareProducts");
  for (int i = 0; i < 5000; ++i) {
    uint32_t a[N];
    for (int j = 0; j < N; ++j) {
      const uint64_t r = rng();
      a[j] = r % 8 == 0 ? 0xffffffffu : r % 8 == 1 ? 0u : uint32_t(r >> 8);
    }
    schoolbook_square<N>(t, a);
    gpu::mont::product_square<N>(ops, q, a);
    for (int j = 0; j < 2 * N; ++j) ASSERT_EQ(q[j], t[j]) << "square " << i << " limb " << j;
  }
}
TEST(GpuMontEmulated, SquareProductsAtCarryExtremes) {
  check_square_products<8>();
  check_square_products<12>();
}

// a b + c d with one reduction (mont::mul_add, used as a b - c d over Fp), against the host field: edge
// values (every combination), random values, values just under p (the largest intermediate sums) and
// d = p, which is how a caller passes p - 0.
TEST(GpuMontEmulated, MulAddMatchesHostFp) {
  using F = algebra::Fp;
  auto rng = test::seeded_rng("GpuMontEmulated.MulAddFp");
  const std::vector<F> edges = {
      F::zero(), F::one(), -F::one(), -F::from_u64(2), F::from_u64(0xffffffffu), -F::from_u64(0xffffffffu)};
  for (const F& a : edges)
    for (const F& b : edges)
      for (const F& c : edges)
        for (const F& d : edges) ASSERT_EQ(emulated_mul_add(a, b, c, d), a * b + c * d) << "edge values";
  for (int i = 0; i < 20000; ++i) {
    F a = test::random_field<F>(rng), b = test::random_field<F>(rng), c = test::random_field<F>(rng),
      d = test::random_field<F>(rng);
    ASSERT_EQ(emulated_mul_add(a, b, c, d), a * b + c * d) << "random " << i;
    ASSERT_EQ(emulated_mul_add(a, b, c, -d), a * b - c * d) << "random difference " << i;
    ASSERT_EQ(emulated_mul_add(a, b, c, F::zero(), true), a * b) << "d = p " << i;
    F n1 = -F::from_u64(rng() % 1000 + 1), n2 = -F::from_u64(rng() % 1000 + 1);
    ASSERT_EQ(emulated_mul_add(n1, n2, n2, n1), n1 * n2 + n2 * n1) << "near modulus " << i;
    ASSERT_EQ(emulated_mul_add(n1, n2, n1, F::zero(), true), n1 * n2) << "near modulus, d = p " << i;
  }
}
