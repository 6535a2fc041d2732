// ZCash BLS12-381 point encodings and Filecoin's Fr encoding: published vectors, round trips on random
// points (seed printed), and every rejection path of prover/algebra/encoding.cpp with its error kind.
//
// Published vectors: aptos-labs/aptos-core
// aptos-move/framework/aptos-stdlib/sources/cryptography/bls12381_algebra.move (test_g1affine,
// test_g2affine: generators, [7]G and -[7]G, infinity, in the ZCash format of
// draft-irtf-cfrg-pairing-friendly-curves-11 appendix C, which that module cites). The generators'
// compressed forms are also the "g1_power"/"g2_power" of the Ethereum KZG ceremony and the first entries
// of zkcrypto bls12_381 src/tests/g1_compressed_valid_test_vectors.dat.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "prover/algebra/encoding.hpp"
#include "prover/algebra/hex_bytes.hpp"
#include "tests/test_util.hpp"

using namespace cuzk::algebra;
using cuzk::test::random_field;
using Bytes = std::vector<std::uint8_t>;

namespace {

Bytes hex(std::string_view s) {
  auto b = hex_to_bytes(s);
  if (!b) throw std::invalid_argument("bad hex in test vector");
  return *b;
}

const std::string kG1GenCompressed =
    "97f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb";
const std::string kG1GenUncompressed =
    "17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb"
    "08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1";
const std::string kG1Mul7Compressed =
    "b928f3beb93519eecf0145da903b40a4c97dca00b21f12ac0df3be9116ef2ef27b2ae6bcd4c5bc2d54ef5a70627efcb7";
const std::string kG1Mul7Uncompressed =
    "1928f3beb93519eecf0145da903b40a4c97dca00b21f12ac0df3be9116ef2ef27b2ae6bcd4c5bc2d54ef5a70627efcb7"
    "108dadbaa4b636445639d5ae3089b3c43a8a1d47818edd1839d7383959a41c10fdc66849cfa1b08c5a11ec7e28981a1c";
const std::string kG1Mul7NegCompressed =
    "9928f3beb93519eecf0145da903b40a4c97dca00b21f12ac0df3be9116ef2ef27b2ae6bcd4c5bc2d54ef5a70627efcb7";
const std::string kG1Mul7NegUncompressed =
    "1928f3beb93519eecf0145da903b40a4c97dca00b21f12ac0df3be9116ef2ef27b2ae6bcd4c5bc2d54ef5a70627efcb7"
    "0973642f94c9b055f4e1d20812c1f91329ed2e3d71f635a72d599a679d0cda1320e597b4e1b24f735fed1381d767908f";

const std::string kG2GenCompressed =
    "93e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e"
    "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8";
const std::string kG2GenUncompressed =
    "13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e"
    "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8"
    "0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be"
    "0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801";
const std::string kG2Mul7Compressed =
    "8d0273f6bf31ed37c3b8d68083ec3d8e20b5f2cc170fa24b9b5be35b34ed013f9a921f1cad1644d4bdb14674247234c8"
    "049cd1dbb2d2c3581e54c088135fef36505a6823d61b859437bfc79b617030dc8b40e32bad1fa85b9c0f368af6d38d3c";
const std::string kG2Mul7Uncompressed =
    "0d0273f6bf31ed37c3b8d68083ec3d8e20b5f2cc170fa24b9b5be35b34ed013f9a921f1cad1644d4bdb14674247234c8"
    "049cd1dbb2d2c3581e54c088135fef36505a6823d61b859437bfc79b617030dc8b40e32bad1fa85b9c0f368af6d38d3c"
    "05ecf93654b7a1885695aaeeb7caf41b0239dc45e1022be55d37111af2aecef87799638bec572de86a7437898efa7020"
    "08b7ae4dbf802c17a6648842922c9467e460a71c88d393ee7af356da123a2f3619e80c3bdcc8e2b1da52f8cd9913ccdd";
const std::string kG2Mul7NegCompressed =
    "ad0273f6bf31ed37c3b8d68083ec3d8e20b5f2cc170fa24b9b5be35b34ed013f9a921f1cad1644d4bdb14674247234c8"
    "049cd1dbb2d2c3581e54c088135fef36505a6823d61b859437bfc79b617030dc8b40e32bad1fa85b9c0f368af6d38d3c";
const std::string kG2Mul7NegUncompressed =
    "0d0273f6bf31ed37c3b8d68083ec3d8e20b5f2cc170fa24b9b5be35b34ed013f9a921f1cad1644d4bdb14674247234c8"
    "049cd1dbb2d2c3581e54c088135fef36505a6823d61b859437bfc79b617030dc8b40e32bad1fa85b9c0f368af6d38d3c"
    "141418b3e4c84511f485fcc78b80b8bc623d6f3f1282e6da09f9c1860402272ba7129c72c4fcd2174f8ac87671053a8b"
    "1149639c79ffba82a4b71f73b11f186f8016a4686ab17ed0ec3d7bc6e476c6ee04c3f3c2d48b1d4ddfac073266ebddce";

// The BLS12-381 base field modulus p, big-endian (draft-irtf-cfrg-pairing-friendly-curves-11 4.2.1).
const std::string kP =
    "1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab";

template <std::size_t N, class Point>
Bytes encode(void (*enc)(const Point&, std::uint8_t*), const Point& p) {
  Bytes out(N);
  enc(p, out.data());
  return out;
}
Bytes g1c(const G1Affine& p) {
  return encode<kG1CompressedSize>(encode_g1_compressed, p);
}
Bytes g1u(const G1Affine& p) {
  return encode<kG1UncompressedSize>(encode_g1_uncompressed, p);
}
Bytes g2c(const G2Affine& p) {
  return encode<kG2CompressedSize>(encode_g2_compressed, p);
}
Bytes g2u(const G2Affine& p) {
  return encode<kG2UncompressedSize>(encode_g2_uncompressed, p);
}

// Runs `decode` and checks it throws EncodingError of exactly `kind`.
void expect_rejected(const std::function<void()>& decode, EncodingErrorKind kind, const std::string& what) {
  try {
    decode();
    ADD_FAILURE() << what << ": accepted, expected " << to_string(kind);
  } catch (const EncodingError& e) {
    EXPECT_EQ(e.kind(), kind) << what << ": got '" << e.what() << "', expected " << to_string(kind);
  }
}

using G1Decoder = G1Affine (*)(std::span<const std::uint8_t>, PointCheck);
using G2Decoder = G2Affine (*)(std::span<const std::uint8_t>, PointCheck);

template <class Decoder>
void expect_rejected_by(Decoder decode, const Bytes& bytes, EncodingErrorKind kind, const std::string& what,
                        PointCheck check = PointCheck::kFull) {
  expect_rejected([&] { decode(bytes, check); }, kind, what);
}

// A point on E' outside G2, found by search: x = i + u for the first i with x^3 + b a square.
G2Affine g2_point_outside_subgroup() {
  for (std::uint64_t i = 0;; ++i) {
    Fp2 x{Fp::from_u64(i), Fp::one()}, y;
    if ((x.square() * x + G2Config::b()).sqrt(y)) return G2Affine::from_xy(x, y);
  }
}

}  // namespace

TEST(EncodingVectors, G1) {
  G1 g = G1::generator();
  EXPECT_EQ(bytes_to_hex(g1c(g.to_affine())), kG1GenCompressed);
  EXPECT_EQ(bytes_to_hex(g1u(g.to_affine())), kG1GenUncompressed);
  G1Affine g7 = (g * Fr::from_u64(7)).to_affine();
  EXPECT_EQ(bytes_to_hex(g1c(g7)), kG1Mul7Compressed);
  EXPECT_EQ(bytes_to_hex(g1u(g7)), kG1Mul7Uncompressed);
  EXPECT_EQ(bytes_to_hex(g1c(-g7)), kG1Mul7NegCompressed);
  EXPECT_EQ(bytes_to_hex(g1u(-g7)), kG1Mul7NegUncompressed);
  EXPECT_EQ(decode_g1_compressed(hex(kG1GenCompressed)), g.to_affine());
  EXPECT_EQ(decode_g1_uncompressed(hex(kG1GenUncompressed)), g.to_affine());
  EXPECT_EQ(decode_g1_compressed(hex(kG1Mul7Compressed)), g7);
  EXPECT_EQ(decode_g1_uncompressed(hex(kG1Mul7Uncompressed)), g7);
  EXPECT_EQ(decode_g1_compressed(hex(kG1Mul7NegCompressed)), -g7);
  EXPECT_EQ(decode_g1_uncompressed(hex(kG1Mul7NegUncompressed)), -g7);
}

TEST(EncodingVectors, G2) {
  G2 g = G2::generator();
  EXPECT_EQ(bytes_to_hex(g2c(g.to_affine())), kG2GenCompressed);
  EXPECT_EQ(bytes_to_hex(g2u(g.to_affine())), kG2GenUncompressed);
  G2Affine g7 = (g * Fr::from_u64(7)).to_affine();
  EXPECT_EQ(bytes_to_hex(g2c(g7)), kG2Mul7Compressed);
  EXPECT_EQ(bytes_to_hex(g2u(g7)), kG2Mul7Uncompressed);
  EXPECT_EQ(bytes_to_hex(g2c(-g7)), kG2Mul7NegCompressed);
  EXPECT_EQ(bytes_to_hex(g2u(-g7)), kG2Mul7NegUncompressed);
  EXPECT_EQ(decode_g2_compressed(hex(kG2GenCompressed)), g.to_affine());
  EXPECT_EQ(decode_g2_uncompressed(hex(kG2GenUncompressed)), g.to_affine());
  EXPECT_EQ(decode_g2_compressed(hex(kG2Mul7Compressed)), g7);
  EXPECT_EQ(decode_g2_uncompressed(hex(kG2Mul7Uncompressed)), g7);
  EXPECT_EQ(decode_g2_compressed(hex(kG2Mul7NegCompressed)), -g7);
  EXPECT_EQ(decode_g2_uncompressed(hex(kG2Mul7NegUncompressed)), -g7);
}

TEST(EncodingVectors, Infinity) {
  Bytes c48(48, 0), u96(96, 0), c96(96, 0), u192(192, 0);
  c48[0] = 0xc0;
  u96[0] = 0x40;
  c96[0] = 0xc0;
  u192[0] = 0x40;
  EXPECT_EQ(g1c(G1Affine::identity()), c48);
  EXPECT_EQ(g1u(G1Affine::identity()), u96);
  EXPECT_EQ(g2c(G2Affine::identity()), c96);
  EXPECT_EQ(g2u(G2Affine::identity()), u192);
  for (PointCheck check : {PointCheck::kFull, PointCheck::kNoSubgroup, PointCheck::kUnchecked}) {
    EXPECT_TRUE(decode_g1_compressed(c48, check).is_identity());
    EXPECT_TRUE(decode_g1_uncompressed(u96, check).is_identity());
    EXPECT_TRUE(decode_g2_compressed(c96, check).is_identity());
    EXPECT_TRUE(decode_g2_uncompressed(u192, check).is_identity());
  }
}

TEST(EncodingRoundTrip, RandomG1Points) {
  auto rng = cuzk::test::seeded_rng("EncodingRoundTrip.RandomG1Points");
  int sign_set = 0;
  for (int i = 0; i < 32; ++i) {
    G1Affine p = (G1::generator() * random_field<Fr>(rng)).to_affine();
    Bytes c = g1c(p), u = g1u(p);
    ASSERT_EQ(c[0] & 0xc0, 0x80);
    ASSERT_EQ(u[0] & 0xe0, 0);
    // Compressed = x with flags; uncompressed = x || y; -P differs only in the sign flag.
    ASSERT_TRUE(std::equal(c.begin() + 1, c.end(), u.begin() + 1));
    ASSERT_EQ(c[0] & 0x1f, u[0]);
    Bytes cn = g1c(-p);
    ASSERT_EQ(cn[0] ^ c[0], 0x20);
    sign_set += (c[0] & 0x20) != 0;
    ASSERT_EQ(decode_g1_compressed(c), p);
    ASSERT_EQ(decode_g1_uncompressed(u), p);
    ASSERT_EQ(decode_g1_compressed(cn), -p);
    ASSERT_EQ(g1c(decode_g1_compressed(c)), c);
    ASSERT_EQ(g1u(decode_g1_uncompressed(u)), u);
  }
  EXPECT_GT(sign_set, 0);
  EXPECT_LT(sign_set, 32);
}

TEST(EncodingRoundTrip, RandomG2Points) {
  auto rng = cuzk::test::seeded_rng("EncodingRoundTrip.RandomG2Points");
  for (int i = 0; i < 16; ++i) {
    G2Affine p = (G2::generator() * random_field<Fr>(rng)).to_affine();
    Bytes c = g2c(p), u = g2u(p);
    ASSERT_EQ(c[0] & 0xc0, 0x80);
    ASSERT_EQ(u[0] & 0xe0, 0);
    ASSERT_TRUE(std::equal(c.begin() + 1, c.end(), u.begin() + 1));
    ASSERT_EQ(c[0] & 0x1f, u[0]);
    ASSERT_EQ(g2c(-p)[0] ^ c[0], 0x20);
    ASSERT_EQ(decode_g2_compressed(c), p);
    ASSERT_EQ(decode_g2_uncompressed(u), p);
    ASSERT_EQ(decode_g2_compressed(g2c(-p)), -p);
    ASSERT_EQ(g2c(decode_g2_compressed(c)), c);
    ASSERT_EQ(g2u(decode_g2_uncompressed(u)), u);
  }
}

TEST(EncodingRejection, WrongLength) {
  Bytes g1 = hex(kG1GenCompressed), g1un = hex(kG1GenUncompressed);
  Bytes g2 = hex(kG2GenCompressed), g2un = hex(kG2GenUncompressed);
  auto k = EncodingErrorKind::kWrongLength;
  expect_rejected_by<G1Decoder>(decode_g1_compressed, Bytes(g1.begin(), g1.end() - 1), k, "G1c 47 bytes");
  Bytes longer = g1;
  longer.push_back(0);
  expect_rejected_by<G1Decoder>(decode_g1_compressed, longer, k, "G1c 49 bytes");
  expect_rejected_by<G1Decoder>(decode_g1_compressed, Bytes{}, k, "G1c empty");
  expect_rejected_by<G1Decoder>(decode_g1_compressed, g1un, k, "G1c given 96 bytes");
  expect_rejected_by<G1Decoder>(decode_g1_uncompressed, g1, k, "G1u given 48 bytes");
  expect_rejected_by<G1Decoder>(decode_g1_uncompressed, Bytes{}, k, "G1u empty");
  expect_rejected_by<G2Decoder>(decode_g2_compressed, Bytes(g2.begin(), g2.end() - 1), k, "G2c 95 bytes");
  expect_rejected_by<G2Decoder>(decode_g2_compressed, g2un, k, "G2c given 192 bytes");
  expect_rejected_by<G2Decoder>(decode_g2_uncompressed, Bytes(g2un.begin(), g2un.end() - 1), k, "G2u 191");
  expect_rejected_by<G2Decoder>(decode_g2_uncompressed, g2, k, "G2u given 96 bytes");
}

TEST(EncodingRejection, CompressionFlagMismatch) {
  auto k = EncodingErrorKind::kCompressionFlagMismatch;
  Bytes g1 = hex(kG1GenCompressed), g1un = hex(kG1GenUncompressed);
  Bytes g2 = hex(kG2GenCompressed), g2un = hex(kG2GenUncompressed);
  g1[0] &= 0x7f;  // compressed bytes without the compressed flag
  g2[0] &= 0x7f;
  g1un[0] |= 0x80;  // uncompressed bytes with the compressed flag
  g2un[0] |= 0x80;
  expect_rejected_by<G1Decoder>(decode_g1_compressed, g1, k, "G1c flag cleared");
  expect_rejected_by<G2Decoder>(decode_g2_compressed, g2, k, "G2c flag cleared");
  expect_rejected_by<G1Decoder>(decode_g1_uncompressed, g1un, k, "G1u flag set");
  expect_rejected_by<G2Decoder>(decode_g2_uncompressed, g2un, k, "G2u flag set");
  // Infinity encodings of the other form.
  Bytes inf48(48, 0), inf96u(96, 0);
  inf48[0] = 0x40;
  inf96u[0] = 0xc0;
  expect_rejected_by<G1Decoder>(decode_g1_compressed, inf48, k, "G1c infinity without compressed flag");
  expect_rejected_by<G1Decoder>(decode_g1_uncompressed, inf96u, k, "G1u infinity with compressed flag");
}

TEST(EncodingRejection, InfinityWithNonZeroBits) {
  auto k = EncodingErrorKind::kInfinityNotZero;
  Bytes c48(48, 0), u96(96, 0), c96(96, 0), u192(192, 0);
  c48[0] = c96[0] = 0xc0;
  u96[0] = u192[0] = 0x40;
  auto with = [](Bytes b, std::size_t i, std::uint8_t v) {
    b[i] |= v;
    return b;
  };
  expect_rejected_by<G1Decoder>(decode_g1_compressed, with(c48, 47, 1), k, "G1c infinity, last bit");
  expect_rejected_by<G1Decoder>(decode_g1_compressed, with(c48, 0, 0x20), k, "G1c infinity with sign flag");
  expect_rejected_by<G1Decoder>(decode_g1_compressed, with(c48, 0, 0x01), k, "G1c infinity, x bit in byte 0");
  expect_rejected_by<G1Decoder>(decode_g1_uncompressed, with(u96, 95, 1), k, "G1u infinity, y bit");
  expect_rejected_by<G1Decoder>(decode_g1_uncompressed, with(u96, 20, 4), k, "G1u infinity, x bit");
  expect_rejected_by<G2Decoder>(decode_g2_compressed, with(c96, 60, 8), k, "G2c infinity, x.c0 bit");
  expect_rejected_by<G2Decoder>(decode_g2_compressed, with(c96, 0, 0x20), k, "G2c infinity with sign flag");
  expect_rejected_by<G2Decoder>(decode_g2_uncompressed, with(u192, 191, 1), k, "G2u infinity, y bit");
  // A real point's bytes with the infinity flag added.
  expect_rejected_by<G1Decoder>(decode_g1_compressed, with(hex(kG1GenCompressed), 0, 0x40), k,
                                "G1 gen + inf");
  expect_rejected_by<G2Decoder>(decode_g2_uncompressed, with(hex(kG2GenUncompressed), 0, 0x40), k,
                                "G2 gen + inf");
}

TEST(EncodingRejection, SignFlagOnUncompressed) {
  auto k = EncodingErrorKind::kSignFlagOnUncompressed;
  Bytes g1 = hex(kG1GenUncompressed), g2 = hex(kG2GenUncompressed);
  g1[0] |= 0x20;
  g2[0] |= 0x20;
  expect_rejected_by<G1Decoder>(decode_g1_uncompressed, g1, k, "G1u sign flag");
  expect_rejected_by<G2Decoder>(decode_g2_uncompressed, g2, k, "G2u sign flag");
  Bytes inf(96, 0);
  inf[0] = 0x60;  // infinity + sign on an uncompressed encoding
  expect_rejected_by<G1Decoder>(decode_g1_uncompressed, inf, k, "G1u infinity + sign flag");
}

TEST(EncodingRejection, NonCanonicalCoordinate) {
  auto k = EncodingErrorKind::kNonCanonicalCoordinate;
  Bytes p = hex(kP);
  Bytes c48 = p;
  c48[0] |= 0x80;
  expect_rejected_by<G1Decoder>(decode_g1_compressed, c48, k, "G1c x = p");
  // x = p - 1 is canonical: whatever happens next, it is not this kind.
  Bytes pm1 = p;
  pm1[47] -= 1;
  pm1[0] |= 0x80;
  try {
    decode_g1_compressed(pm1);
  } catch (const EncodingError& e) {
    EXPECT_NE(e.kind(), k) << "x = p - 1 is canonical";
  }
  // aptos-core bls12381_algebra.move: 9fff..ff (x = 2^381 - 1) is rejected.
  expect_rejected_by<G1Decoder>(decode_g1_compressed, hex(std::string("9f") + std::string(94, 'f')), k,
                                "G1c x = 2^381 - 1");
  Bytes g1u_bytes = hex(kG1GenUncompressed);
  Bytes y_is_p = g1u_bytes;
  std::copy(p.begin(), p.end(), y_is_p.begin() + 48);
  expect_rejected_by<G1Decoder>(decode_g1_uncompressed, y_is_p, k, "G1u y = p");
  Bytes y_top = g1u_bytes;
  y_top[48] |= 0x80;  // flag bits are not masked in y: y >= 2^383
  expect_rejected_by<G1Decoder>(decode_g1_uncompressed, y_top, k, "G1u y with high bit");
  Bytes x_is_p = g1u_bytes;
  std::copy(p.begin(), p.end(), x_is_p.begin());
  expect_rejected_by<G1Decoder>(decode_g1_uncompressed, x_is_p, k, "G1u x = p");
  // G2: each of the four Fp coordinates (x.c1, x.c0, y.c1, y.c0) set to p in turn.
  Bytes g2 = hex(kG2GenUncompressed);
  for (std::size_t slot = 0; slot < 4; ++slot) {
    Bytes b = g2;
    std::copy(p.begin(), p.end(), b.begin() + 48 * slot);
    expect_rejected_by<G2Decoder>(decode_g2_uncompressed, b, k,
                                  "G2u coordinate " + std::to_string(slot) + " = p");
  }
  for (std::size_t slot = 0; slot < 2; ++slot) {
    Bytes b = hex(kG2GenCompressed);
    std::copy(p.begin(), p.end(), b.begin() + 48 * slot);
    b[0] |= 0x80;
    expect_rejected_by<G2Decoder>(decode_g2_compressed, b, k,
                                  "G2c coordinate " + std::to_string(slot) + " = p");
  }
}

TEST(EncodingRejection, CompressedXWithoutCurvePoint) {
  auto k = EncodingErrorKind::kNotOnCurve;
  // x with x^3 + 4 a non-square (Legendre symbol -1), found by search.
  Fp x;
  for (std::uint64_t i = 1;; ++i) {
    x = Fp::from_u64(i);
    if ((x.square() * x + G1Config::b()).legendre() == -1) break;
  }
  Bytes b(48);
  x.to_bytes_be(b.data());
  b[0] |= 0x80;
  for (PointCheck check : {PointCheck::kFull, PointCheck::kNoSubgroup, PointCheck::kUnchecked})
    expect_rejected_by<G1Decoder>(decode_g1_compressed, b, k, "G1c x = " + x.to_hex(), check);
  // G2: x = i + u with x^3 + b a non-square in Fp2 (its norm is a non-square in Fp).
  Fp2 x2;
  for (std::uint64_t i = 1;; ++i) {
    x2 = Fp2{Fp::from_u64(i), Fp::one()};
    if ((x2.square() * x2 + G2Config::b()).norm().legendre() == -1) break;
  }
  Bytes b2(96);
  x2.c1.to_bytes_be(b2.data());
  x2.c0.to_bytes_be(b2.data() + 48);
  b2[0] |= 0x80;
  for (PointCheck check : {PointCheck::kFull, PointCheck::kNoSubgroup, PointCheck::kUnchecked})
    expect_rejected_by<G2Decoder>(decode_g2_compressed, b2, k, "G2c x with no point", check);
}

TEST(EncodingRejection, UncompressedNotOnCurve) {
  auto k = EncodingErrorKind::kNotOnCurve;
  G1Affine g = G1Affine::generator();
  G1Affine bad = G1Affine::from_xy(g.x, g.y + Fp::one());
  Bytes b = g1u(bad);
  expect_rejected_by<G1Decoder>(decode_g1_uncompressed, b, k, "G1u (x, y+1)");
  expect_rejected_by<G1Decoder>(decode_g1_uncompressed, b, k, "G1u (x, y+1)", PointCheck::kNoSubgroup);
  // kUnchecked (blstrs from_uncompressed_unchecked) does not look at the curve equation.
  G1Affine raw = decode_g1_uncompressed(b, PointCheck::kUnchecked);
  EXPECT_EQ(raw, bad);
  EXPECT_FALSE(raw.is_on_curve());
  Bytes zero(96, 0);  // (0, 0) without the infinity flag
  expect_rejected_by<G1Decoder>(decode_g1_uncompressed, zero, k, "G1u (0, 0)");

  G2Affine g2 = G2Affine::generator();
  G2Affine bad2 = G2Affine::from_xy(g2.x, g2.y + Fp2::one());
  Bytes b2 = g2u(bad2);
  expect_rejected_by<G2Decoder>(decode_g2_uncompressed, b2, k, "G2u (x, y+1)");
  expect_rejected_by<G2Decoder>(decode_g2_uncompressed, b2, k, "G2u (x, y+1)", PointCheck::kNoSubgroup);
  EXPECT_EQ(decode_g2_uncompressed(b2, PointCheck::kUnchecked), bad2);
}

TEST(EncodingRejection, NotInSubgroup) {
  auto k = EncodingErrorKind::kNotInSubgroup;
  // aptos-core bls12381_algebra.move: (0, 2) is on E but not in G1, in both encodings.
  Bytes u = hex(std::string(96 * 2 - 2, '0') + "02");
  Bytes c = hex("80" + std::string(94, '0'));
  expect_rejected_by<G1Decoder>(decode_g1_uncompressed, u, k, "G1u (0, 2)");
  expect_rejected_by<G1Decoder>(decode_g1_compressed, c, k, "G1c x = 0");
  G1Affine expected = G1Affine::from_xy(Fp::zero(), Fp::from_u64(2));
  for (PointCheck check : {PointCheck::kNoSubgroup, PointCheck::kUnchecked}) {
    EXPECT_EQ(decode_g1_uncompressed(u, check), expected);
    EXPECT_EQ(decode_g1_compressed(c, check), expected) << "sign flag clear: the smaller root 2";
  }
  G2Affine q = g2_point_outside_subgroup();
  ASSERT_TRUE(q.is_on_curve());
  ASSERT_FALSE(G2::from_affine(q).mul_limbs(Fr::kModulus).is_identity());
  expect_rejected_by<G2Decoder>(decode_g2_compressed, g2c(q), k, "G2c outside subgroup");
  expect_rejected_by<G2Decoder>(decode_g2_uncompressed, g2u(q), k, "G2u outside subgroup");
  for (PointCheck check : {PointCheck::kNoSubgroup, PointCheck::kUnchecked}) {
    EXPECT_EQ(decode_g2_compressed(g2c(q), check), q);
    EXPECT_EQ(decode_g2_uncompressed(g2u(q), check), q);
  }
}

TEST(EncodingRejection, EveryKindHasADistinctMessage) {
  std::vector<std::string> seen;
  for (auto kind : {EncodingErrorKind::kWrongLength, EncodingErrorKind::kCompressionFlagMismatch,
                    EncodingErrorKind::kInfinityNotZero, EncodingErrorKind::kSignFlagOnUncompressed,
                    EncodingErrorKind::kNonCanonicalCoordinate, EncodingErrorKind::kNotOnCurve,
                    EncodingErrorKind::kNotInSubgroup, EncodingErrorKind::kNonCanonicalScalar,
                    EncodingErrorKind::kUnexpectedInfinity}) {
    std::string s = to_string(kind);
    EXPECT_EQ(std::count(seen.begin(), seen.end(), s), 0) << s;
    seen.push_back(s);
    EncodingError e(kind, "ctx");
    EXPECT_EQ(e.kind(), kind);
    EXPECT_EQ(std::string(e.what()), "ctx: " + s);
  }
}

TEST(FrEncoding, LittleEndianRoundTripAndRejection) {
  auto rng = cuzk::test::seeded_rng("FrEncoding");
  for (int i = 0; i < 64; ++i) {
    Fr x = random_field<Fr>(rng);
    std::array<std::uint8_t, kFrSize> b{};
    encode_fr_le(x, b.data());
    ASSERT_EQ(decode_fr_le(b), x);
  }
  // 1 is 01 00 .. 00 (little-endian, canonical, not Montgomery).
  std::array<std::uint8_t, kFrSize> one{};
  encode_fr_le(Fr::one(), one.data());
  EXPECT_EQ(bytes_to_hex(one), "01" + std::string(62, '0'));
  // r itself (little-endian bytes of 0x73eda753...00000001) and 2^256 - 1 are rejected; r - 1 is -1.
  Bytes r = hex("73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001");
  std::reverse(r.begin(), r.end());
  expect_rejected([&] { decode_fr_le(r); }, EncodingErrorKind::kNonCanonicalScalar, "Fr = r");
  Bytes rm1 = r;
  rm1[0] -= 1;
  EXPECT_EQ(decode_fr_le(rm1), -Fr::one());
  expect_rejected([&] { decode_fr_le(Bytes(32, 0xff)); }, EncodingErrorKind::kNonCanonicalScalar, "2^256-1");
  expect_rejected([&] { decode_fr_le(Bytes(31, 0)); }, EncodingErrorKind::kWrongLength, "Fr 31 bytes");
  expect_rejected([&] { decode_fr_le(Bytes(33, 0)); }, EncodingErrorKind::kWrongLength, "Fr 33 bytes");
}
