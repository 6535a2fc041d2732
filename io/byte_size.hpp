// Sizes written by people on the command line: "22GiB", "40G", "512MiB", "1073741824".
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace cuzk::io {

// A decimal count of bytes, optionally followed by a binary unit: K or KiB (2^10), M or MiB (2^20), G or GiB
// (2^30), T or TiB (2^40). Nothing else (no spaces, signs, fractions or decimal units), and nothing that
// overflows 64 bits.
std::optional<std::uint64_t> parse_byte_size(const std::string& text);

}  // namespace cuzk::io
