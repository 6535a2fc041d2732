// Native SHA-256 (FIPS 180-4) and Filecoin's trimmed variant.
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "prover/hash/hash.hpp"

namespace cuzk::gadgets::native {

using Sha256Digest = hash::Digest32;
using Sha256Words = std::array<std::uint32_t, 8>;

// SHA-256 of a byte string: prover/hash/hash.hpp.
using hash::sha256;

// rust-fil-proofs Sha256Domain::trim_to_fr32 applied to sha256(data): digest[31] &= 0b0011_1111, so the
// digest read as a little-endian integer is < 2^254 (filecoin-hashers/src/sha256.rs, Sha256Function).
Sha256Digest sha256_trimmed(std::span<const std::uint8_t> data);

// The FIPS 180-4 §5.3.3 initial hash value.
Sha256Words sha256_iv_words();

// One application of the compression function to a 64-byte block, without padding (own implementation,
// FIPS 180-4 §6.2.2). state is updated in place.
void sha256_compress(Sha256Words& state, std::span<const std::uint8_t, 64> block);

// The digest bytes of a state (each word big-endian).
Sha256Digest sha256_words_to_digest(const Sha256Words& state);

}  // namespace cuzk::gadgets::native
