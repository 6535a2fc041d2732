#include "prover/hash/hash.hpp"

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include <cstring>
#include <stdexcept>
#include <string>

namespace cuzk::hash {

namespace {

void check(int ok, const char* what) {
  if (ok != 1) throw std::runtime_error(std::string("OpenSSL failure: ") + what);
}

EVP_MD_CTX* new_context(const EVP_MD* md, const char* what) {
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  if (ctx == nullptr) throw std::runtime_error("OpenSSL: cannot allocate a digest context");
  if (EVP_DigestInit_ex(ctx, md, nullptr) != 1) {
    EVP_MD_CTX_free(ctx);
    check(0, what);
  }
  return ctx;
}

template <std::size_t N>
std::array<std::uint8_t, N> finish_and_restart(EVP_MD_CTX* ctx, const EVP_MD* md, const char* what) {
  std::array<std::uint8_t, N> out{};
  unsigned len = 0;
  check(EVP_DigestFinal_ex(ctx, out.data(), &len) == 1 && len == N, what);
  check(EVP_DigestInit_ex(ctx, md, nullptr), what);
  return out;
}

}  // namespace

Sha256::Sha256() : ctx_(new_context(EVP_sha256(), "sha256 init")) {}
Sha256::~Sha256() {
  EVP_MD_CTX_free(ctx_);
}
void Sha256::update(std::span<const std::uint8_t> bytes) {
  if (!bytes.empty()) check(EVP_DigestUpdate(ctx_, bytes.data(), bytes.size()), "sha256 update");
}
Digest32 Sha256::finish() {
  return finish_and_restart<32>(ctx_, EVP_sha256(), "sha256 final");
}

Blake2b512::Blake2b512() : ctx_(new_context(EVP_blake2b512(), "blake2b init")) {}
Blake2b512::~Blake2b512() {
  EVP_MD_CTX_free(ctx_);
}
void Blake2b512::update(std::span<const std::uint8_t> bytes) {
  if (!bytes.empty()) check(EVP_DigestUpdate(ctx_, bytes.data(), bytes.size()), "blake2b update");
}
Digest64 Blake2b512::finish() {
  return finish_and_restart<64>(ctx_, EVP_blake2b512(), "blake2b final");
}

Digest32 sha256(std::initializer_list<std::span<const std::uint8_t>> pieces) {
  // One context per thread: EVP_MD_CTX_new per hash costs more than a short hash.
  thread_local Sha256 h;
  for (auto piece : pieces) h.update(piece);
  return h.finish();
}

Digest32 sha256(std::span<const std::uint8_t> data) {
  return sha256({data});
}

Digest32 sha256(std::string_view text) {
  return sha256({bytes_of(text)});
}

namespace {

// BLAKE2b (RFC 7693) for messages of at most one 128-byte block: the Feistel network hashes
// 16-byte messages millions of times, where OpenSSL's per-call overhead dominates.
std::array<std::uint8_t, 64> blake2b512_one_block(std::span<const std::uint8_t> data) {
  // RFC 7693 section 2.6: the SHA-512 initial hash values.
  static constexpr std::uint64_t kIv[8] = {0x6a09e667f3bcc908, 0xbb67ae8584caa73b, 0x3c6ef372fe94f82b,
                                           0xa54ff53a5f1d36f1, 0x510e527fade682d1, 0x9b05688c2b3e6c1f,
                                           0x1f83d9abfb41bd6b, 0x5be0cd19137e2179};
  // RFC 7693 section 2.7: message schedule SIGMA (rounds 10 and 11 repeat rounds 0 and 1).
  static constexpr std::uint8_t kSigma[12][16] = {{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
                                                  {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
                                                  {11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4},
                                                  {7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8},
                                                  {9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13},
                                                  {2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9},
                                                  {12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11},
                                                  {13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10},
                                                  {6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5},
                                                  {10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0},
                                                  {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
                                                  {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3}};
  std::uint64_t h[8];
  for (int i = 0; i < 8; ++i) h[i] = kIv[i];
  h[0] ^= 0x01010000 ^ 64;  // parameter block: fanout 1, depth 1, no key, 64-byte digest
  std::uint8_t block[128] = {};
  std::memcpy(block, data.data(), data.size());
  std::uint64_t m[16];
  for (int i = 0; i < 16; ++i) {
    m[i] = 0;
    for (int b = 0; b < 8; ++b) m[i] |= static_cast<std::uint64_t>(block[8 * i + b]) << (8 * b);
  }
  std::uint64_t v[16];
  for (int i = 0; i < 8; ++i) {
    v[i] = h[i];
    v[i + 8] = kIv[i];
  }
  v[12] ^= data.size();  // byte counter (low word)
  v[14] = ~v[14];        // final block flag
  auto rotr = [](std::uint64_t x, int n) { return (x >> n) | (x << (64 - n)); };
  auto g = [&](int a, int b, int c, int d, std::uint64_t x, std::uint64_t y) {
    v[a] = v[a] + v[b] + x;
    v[d] = rotr(v[d] ^ v[a], 32);
    v[c] = v[c] + v[d];
    v[b] = rotr(v[b] ^ v[c], 24);
    v[a] = v[a] + v[b] + y;
    v[d] = rotr(v[d] ^ v[a], 16);
    v[c] = v[c] + v[d];
    v[b] = rotr(v[b] ^ v[c], 63);
  };
  for (int r = 0; r < 12; ++r) {
    const std::uint8_t* s = kSigma[r];
    g(0, 4, 8, 12, m[s[0]], m[s[1]]);
    g(1, 5, 9, 13, m[s[2]], m[s[3]]);
    g(2, 6, 10, 14, m[s[4]], m[s[5]]);
    g(3, 7, 11, 15, m[s[6]], m[s[7]]);
    g(0, 5, 10, 15, m[s[8]], m[s[9]]);
    g(1, 6, 11, 12, m[s[10]], m[s[11]]);
    g(2, 7, 8, 13, m[s[12]], m[s[13]]);
    g(3, 4, 9, 14, m[s[14]], m[s[15]]);
  }
  std::array<std::uint8_t, 64> out;
  for (int i = 0; i < 8; ++i) {
    std::uint64_t word = h[i] ^ v[i] ^ v[i + 8];
    for (int b = 0; b < 8; ++b) out[8 * i + b] = static_cast<std::uint8_t>(word >> (8 * b));
  }
  return out;
}

}  // namespace

Digest64 blake2b512(std::span<const std::uint8_t> data) {
  if (data.size() <= 128) return blake2b512_one_block(data);
  thread_local Blake2b512 h;
  h.update(data);
  return h.finish();
}

Digest32 blake2b256_keyed(std::span<const std::uint8_t> key, std::span<const std::uint8_t> data) {
  // OpenSSL 3: the BLAKE2BMAC MAC with a 32-byte output is keyed BLAKE2b-256 (RFC 7693 keying).
  EVP_MAC* mac = EVP_MAC_fetch(nullptr, "BLAKE2BMAC", nullptr);
  if (!mac) throw std::runtime_error("OpenSSL: BLAKE2BMAC unavailable");
  EVP_MAC_CTX* ctx = EVP_MAC_CTX_new(mac);
  std::size_t out_size = 32;
  OSSL_PARAM params[] = {OSSL_PARAM_construct_size_t(OSSL_MAC_PARAM_SIZE, &out_size),
                         OSSL_PARAM_construct_end()};
  Digest32 out;
  std::size_t len = 0;
  int ok = EVP_MAC_init(ctx, key.data(), key.size(), params) == 1 &&
           EVP_MAC_update(ctx, data.data(), data.size()) == 1 &&
           EVP_MAC_final(ctx, out.data(), &len, out.size()) == 1;
  EVP_MAC_CTX_free(ctx);
  EVP_MAC_free(mac);
  if (!ok || len != 32) throw std::runtime_error("OpenSSL: keyed BLAKE2b failed");
  return out;
}

}  // namespace cuzk::hash
