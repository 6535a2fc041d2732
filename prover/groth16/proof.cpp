#include "prover/groth16/proof.hpp"

#include <string>

namespace cuzk::groth16 {

using algebra::EncodingError;
using algebra::EncodingErrorKind;

void Proof::write(std::uint8_t out[kSize]) const {
  algebra::encode_g1_compressed(a, out + kOffsetA);
  algebra::encode_g2_compressed(b, out + kOffsetB);
  algebra::encode_g1_compressed(c, out + kOffsetC);
}

std::array<std::uint8_t, Proof::kSize> Proof::to_bytes() const {
  std::array<std::uint8_t, kSize> out{};
  write(out.data());
  return out;
}

namespace {

// Decodes one point, naming it in any EncodingError: "proof point b (G2 compressed): <reason>".
template <class Decode>
auto decode_named(const char* name, const char* group, Decode&& decode) {
  const std::string label = std::string("proof point ") + name + " (" + group + " compressed)";
  decltype(decode()) point;
  try {
    point = decode();
  } catch (const EncodingError& e) {
    throw EncodingError(e.kind(), label);
  }
  if (point.is_identity()) throw EncodingError(EncodingErrorKind::kUnexpectedInfinity, label);
  return point;
}

}  // namespace

Proof Proof::read(std::span<const std::uint8_t> bytes, algebra::PointCheck check) {
  if (bytes.size() != kSize) {
    throw EncodingError(EncodingErrorKind::kWrongLength, "Groth16 proof: expected " + std::to_string(kSize) +
                                                             " bytes, got " + std::to_string(bytes.size()));
  }
  Proof p;
  p.a = decode_named("a", "G1", [&] {
    return algebra::decode_g1_compressed(bytes.subspan(kOffsetA, algebra::kG1CompressedSize), check);
  });
  p.b = decode_named("b", "G2", [&] {
    return algebra::decode_g2_compressed(bytes.subspan(kOffsetB, algebra::kG2CompressedSize), check);
  });
  p.c = decode_named("c", "G1", [&] {
    return algebra::decode_g1_compressed(bytes.subspan(kOffsetC, algebra::kG1CompressedSize), check);
  });
  return p;
}

}  // namespace cuzk::groth16
