#include "io/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "io/io_error.hpp"

namespace cuzk::io {

namespace {

// "<action>: <strerror(err)>". Callers save errno first: building `action` may allocate and clobber it.
std::string errno_text(int err, const std::string& action) {
  return action + ": " + std::strerror(err);
}

// The process umask without changing it (umask(2) can only be read by setting it, which races with
// other threads creating files): Linux >= 4.7 reports it in /proc/self/status; 022 otherwise.
mode_t current_umask() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("Umask:", 0) == 0) return static_cast<mode_t>(std::stoul(line.substr(6), nullptr, 8));
  }
  return 022;
}

}  // namespace

AtomicFileWriter::AtomicFileWriter(const std::filesystem::path& target) : target_(target.string()) {
  std::filesystem::path dir = target.parent_path();
  if (dir.empty()) dir = ".";
  // mkostemp: a fresh name nobody else uses, created with O_EXCL, in the target's file system so
  // that rename() is atomic.
  std::string leaf = ".";  // built with += : GCC 12 warns falsely (-Wrestrict) on "." + string
  leaf += target.filename().string();
  leaf += ".tmp.XXXXXX";
  std::string pattern = (dir / leaf).string();
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  fd_ = ::mkostemp(name.data(), O_CLOEXEC);
  if (fd_ < 0) {
    int err = errno;
    throw IoError(target_, errno_text(err, "cannot create a temporary file in " + dir.string()));
  }
  name_.assign(name.data());
}

AtomicFileWriter::~AtomicFileWriter() {
  if (fd_ >= 0) ::close(fd_);
  if (!name_.empty()) ::unlink(name_.c_str());
}

void AtomicFileWriter::write(std::span<const std::uint8_t> bytes) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd_, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = EIO;  // write() returning 0 for a non-empty buffer: treat as an I/O error
      fail("write to", done);
    }
    done += static_cast<std::size_t>(n);
  }
}

void AtomicFileWriter::pwrite(std::span<const std::uint8_t> bytes, std::uint64_t offset) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::pwrite(fd_, bytes.data() + done, bytes.size() - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = EIO;
      fail("write to", offset + done);
    }
    done += static_cast<std::size_t>(n);
  }
}

void AtomicFileWriter::preallocate(std::uint64_t size) {
  if (size == 0) return;
  const int rc = ::posix_fallocate(fd_, 0, static_cast<off_t>(size));
  if (rc == 0) return;
  if (rc != EOPNOTSUPP && rc != EINVAL) {
    const std::string action = "reserve " + std::to_string(size) + " bytes for";
    errno = rc;  // posix_fallocate returns the error instead of setting errno
    fail(action.c_str());
  }
  if (::ftruncate(fd_, static_cast<off_t>(size)) != 0) fail("ftruncate");
}

void AtomicFileWriter::commit() {
  // mkostemp creates mode 0600; give the file the usual 0666 & ~umask like any newly created file.
  if (::fchmod(fd_, 0666 & ~current_umask()) != 0) fail("chmod");
  if (::fsync(fd_) != 0) fail("fsync");
  int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) fail("close");
  if (::rename(name_.c_str(), target_.c_str()) != 0) fail("rename");
  name_.clear();
  // Make the rename itself durable. A failure here does not undo the (already visible) new file.
  std::filesystem::path dir = std::filesystem::path(target_).parent_path();
  if (dir.empty()) dir = ".";
  int dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd >= 0) {
    int rc = ::fsync(dir_fd);
    int saved = errno;
    ::close(dir_fd);
    if (rc != 0 && saved != EINVAL)
      throw IoError(target_, errno_text(saved, "fsync of directory " + dir.string()));
  }
}

void AtomicFileWriter::fail(const char* action, std::uint64_t offset) const {
  int err = errno;
  throw IoError(target_, errno_text(err, std::string(action) + " " + name_), offset);
}

void write_file_atomic(const std::filesystem::path& path, std::span<const std::uint8_t> bytes) {
  AtomicFileWriter file(path);
  file.write(bytes);
  file.commit();
}

}  // namespace cuzk::io
