// The io/ layer's one exception type: a file that cannot be read, written or parsed.
// The message always names the file (and the byte offset where one is known).
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

namespace cuzk::io {

class IoError : public std::runtime_error {
 public:
  IoError(const std::string& path, const std::string& what, std::optional<std::uint64_t> offset = std::nullopt)
      : std::runtime_error(path + (offset ? " (offset " + std::to_string(*offset) + ")" : std::string()) + ": " + what),
        path_(path),
        offset_(offset) {}
  const std::string& path() const { return path_; }
  std::optional<std::uint64_t> offset() const { return offset_; }

 private:
  std::string path_;
  std::optional<std::uint64_t> offset_;
};

}  // namespace cuzk::io
