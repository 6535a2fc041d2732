// A read-only memory mapping of a whole file (RAII: unmapped on destruction), with bounds-checked
// slicing that reports the file and the byte offset of a short read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace cuzk::io {

// Why `path` cannot be read as a regular file ("no such file", "a dangling symbolic link", "a
// directory", "a FIFO (named pipe)", ...), or an empty string when it is one. It only calls stat() and
// lstat(): a FIFO or a device is named without being opened (opening a FIFO for reading blocks until a
// writer comes, possibly forever).
std::string why_not_a_regular_file(const std::string& path);
// Throws IoError(path, reason) unless `path` is a regular file (symbolic links followed).
void require_regular_file(const std::string& path);

class MappedFile {
 public:
  // Maps `path` read-only; throws IoError when it cannot be opened, is not a regular file (checked
  // before it is opened: require_regular_file) or cannot be mapped. An empty file gives an empty mapping.
  explicit MappedFile(std::string path);
  ~MappedFile();

  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const std::string& path() const { return path_; }
  std::size_t size() const { return size_; }
  std::span<const std::uint8_t> bytes() const { return {data_, size_}; }

  // bytes()[offset, offset + length); throws IoError (naming `what` and the offset) when the file
  // ends before offset + length.
  std::span<const std::uint8_t> slice(std::uint64_t offset, std::uint64_t length, const std::string& what) const;

  // Hints the kernel that the mapping will be read front to back (madvise); failures are ignored.
  void advise_sequential() const;

 private:
  void release() noexcept;

  std::string path_;
  const std::uint8_t* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace cuzk::io
