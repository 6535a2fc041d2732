// The chunks of a PCE cache file (pce/cache_file_chunks.hpp): the content segments, and one chunk's zstd
// frame compressed from them or decompressed into them.
#include "pce/cache_file_chunks.hpp"

#include <algorithm>

#include "pce/errors.hpp"

namespace cuzk::pce::detail {

namespace {

namespace fs = std::filesystem;

template <class T, class Alloc>
Segment segment_of(const std::vector<T, Alloc>& v) {
  // The read path passes vectors it owns (non-const objects), so writing through this pointer is valid.
  return {reinterpret_cast<std::uint8_t*>(const_cast<T*>(v.data())), v.size() * sizeof(T)};
}

// Calls fn(pointer, size) for the pieces of the segments that lie in content bytes [begin, end).
template <class Fn>
void for_each_piece(const std::vector<Segment>& segments, std::uint64_t begin, std::uint64_t end, Fn&& fn) {
  std::uint64_t seg_start = 0;
  for (const Segment& s : segments) {
    const std::uint64_t seg_end = seg_start + s.size;
    const std::uint64_t lo = std::max(begin, seg_start), hi = std::min(end, seg_end);
    if (lo < hi) fn(s.data + (lo - seg_start), static_cast<std::size_t>(hi - lo));
    if (seg_end >= end) break;
    seg_start = seg_end;
  }
}

// Decompressed bytes hashed at a time: well inside a core's L2 cache.
constexpr std::size_t kHashWindow = 128 * 1024;

}  // namespace

std::vector<Segment> content_segments(const CompactR1cs& pce, const std::vector<std::uint8_t>& table_bytes) {
  std::vector<Segment> s;
  s.push_back(segment_of(table_bytes));
  for (const CompactMatrix* m : {&pce.a, &pce.b, &pce.c}) {
    s.push_back(segment_of(m->row_offsets));
    s.push_back(segment_of(m->columns));
    s.push_back(segment_of(m->codes));
  }
  s.push_back(segment_of(pce.densities.a_aux.words));
  s.push_back(segment_of(pce.densities.b_input.words));
  s.push_back(segment_of(pce.densities.b_aux.words));
  return s;
}

void check_zstd(std::size_t rc, const fs::path& path, const char* what) {
  if (ZSTD_isError(rc)) {
    throw PceError(PceErrorKind::kIo, path.string() + ": zstd " + what + ": " + ZSTD_getErrorName(rc));
  }
}

std::size_t compress_chunk(ZSTD_CCtx* cctx, const std::vector<Segment>& segments, std::uint64_t begin,
                           std::uint64_t end, std::vector<std::uint8_t>& out, Xxh64& content_hash,
                           const fs::path& path) {
  check_zstd(ZSTD_CCtx_reset(cctx, ZSTD_reset_session_only), path, "reset");
  check_zstd(ZSTD_CCtx_setPledgedSrcSize(cctx, end - begin), path, "pledged size");
  ZSTD_outBuffer ob{out.data(), out.size(), 0};
  auto grow = [&] {
    out.resize(out.size() + out.size() / 2 + 4096);
    ob.dst = out.data();
    ob.size = out.size();
  };
  for_each_piece(segments, begin, end, [&](const std::uint8_t* p, std::size_t n) {
    content_hash.update(p, n);
    ZSTD_inBuffer ib{p, n, 0};
    while (ib.pos < ib.size) {
      if (ob.pos == ob.size) grow();
      check_zstd(ZSTD_compressStream2(cctx, &ob, &ib, ZSTD_e_continue), path, "compress");
    }
  });
  ZSTD_inBuffer empty{nullptr, 0, 0};
  for (;;) {
    if (ob.pos == ob.size) grow();
    const std::size_t remaining = ZSTD_compressStream2(cctx, &ob, &empty, ZSTD_e_end);
    check_zstd(remaining, path, "end of frame");
    if (remaining == 0) break;
  }
  return ob.pos;
}

std::string decompress_chunk(ZSTD_DCtx* dctx, Xxh64& hash, std::span<const std::uint8_t> compressed,
                             const std::vector<Segment>& segments, std::uint64_t begin, std::uint64_t size) {
  hash.reset();
  ZSTD_DCtx_reset(dctx, ZSTD_reset_session_only);
  ZSTD_inBuffer in{compressed.data(), compressed.size(), 0};
  std::string problem;
  std::size_t last_rc = 1;
  for_each_piece(segments, begin, begin + size, [&](std::uint8_t* p, std::size_t n) {
    // Window by window, so that each window is hashed while it is still in the cache.
    for (std::size_t done = 0; problem.empty() && done < n;) {
      ZSTD_outBuffer out{p + done, std::min(kHashWindow, n - done), 0};
      while (problem.empty() && out.pos < out.size) {
        const std::size_t before_in = in.pos, before_out = out.pos;
        last_rc = ZSTD_decompressStream(dctx, &out, &in);
        if (ZSTD_isError(last_rc)) {
          problem = std::string("zstd: ") + ZSTD_getErrorName(last_rc);
        } else if (in.pos == before_in && out.pos == before_out) {
          problem = "the frame ends before its content";
        }
      }
      if (problem.empty()) hash.update(p + done, out.size);
      done += out.size;
    }
  });
  if (problem.empty() && last_rc != 0) {
    // All content is out; the frame must end exactly here, with no byte to spare.
    std::uint8_t spare = 0;
    ZSTD_outBuffer out{&spare, 1, 0};
    last_rc = ZSTD_decompressStream(dctx, &out, &in);
    if (ZSTD_isError(last_rc) || out.pos != 0 || last_rc != 0)
      problem = "the frame does not end with its content";
  }
  if (problem.empty() && in.pos != in.size) problem = "bytes after the end of the frame";
  return problem;
}

}  // namespace cuzk::pce::detail
