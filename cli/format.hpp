// Small formatting helpers shared by the subcommands.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <string>

namespace cuzk::cli {

// "123 B", "1.50 KiB", ... "2.06 GiB" (binary units).
inline std::string human_bytes(std::uint64_t n) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(n);
  int unit = 0;
  while (v >= 1024 && unit < 4) {
    v /= 1024;
    ++unit;
  }
  return unit == 0 ? fmt::format("{} B", n) : fmt::format("{:.2f} {}", v, kUnits[unit]);
}

}  // namespace cuzk::cli
