#include "prover/porep/hashing.hpp"

#include <cstring>
#include <memory>
#include <stdexcept>

namespace cuzk::porep {

namespace {
std::uint32_t rotl(std::uint32_t x, int n) { return (x << n) | (x >> (32 - n)); }

void quarter_round(std::uint32_t* s, int a, int b, int c, int d) {
  s[a] += s[b]; s[d] ^= s[a]; s[d] = rotl(s[d], 16);
  s[c] += s[d]; s[b] ^= s[c]; s[b] = rotl(s[b], 12);
  s[a] += s[b]; s[d] ^= s[a]; s[d] = rotl(s[d], 8);
  s[c] += s[d]; s[b] ^= s[c]; s[b] = rotl(s[b], 7);
}

std::uint32_t load_le32(const std::uint8_t* p) {
  return static_cast<std::uint32_t>(p[0]) | static_cast<std::uint32_t>(p[1]) << 8 |
         static_cast<std::uint32_t>(p[2]) << 16 | static_cast<std::uint32_t>(p[3]) << 24;
}

}  // namespace

void chacha_block(const std::uint32_t key[8], const std::uint32_t words12_15[4], int rounds, std::uint32_t out[16]) {
  // "expand 32-byte k" (RFC 8439 section 2.3).
  std::uint32_t state[16] = {0x61707865, 0x3320646e, 0x79622d32, 0x6b206574};
  for (int i = 0; i < 8; ++i) state[4 + i] = key[i];
  for (int i = 0; i < 4; ++i) state[12 + i] = words12_15[i];
  std::uint32_t s[16];
  for (int i = 0; i < 16; ++i) s[i] = state[i];
  for (int r = 0; r < rounds; r += 2) {
    quarter_round(s, 0, 4, 8, 12);
    quarter_round(s, 1, 5, 9, 13);
    quarter_round(s, 2, 6, 10, 14);
    quarter_round(s, 3, 7, 11, 15);
    quarter_round(s, 0, 5, 10, 15);
    quarter_round(s, 1, 6, 11, 12);
    quarter_round(s, 2, 7, 8, 13);
    quarter_round(s, 3, 4, 9, 14);
  }
  for (int i = 0; i < 16; ++i) out[i] = s[i] + state[i];
}

ChaCha8Rng::ChaCha8Rng(const std::array<std::uint8_t, 32>& seed) {
  for (int i = 0; i < 8; ++i) key_[i] = load_le32(seed.data() + 4 * i);
}

void ChaCha8Rng::refill() {
  std::uint32_t words[4] = {static_cast<std::uint32_t>(counter_), static_cast<std::uint32_t>(counter_ >> 32), 0, 0};
  chacha_block(key_, words, 8, buffer_);
  ++counter_;
  index_ = 0;
}

std::uint32_t ChaCha8Rng::next_u32() {
  if (index_ >= 16) refill();
  return buffer_[index_++];
}

std::uint64_t ChaCha8Rng::next_u64() {
  std::uint64_t low = next_u32();
  std::uint64_t high = next_u32();
  return low | (high << 32);
}

}  // namespace cuzk::porep
