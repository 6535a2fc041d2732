#include "prover/groth16/parameters.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <limits>
#include <mutex>
#include <ostream>
#include <sstream>
#include <stdexcept>

#include "io/atomic_file.hpp"
#include "io/io_error.hpp"
#include "io/mapped_file.hpp"
#include "prover/groth16/errors.hpp"

namespace cuzk::groth16 {

namespace {

using algebra::EncodingError;
using algebra::EncodingErrorKind;

int thread_count(unsigned threads) {
  return threads == 0 ? omp_get_max_threads() : static_cast<int>(threads);
}

// Uncompressed encode/decode per group.
template <class Point>
struct Codec;

template <>
struct Codec<G1Affine> {
  static constexpr std::size_t kSize = algebra::kG1UncompressedSize;
  static G1Affine decode(std::span<const std::uint8_t> in, PointCheck check) {
    return algebra::decode_g1_uncompressed(in, check);
  }
  static void encode(const G1Affine& p, std::uint8_t* out) { algebra::encode_g1_uncompressed(p, out); }
};

template <>
struct Codec<G2Affine> {
  static constexpr std::size_t kSize = algebra::kG2UncompressedSize;
  static G2Affine decode(std::span<const std::uint8_t> in, PointCheck check) {
    return algebra::decode_g2_uncompressed(in, check);
  }
  static void encode(const G2Affine& p, std::uint8_t* out) { algebra::encode_g2_uncompressed(p, out); }
};

// Every fault of a parameter or verifying-key file (a short read, a bad point, trailing bytes, a file that
// cannot be opened or shrinks while it is read) is one kind, kParameters, so that the answer is always the
// same: fetch the parameters again (docs/exit-codes.md). The message names the file and offset as
// io::IoError's does.
[[noreturn]] void throw_file_fault(const std::string& source, const std::string& what, std::uint64_t offset) {
  throw Groth16Error(Groth16ErrorKind::kParameters, io::IoError(source, what, offset).what());
}

// Reads a mapped parameter file with `decode`, turning the io layer's faults into parameter faults.
template <class Decode>
auto read_mapped_parameter_file(const std::string& path, Decode&& decode) {
  try {
    io::MappedFile file(path);
    return file.read_guarded([&] { return decode(file); });
  } catch (const io::IoError& e) {
    throw Groth16Error(Groth16ErrorKind::kParameters, e.what());
  }
}

// Sequential reader over a byte image; every short read is a parameter fault naming the source and offset.
class Cursor {
 public:
  Cursor(std::span<const std::uint8_t> bytes, const std::string& source) : bytes_(bytes), source_(source) {}

  std::uint64_t offset() const { return offset_; }
  const std::string& source() const { return source_; }

  std::span<const std::uint8_t> take(std::uint64_t length, const std::string& what) {
    std::uint64_t left = bytes_.size() - offset_;
    if (length > left) {
      throw_file_fault(source_,
                       "truncated: " + what + " needs " + std::to_string(length) + " bytes but only " +
                           std::to_string(left) + " remain",
                       offset_);
    }
    auto out = bytes_.subspan(static_cast<std::size_t>(offset_), static_cast<std::size_t>(length));
    offset_ += length;
    return out;
  }

  std::uint32_t read_u32_be(const std::string& what) {
    auto b = take(kLengthBytes, what);
    return (std::uint32_t{b[0]} << 24) | (std::uint32_t{b[1]} << 16) | (std::uint32_t{b[2]} << 8) | b[3];
  }

  void expect_end() const {
    if (offset_ != bytes_.size()) {
      throw_file_fault(source_,
                       std::to_string(bytes_.size() - offset_) +
                           " trailing bytes after the last vector (the file is " +
                           std::to_string(bytes_.size()) + " bytes; its length fields imply " +
                           std::to_string(offset_) + ")",
                       offset_);
    }
  }

 private:
  std::span<const std::uint8_t> bytes_;
  const std::string& source_;
  std::uint64_t offset_ = 0;
};

[[noreturn]] void throw_point_error(const Cursor& cur, const std::string& what, std::uint64_t offset,
                                    const std::string& detail) {
  throw_file_fault(cur.source(), "invalid point in " + what + ": " + detail, offset);
}

// One fixed element of a verifying key read at the cursor: fully checked, as bellperson's
// VerifyingKey::read does, and never the identity (read_vk says why).
template <class Point>
Point read_vk_point(Cursor& cur, const std::string& what) {
  std::uint64_t at = cur.offset();
  auto bytes = cur.take(Codec<Point>::kSize, what);
  Point p;
  try {
    p = Codec<Point>::decode(bytes, PointCheck::kFull);
  } catch (const EncodingError& e) {
    throw_point_error(cur, what, at, e.what());
  }
  if (p.infinity)
    throw_point_error(cur, what, at, "the point at infinity (a key with one can accept forged proofs)");
  return p;
}

// A u32-length-prefixed vector of points, decoded in parallel. Infinity is rejected (bellperson read).
template <class Point>
std::vector<Point> read_vector(Cursor& cur, const std::string& name, PointCheck check, unsigned threads) {
  constexpr std::size_t kSize = Codec<Point>::kSize;
  std::uint32_t count = cur.read_u32_be("length of vector " + name);
  std::uint64_t data_offset = cur.offset();
  auto data =
      cur.take(std::uint64_t{count} * kSize, "vector " + name + " (" + std::to_string(count) + " points)");

  std::vector<Point> out(count);
  constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();
  std::atomic<std::size_t> first_bad{kNone};
  std::string first_message;
  std::mutex error_mutex;
  const auto n = static_cast<std::int64_t>(count);
#pragma omp parallel for schedule(static) num_threads(thread_count(threads))
  for (std::int64_t i = 0; i < n; ++i) {
    const auto idx = static_cast<std::size_t>(i);
    if (idx > first_bad.load(std::memory_order_relaxed)) continue;  // an earlier point already failed
    try {
      Point p = Codec<Point>::decode(data.subspan(idx * kSize, kSize), check);
      if (p.infinity) throw EncodingError(EncodingErrorKind::kUnexpectedInfinity, "point");
      out[idx] = p;
    } catch (const EncodingError& e) {
      std::lock_guard lock(error_mutex);
      if (idx < first_bad.load()) {
        first_bad.store(idx);
        first_message = e.what();
      }
    }
  }
  if (std::size_t bad = first_bad.load(); bad != kNone) {
    throw_point_error(cur, "vector " + name + " (point " + std::to_string(bad) + ")",
                      data_offset + bad * kSize, first_message);
  }
  return out;
}

VerifyingKey read_vk(Cursor& cur) {
  // bellperson VerifyingKey::read: from_uncompressed (full checks) for every element; ic rejects infinity.
  // Stricter than bellperson, every fixed element must not be the identity either: with gamma (or delta) at
  // infinity the pairing check holds for forged proofs, and no honest setup makes any of them the identity.
  VerifyingKey vk;
  vk.alpha_g1 = read_vk_point<G1Affine>(cur, "vk.alpha_g1");
  vk.beta_g1 = read_vk_point<G1Affine>(cur, "vk.beta_g1");
  vk.beta_g2 = read_vk_point<G2Affine>(cur, "vk.beta_g2");
  vk.gamma_g2 = read_vk_point<G2Affine>(cur, "vk.gamma_g2");
  vk.delta_g1 = read_vk_point<G1Affine>(cur, "vk.delta_g1");
  vk.delta_g2 = read_vk_point<G2Affine>(cur, "vk.delta_g2");
  vk.ic = read_vector<G1Affine>(cur, "ic", PointCheck::kFull, 0);
  return vk;
}

// Writes the length and the points at `out` (which has room), encoding in parallel.
template <class Point>
std::uint8_t* encode_vector(const std::vector<Point>& points, const char* name, std::uint8_t* out,
                            unsigned threads) {
  write_vector_length(points.size(), name, out);
  out += kLengthBytes;
  const auto n = static_cast<std::int64_t>(points.size());
#pragma omp parallel for schedule(static) num_threads(thread_count(threads))
  for (std::int64_t i = 0; i < n; ++i) Codec<Point>::encode(points[i], out + i * Codec<Point>::kSize);
  return out + points.size() * Codec<Point>::kSize;
}

std::uint8_t* encode_vk(const VerifyingKey& vk, std::uint8_t* out) {
  algebra::encode_g1_uncompressed(vk.alpha_g1, out);
  out += algebra::kG1UncompressedSize;
  algebra::encode_g1_uncompressed(vk.beta_g1, out);
  out += algebra::kG1UncompressedSize;
  algebra::encode_g2_uncompressed(vk.beta_g2, out);
  out += algebra::kG2UncompressedSize;
  algebra::encode_g2_uncompressed(vk.gamma_g2, out);
  out += algebra::kG2UncompressedSize;
  algebra::encode_g1_uncompressed(vk.delta_g1, out);
  out += algebra::kG1UncompressedSize;
  algebra::encode_g2_uncompressed(vk.delta_g2, out);
  out += algebra::kG2UncompressedSize;
  return encode_vector(vk.ic, "ic", out, 1);
}

template <class Point>
void stream_vector(const std::vector<Point>& points, const char* name, std::ostream& out, unsigned threads) {
  // 64 Ki points per chunk: 6 MiB (G1) or 12 MiB (G2) of buffer, enough to keep the threads busy.
  constexpr std::size_t kChunkPoints = std::size_t{1} << 16;
  std::uint8_t len[kLengthBytes];
  write_vector_length(points.size(), name, len);
  out.write(reinterpret_cast<const char*>(len), kLengthBytes);
  std::vector<std::uint8_t> buf(std::min(points.size(), kChunkPoints) * Codec<Point>::kSize);
  for (std::size_t start = 0; start < points.size(); start += kChunkPoints) {
    const auto n = static_cast<std::int64_t>(std::min(kChunkPoints, points.size() - start));
#pragma omp parallel for schedule(static) num_threads(thread_count(threads))
    for (std::int64_t i = 0; i < n; ++i)
      Codec<Point>::encode(points[start + i], buf.data() + i * Codec<Point>::kSize);
    out.write(reinterpret_cast<const char*>(buf.data()),
              static_cast<std::streamsize>(n * Codec<Point>::kSize));
  }
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// VerifyingKey

void VerifyingKey::write(std::vector<std::uint8_t>& out) const {
  std::size_t start = out.size();
  out.resize(start + serialized_size());
  encode_vk(*this, out.data() + start);
}

std::vector<std::uint8_t> VerifyingKey::to_bytes() const {
  std::vector<std::uint8_t> out;
  write(out);
  return out;
}

void VerifyingKey::write_file(const std::string& path) const {
  io::write_file_atomic(path, to_bytes());
}

VerifyingKey VerifyingKey::from_bytes(std::span<const std::uint8_t> bytes, const std::string& source) {
  Cursor cur(bytes, source);
  VerifyingKey vk = read_vk(cur);
  cur.expect_end();
  return vk;
}

VerifyingKey VerifyingKey::read(const std::string& path) {
  return read_mapped_parameter_file(
      path, [&](const io::MappedFile& file) { return from_bytes(file.bytes(), path); });
}

// ---------------------------------------------------------------------------------------------
// Parameters

std::uint64_t Parameters::serialized_size() const {
  return vk.serialized_size() + 5 * kLengthBytes +
         (std::uint64_t{h.size()} + l.size() + a.size() + b_g1.size()) * algebra::kG1UncompressedSize +
         std::uint64_t{b_g2.size()} * algebra::kG2UncompressedSize;
}

void Parameters::write(std::vector<std::uint8_t>& out, unsigned threads) const {
  std::size_t start = out.size();
  out.resize(start + serialized_size());
  std::uint8_t* p = encode_vk(vk, out.data() + start);
  p = encode_vector(h, "h", p, threads);
  p = encode_vector(l, "l", p, threads);
  p = encode_vector(a, "a", p, threads);
  p = encode_vector(b_g1, "b_g1", p, threads);
  encode_vector(b_g2, "b_g2", p, threads);
}

std::vector<std::uint8_t> Parameters::to_bytes(unsigned threads) const {
  std::vector<std::uint8_t> out;
  write(out, threads);
  return out;
}

void Parameters::write(std::ostream& out, unsigned threads) const {
  auto vk_bytes = vk.to_bytes();
  out.write(reinterpret_cast<const char*>(vk_bytes.data()), static_cast<std::streamsize>(vk_bytes.size()));
  stream_vector(h, "h", out, threads);
  stream_vector(l, "l", out, threads);
  stream_vector(a, "a", out, threads);
  stream_vector(b_g1, "b_g1", out, threads);
  stream_vector(b_g2, "b_g2", out, threads);
}

void Parameters::write_file(const std::string& path, unsigned threads) const {
  io::write_file_atomic(path, to_bytes(threads));
}

Parameters Parameters::from_bytes(std::span<const std::uint8_t> bytes, PointCheck vector_check,
                                  const std::string& source, unsigned threads) {
  Cursor cur(bytes, source);
  Parameters p;
  p.vk = read_vk(cur);
  p.h = read_vector<G1Affine>(cur, "h", vector_check, threads);
  p.l = read_vector<G1Affine>(cur, "l", vector_check, threads);
  p.a = read_vector<G1Affine>(cur, "a", vector_check, threads);
  p.b_g1 = read_vector<G1Affine>(cur, "b_g1", vector_check, threads);
  p.b_g2 = read_vector<G2Affine>(cur, "b_g2", vector_check, threads);
  cur.expect_end();
  return p;
}

Parameters Parameters::read(const std::string& path, PointCheck vector_check, unsigned threads) {
  return read_mapped_parameter_file(path, [&](const io::MappedFile& file) {
    return from_bytes(file.bytes(), vector_check, path, threads);
  });
}

// ---------------------------------------------------------------------------------------------
// ParametersInfo

const ParametersInfo::Vector& ParametersInfo::vector(const std::string& name) const {
  for (const auto& v : vectors)
    if (v.name == name) return v;
  throw std::out_of_range("ParametersInfo has no vector " + name);
}

ParametersInfo parameters_info(std::span<const std::uint8_t> bytes, const std::string& source) {
  Cursor cur(bytes, source);
  ParametersInfo info;
  info.file_size = bytes.size();
  cur.take(kVkFixedBytes, "verifying key (alpha_g1 .. delta_g2)");
  auto skip_vector = [&](const char* name, std::size_t point_bytes) {
    ParametersInfo::Vector v{name, cur.offset(), 0, point_bytes};
    v.count = cur.read_u32_be(std::string("length of vector ") + name);
    cur.take(std::uint64_t{v.count} * point_bytes,
             std::string("vector ") + name + " (" + std::to_string(v.count) + " points)");
    info.vectors.push_back(v);
  };
  skip_vector("ic", algebra::kG1UncompressedSize);
  skip_vector("h", algebra::kG1UncompressedSize);
  skip_vector("l", algebra::kG1UncompressedSize);
  skip_vector("a", algebra::kG1UncompressedSize);
  skip_vector("b_g1", algebra::kG1UncompressedSize);
  skip_vector("b_g2", algebra::kG2UncompressedSize);
  cur.expect_end();
  return info;
}

ParameterHeader header_of(const Parameters& params) {
  return {params.vk,       params.h.size(),    params.l.size(),
          params.a.size(), params.b_g1.size(), params.b_g2.size()};
}

ParameterHeader read_parameter_header(const std::string& path) {
  return read_mapped_parameter_file(path, [&](const io::MappedFile& file) {
    const ParametersInfo info = parameters_info(file.bytes(), path);
    ParameterHeader header;
    header.vk = VerifyingKey::from_bytes(file.slice(0, info.vk_bytes(), "verifying key block"), path);
    header.h = info.vector("h").count;
    header.l = info.vector("l").count;
    header.a = info.vector("a").count;
    header.b_g1 = info.vector("b_g1").count;
    header.b_g2 = info.vector("b_g2").count;
    return header;
  });
}

ParametersInfo read_parameters_info(const std::string& path) {
  return read_mapped_parameter_file(
      path, [&](const io::MappedFile& file) { return parameters_info(file.bytes(), path); });
}

void write_vector_length(std::size_t count, const char* name, std::uint8_t* out) {
  if (count > std::numeric_limits<std::uint32_t>::max())
    throw std::length_error(std::string("vector ") + name +
                            " has more than 2^32 - 1 points (u32 length field)");
  const auto v = static_cast<std::uint32_t>(count);
  out[0] = static_cast<std::uint8_t>(v >> 24);
  out[1] = static_cast<std::uint8_t>(v >> 16);
  out[2] = static_cast<std::uint8_t>(v >> 8);
  out[3] = static_cast<std::uint8_t>(v);
}

}  // namespace cuzk::groth16
