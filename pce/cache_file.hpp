// The PCE cache file: a CompactR1cs, zstd-compressed, behind a checksummed header.
//
// Layout (all integers little-endian):
//   [0, 320)          header (below)
//   [320, 320 + D)    the circuit description (D bytes of text; its SHA-256 is the circuit id)
//   body              num_chunks independent zstd frames, one per chunk_bytes of content (the last may
//                     be shorter), back to back
//   index             num_chunks entries of 40 bytes: u64 file offset, u64 compressed size,
//                     u64 uncompressed size, u64 XXH64 of the compressed bytes, u64 XXH64 of the content
//   (end of file = file_size)
//
// Header: magic "CUZKPCE\0" | u32 format version | u32 header size (320) | circuit id (32)
//   | u64 constraints, inputs (incl. ONE), aux | u64 nnz of A, B, C | u64 table values
//   | u64 popcounts of the densities a_aux, b_input, b_aux | u64 content bytes | u64 chunk bytes
//   | u64 chunks | u64 description bytes | u64 file size | u32 zstd level | u32 zero
//   | content digest (32): SHA-256 over the chunks' content XXH64s (u64 each), in order
//   | index digest (32): SHA-256 of description || index | 48 zero bytes
//   | header digest (32): SHA-256 of header bytes [0, 288)
// Content (the uncompressed stream the chunks cut): the coefficient table (32-byte canonical
// little-endian values), then for A, B, C: row offsets (u32), columns (u32), codes (u16), then the
// density words (u64) of a_aux, b_input, b_aux.
//
// Every byte is covered: the header by its SHA-256, the description and index by the index SHA-256, each
// compressed frame by its XXH64, and the decompressed content again by the content XXH64s (which also
// guard against a decoder fault). XXH64 (pce/xxhash64.hpp) instead of SHA-256 for the bulk: loading is
// bounded by decompression and checksums, and SHA-256 ran at 1.8 GB/s where XXH64 runs at memory speed.
// A file shorter or longer than file_size is reported as such.
//
// Independent frames let reading decompress and hash the chunks in parallel, straight into the final
// vectors (each thread preads its frames into one reusable buffer: no mapping of the whole file); writing
// compresses chunks in parallel (one ZSTD_compressStream2 stream per thread, each reading the in-memory
// matrices in place) and writes them in order through a bounded set of per-thread buffers, so the content is
// never held twice (compressed memory: threads x compressBound(chunk)). zstd's own ZSTD_c_nbWorkers would
// parallelize inside one frame only, and leave hashing and decompression sequential.
//
// Writing is atomic: a temporary file in the target directory, fsync, rename over the target, fsync of
// the directory. Two processes writing the same cache at once each write their own temporary file and
// the last rename wins; both files are complete and equal, so a reader sees an old complete file, or a
// new complete file, never a mixture (a reader that opened the old file keeps reading it after a rename).
// No lock: two builders at once only cost the duplicated work.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "pce/compact_r1cs.hpp"
#include "prover/hash/hash.hpp"

namespace cuzk::pce {

inline constexpr std::array<char, 8> kMagic = {'C', 'U', 'Z', 'K', 'P', 'C', 'E', '\0'};
inline constexpr std::uint32_t kFormatVersion = 1;
inline constexpr std::size_t kHeaderSize = 320;
inline constexpr std::size_t kIndexEntrySize = 40;
inline constexpr std::size_t kMaxDescriptionBytes = 64 * 1024;

using Digest = hash::Digest32;

// The circuit id: SHA-256 of the canonical description string of everything that defines the
// circuit's shape (the caller writes it, e.g. "stacked-drg v1 nodes=64 layers=2 challenges=2 arities=8-0-0").
inline Digest circuit_id(std::string_view description) {
  return hash::sha256(description);
}

struct CacheHeader {
  std::uint32_t format_version = kFormatVersion;
  Digest circuit_id{};
  std::string description;
  std::uint64_t num_constraints = 0, num_inputs = 0, num_aux = 0;
  std::uint64_t nnz_a = 0, nnz_b = 0, nnz_c = 0;
  std::uint64_t table_size = 0;
  std::uint64_t density_a_aux = 0, density_b_input = 0, density_b_aux = 0;  // popcounts
  std::uint64_t content_bytes = 0;
  std::uint64_t chunk_bytes = 0;
  std::uint64_t num_chunks = 0;
  std::uint64_t file_size = 0;
  std::uint32_t compression_level = 0;
  Digest content_digest{};
  Digest index_digest{};
  Digest header_digest{};

  std::uint64_t body_offset() const { return kHeaderSize + description.size(); }
  std::uint64_t index_offset() const { return file_size - num_chunks * kIndexEntrySize; }
  std::uint64_t compressed_bytes() const { return index_offset() - body_offset(); }
};

struct WriteOptions {
  // zstd level 1: on the 2KiB PCE it compresses 1.9x faster than level 3 (360 vs 190 MB/s per thread on
  // the dev VM) and decompresses faster (1.3 vs 1.1 GB/s), for a 4% larger file (ratio 2.70 vs 2.80).
  int compression_level = 1;
  // Uncompressed bytes per frame, the unit of parallelism: 354 frames for the 32GiB PCE, and frames large
  // enough that the ratio is the whole content's (2.70 at 2KiB with zstd -b on the whole).
  std::size_t chunk_bytes = 16u << 20;
  unsigned threads = 0;  // 0: OpenMP's default
};

// Writes `pce` to `path` atomically (see above) and returns the header written. Throws PceError
// (kIo naming the file, kLimits for an over-long description).
CacheHeader write_cache_file(const std::filesystem::path& path, const CompactR1cs& pce,
                             std::string_view description, const WriteOptions& options = {});

// Reads and checks the header only: magic, format version, header digest, and the file's size against
// it. Throws PceError (kMissing, kNotACache, kVersion, kTruncated, kCorrupt, kIo), naming the file.
CacheHeader read_cache_header(const std::filesystem::path& path);

// Reads the whole file and verifies everything: header, circuit id (against `expected_description` when
// given: kOtherCircuit), index, every chunk's digests, the content digest, the structure (validate())
// and the density popcounts. Decompresses straight into the returned vectors, in parallel.
CompactR1cs read_cache_file(const std::filesystem::path& path,
                            const std::optional<std::string_view>& expected_description = std::nullopt,
                            unsigned threads = 0, CacheHeader* header_out = nullptr);

}  // namespace cuzk::pce
