#include "prover/groth16/dense_gather.hpp"

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

}  // namespace cuzk::groth16
