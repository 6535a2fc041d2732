// A Groth16 proof (A, B, C) and its 192-byte Filecoin encoding: a (G1 compressed, 48 bytes) ||
// b (G2 compressed, 96) || c (G1 compressed, 48), as bellperson src/groth16/proof.rs Proof::write and
// read_many (rust-fil-proofs SINGLE_PARTITION_PROOF_LEN = 192; docs/formats.md, "Proof files").
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "prover/algebra/curve.hpp"
#include "prover/algebra/encoding.hpp"

namespace cuzk::groth16 {

struct Proof {
  algebra::G1Affine a;
  algebra::G2Affine b;
  algebra::G1Affine c;

  static constexpr std::size_t kSize = 2 * algebra::kG1CompressedSize + algebra::kG2CompressedSize;
  static constexpr std::size_t kOffsetA = 0;
  static constexpr std::size_t kOffsetB = algebra::kG1CompressedSize;
  static constexpr std::size_t kOffsetC = algebra::kG1CompressedSize + algebra::kG2CompressedSize;
  static_assert(kSize == 192);

  void write(std::uint8_t out[kSize]) const;
  std::array<std::uint8_t, kSize> to_bytes() const;

  // Decodes exactly kSize bytes. Throws algebra::EncodingError whose message names the point (a, b
  // or c). Points at infinity are rejected (kUnexpectedInfinity) whatever `check` says, as bellperson's
  // Proof::read_many does; kFull also checks that each point is on its curve and in its subgroup
  // (bellperson decodes with from_bytes, which does both).
  static Proof read(std::span<const std::uint8_t> bytes,
                    algebra::PointCheck check = algebra::PointCheck::kFull);

  friend bool operator==(const Proof& x, const Proof& y) { return x.a == y.a && x.b == y.b && x.c == y.c; }
  friend bool operator!=(const Proof& x, const Proof& y) { return !(x == y); }
};

}  // namespace cuzk::groth16
