// A read-only memory mapping of a whole file (RAII: unmapped on destruction), with bounds-checked
// slicing that reports the file and the byte offset of a short read. A file that shrinks while it is
// mapped is an IoError, never a crash: see read_guarded().
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>

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

  // Runs `read` (which reads the mapping) and returns what it returns. Should another process shrink
  // the file meanwhile, the pages past its new end read as zeros instead of raising SIGBUS (a process-wide
  // handler replaces them), and whatever `read` returned or threw is replaced by an IoError naming the
  // file and the first offset lost (check_intact). Every reader of a mapping goes through it.
  template <class Read>
  auto read_guarded(Read&& read) const {
    try {
      if constexpr (std::is_void_v<decltype(read())>) {
        read();
        check_intact();
      } else {
        auto result = read();
        check_intact();
        return result;
      }
    } catch (...) {
      check_intact();  // a parse error over zeros means the file shrank: say so instead
      throw;
    }
  }

  // Throws IoError when the file is now shorter than the mapping, or a read past its end faulted.
  void check_intact() const;

 private:
  void release() noexcept;

  std::string path_;
  int fd_ = -1;  // kept open to fstat the file itself (not whatever the path names now)
  const std::uint8_t* data_ = nullptr;
  std::size_t size_ = 0;
  int guard_slot_ = -1;  // this mapping's entry in the SIGBUS handler's table, -1 when none
};

}  // namespace cuzk::io
