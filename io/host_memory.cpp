#include "io/host_memory.hpp"

#include <spdlog/spdlog.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>

#include "io/byte_size.hpp"

namespace cuzk::io {

std::size_t host_memory_available() {
  // TEST ONLY (README, "Environment variables"): the one place the host's memory can be faked, so that a
  // test can make a run that does not fit without a machine that small.
  if (const char* fake = std::getenv("CUZK_TEST_MEM_AVAILABLE"); fake && *fake) {
    if (const std::optional<std::uint64_t> bytes = parse_byte_size(fake)) return *bytes;
    spdlog::warn("CUZK_TEST_MEM_AVAILABLE={}: not a size (such as 2GiB), ignored", fake);
  }
  std::ifstream meminfo("/proc/meminfo");
  constexpr std::string_view kKey = "MemAvailable:";
  for (std::string line; std::getline(meminfo, line);)
    if (line.starts_with(kKey)) return std::strtoull(line.c_str() + kKey.size(), nullptr, 10) * 1024;  // kB
  return 0;
}

}  // namespace cuzk::io
