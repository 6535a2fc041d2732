// The byte-string hashes of the project, each written once: SHA-256 and BLAKE2b (OpenSSL underneath,
// with a one-block BLAKE2b fast path). prover/porep (graph seeds, challenges, replica_id, labels, parameter
// file names and digests), prover/gadgets (native Merkle trees) and pce/ (cache checksums) use them.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string_view>

struct evp_md_ctx_st;

namespace cuzk::hash {

using Digest32 = std::array<std::uint8_t, 32>;
using Digest64 = std::array<std::uint8_t, 64>;

// Incremental SHA-256 (SHA-NI where the CPU has it). finish() returns the digest and starts over.
class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  void update(std::span<const std::uint8_t> bytes);
  void update(const void* data, std::size_t size) { update({static_cast<const std::uint8_t*>(data), size}); }
  Digest32 finish();

 private:
  evp_md_ctx_st* ctx_;
};

// Incremental BLAKE2b with a 64-byte output (files of tens of GiB are hashed through it).
class Blake2b512 {
 public:
  Blake2b512();
  ~Blake2b512();
  Blake2b512(const Blake2b512&) = delete;
  Blake2b512& operator=(const Blake2b512&) = delete;
  void update(std::span<const std::uint8_t> bytes);
  Digest64 finish();

 private:
  evp_md_ctx_st* ctx_;
};

Digest32 sha256(std::span<const std::uint8_t> data);
// SHA-256 over several pieces, without concatenating them first.
Digest32 sha256(std::initializer_list<std::span<const std::uint8_t>> pieces);
Digest32 sha256(std::string_view text);

// BLAKE2b-512 of a short message (one 128-byte block hashed without OpenSSL's per-call cost: the Feistel
// network of the PoRep graph hashes 16-byte messages millions of times).
Digest64 blake2b512(std::span<const std::uint8_t> data);
// Keyed BLAKE2b with a 32-byte digest (blake2b_simd Params::new().hash_length(32).key(key)).
Digest32 blake2b256_keyed(std::span<const std::uint8_t> key, std::span<const std::uint8_t> data);

inline std::span<const std::uint8_t> bytes_of(std::string_view s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

}  // namespace cuzk::hash
