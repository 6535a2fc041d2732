// Compile-time parsing of big-endian hex literals into little-endian limbs.
#pragma once

#include <cstddef>
#include <string_view>

#include "prover/algebra/field.hpp"
#include "prover/algebra/hex_bytes.hpp"

namespace cuzk::algebra {

// Accepts an optional "0x" prefix. Digits beyond 64*N bits are an error at compile time.
template <std::size_t N>
constexpr Limbs<N> hex_to_limbs(std::string_view hex) {
  if (hex.size() >= 2 && hex[0] == '0' && (hex[1] == 'x' || hex[1] == 'X')) hex.remove_prefix(2);
  Limbs<N> out{};
  std::size_t nibble = 0;
  for (std::size_t i = hex.size(); i-- > 0; ++nibble) {
    int v = hex_digit_value(hex[i]);
    if (v < 0) throw "invalid hex digit";
    if (nibble / 16 >= N) {
      if (v != 0) throw "hex literal too large";
      continue;
    }
    out[nibble / 16] |= static_cast<u64>(v) << (4 * (nibble % 16));
  }
  return out;
}

}  // namespace cuzk::algebra
