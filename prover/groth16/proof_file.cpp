#include "prover/groth16/proof_file.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <system_error>

#include "io/atomic_file.hpp"
#include "io/io_error.hpp"
#include "prover/algebra/encoding.hpp"

namespace cuzk::groth16 {

using groth16::Proof;

namespace {

// A proof file of the wrong size is a bad encoding of proofs, like a bad point in one: both are exit 4
// (docs/exit-codes.md). The message names the file and the offset of the first byte that is not part of a
// whole proof, as io::IoError's does.
[[noreturn]] void throw_wrong_size(const std::string& source, const std::string& what, std::uint64_t offset) {
  throw algebra::EncodingError(algebra::EncodingErrorKind::kWrongLength,
                               source + " (offset " + std::to_string(offset) + "): " + what);
}

}  // namespace

std::size_t proof_count(std::uint64_t size, const std::string& source) {
  if (size == 0) throw_wrong_size(source, "empty proof file (a proof file holds 192 bytes per partition)", 0);
  constexpr std::uint64_t kMaxBytes = kMaxProofsPerFile * Proof::kSize;
  if (size > kMaxBytes) {
    throw_wrong_size(source,
                     "size " + std::to_string(size) + " bytes is more than the " +
                         std::to_string(kMaxProofsPerFile) + " partition proofs (" +
                         std::to_string(kMaxBytes) + " bytes) of any proof file",
                     kMaxBytes);
  }
  if (size % Proof::kSize != 0) {
    std::uint64_t whole = size / Proof::kSize;
    throw_wrong_size(
        source,
        "size " + std::to_string(size) +
            " bytes is not a multiple of the 192-byte partition proof: " + std::to_string(whole) +
            " whole proof(s) and " + std::to_string(size % Proof::kSize) + " trailing byte(s)",
        whole * Proof::kSize);
  }
  return static_cast<std::size_t>(size / Proof::kSize);
}

std::vector<std::uint8_t> read_proof_file_bytes(const std::filesystem::path& path) {
  const std::string name = path.string();
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    throw io::IoError(name, ec                              ? "cannot read: " + ec.message()
                            : std::filesystem::exists(path) ? "not a regular file"
                                                            : "no such file");
  }
  const std::uint64_t size = std::filesystem::file_size(path, ec);
  if (ec) throw io::IoError(name, "cannot read: " + ec.message());
  proof_count(size, name);  // before reading: a huge file is refused by its size, not read
  std::ifstream in(path, std::ios::binary);
  if (!in) throw io::IoError(name, std::string("cannot open: ") + std::strerror(errno));
  std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw io::IoError(name, "read failed", bytes.size());
  proof_count(bytes.size(), name);
  return bytes;
}

std::vector<Proof> parse_proofs(std::span<const std::uint8_t> bytes, const std::string& source,
                                algebra::PointCheck check) {
  std::size_t count = proof_count(bytes.size(), source);
  std::vector<Proof> proofs;
  proofs.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    try {
      proofs.push_back(Proof::read(bytes.subspan(i * Proof::kSize, Proof::kSize), check));
    } catch (const algebra::EncodingError& e) {
      throw algebra::EncodingError(e.kind(), source + ": partition " + std::to_string(i) + " (offset " +
                                                 std::to_string(i * Proof::kSize) + "): " + e.context());
    }
  }
  return proofs;
}

std::vector<Proof> read_proof_file(const std::filesystem::path& path, algebra::PointCheck check) {
  std::vector<std::uint8_t> bytes = read_proof_file_bytes(path);
  return parse_proofs(bytes, path.string(), check);
}

std::vector<std::uint8_t> serialize_proofs(std::span<const Proof> proofs) {
  std::vector<std::uint8_t> out(proofs.size() * Proof::kSize);
  for (std::size_t i = 0; i < proofs.size(); ++i) proofs[i].write(out.data() + i * Proof::kSize);
  return out;
}

void write_proof_file_atomic(const std::filesystem::path& path, std::span<const Proof> proofs) {
  io::write_file_atomic(path, serialize_proofs(proofs));
}

}  // namespace cuzk::groth16
