// libFuzzer target: the PCE cache reader, header first (magic, version, header digest, sizes, the
// description and the chunk index), then the whole file (chunks, checksums, structure). The input is
// written to a memfd and read through /proc/self/fd, the way the reader opens a cache file. Malformed
// input must end in pce::PceError. Seeds: tests/fuzz/corpus/pce_header.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "pce/cache_file.hpp"
#include "pce/errors.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const int fd = ::memfd_create("fuzz.pce", MFD_CLOEXEC);
  static const std::string path = "/proc/self/fd/" + std::to_string(fd);
  if (fd < 0 || ::ftruncate(fd, 0) != 0) __builtin_trap();
  std::size_t done = 0;
  while (done < size) {
    const ssize_t n = ::pwrite(fd, data + done, size - done, static_cast<off_t>(done));
    if (n <= 0) __builtin_trap();
    done += static_cast<std::size_t>(n);
  }
  try {
    (void)cuzk::pce::read_cache_header(path);
    (void)cuzk::pce::read_cache_file(path, std::nullopt, 1);
  } catch (const cuzk::pce::PceError&) {
  }
  return 0;
}
