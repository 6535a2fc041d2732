// Small formatting helpers shared by the subcommands.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <nlohmann/json.hpp>
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

// JSON text of a document that may hold names from the file system (C1 paths): a byte sequence that is not
// UTF-8 becomes U+FFFD instead of an exception (nlohmann's default), so that a record is never lost to a
// file name (docs/json-results.md).
template <class Json>
std::string json_text(const Json& j, int indent = -1) {
  return j.dump(indent, ' ', false, Json::error_handler_t::replace);
}

}  // namespace cuzk::cli
