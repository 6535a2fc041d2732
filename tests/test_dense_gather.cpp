// groth16::append_dense against the obvious loop: sizes around the word and block edges, empty, full and
// random densities, bits set past the values (ignored), what `out` held before (kept, in front), and a
// bitset too short for the values (refused).
#include <gtest/gtest.h>

#include <random>
#include <stdexcept>
#include <vector>

#include "prover/groth16/dense_gather.hpp"
#include "tests/test_util.hpp"

using namespace cuzk;
using algebra::Fr;

namespace {

std::vector<Fr> reference(const std::vector<Fr>& values, const r1cs::DensityBits& density,
                          std::vector<Fr> out) {
  for (std::size_t i = 0; i < values.size(); ++i)
    if (density.test(i)) out.push_back(values[i]);
  return out;
}

TEST(DenseGather, MatchesTheLoop) {
  auto rng = test::seeded_rng("DenseGather.MatchesTheLoop");
  constexpr std::size_t kBlock = std::size_t{1} << 18;  // values per parallel block
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{63}, std::size_t{64}, std::size_t{65},
                        kBlock - 1, kBlock, kBlock + 1, 3 * kBlock + 100}) {
    std::vector<Fr> values(n);
    for (std::size_t i = 0; i < n; ++i) values[i] = Fr::from_u64(i * 7 + 1);
    for (double fraction : {0.0, 1.0, 0.25, 0.997}) {
      r1cs::DensityBits density;
      density.resize(n + 70);  // bits past n are set below and must be ignored
      std::bernoulli_distribution pick(fraction);
      for (std::size_t i = 0; i < n; ++i)
        if (pick(rng)) density.set(i);
      for (std::size_t i = n; i < n + 70; ++i) density.set(i);
      const std::vector<Fr> before = {Fr::from_u64(99), Fr::from_u64(98)};
      std::vector<Fr> out = before;
      groth16::append_dense(values, density, out);
      ASSERT_EQ(out, reference(values, density, before)) << "n " << n << ", density " << fraction;
    }
  }
}

TEST(DenseGather, RefusesAShortBitset) {
  std::vector<Fr> values(130);
  r1cs::DensityBits density;
  density.resize(64);
  std::vector<Fr> out;
  EXPECT_THROW(groth16::append_dense(values, density, out), std::invalid_argument);
}

}  // namespace
