#include "prover/groth16/dense_gather.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>

namespace cuzk::groth16 {
namespace {

constexpr std::size_t kWordsPerBlock = 4096;  // 2^18 values: enough work per block to pay for a task

// The word of `density` for values [64 w, 64 w + 64), without the bits at or beyond `n`.
std::uint64_t masked_word(const r1cs::DensityBits& density, std::size_t w, std::size_t n) {
  std::uint64_t word = density.words[w];
  const std::size_t valid = n - 64 * w;
  if (valid < 64) word &= (std::uint64_t{1} << valid) - 1;
  return word;
}

}  // namespace

void append_dense(const std::vector<algebra::Fr>& values, const r1cs::DensityBits& density,
                  std::vector<algebra::Fr>& out) {
  const std::size_t n = values.size();
  if (density.words.size() * 64 < n)
    throw std::invalid_argument("append_dense: a density of " + std::to_string(density.words.size() * 64) +
                                " bits for " + std::to_string(n) + " values");
  const std::size_t words = (n + 63) / 64;
  const std::size_t blocks = (words + kWordsPerBlock - 1) / kWordsPerBlock;
  std::vector<std::size_t> first(blocks + 1, 0);  // where each block's values go, after the old contents
#pragma omp parallel for schedule(static) if (blocks > 1)
  for (std::size_t b = 0; b < blocks; ++b) {
    std::size_t count = 0;
    for (std::size_t w = b * kWordsPerBlock; w < std::min(words, (b + 1) * kWordsPerBlock); ++w)
      count += static_cast<std::size_t>(__builtin_popcountll(masked_word(density, w, n)));
    first[b + 1] = count;
  }
  first[0] = out.size();
  for (std::size_t b = 0; b < blocks; ++b) first[b + 1] += first[b];
  out.resize(first[blocks]);
#pragma omp parallel for schedule(static) if (blocks > 1)
  for (std::size_t b = 0; b < blocks; ++b) {
    std::size_t at = first[b];
    for (std::size_t w = b * kWordsPerBlock; w < std::min(words, (b + 1) * kWordsPerBlock); ++w) {
      for (std::uint64_t word = masked_word(density, w, n); word; word &= word - 1)
        out[at++] = values[64 * w + static_cast<std::size_t>(__builtin_ctzll(word))];
    }
  }
}

r1cs::DensityBits concat_density(const r1cs::DensityBits* inputs, std::size_t input_count,
                                 const r1cs::DensityBits& aux, std::size_t aux_count) {
  if ((inputs && inputs->words.size() * 64 < input_count) || aux.words.size() * 64 < aux_count)
    throw std::invalid_argument("concat_density: a density shorter than its part of the witness");
  r1cs::DensityBits z;
  z.resize(input_count + aux_count);
  for (std::size_t i = 0; i < input_count; ++i)
    if (!inputs || inputs->test(i)) z.set(i);
  // The aux bits shifted by input_count, a word at a time.
  const unsigned shift = input_count % 64;
  const std::size_t first_word = input_count / 64;
  const std::size_t aux_words = (aux_count + 63) / 64;
  for (std::size_t w = 0; w < aux_words; ++w) {
    std::uint64_t word = aux.words[w];
    const std::size_t valid = aux_count - 64 * w;
    if (valid < 64) word &= (std::uint64_t{1} << valid) - 1;
    z.words[first_word + w] |= word << shift;
    if (shift != 0 && first_word + w + 1 < z.words.size())
      z.words[first_word + w + 1] |= word >> (64 - shift);
  }
  return z;
}

std::vector<std::uint32_t> density_word_offsets(const r1cs::DensityBits& density, std::size_t count) {
  if (density.words.size() * 64 < count)
    throw std::invalid_argument("density_word_offsets: a density of " +
                                std::to_string(density.words.size() * 64) + " bits for " +
                                std::to_string(count) + " values");
  const std::size_t words = (count + 63) / 64;
  std::vector<std::uint32_t> offsets(words + 1, 0);
  std::uint64_t total = 0;
  for (std::size_t w = 0; w < words; ++w) {
    offsets[w] = static_cast<std::uint32_t>(total);
    total += static_cast<std::uint64_t>(__builtin_popcountll(masked_word(density, w, count)));
  }
  if (total > UINT32_MAX) throw std::invalid_argument("density_word_offsets: more than 2^32 - 1 set bits");
  offsets[words] = static_cast<std::uint32_t>(total);
  return offsets;
}

}  // namespace cuzk::groth16
