// The ChaCha generators the PoRep graph and synthetic challenges use, and Filecoin's trimming of digests.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "prover/hash/hash.hpp"

namespace cuzk::porep {

// The hashes themselves live in prover/hash/hash.hpp.
using hash::Digest32;
using hash::blake2b256_keyed;
using hash::blake2b512;
using hash::sha256;

// rfp trim_to_fr32 / bytes_into_fr_repr_safe: clear the two top bits so the LE value is < 2^254 < r.
inline void trim_to_fr32(Digest32& d) { d[31] &= 0x3f; }

// The ChaCha block function with `rounds` rounds (8 for rand_chacha's ChaCha8Rng, 20 for IETF
// ChaCha20), over the standard 16-word state: constants, 8 key words, then words 12..15.
void chacha_block(const std::uint32_t key[8], const std::uint32_t words12_15[4], int rounds, std::uint32_t out[16]);

// rand_chacha 0.3 ChaCha8Rng::from_seed(seed) with stream 0: a 64-bit block counter in words 12-13,
// output words read little-endian; next_u64 = low word | high word << 32 (BlockRng over 64-word
// results, so u64 draws never straddle a refill when started at index 0).
class ChaCha8Rng {
 public:
  explicit ChaCha8Rng(const std::array<std::uint8_t, 32>& seed);
  std::uint64_t next_u64();
  std::uint32_t next_u32();

 private:
  void refill();
  std::uint32_t key_[8];
  std::uint64_t counter_ = 0;
  std::uint32_t buffer_[16];
  unsigned index_ = 16;
};

}  // namespace cuzk::porep
