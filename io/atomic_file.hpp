// Atomic whole-file writes: the bytes go to a temporary file in the destination's directory, are
// fsync'ed, and the temporary is renamed over the destination (then the directory is fsync'ed). A
// reader sees either the old file or the complete new one, never a half-written file: a failed or
// killed run leaves no truncated proof or parameter file behind (docs/formats.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>

namespace cuzk::io {

// Replaces (or creates) `path` with `bytes`. Throws IoError naming the file on any failure, in which
// case `path` is untouched and the temporary file is removed.
// A file written under a temporary name beside `target` (same file system, so the final rename is
// atomic) and renamed over it by commit(): readers see either the old file or the complete new one,
// and a writer that fails or is interrupted leaves nothing behind (the destructor removes the
// temporary file). Two writers racing on one target each rename a complete file; the last one wins.
// Every failure throws IoError naming the target.
class AtomicFileWriter {
 public:
  explicit AtomicFileWriter(const std::filesystem::path& target);
  ~AtomicFileWriter();
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

  void write(std::span<const std::uint8_t> bytes);                         // at the current end
  void pwrite(std::span<const std::uint8_t> bytes, std::uint64_t offset);  // at an offset (thread-safe)
  // Reserves `size` bytes of disk for the temporary file (posix_fallocate), so that a disk too small
  // fails at once instead of after most of a long write; ftruncate where the file system cannot.
  void preallocate(std::uint64_t size);
  // chmod 0666 & ~umask, fsync, close, rename over the target, fsync the directory.
  void commit();

 private:
  [[noreturn]] void fail(const char* action, std::uint64_t offset = 0) const;

  std::string target_;
  std::string name_;
  int fd_ = -1;
};

void write_file_atomic(const std::filesystem::path& path, std::span<const std::uint8_t> bytes);

// The temporary files of AtomicFileWriter are named ".<target name>.tmp.<pid>@<host>.XXXXXX" so that a
// later run can tell a stale one (its writer was killed before it renamed) from one being written.
std::string temporary_name_prefix(const std::filesystem::path& target);
// Removes, in `dir` (not below), the temporary files of writers that ran on this host and whose process
// no longer exists; files of other hosts (a shared file system) and of live processes are left alone.
// Returns how many were removed; errors (a folder that cannot be listed) are ignored: this is tidying.
std::size_t remove_stale_temporaries(const std::filesystem::path& dir);

// Checks, before any work, that `dir` can receive output files: creates it (and its parents) if needed,
// and throws IoError(dir, reason) when it is empty, not a directory, cannot be created (a file on the
// way, a read-only file system, a name too long) or is not writable. create = false (a dry run) creates
// nothing: a `dir` that does not exist passes when its nearest existing parent is a writable directory.
void prepare_output_dir(const std::filesystem::path& dir, bool create = true);
// Checks, before any work, that `path` can be written atomically later: it is not an existing directory
// or special file (e.g. /dev/null, which a rename would replace), and its folder exists and is writable.
// Throws IoError(path, reason).
void check_output_file(const std::filesystem::path& path);

// Renames `path` to `<path><suffix>` in its folder, never over another file: when that name is taken,
// `<path><suffix>.1`, `.2`, ... (the first free one). Keeps a file that must not be overwritten or deleted
// (a proof that does not verify) for a person to look at. Returns the new path; throws IoError naming
// `path` when it cannot be renamed.
std::filesystem::path move_aside(const std::filesystem::path& path, const std::string& suffix);

}  // namespace cuzk::io
