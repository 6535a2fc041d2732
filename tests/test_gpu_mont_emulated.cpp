// The device Montgomery multiplication (gpu/mont_mul.hpp) run on the host with emulated PTX integer
// instructions (one carry flag, as the .cc / addc / madc forms use it), against the host fields. This
// checks the even/odd carry-chain algorithm in CI, where no GPU runs; tests/gpu/test_field.cu checks
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
  Limbs32<F> modulus{}, out{};
  for (std::size_t i = 0; i < F::N; ++i) {
    modulus.v[2 * i] = uint32_t(F::kModulus[i]);
    modulus.v[2 * i + 1] = uint32_t(F::kModulus[i] >> 32);
  }
  EmulatedPtx ops;
  if (algorithm == Algorithm::kEvenOdd) {
    gpu::mont::mul<N>(ops, out.v, la.v, lb.v, modulus.v, uint32_t(F::kInv));
  } else {
    gpu::mont::mul_cios<N>(ops, out.v, la.v, lb.v, modulus.v, uint32_t(F::kInv));
  }
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
  for (int i = 0; i < random_pairs; ++i) {
    F a = test::random_field<F>(rng), b = test::random_field<F>(rng);
    ASSERT_EQ(emulated_mul(a, b), a * b) << name << " pair " << i;
    ASSERT_EQ(emulated_mul(a, a), a.square()) << name << " square " << i;
    ASSERT_EQ(emulated_mul(a, b, Algorithm::kCios), a * b) << name << " CIOS pair " << i;
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
  }
}
TEST(GpuMontEmulated, NearModulus) {
  check_near_modulus<algebra::Fp>("GpuMontEmulated.NearModulusFp");
  check_near_modulus<algebra::Fr>("GpuMontEmulated.NearModulusFr");
}

}  // namespace
