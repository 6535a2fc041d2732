// Helpers shared by the tests: seeded randomness (seed printed, overridable with CUZK_TEST_SEED).
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

#include "prover/algebra/field.hpp"

namespace cuzk::test {

inline std::mt19937_64 seeded_rng(const char* test_name) {
  std::uint64_t seed;
  if (const char* env = std::getenv("CUZK_TEST_SEED")) {
    seed = std::strtoull(env, nullptr, 0);
  } else {
    seed = std::random_device{}();
    seed = (seed << 32) ^ std::random_device{}();
  }
  std::printf("[seed] %s: CUZK_TEST_SEED=%llu\n", test_name, static_cast<unsigned long long>(seed));
  return std::mt19937_64(seed);
}

// Uniform canonical field element by rejection sampling.
template <class F>
F random_field(std::mt19937_64& rng) {
  for (;;) {
    typename F::Repr r{};
    for (auto& limb : r) limb = rng();
    std::size_t top_bits = F::kBits % 64;
    if (top_bits) r[F::N - 1] &= (algebra::u64{1} << top_bits) - 1;
    if (F::is_canonical(r)) return F::from_canonical(r);
  }
}

// A uniform nonzero field element (toxic waste, scalars that must not vanish).
template <class F>
F random_nonzero_field(std::mt19937_64& rng) {
  for (;;) {
    F x = random_field<F>(rng);
    if (!x.is_zero()) return x;
  }
}

inline std::string shared_dir() {
  return CUZK_SHARED_DIR;
}

}  // namespace cuzk::test
