#include "io/byte_size.hpp"

#include <cctype>
#include <utility>

namespace cuzk::io {

std::optional<std::uint64_t> parse_byte_size(const std::string& text) {
  std::size_t digits = 0;
  std::uint64_t value = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) {
    const std::uint64_t digit = static_cast<std::uint64_t>(text[digits] - '0');
    if (value > (UINT64_MAX - digit) / 10) return std::nullopt;
    value = value * 10 + digit;
    ++digits;
  }
  if (digits == 0) return std::nullopt;
  const std::string unit = text.substr(digits);
  static const std::pair<const char*, unsigned> kUnits[] = {{"", 0},     {"K", 10}, {"KiB", 10}, {"M", 20},
                                                            {"MiB", 20}, {"G", 30}, {"GiB", 30}, {"T", 40},
                                                            {"TiB", 40}};
  for (const auto& [name, shift] : kUnits) {
    if (unit != name) continue;
    if (shift > 0 && value > (UINT64_MAX >> shift)) return std::nullopt;
    return value << shift;
  }
  return std::nullopt;
}

}  // namespace cuzk::io
