// A fresh directory under $TMPDIR (mkdtemp), removed with everything in it when the owner goes away,
// unless keep() was called. Scratch space for `cuzk bench` and `cuzk selftest`, benchmarks and tests.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <string>
#include <system_error>
#include <utility>

#include "io/io_error.hpp"

namespace cuzk::io {

class TempDir {
 public:
  // `prefix` names the directory ("<prefix>XXXXXX"). Throws IoError when it cannot be created.
  explicit TempDir(const std::string& prefix) {
    std::string pattern = (std::filesystem::temp_directory_path() / (prefix + "XXXXXX")).string();
    if (::mkdtemp(pattern.data()) == nullptr) throw IoError(pattern, "cannot create a temporary directory");
    path_ = pattern;
  }
  ~TempDir() {
    if (path_.empty() || keep_) return;
    std::error_code ignored;  // a destructor does not throw; a leftover directory is only litter
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(TempDir&& other) noexcept : path_(std::exchange(other.path_, {})), keep_(other.keep_) {}
  TempDir& operator=(TempDir&&) = delete;
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path file(const std::string& name) const { return path_ / name; }
  void keep() { keep_ = true; }

 private:
  std::filesystem::path path_;
  bool keep_ = false;
};

}  // namespace cuzk::io
