// Lowercase hex of byte strings (proofs and points are printed this way, as `cuzk prove` prints
// `<sector> <hex>`: docs/formats.md, "Proof files") and the reverse. Host-only helpers.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "prover/algebra/hex.hpp"

namespace cuzk::algebra {

inline std::string bytes_to_hex(std::span<const std::uint8_t> bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * bytes.size());
  for (std::uint8_t b : bytes) {
    out += kDigits[b >> 4];
    out += kDigits[b & 15];
  }
  return out;
}

// Parses an even number of hex digits (an optional "0x" prefix allowed); nullopt on anything else.
inline std::optional<std::vector<std::uint8_t>> hex_to_bytes(std::string_view hex) {
  if (hex.size() >= 2 && hex[0] == '0' && (hex[1] == 'x' || hex[1] == 'X')) hex.remove_prefix(2);
  if (hex.size() % 2 != 0) return std::nullopt;
  std::vector<std::uint8_t> out(hex.size() / 2);
  for (std::size_t i = 0; i < out.size(); ++i) {
    int hi = hex_digit_value(hex[2 * i]), lo = hex_digit_value(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out[i] = static_cast<std::uint8_t>(hi * 16 + lo);
  }
  return out;
}

}  // namespace cuzk::algebra
