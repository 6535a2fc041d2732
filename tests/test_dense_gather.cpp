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

// The pieces of a gather done on the device: the density over z = (inputs, aux) and each word's place in the
// gathered vector, used as the device does (one word at a time), give append_dense's vectors: the A scalars
// (every input, then aux by the A density) and the B scalars (inputs and aux by their B densities).
TEST(DenseGather, WordOffsetsOverTheConcatenatedDensityGiveTheSameScalars) {
  auto rng = test::seeded_rng("DenseGather.WordOffsets");
  for (std::size_t input_count :
       {std::size_t{1}, std::size_t{5}, std::size_t{64}, std::size_t{71}, std::size_t{200}}) {
    for (std::size_t aux_count :
         {std::size_t{0}, std::size_t{1}, std::size_t{63}, std::size_t{64}, std::size_t{1000}}) {
      std::vector<Fr> inputs(input_count), aux(aux_count);
      for (Fr& x : inputs) x = test::random_field<Fr>(rng);
      for (Fr& x : aux) x = test::random_field<Fr>(rng);
      r1cs::DensityBits input_density, aux_density;
      input_density.resize(input_count + 5);  // bits past the counts are set and must be ignored
      aux_density.resize(aux_count + 5);
      std::bernoulli_distribution pick(0.6);
      for (std::size_t i = 0; i < input_count + 5; ++i)
        if (pick(rng) || i >= input_count) input_density.set(i);
      for (std::size_t i = 0; i < aux_count + 5; ++i)
        if (pick(rng) || i >= aux_count) aux_density.set(i);
      std::vector<Fr> z = inputs;
      z.insert(z.end(), aux.begin(), aux.end());

      auto gather = [&](const r1cs::DensityBits& density) {
        const std::vector<std::uint32_t> offsets = groth16::density_word_offsets(density, z.size());
        std::vector<Fr> out(offsets.back());
        for (std::size_t w = 0; w + 1 < offsets.size(); ++w) {
          std::size_t at = offsets[w];
          for (std::size_t bit = 0; bit < 64 && 64 * w + bit < z.size(); ++bit)
            if (density.test(64 * w + bit)) out.at(at++) = z[64 * w + bit];
          EXPECT_EQ(at, offsets[w + 1]) << "word " << w;
        }
        return out;
      };
      std::vector<Fr> want_a = inputs;
      groth16::append_dense(aux, aux_density, want_a);
      EXPECT_EQ(gather(groth16::concat_density(nullptr, input_count, aux_density, aux_count)), want_a)
          << input_count << " inputs, " << aux_count << " aux";
      std::vector<Fr> want_b;
      groth16::append_dense(inputs, input_density, want_b);
      groth16::append_dense(aux, aux_density, want_b);
      EXPECT_EQ(gather(groth16::concat_density(&input_density, input_count, aux_density, aux_count)), want_b)
          << input_count << " inputs, " << aux_count << " aux";
    }
  }
}

TEST(DenseGather, ConcatRefusesAShortPart) {
  r1cs::DensityBits short_density;
  short_density.resize(10);
  EXPECT_THROW(groth16::concat_density(&short_density, 100, short_density, 5), std::invalid_argument);
  EXPECT_THROW(groth16::concat_density(nullptr, 3, short_density, 100), std::invalid_argument);
  EXPECT_THROW(groth16::density_word_offsets(short_density, 65), std::invalid_argument);
}

}  // namespace
