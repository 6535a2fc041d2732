#include "io/atomic_file.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>  // renameat2
#include <cstring>
#include <fstream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "io/io_error.hpp"
#include "io/mapped_file.hpp"

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

// Throws IoError(path, ...) when `path` exists and is not a regular file (a link to /dev/null counts as
// /dev/null), naming what it is: an atomic write would rename a regular file over it.
void refuse_special_file(const std::string& path) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (!std::filesystem::exists(status) || std::filesystem::is_regular_file(status)) return;
  std::string what = why_not_a_regular_file(path);  // "a FIFO (named pipe), not a regular file", ...
  what = what.substr(0, what.find(", not a regular file"));
  throw IoError(path, "exists and is not a regular file (" + what + "): writing would replace it");
}

}  // namespace

AtomicFileWriter::AtomicFileWriter(const std::filesystem::path& target) : target_(target.string()) {
  // Every writer goes through the check that refuses a device, a FIFO or a directory: the final rename
  // would replace it (as root, `-o /dev/null` replaced the machine's /dev/null).
  check_output_file(target);
  std::filesystem::path dir = target.parent_path();
  if (dir.empty()) dir = ".";
  // mkostemp: a fresh name nobody else uses, created with O_EXCL, in the target's file system so
  // that rename() is atomic.
  std::string leaf = temporary_name_prefix(target);
  leaf += "XXXXXX";
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
  // Again just before the rename: the target may have become a special file while the data was written.
  refuse_special_file(target_);
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

namespace {

// The host name as uname(2) gives it ("localhost" when it has none); host names hold no '@' or '/'.
std::string host_name() {
  struct utsname u {};
  if (::uname(&u) != 0 || u.nodename[0] == '\0') return "localhost";
  std::string host = u.nodename;
  for (char& c : host)
    if (c == '@' || c == '/') c = '_';
  return host;
}

// The pid and host of a temporary name made by temporary_name_prefix, or nullopt for another file:
// ".<leaf>.tmp.<pid>@<host>.XXXXXX" (the leaf may hold '@' or ".tmp.", the host holds no '@').
std::optional<std::pair<pid_t, std::string>> parse_temporary_name(const std::string& name) {
  constexpr std::size_t kRandomSuffix = 7;  // ".XXXXXX" of mkostemp
  if (name.size() < 1 + kRandomSuffix || name[0] != '.' || name[name.size() - kRandomSuffix] != '.')
    return std::nullopt;
  const std::string stem = name.substr(0, name.size() - kRandomSuffix);
  const std::size_t at = stem.rfind('@');
  if (at == std::string::npos) return std::nullopt;
  const std::size_t tmp = stem.rfind(".tmp.", at);
  if (tmp == std::string::npos || tmp == 0) return std::nullopt;
  const std::string pid_text = stem.substr(tmp + 5, at - tmp - 5);
  if (pid_text.empty() || pid_text.size() > 9 ||
      !std::all_of(pid_text.begin(), pid_text.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  return std::pair{static_cast<pid_t>(std::stol(pid_text)), stem.substr(at + 1)};
}

}  // namespace

std::string temporary_name_prefix(const std::filesystem::path& target) {
  std::string leaf = ".";  // built with += : GCC 12 warns falsely (-Wrestrict) on "." + string
  leaf += target.filename().string();
  leaf += ".tmp.";
  leaf += std::to_string(::getpid());
  leaf += '@';
  leaf += host_name();
  leaf += '.';
  return leaf;
}

std::size_t remove_stale_temporaries(const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::directory_iterator it(dir.empty() ? std::filesystem::path(".") : dir, ec);
  if (ec) return 0;
  const std::string host = host_name();
  std::size_t removed = 0;
  for (; it != std::filesystem::directory_iterator(); it.increment(ec)) {
    if (ec) break;
    const auto parsed = parse_temporary_name(it->path().filename().string());
    if (!parsed || parsed->second != host || parsed->first == ::getpid()) continue;
    // kill(pid, 0): ESRCH means no such process; EPERM means one exists (another user's): keep it.
    if (::kill(parsed->first, 0) == 0 || errno != ESRCH) continue;
    if (!it->is_regular_file(ec) || ec) continue;
    if (::unlink(it->path().c_str()) == 0) ++removed;
  }
  return removed;
}

void prepare_output_dir(const std::filesystem::path& dir, bool create) {
  const std::string name = dir.string();
  if (name.empty()) throw IoError(name, "the output directory is an empty path");
  std::error_code ec;
  const auto status = std::filesystem::status(dir, ec);
  std::filesystem::path writable = dir;  // the folder that must be writable
  if (std::filesystem::exists(status)) {
    if (!std::filesystem::is_directory(status))
      throw IoError(name, "the output directory exists and is not a directory");
  } else if (!create) {
    // What create_directories would meet first: the nearest existing parent, which must be a folder.
    std::filesystem::path parent = std::filesystem::absolute(dir, ec).parent_path();
    while (!std::filesystem::exists(parent, ec) && parent.has_relative_path()) parent = parent.parent_path();
    if (!std::filesystem::is_directory(parent, ec))
      throw IoError(name, "cannot create the output directory: " + parent.string() + " is not a directory");
    writable = parent;
  } else if (!std::filesystem::create_directories(dir, ec) && ec) {
    throw IoError(name, "cannot create the output directory: " + ec.message());
  }
  if (::access(writable.c_str(), W_OK | X_OK) != 0) {
    const int err = errno;
    throw IoError(name, errno_text(err, writable == dir
                                            ? "the output directory is not writable"
                                            : "cannot create the output directory in " + writable.string()));
  }
}

void check_output_file(const std::filesystem::path& path) {
  const std::string name = path.string();
  if (name.empty()) throw IoError(name, "the output file is an empty path");
  refuse_special_file(name);
  std::error_code ec;
  std::filesystem::path dir = path.parent_path();
  if (dir.empty()) dir = ".";
  if (!std::filesystem::is_directory(dir, ec))
    throw IoError(name, "its folder " + dir.string() + " does not exist or is not a directory");
  if (::access(dir.c_str(), W_OK | X_OK) != 0) {
    const int err = errno;
    throw IoError(name, errno_text(err, "its folder " + dir.string() + " is not writable"));
  }
}

std::filesystem::path move_aside(const std::filesystem::path& path, const std::string& suffix) {
  // renameat2's RENAME_NOREPLACE fails with EEXIST instead of replacing, so that two processes setting
  // files aside at once never lose one; a file system without it (EINVAL) gets link + unlink, which
  // refuses an existing name too.
  for (unsigned attempt = 0; attempt < 1000; ++attempt) {
    std::string name = path.string() + suffix;
    if (attempt > 0) name.append(".").append(std::to_string(attempt));
    const std::filesystem::path aside(name);
    int result = ::renameat2(AT_FDCWD, path.c_str(), AT_FDCWD, aside.c_str(), RENAME_NOREPLACE);
    if (result != 0 && errno == EINVAL) {
      result = ::link(path.c_str(), aside.c_str());
      if (result == 0 && ::unlink(path.c_str()) != 0) {
        const int err = errno;
        throw IoError(path.string(), errno_text(err, "set aside as " + aside.string() + " but not unlinked"));
      }
    }
    if (result == 0) return aside;
    const int err = errno;
    if (err != EEXIST)
      throw IoError(path.string(), errno_text(err, "cannot be renamed to " + aside.string()));
  }
  throw IoError(path.string(), "cannot be set aside: " + path.string() + suffix + ".1 to .999 all exist");
}

}  // namespace cuzk::io
