#include "io/mapped_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "io/io_error.hpp"

namespace cuzk::io {

namespace {

std::string errno_text(const char* action) { return std::string(action) + ": " + std::strerror(errno); }

// Closes the descriptor on every path out of the constructor (the mapping outlives it).
struct FdCloser {
  int fd;
  ~FdCloser() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

std::string why_not_a_regular_file(const std::string& path) {
  if (path.empty()) return "empty path";
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    const int err = errno;
    struct stat link {};
    if (err == ENOENT && ::lstat(path.c_str(), &link) == 0 && S_ISLNK(link.st_mode))
      return "a dangling symbolic link";
    if (err == ENOENT) return "no such file";
    if (err == ELOOP) return "a symbolic link loop (too many levels of symbolic links)";
    return std::string("cannot stat: ") + std::strerror(err);
  }
  if (S_ISREG(st.st_mode)) return {};
  if (S_ISDIR(st.st_mode)) return "a directory, not a regular file";
  if (S_ISFIFO(st.st_mode)) return "a FIFO (named pipe), not a regular file";
  if (S_ISCHR(st.st_mode)) return "a character device, not a regular file";
  if (S_ISBLK(st.st_mode)) return "a block device, not a regular file";
  if (S_ISSOCK(st.st_mode)) return "a socket, not a regular file";
  return "not a regular file";
}

void require_regular_file(const std::string& path) {
  if (std::string why = why_not_a_regular_file(path); !why.empty()) throw IoError(path, why);
}

MappedFile::MappedFile(std::string path) : path_(std::move(path)) {
  require_regular_file(path_);
  // O_NONBLOCK: should the path become a FIFO between the check and the open, open() returns at once
  // (and fstat below refuses it) instead of waiting for a writer. It changes nothing for regular files.
  FdCloser fd{::open(path_.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK)};
  if (fd.fd < 0) throw IoError(path_, errno_text("cannot open"));
  struct stat st{};
  if (::fstat(fd.fd, &st) != 0) throw IoError(path_, errno_text("cannot stat"));
  if (!S_ISREG(st.st_mode)) throw IoError(path_, "not a regular file");
  size_ = static_cast<std::size_t>(st.st_size);
  if (size_ == 0) return;  // mmap rejects a zero length; an empty span is the right view
  void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd.fd, 0);
  if (p == MAP_FAILED) {
    size_ = 0;
    throw IoError(path_, errno_text("cannot map"), 0);
  }
  data_ = static_cast<const std::uint8_t*>(p);
}

MappedFile::~MappedFile() { release(); }

MappedFile::MappedFile(MappedFile&& other) noexcept
    : path_(std::move(other.path_)),
      data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)) {}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
  if (this != &other) {
    release();
    path_ = std::move(other.path_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

void MappedFile::release() noexcept {
  if (data_ != nullptr) ::munmap(const_cast<std::uint8_t*>(data_), size_);
  data_ = nullptr;
  size_ = 0;
}

std::span<const std::uint8_t> MappedFile::slice(std::uint64_t offset, std::uint64_t length,
                                                const std::string& what) const {
  if (offset > size_ || length > size_ - offset) {
    throw IoError(path_,
                  "truncated: " + what + " needs " + std::to_string(length) + " bytes but the file has " +
                      std::to_string(offset > size_ ? 0 : size_ - offset) + " left",
                  offset);
  }
  return bytes().subspan(static_cast<std::size_t>(offset), static_cast<std::size_t>(length));
}

void MappedFile::advise_sequential() const {
  if (data_ != nullptr) ::madvise(const_cast<std::uint8_t*>(data_), size_, MADV_SEQUENTIAL);
}

}  // namespace cuzk::io
