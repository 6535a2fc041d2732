// XXH64 (Yann Collet's xxHash, 64-bit variant, as specified in xxhash's doc/xxhash_spec.md), streaming:
// the PCE cache file's per-chunk checksum. It runs at memory speed (~10 GB/s per core), where SHA-256
// manages ~1.8 GB/s on the dev VM, and loading a cache is bounded by decompression and checksums. It
// guards against accidental corruption, as the rest of the file format does (nothing in a cache file is
// authenticated: whoever can write the cache directory can write a valid cache). zstd's frame checksum
// is the low 32 bits of the same function, which the tests use as an independent reference.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace cuzk::pce {

class Xxh64 {
 public:
  explicit Xxh64(std::uint64_t seed = 0) { reset(seed); }

  void reset(std::uint64_t seed = 0) {
    v_[0] = seed + kP1 + kP2;
    v_[1] = seed + kP2;
    v_[2] = seed;
    v_[3] = seed - kP1;
    seed_ = seed;
    total_ = 0;
    buffered_ = 0;
  }

  void update(const void* data, std::size_t size) {
    if (size == 0) return;  // data may then be null (an empty vector), which memcpy must not get
    const auto* p = static_cast<const std::uint8_t*>(data);
    total_ += size;
    if (buffered_ + size < 32) {
      std::memcpy(buffer_ + buffered_, p, size);
      buffered_ += size;
      return;
    }
    if (buffered_ > 0) {
      const std::size_t fill = 32 - buffered_;
      std::memcpy(buffer_ + buffered_, p, fill);
      stripe(buffer_);
      p += fill;
      size -= fill;
      buffered_ = 0;
    }
    for (; size >= 32; p += 32, size -= 32) stripe(p);
    std::memcpy(buffer_, p, size);
    buffered_ = size;
  }

  std::uint64_t digest() const {
    std::uint64_t h;
    if (total_ >= 32) {
      h = rotl(v_[0], 1) + rotl(v_[1], 7) + rotl(v_[2], 12) + rotl(v_[3], 18);
      for (std::uint64_t v : v_) h = (h ^ round(0, v)) * kP1 + kP4;
    } else {
      h = seed_ + kP5;
    }
    h += total_;
    const std::uint8_t* p = buffer_;
    std::size_t left = buffered_;
    for (; left >= 8; p += 8, left -= 8) h = rotl(h ^ round(0, read64(p)), 27) * kP1 + kP4;
    if (left >= 4) {
      h = rotl(h ^ (std::uint64_t{read32(p)} * kP1), 23) * kP2 + kP3;
      p += 4;
      left -= 4;
    }
    for (; left > 0; ++p, --left) h = rotl(h ^ (*p * kP5), 11) * kP1;
    h ^= h >> 33;
    h *= kP2;
    h ^= h >> 29;
    h *= kP3;
    h ^= h >> 32;
    return h;
  }

  static std::uint64_t of(const void* data, std::size_t size, std::uint64_t seed = 0) {
    Xxh64 h(seed);
    h.update(data, size);
    return h.digest();
  }

 private:
  // The five primes of the specification.
  static constexpr std::uint64_t kP1 = 0x9E3779B185EBCA87ULL;
  static constexpr std::uint64_t kP2 = 0xC2B2AE3D27D4EB4FULL;
  static constexpr std::uint64_t kP3 = 0x165667B19E3779F9ULL;
  static constexpr std::uint64_t kP4 = 0x85EBCA77C2B2AE63ULL;
  static constexpr std::uint64_t kP5 = 0x27D4EB2F165667C5ULL;

  static std::uint64_t rotl(std::uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }
  static std::uint64_t round(std::uint64_t acc, std::uint64_t input) {
    return rotl(acc + input * kP2, 31) * kP1;
  }
  static std::uint64_t read64(const std::uint8_t* p) {
    std::uint64_t v;
    std::memcpy(&v, p, 8);  // little-endian host (static_assert in cache_file.cpp)
    return v;
  }
  static std::uint32_t read32(const std::uint8_t* p) {
    std::uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
  }
  void stripe(const std::uint8_t* p) {
    v_[0] = round(v_[0], read64(p));
    v_[1] = round(v_[1], read64(p + 8));
    v_[2] = round(v_[2], read64(p + 16));
    v_[3] = round(v_[3], read64(p + 24));
  }

  std::uint64_t v_[4];
  std::uint64_t seed_ = 0;
  std::uint64_t total_ = 0;
  std::uint8_t buffer_[32];
  std::size_t buffered_ = 0;
};

}  // namespace cuzk::pce
