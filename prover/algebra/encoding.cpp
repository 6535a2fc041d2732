#include "prover/algebra/encoding.hpp"

#include <algorithm>
#include <cstring>

namespace cuzk::algebra {

namespace {

constexpr std::uint8_t kCompressedFlag = 0x80;
constexpr std::uint8_t kInfinityFlag = 0x40;
constexpr std::uint8_t kSignFlag = 0x20;
constexpr std::uint8_t kFlagMask = 0xe0;
constexpr std::size_t kFpBytes = 48;

void check_length(std::span<const std::uint8_t> in, std::size_t expected, const char* what) {
  if (in.size() != expected) {
    throw EncodingError(EncodingErrorKind::kWrongLength,
                        std::string(what) + ": expected " + std::to_string(expected) + " bytes, got " +
                            std::to_string(in.size()));
  }
}

// Decodes one big-endian Fp from 48 bytes, with the flag bits of byte 0 masked when `masked`.
Fp read_fp(const std::uint8_t* bytes, bool masked, const char* what) {
  std::uint8_t buf[kFpBytes];
  std::memcpy(buf, bytes, kFpBytes);
  if (masked) buf[0] &= static_cast<std::uint8_t>(~kFlagMask);
  Fp out;
  if (!Fp::from_bytes_be(buf, out)) throw EncodingError(EncodingErrorKind::kNonCanonicalCoordinate, what);
  return out;
}

// Checks the infinity encoding: flag set and every other bit zero (sign bit included).
bool check_infinity(std::span<const std::uint8_t> in, const char* what) {
  if (!(in[0] & kInfinityFlag)) return false;
  bool rest_zero = (in[0] & static_cast<std::uint8_t>(~(kCompressedFlag | kInfinityFlag))) == 0 &&
                   std::all_of(in.begin() + 1, in.end(), [](std::uint8_t b) { return b == 0; });
  if (!rest_zero) throw EncodingError(EncodingErrorKind::kInfinityNotZero, what);
  return true;
}

template <class Point>
Point finish_checks(const Point& p, PointCheck check, const char* what, bool on_curve_known) {
  if (check == PointCheck::kUnchecked) return p;
  if (!on_curve_known && !p.is_on_curve()) throw EncodingError(EncodingErrorKind::kNotOnCurve, what);
  if (check == PointCheck::kFull && !Jacobian<typename Point::Config>::from_affine(p).is_in_subgroup())
    throw EncodingError(EncodingErrorKind::kNotInSubgroup, what);
  return p;
}

// Shared decoder for the compressed forms; `read_x` and `curve_rhs` give the coordinate type.
template <class Point, class Field>
Point decode_compressed_x(const Field& x, bool y_largest, PointCheck check, const char* what) {
  Field rhs = x.square() * x + Point::Config::b();
  Field y;
  if (!rhs.sqrt(y)) throw EncodingError(EncodingErrorKind::kNotOnCurve, what);
  if (y.is_lexicographically_largest() != y_largest) y = -y;
  return finish_checks(Point::from_xy(x, y), check, what, /*on_curve_known=*/true);
}

void check_flags(std::span<const std::uint8_t> in, bool compressed, const char* what) {
  if (static_cast<bool>(in[0] & kCompressedFlag) != compressed)
    throw EncodingError(EncodingErrorKind::kCompressionFlagMismatch, what);
  if (!compressed && (in[0] & kSignFlag)) throw EncodingError(EncodingErrorKind::kSignFlagOnUncompressed, what);
}

void write_fp(const Fp& x, std::uint8_t* out) { x.to_bytes_be(out); }

}  // namespace

void encode_g1_compressed(const G1Affine& p, std::uint8_t out[kG1CompressedSize]) {
  std::memset(out, 0, kG1CompressedSize);
  if (p.infinity) {
    out[0] = kCompressedFlag | kInfinityFlag;
    return;
  }
  write_fp(p.x, out);
  out[0] |= kCompressedFlag;
  if (p.y.is_lexicographically_largest()) out[0] |= kSignFlag;
}

void encode_g1_uncompressed(const G1Affine& p, std::uint8_t out[kG1UncompressedSize]) {
  std::memset(out, 0, kG1UncompressedSize);
  if (p.infinity) {
    out[0] = kInfinityFlag;
    return;
  }
  write_fp(p.x, out);
  write_fp(p.y, out + kFpBytes);
}

void encode_g2_compressed(const G2Affine& p, std::uint8_t out[kG2CompressedSize]) {
  std::memset(out, 0, kG2CompressedSize);
  if (p.infinity) {
    out[0] = kCompressedFlag | kInfinityFlag;
    return;
  }
  write_fp(p.x.c1, out);
  write_fp(p.x.c0, out + kFpBytes);
  out[0] |= kCompressedFlag;
  if (p.y.is_lexicographically_largest()) out[0] |= kSignFlag;
}

void encode_g2_uncompressed(const G2Affine& p, std::uint8_t out[kG2UncompressedSize]) {
  std::memset(out, 0, kG2UncompressedSize);
  if (p.infinity) {
    out[0] = kInfinityFlag;
    return;
  }
  write_fp(p.x.c1, out);
  write_fp(p.x.c0, out + kFpBytes);
  write_fp(p.y.c1, out + 2 * kFpBytes);
  write_fp(p.y.c0, out + 3 * kFpBytes);
}

G1Affine decode_g1_compressed(std::span<const std::uint8_t> in, PointCheck check) {
  const char* what = "G1 compressed";
  check_length(in, kG1CompressedSize, what);
  check_flags(in, true, what);
  if (check_infinity(in, what)) return G1Affine::identity();
  Fp x = read_fp(in.data(), true, what);
  return decode_compressed_x<G1Affine>(x, in[0] & kSignFlag, check, what);
}

G1Affine decode_g1_uncompressed(std::span<const std::uint8_t> in, PointCheck check) {
  const char* what = "G1 uncompressed";
  check_length(in, kG1UncompressedSize, what);
  check_flags(in, false, what);
  if (check_infinity(in, what)) return G1Affine::identity();
  Fp x = read_fp(in.data(), true, what);
  Fp y = read_fp(in.data() + kFpBytes, false, what);
  return finish_checks(G1Affine::from_xy(x, y), check, what, false);
}

G2Affine decode_g2_compressed(std::span<const std::uint8_t> in, PointCheck check) {
  const char* what = "G2 compressed";
  check_length(in, kG2CompressedSize, what);
  check_flags(in, true, what);
  if (check_infinity(in, what)) return G2Affine::identity();
  Fp2 x{read_fp(in.data() + kFpBytes, false, what), read_fp(in.data(), true, what)};
  return decode_compressed_x<G2Affine>(x, in[0] & kSignFlag, check, what);
}

G2Affine decode_g2_uncompressed(std::span<const std::uint8_t> in, PointCheck check) {
  const char* what = "G2 uncompressed";
  check_length(in, kG2UncompressedSize, what);
  check_flags(in, false, what);
  if (check_infinity(in, what)) return G2Affine::identity();
  Fp2 x{read_fp(in.data() + kFpBytes, false, what), read_fp(in.data(), true, what)};
  Fp2 y{read_fp(in.data() + 3 * kFpBytes, false, what), read_fp(in.data() + 2 * kFpBytes, false, what)};
  return finish_checks(G2Affine::from_xy(x, y), check, what, false);
}

void encode_fr_le(const Fr& x, std::uint8_t out[kFrSize]) { x.to_bytes_le(out); }

Fr decode_fr_le(std::span<const std::uint8_t> in) {
  if (in.size() != kFrSize)
    throw EncodingError(EncodingErrorKind::kWrongLength,
                        "Fr: expected 32 bytes, got " + std::to_string(in.size()));
  Fr out;
  if (!Fr::from_bytes_le(in.data(), out)) throw EncodingError(EncodingErrorKind::kNonCanonicalScalar, "Fr");
  return out;
}

bool g1_in_subgroup(const G1Affine& p) { return G1::from_affine(p).is_in_subgroup(); }
bool g2_in_subgroup(const G2Affine& p) { return G2::from_affine(p).is_in_subgroup(); }

const char* to_string(EncodingErrorKind kind) {
  switch (kind) {
    case EncodingErrorKind::kWrongLength: return "wrong length";
    case EncodingErrorKind::kCompressionFlagMismatch: return "compression flag does not match the encoding size";
    case EncodingErrorKind::kInfinityNotZero: return "infinity flag set but other bits are not zero";
    case EncodingErrorKind::kSignFlagOnUncompressed: return "y-sign flag set in an uncompressed encoding";
    case EncodingErrorKind::kNonCanonicalCoordinate: return "coordinate is not below the field modulus";
    case EncodingErrorKind::kNotOnCurve: return "point is not on the curve";
    case EncodingErrorKind::kNotInSubgroup: return "point is not in the prime-order subgroup";
    case EncodingErrorKind::kNonCanonicalScalar: return "scalar is not below the group order r";
    case EncodingErrorKind::kUnexpectedInfinity: return "point at infinity is not allowed here";
  }
  return "unknown encoding error";
}

}  // namespace cuzk::algebra
