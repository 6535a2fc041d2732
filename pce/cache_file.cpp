// The PCE cache file (pce/cache_file.hpp): its header encoded and parsed with every check, the chunks
// compressed and written in parallel, and read back, checked and decompressed in parallel.
#include "pce/cache_file.hpp"

#include <fcntl.h>
#include <omp.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cerrno>
#include <cstring>
#include <exception>
#include <fstream>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

#include "io/atomic_file.hpp"
#include "io/io_error.hpp"
#include "io/mapped_file.hpp"
#include "pce/cache_file_chunks.hpp"
#include "pce/errors.hpp"
#include "pce/xxhash64.hpp"
#include "prover/algebra/hex_bytes.hpp"

namespace cuzk::pce {

static_assert(std::endian::native == std::endian::little,
              "the cache file stores the in-memory arrays as they are");

namespace {

namespace fs = std::filesystem;

using detail::CCtxDeleter;
using detail::check_zstd;
using detail::compress_chunk;
using detail::content_segments;
using detail::DCtxDeleter;
using detail::decompress_chunk;
using detail::Segment;
using hash::Sha256;

// ---------------------------------------------------------------------------------------------------------
// Little-endian field access on byte buffers.
void put_u32(std::uint8_t* p, std::uint32_t v) {
  std::memcpy(p, &v, 4);
}
void put_u64(std::uint8_t* p, std::uint64_t v) {
  std::memcpy(p, &v, 8);
}
std::uint32_t get_u32(const std::uint8_t* p) {
  std::uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
std::uint64_t get_u64(const std::uint8_t* p) {
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

// Header field offsets (cache_file.hpp documents the layout).
namespace off {
constexpr std::size_t kMagic = 0, kVersion = 8, kHeaderSize = 12, kCircuitId = 16, kNumConstraints = 48,
                      kNumInputs = 56, kNumAux = 64, kNnzA = 72, kNnzB = 80, kNnzC = 88, kTableSize = 96,
                      kDensityAAux = 104, kDensityBInput = 112, kDensityBAux = 120, kContentBytes = 128,
                      kChunkBytes = 136, kNumChunks = 144, kDescriptionBytes = 152, kFileSize = 160,
                      kLevel = 168, kReserved32 = 172, kContentDigest = 176, kIndexDigest = 208,
                      kReserved = 240, kHeaderDigest = 288;
}  // namespace off
static_assert(off::kHeaderDigest + 32 == kHeaderSize);

std::array<std::uint8_t, kHeaderSize> encode_header(const CacheHeader& h) {
  std::array<std::uint8_t, kHeaderSize> b{};
  std::memcpy(b.data() + off::kMagic, kMagic.data(), kMagic.size());
  put_u32(b.data() + off::kVersion, h.format_version);
  put_u32(b.data() + off::kHeaderSize, static_cast<std::uint32_t>(kHeaderSize));
  std::memcpy(b.data() + off::kCircuitId, h.circuit_id.data(), 32);
  put_u64(b.data() + off::kNumConstraints, h.num_constraints);
  put_u64(b.data() + off::kNumInputs, h.num_inputs);
  put_u64(b.data() + off::kNumAux, h.num_aux);
  put_u64(b.data() + off::kNnzA, h.nnz_a);
  put_u64(b.data() + off::kNnzB, h.nnz_b);
  put_u64(b.data() + off::kNnzC, h.nnz_c);
  put_u64(b.data() + off::kTableSize, h.table_size);
  put_u64(b.data() + off::kDensityAAux, h.density_a_aux);
  put_u64(b.data() + off::kDensityBInput, h.density_b_input);
  put_u64(b.data() + off::kDensityBAux, h.density_b_aux);
  put_u64(b.data() + off::kContentBytes, h.content_bytes);
  put_u64(b.data() + off::kChunkBytes, h.chunk_bytes);
  put_u64(b.data() + off::kNumChunks, h.num_chunks);
  put_u64(b.data() + off::kDescriptionBytes, h.description.size());
  put_u64(b.data() + off::kFileSize, h.file_size);
  put_u32(b.data() + off::kLevel, h.compression_level);
  std::memcpy(b.data() + off::kContentDigest, h.content_digest.data(), 32);
  std::memcpy(b.data() + off::kIndexDigest, h.index_digest.data(), 32);
  const Digest hd = hash::sha256(std::span<const std::uint8_t>(b.data(), off::kHeaderDigest));
  std::memcpy(b.data() + off::kHeaderDigest, hd.data(), 32);
  return b;
}

std::uint64_t words_for(std::uint64_t bits) {
  return (bits + 63) / 64;
}

// Content bytes implied by the counts (each count already bounded, so no overflow).
std::uint64_t content_size(std::uint64_t constraints, std::uint64_t inputs, std::uint64_t aux,
                           std::uint64_t nnz_a, std::uint64_t nnz_b, std::uint64_t nnz_c,
                           std::uint64_t table) {
  return table * 32 + 3 * (constraints + 1) * 4 + (nnz_a + nnz_b + nnz_c) * 6 +
         (2 * words_for(aux) + words_for(inputs)) * 8;
}

// ---------------------------------------------------------------------------------------------------------
std::string errno_text(int err) {
  return std::strerror(err);
}

[[noreturn]] void io_fail(const fs::path& path, const std::string& what, int err) {
  throw PceError(PceErrorKind::kIo, path.string() + ": " + what + ": " + errno_text(err));
}

// The cache is written through io::AtomicFileWriter (temporary file, then rename); its IoError
// becomes this layer's PceError (kIo).
class WriterInPceLayer {
 public:
  explicit WriterInPceLayer(const fs::path& target) : writer_(open(target)) {}
  void pwrite_all(const std::uint8_t* data, std::size_t size, std::uint64_t offset) {
    guard([&] { writer_.pwrite({data, size}, offset); });
  }
  void commit() {
    guard([&] { writer_.commit(); });
  }

 private:
  static io::AtomicFileWriter open(const fs::path& target) {
    try {
      return io::AtomicFileWriter(target);
    } catch (const io::IoError& e) {
      throw PceError(PceErrorKind::kIo, e.what());
    }
  }
  template <class Fn>
  void guard(Fn&& fn) {
    try {
      fn();
    } catch (const io::IoError& e) {
      throw PceError(PceErrorKind::kIo, e.what());
    }
  }
  io::AtomicFileWriter writer_;
};

struct ChunkEntry {
  std::uint64_t offset = 0, compressed_size = 0, uncompressed_size = 0;
  std::uint64_t compressed_hash = 0, content_hash = 0;  // XXH64
};

void encode_entry(const ChunkEntry& e, std::uint8_t* p) {
  put_u64(p, e.offset);
  put_u64(p + 8, e.compressed_size);
  put_u64(p + 16, e.uncompressed_size);
  put_u64(p + 24, e.compressed_hash);
  put_u64(p + 32, e.content_hash);
}
ChunkEntry decode_entry(const std::uint8_t* p) {
  ChunkEntry e;
  e.offset = get_u64(p);
  e.compressed_size = get_u64(p + 8);
  e.uncompressed_size = get_u64(p + 16);
  e.compressed_hash = get_u64(p + 24);
  e.content_hash = get_u64(p + 32);
  return e;
}

// The header's content digest: SHA-256 over the chunks' content hashes (u64 little-endian), in order.
Digest content_digest_of(const std::vector<ChunkEntry>& entries) {
  std::vector<std::uint8_t> hashes(entries.size() * 8);
  for (std::size_t k = 0; k < entries.size(); ++k) put_u64(hashes.data() + 8 * k, entries[k].content_hash);
  return hash::sha256(hashes);
}

// ---------------------------------------------------------------------------------------------------------
// Reading.

[[noreturn]] void fail(PceErrorKind kind, const fs::path& path, const std::string& what) {
  throw PceError(kind, path.string() + ": " + what);
}

// A cache file opened for reading with pread (no mapping: a 2 GiB cache would take ~0.5 M page faults
// to map in, and each thread reads its chunks into its own reusable buffer).
class InputFile {
 public:
  explicit InputFile(const fs::path& path) : path_(path) {
    // stat() before open(): opening a FIFO for reading blocks until a writer comes, and a directory or
    // a device (a link to /dev/zero) is no cache either. ENOTDIR: the cache folder is a file.
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
      const int err = errno;
      if (err == ENOENT || err == ENOTDIR) fail(PceErrorKind::kMissing, path, "no such PCE cache file");
      io_fail(path, "cannot stat", err);
    }
    if (!S_ISREG(st.st_mode)) fail(PceErrorKind::kNotACache, path, io::why_not_a_regular_file(path.string()));
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);  // O_NONBLOCK: see MappedFile
    if (fd_ < 0) {
      const int err = errno;
      if (err == ENOENT) fail(PceErrorKind::kMissing, path, "no such PCE cache file");
      io_fail(path, "cannot open", err);
    }
    if (::fstat(fd_, &st) != 0) {
      const int err = errno;
      ::close(fd_);
      io_fail(path, "cannot stat", err);
    }
    if (!S_ISREG(st.st_mode)) {
      ::close(fd_);
      fail(PceErrorKind::kNotACache, path, "not a regular file");
    }
    size_ = static_cast<std::uint64_t>(st.st_size);
  }
  ~InputFile() { ::close(fd_); }
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  std::uint64_t size() const { return size_; }
  // Reads [offset, offset + size) into dst; the range lies inside the file (callers check).
  void read(std::uint64_t offset, std::size_t size, std::uint8_t* dst) const {
    std::size_t done = 0;
    while (done < size) {
      const ssize_t n = ::pread(fd_, dst + done, size - done, static_cast<off_t>(offset + done));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) io_fail(path_, "read failed", errno);
      if (n == 0) fail(PceErrorKind::kTruncated, path_, "the file shrank while it was read");
      done += static_cast<std::size_t>(n);
    }
  }
  std::vector<std::uint8_t> read(std::uint64_t offset, std::size_t size) const {
    std::vector<std::uint8_t> out(size);
    read(offset, size, out.data());
    return out;
  }

 private:
  fs::path path_;
  int fd_ = -1;
  std::uint64_t size_ = 0;
};

// Reads and checks the header, the description and the index (returned in `index`).
CacheHeader parse_header(const InputFile& in, const fs::path& path, std::vector<std::uint8_t>& index) {
  const std::vector<std::uint8_t> head =
      in.read(0, static_cast<std::size_t>(std::min<std::uint64_t>(in.size(), kHeaderSize)));
  const std::uint64_t actual_size = in.size();
  const std::uint8_t* b = head.data();
  const std::size_t magic_len = static_cast<std::size_t>(std::min<std::uint64_t>(actual_size, kMagic.size()));
  if (magic_len > 0 && std::memcmp(b, kMagic.data(), magic_len) != 0) {
    fail(PceErrorKind::kNotACache, path, "not a PCE cache file (it does not start with \"CUZKPCE\\0\")");
  }
  if (actual_size < off::kVersion + 4) {
    fail(PceErrorKind::kTruncated, path,
         "truncated: " + std::to_string(actual_size) + " bytes, shorter than the header");
  }
  CacheHeader h;
  h.format_version = get_u32(b + off::kVersion);
  if (h.format_version != kFormatVersion) {
    fail(PceErrorKind::kVersion, path,
         "PCE format version " + std::to_string(h.format_version) + "; this cuzk reads version " +
             std::to_string(kFormatVersion));
  }
  if (actual_size < kHeaderSize) {
    fail(PceErrorKind::kTruncated, path,
         "truncated: " + std::to_string(actual_size) + " bytes, shorter than the " +
             std::to_string(kHeaderSize) + "-byte header");
  }
  std::memcpy(h.header_digest.data(), b + off::kHeaderDigest, 32);
  if (hash::sha256(std::span<const std::uint8_t>(b, off::kHeaderDigest)) != h.header_digest) {
    fail(PceErrorKind::kCorrupt, path, "header checksum mismatch: the header is corrupt");
  }
  if (get_u32(b + off::kHeaderSize) != kHeaderSize)
    fail(PceErrorKind::kCorrupt, path, "header size field is wrong");
  std::memcpy(h.circuit_id.data(), b + off::kCircuitId, 32);
  h.num_constraints = get_u64(b + off::kNumConstraints);
  h.num_inputs = get_u64(b + off::kNumInputs);
  h.num_aux = get_u64(b + off::kNumAux);
  h.nnz_a = get_u64(b + off::kNnzA);
  h.nnz_b = get_u64(b + off::kNnzB);
  h.nnz_c = get_u64(b + off::kNnzC);
  h.table_size = get_u64(b + off::kTableSize);
  h.density_a_aux = get_u64(b + off::kDensityAAux);
  h.density_b_input = get_u64(b + off::kDensityBInput);
  h.density_b_aux = get_u64(b + off::kDensityBAux);
  h.content_bytes = get_u64(b + off::kContentBytes);
  h.chunk_bytes = get_u64(b + off::kChunkBytes);
  h.num_chunks = get_u64(b + off::kNumChunks);
  const std::uint64_t description_bytes = get_u64(b + off::kDescriptionBytes);
  h.file_size = get_u64(b + off::kFileSize);
  h.compression_level = get_u32(b + off::kLevel);
  std::memcpy(h.content_digest.data(), b + off::kContentDigest, 32);
  std::memcpy(h.index_digest.data(), b + off::kIndexDigest, 32);

  // The counts are checksummed, but bound them before any arithmetic or allocation depends on them.
  const bool counts_ok = h.num_constraints < (std::uint64_t{1} << 32) && h.num_inputs >= 1 &&
                         h.num_inputs + h.num_aux <= (std::uint64_t{1} << 32) &&
                         h.nnz_a <= kMaxEntriesPerMatrix && h.nnz_b <= kMaxEntriesPerMatrix &&
                         h.nnz_c <= kMaxEntriesPerMatrix && h.table_size <= kMaxTableSize &&
                         h.density_a_aux <= h.num_aux && h.density_b_aux <= h.num_aux &&
                         h.density_b_input <= h.num_inputs && description_bytes <= kMaxDescriptionBytes &&
                         h.chunk_bytes > 0 && h.num_chunks <= (std::uint64_t{1} << 32);
  if (!counts_ok) fail(PceErrorKind::kCorrupt, path, "header counts out of range");
  if (h.content_bytes !=
      content_size(h.num_constraints, h.num_inputs, h.num_aux, h.nnz_a, h.nnz_b, h.nnz_c, h.table_size)) {
    fail(PceErrorKind::kCorrupt, path, "header content size does not match its counts");
  }
  if (h.num_chunks != (h.content_bytes + h.chunk_bytes - 1) / h.chunk_bytes) {
    fail(PceErrorKind::kCorrupt, path, "header chunk count does not match the content size");
  }
  if (h.file_size < kHeaderSize + description_bytes + h.num_chunks * kIndexEntrySize) {
    fail(PceErrorKind::kCorrupt, path, "header file size too small for its own description and index");
  }
  if (actual_size != h.file_size) {
    fail(actual_size < h.file_size ? PceErrorKind::kTruncated : PceErrorKind::kCorrupt, path,
         (actual_size < h.file_size ? "truncated: " : "trailing bytes: ") + std::to_string(actual_size) +
             " bytes, the header says " + std::to_string(h.file_size));
  }
  h.description.resize(description_bytes);
  in.read(kHeaderSize, description_bytes, reinterpret_cast<std::uint8_t*>(h.description.data()));
  index = in.read(h.index_offset(), h.num_chunks * kIndexEntrySize);
  Sha256 index_hash;
  index_hash.update(h.description.data(), description_bytes);
  index_hash.update(index.data(), index.size());
  if (index_hash.finish() != h.index_digest) {
    fail(PceErrorKind::kCorrupt, path,
         "index checksum mismatch: the description or the chunk index is corrupt");
  }
  if (circuit_id(h.description) != h.circuit_id) {
    fail(PceErrorKind::kCorrupt, path, "the circuit id is not the SHA-256 of the stored description");
  }
  return h;
}

std::string describe_circuit(const std::string& description, const Digest& id) {
  return "'" + description + "' (id " + algebra::bytes_to_hex(id).substr(0, 16) + "...)";
}

// ---------------------------------------------------------------------------------------------------------
// Writing.

// The header's fields that follow from the PCE, its description and the options; the content size, the
// chunk count, the digests and the file size come later.
CacheHeader header_fields(const CompactR1cs& pce, std::string_view description, const WriteOptions& options) {
  CacheHeader h;
  h.circuit_id = circuit_id(description);
  h.description = description;
  h.num_constraints = pce.num_constraints();
  h.num_inputs = pce.num_inputs;
  h.num_aux = pce.num_aux;
  h.nnz_a = pce.a.nnz();
  h.nnz_b = pce.b.nnz();
  h.nnz_c = pce.c.nnz();
  h.table_size = pce.table.size();
  h.density_a_aux = pce.densities.a_aux.popcount();
  h.density_b_input = pce.densities.b_input.popcount();
  h.density_b_aux = pce.densities.b_aux.popcount();
  h.chunk_bytes = std::max<std::size_t>(options.chunk_bytes, 1);
  h.compression_level = static_cast<std::uint32_t>(options.compression_level);
  return h;
}

// The first exception of the threads that write the chunks; once there is one, the threads skip the work
// that is left.
class FirstException {
 public:
  // Keeps the exception being handled unless one is kept already (call it in a catch block).
  void keep_current() {
    std::lock_guard lock(mutex_);
    if (!error_) error_ = std::current_exception();
    failed_ = true;
  }
  bool failed() const { return failed_; }
  void rethrow_if_any() const {
    if (error_) std::rethrow_exception(error_);
  }

 private:
  std::mutex mutex_;
  std::exception_ptr error_;
  std::atomic<bool> failed_{false};
};

// A compression context at `level`, without zstd's frame checksum (the index holds the chunks' hashes).
std::unique_ptr<ZSTD_CCtx, CCtxDeleter> compression_context(int level, const fs::path& path) {
  std::unique_ptr<ZSTD_CCtx, CCtxDeleter> cctx(ZSTD_createCCtx());
  if (!cctx) throw PceError(PceErrorKind::kIo, path.string() + ": cannot create a zstd context");
  check_zstd(ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_compressionLevel, level), path, "level");
  check_zstd(ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_checksumFlag, 0), path, "checksum flag");
  return cctx;
}

// What writing the chunks leaves: each chunk's index entry, and the file offset after the last chunk.
struct WrittenChunks {
  std::vector<ChunkEntry> entries;
  std::uint64_t end_offset = 0;
};

// Compresses the chunks of `h` in parallel (a zstd context and an output buffer per thread) and writes them
// in order, back to back from the end of the description; rethrows the first failure once the threads are
// done.
WrittenChunks write_chunks(WriterInPceLayer& file, const std::vector<Segment>& segments, const CacheHeader& h,
                           const WriteOptions& options, const fs::path& path) {
  WrittenChunks written{std::vector<ChunkEntry>(h.num_chunks), h.body_offset()};
  std::vector<ChunkEntry>& entries = written.entries;
  std::uint64_t& write_offset = written.end_offset;
  FirstException error;
  const int threads = options.threads == 0 ? omp_get_max_threads() : static_cast<int>(options.threads);
#pragma omp parallel num_threads(threads) if (h.num_chunks > 1)
  {
    std::unique_ptr<ZSTD_CCtx, CCtxDeleter> cctx;
    Xxh64 content_hash;
    std::vector<std::uint8_t> out;
    try {
      cctx = compression_context(options.compression_level, path);
      out.resize(ZSTD_compressBound(std::min<std::uint64_t>(h.chunk_bytes, h.content_bytes)) + 64);
    } catch (...) {
      error.keep_current();
    }
#pragma omp for ordered schedule(static, 1)
    for (std::int64_t k = 0; k < static_cast<std::int64_t>(h.num_chunks); ++k) {
      std::size_t compressed = 0;
      ChunkEntry& e = entries[k];
      if (!error.failed()) {
        try {
          const std::uint64_t begin = static_cast<std::uint64_t>(k) * h.chunk_bytes;
          const std::uint64_t end = std::min(begin + h.chunk_bytes, h.content_bytes);
          content_hash.reset();
          compressed = compress_chunk(cctx.get(), segments, begin, end, out, content_hash, path);
          e.uncompressed_size = end - begin;
          e.compressed_size = compressed;
          e.content_hash = content_hash.digest();
          e.compressed_hash = Xxh64::of(out.data(), compressed);
        } catch (...) {
          error.keep_current();
        }
      }
#pragma omp ordered
      {
        if (!error.failed()) {
          try {
            e.offset = write_offset;
            file.pwrite_all(out.data(), compressed, write_offset);
            write_offset += compressed;
          } catch (...) {
            error.keep_current();
          }
        }
      }
    }
  }
  error.rethrow_if_any();
  return written;
}

// Writes the index after the chunks, then the description and, last, the header; fills in the header's
// digests and file size.
void write_index_and_header(WriterInPceLayer& file, CacheHeader& h, const WrittenChunks& chunks) {
  std::vector<std::uint8_t> index(h.num_chunks * kIndexEntrySize);
  for (std::size_t k = 0; k < chunks.entries.size(); ++k)
    encode_entry(chunks.entries[k], index.data() + k * kIndexEntrySize);
  h.content_digest = content_digest_of(chunks.entries);
  Sha256 index_hash;
  index_hash.update(h.description.data(), h.description.size());
  index_hash.update(index.data(), index.size());
  h.index_digest = index_hash.finish();
  h.file_size = chunks.end_offset + index.size();
  file.pwrite_all(index.data(), index.size(), chunks.end_offset);
  file.pwrite_all(reinterpret_cast<const std::uint8_t*>(h.description.data()), h.description.size(),
                  kHeaderSize);
  const auto header = encode_header(h);
  std::memcpy(h.header_digest.data(), header.data() + off::kHeaderDigest, 32);
  file.pwrite_all(header.data(), header.size(), 0);
}

}  // namespace

CacheHeader write_cache_file(const fs::path& path, const CompactR1cs& pce, std::string_view description,
                             const WriteOptions& options) {
  if (description.size() > kMaxDescriptionBytes) {
    throw PceError(PceErrorKind::kLimits, path.string() + ": circuit description longer than 64 KiB");
  }
  validate(pce, "PCE to write to " + path.string());
  CacheHeader h = header_fields(pce, description, options);

  std::vector<std::uint8_t> table_bytes(pce.table.size() * 32);
  for (std::size_t i = 0; i < pce.table.size(); ++i) pce.table[i].to_bytes_le(table_bytes.data() + 32 * i);
  const std::vector<Segment> segments = content_segments(pce, table_bytes);
  for (const Segment& s : segments) h.content_bytes += s.size;
  h.num_chunks = (h.content_bytes + h.chunk_bytes - 1) / h.chunk_bytes;

  WriterInPceLayer file(path);
  const WrittenChunks chunks = write_chunks(file, segments, h, options, path);
  write_index_and_header(file, h, chunks);
  file.commit();
  return h;
}

CacheHeader read_cache_header(const fs::path& path) {
  InputFile file(path);
  std::vector<std::uint8_t> index;
  return parse_header(file, path, index);
}

namespace {

// The index: chunks back to back from the end of the description to the start of the index.
std::vector<ChunkEntry> read_chunk_index(const CacheHeader& h, const std::vector<std::uint8_t>& index,
                                         const fs::path& path) {
  std::vector<ChunkEntry> entries(h.num_chunks);
  std::uint64_t expected_offset = h.body_offset();
  for (std::uint64_t k = 0; k < h.num_chunks; ++k) {
    ChunkEntry& e = entries[k];
    e = decode_entry(index.data() + k * kIndexEntrySize);
    const std::uint64_t expected_size = std::min(h.chunk_bytes, h.content_bytes - k * h.chunk_bytes);
    if (e.offset != expected_offset || e.uncompressed_size != expected_size ||
        e.compressed_size > h.index_offset() - e.offset) {
      fail(PceErrorKind::kCorrupt, path, "chunk index entry " + std::to_string(k) + " is inconsistent");
    }
    expected_offset += e.compressed_size;
  }
  if (expected_offset != h.index_offset()) {
    fail(PceErrorKind::kCorrupt, path, "the chunks do not end where the index starts");
  }
  return entries;
}

// Destination vectors of the final sizes, so that the chunks decompress straight into them; the
// coefficient table goes to `table_bytes` first (its values are checked after decompression).
CompactR1cs sized_destination(const CacheHeader& h, std::vector<std::uint8_t>& table_bytes) {
  CompactR1cs pce;
  pce.num_inputs = h.num_inputs;
  pce.num_aux = h.num_aux;
  pce.table.resize(h.table_size);
  table_bytes.resize(h.table_size * 32);
  const std::pair<CompactMatrix*, std::uint64_t> matrices[] = {
      {&pce.a, h.nnz_a}, {&pce.b, h.nnz_b}, {&pce.c, h.nnz_c}};
  for (auto [m, nnz] : matrices) {
    m->row_offsets.resize(h.num_constraints + 1);
    m->columns.resize(nnz);
    m->codes.resize(nnz);
  }
  pce.densities.a_aux.resize(h.num_aux);
  pce.densities.b_input.resize(h.num_inputs);
  pce.densities.b_aux.resize(h.num_aux);
  return pce;
}

// The checks on the decompressed whole: the content digest, canonical coefficients, the matrices'
// structure and the density popcounts of the header.
void check_content(CompactR1cs& pce, const std::vector<std::uint8_t>& table_bytes, const CacheHeader& h,
                   const std::vector<ChunkEntry>& entries, const fs::path& path) {
  if (content_digest_of(entries) != h.content_digest) {
    fail(PceErrorKind::kCorrupt, path, "content checksum mismatch");
  }
  for (std::size_t i = 0; i < pce.table.size(); ++i) {
    if (!Fr::from_bytes_le(table_bytes.data() + 32 * i, pce.table[i])) {
      fail(PceErrorKind::kCorrupt, path, "coefficient " + std::to_string(i) + " is not a canonical field element");
    }
  }
  validate(pce, path.string());
  if (pce.densities.a_aux.popcount() != h.density_a_aux || pce.densities.b_input.popcount() != h.density_b_input ||
      pce.densities.b_aux.popcount() != h.density_b_aux) {
    fail(PceErrorKind::kCorrupt, path, "density popcounts differ from the header's");
  }
}

}  // namespace

CompactR1cs read_cache_file(const fs::path& path, const std::optional<std::string_view>& expected_description,
                            unsigned threads, CacheHeader* header_out) {
  InputFile file(path);
  std::vector<std::uint8_t> index;
  CacheHeader h = parse_header(file, path, index);
  if (expected_description && circuit_id(*expected_description) != h.circuit_id) {
    fail(PceErrorKind::kOtherCircuit, path,
         "built for another circuit: " + describe_circuit(h.description, h.circuit_id) + ", expected " +
             describe_circuit(std::string(*expected_description), circuit_id(*expected_description)));
  }
  const std::vector<ChunkEntry> entries = read_chunk_index(h, index, path);
  std::vector<std::uint8_t> table_bytes;
  CompactR1cs pce = sized_destination(h, table_bytes);
  const std::vector<Segment> segments = content_segments(pce, table_bytes);

  // The frames in parallel; the error reported is the lowest chunk's.
  std::atomic<bool> failed{false};
  std::mutex error_mutex;
  struct ChunkError {
    std::uint64_t chunk;
    PceErrorKind kind;
    std::string message;
  };
  std::optional<ChunkError> first_error;
  auto report = [&](std::uint64_t k, const std::string& message, PceErrorKind kind = PceErrorKind::kCorrupt) {
    std::lock_guard lock(error_mutex);
    if (!first_error || k < first_error->chunk) first_error = ChunkError{k, kind, message};
    failed = true;
  };
  const int num_threads = threads == 0 ? omp_get_max_threads() : static_cast<int>(threads);
#pragma omp parallel num_threads(num_threads) if (h.num_chunks > 1)
  {
    std::unique_ptr<ZSTD_DCtx, DCtxDeleter> dctx(ZSTD_createDCtx());
    Xxh64 hash;
    std::vector<std::uint8_t> compressed;  // this thread's chunk buffer, reused
    if (!dctx) report(0, "cannot create a zstd context");
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t k = 0; k < static_cast<std::int64_t>(h.num_chunks); ++k) {
      if (failed) continue;
      const ChunkEntry& e = entries[k];
      const std::string where = "chunk " + std::to_string(k) + " (file bytes " + std::to_string(e.offset) +
                                ".." + std::to_string(e.offset + e.compressed_size) + ")";
      try {
        compressed.resize(e.compressed_size);
        file.read(e.offset, e.compressed_size, compressed.data());
        if (Xxh64::of(compressed.data(), e.compressed_size) != e.compressed_hash) {
          report(k, where + ": compressed data checksum mismatch");
          continue;
        }
        const std::string problem = decompress_chunk(dctx.get(), hash, compressed, segments,
                                                     static_cast<std::uint64_t>(k) * h.chunk_bytes,
                                                     e.uncompressed_size);
        if (!problem.empty()) {
          report(k, where + ": " + problem);
          continue;
        }
        if (hash.digest() != e.content_hash) report(k, where + ": content checksum mismatch");
      } catch (const PceError& ex) {
        report(k, ex.what(), ex.kind());  // a read failure: the message names the file already
      } catch (const std::exception& ex) {
        report(k, where + ": " + ex.what());
      }
    }
  }
  if (first_error) {
    if (first_error->kind != PceErrorKind::kCorrupt) throw PceError(first_error->kind, first_error->message);
    fail(PceErrorKind::kCorrupt, path, first_error->message);
  }
  check_content(pce, table_bytes, h, entries, path);
  if (header_out) *header_out = std::move(h);
  return pce;
}

}  // namespace cuzk::pce
