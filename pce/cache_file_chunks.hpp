// The chunks of a PCE cache file (pce/cache_file.hpp): the content stream as byte ranges of the in-memory
// arrays, and the zstd compression and decompression of one chunk of it. Internal to pce/cache_file.cpp.
#pragma once

#include <zstd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "pce/compact_r1cs.hpp"
#include "pce/xxhash64.hpp"

namespace cuzk::pce::detail {

// The content stream as a list of byte ranges of the in-memory arrays (no copy).
struct Segment {
  std::uint8_t* data;
  std::size_t size;
};

// The segments of the content stream, in file order: the coefficient table (`table_bytes`, its values
// encoded), then A, B, C (row offsets, columns, codes), then the density words.
std::vector<Segment> content_segments(const CompactR1cs& pce, const std::vector<std::uint8_t>& table_bytes);

struct CCtxDeleter {
  void operator()(ZSTD_CCtx* c) const { ZSTD_freeCCtx(c); }
};
struct DCtxDeleter {
  void operator()(ZSTD_DCtx* d) const { ZSTD_freeDCtx(d); }
};

// Throws PceError (kIo, naming the file and `what`) when `rc` is a zstd error code.
void check_zstd(std::size_t rc, const std::filesystem::path& path, const char* what);

// Compresses content bytes [begin, end) into one frame in `out` (grown as needed); returns its size.
std::size_t compress_chunk(ZSTD_CCtx* cctx, const std::vector<Segment>& segments, std::uint64_t begin,
                           std::uint64_t end, std::vector<std::uint8_t>& out, Xxh64& content_hash,
                           const std::filesystem::path& path);

// Decompresses one frame into content bytes [begin, begin + size) of `segments`, hashing the content
// as it comes out. Returns what is wrong with the frame, or an empty string.
std::string decompress_chunk(ZSTD_DCtx* dctx, Xxh64& hash, std::span<const std::uint8_t> compressed,
                             const std::vector<Segment>& segments, std::uint64_t begin, std::uint64_t size);

}  // namespace cuzk::pce::detail
