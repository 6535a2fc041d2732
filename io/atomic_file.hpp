// Atomic whole-file writes: the bytes go to a temporary file in the destination's directory, are
// fsync'ed, and the temporary is renamed over the destination (then the directory is fsync'ed). A
// reader sees either the old file or the complete new one, never a half-written file: a failed or
// killed run leaves no truncated proof or parameter file behind (DESIGN.md, io/).
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>

namespace cuzk::io {

// Replaces (or creates) `path` with `bytes`. Throws IoError naming the file on any failure, in which
// case `path` is untouched and the temporary file is removed.
void write_file_atomic(const std::filesystem::path& path, std::span<const std::uint8_t> bytes);

}  // namespace cuzk::io
