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

MappedFile::MappedFile(std::string path) : path_(std::move(path)) {
  FdCloser fd{::open(path_.c_str(), O_RDONLY | O_CLOEXEC)};
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
