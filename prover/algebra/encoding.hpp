// ZCash BLS12-381 point encoding (as blstrs v0.7.1 / zkcrypto bls12_381 and bellperson use it) and
// Filecoin's canonical little-endian Fr encoding.
//
// Layout: big-endian Fp coordinates; the 3 most significant bits of byte 0 are flags:
//   0x80 compressed, 0x40 point at infinity, 0x20 y is lexicographically largest (compressed only).
// Fp2 coordinates are written c1 || c0. Sizes: G1 48/96 bytes, G2 96/192 (compressed/uncompressed).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>

#include "prover/algebra/curve.hpp"

namespace cuzk::algebra {

constexpr std::size_t kG1CompressedSize = 48;
constexpr std::size_t kG1UncompressedSize = 96;
constexpr std::size_t kG2CompressedSize = 96;
constexpr std::size_t kG2UncompressedSize = 192;
constexpr std::size_t kFrSize = 32;

// One distinct kind per failed check.
enum class EncodingErrorKind {
  kWrongLength,
  kCompressionFlagMismatch,  // compressed bit set in an uncompressed encoding or the reverse
  kInfinityNotZero,          // infinity flag with non-zero remaining bits (or a sign bit)
  kSignFlagOnUncompressed,   // y-sign bit set in an uncompressed encoding
  kNonCanonicalCoordinate,   // a coordinate is >= p
  kNotOnCurve,               // no y for x (compressed) or (x, y) not on the curve
  kNotInSubgroup,            // on the curve but not in the prime-order subgroup
  kNonCanonicalScalar,       // an Fr encoding >= r
  kUnexpectedInfinity,       // a point at infinity where the format forbids one
};

const char* to_string(EncodingErrorKind kind);

// The algebra layer's one exception type.
class EncodingError : public std::runtime_error {
 public:
  EncodingError(EncodingErrorKind kind, const std::string& what)
      : std::runtime_error(what + ": " + to_string(kind)), kind_(kind), context_(what) {}
  EncodingErrorKind kind() const { return kind_; }
  // The message without the kind's text (where the bad encoding was found), so that callers can
  // rethrow with more context: EncodingError(e.kind(), "file x, partition 3: " + e.context()).
  const std::string& context() const { return context_; }

 private:
  EncodingErrorKind kind_;
  std::string context_;
};

// How much to check when decoding. kFull = canonical, on curve, in subgroup (blstrs from_*);
// kNoSubgroup = canonical and on curve; kUnchecked = only flags and canonical coordinates
// (blstrs from_*_unchecked, which rust-fil-proofs uses for .params vectors).
enum class PointCheck { kFull, kNoSubgroup, kUnchecked };

void encode_g1_compressed(const G1Affine& p, std::uint8_t out[kG1CompressedSize]);
void encode_g1_uncompressed(const G1Affine& p, std::uint8_t out[kG1UncompressedSize]);
void encode_g2_compressed(const G2Affine& p, std::uint8_t out[kG2CompressedSize]);
void encode_g2_uncompressed(const G2Affine& p, std::uint8_t out[kG2UncompressedSize]);

// Throw EncodingError on any failed check.
G1Affine decode_g1_compressed(std::span<const std::uint8_t> in, PointCheck check = PointCheck::kFull);
G1Affine decode_g1_uncompressed(std::span<const std::uint8_t> in, PointCheck check = PointCheck::kFull);
G2Affine decode_g2_compressed(std::span<const std::uint8_t> in, PointCheck check = PointCheck::kFull);
G2Affine decode_g2_uncompressed(std::span<const std::uint8_t> in, PointCheck check = PointCheck::kFull);

// Fr as Filecoin serializes it (blstrs Scalar::to_repr / from_repr): 32 bytes little-endian,
// canonical (< r).
void encode_fr_le(const Fr& x, std::uint8_t out[kFrSize]);
Fr decode_fr_le(std::span<const std::uint8_t> in);

// Faster subgroup membership tests than [r]P == O are a possible optimisation; these are the
// reference definitions.
bool g1_in_subgroup(const G1Affine& p);
bool g2_in_subgroup(const G2Affine& p);

}  // namespace cuzk::algebra
