// Groth16 verifying key and proving parameters in bellperson's on-disk layout (docs/formats.md, "Groth16
// parameters"; bellperson src/groth16/params.rs and verifying_key.rs):
//
//   .vk     = alpha_g1 beta_g1 beta_g2 gamma_g2 delta_g1 delta_g2 (uncompressed: G1 96 B, G2 192 B),
//             u32 big-endian ic.len(), ic points (G1 uncompressed)
//   .params = the .vk block, then for each of h, l, a, b_g1 (G1) and b_g2 (G2):
//             u32 big-endian length, the uncompressed points. No padding, no header.
//
// Reading follows bellperson: the six vk elements and ic are always fully checked (on curve and in
// the subgroup, as VerifyingKey::read uses from_uncompressed); the five parameter vectors are decoded
// with the caller's PointCheck (rust-fil-proofs reads them unchecked). Points at infinity are
// rejected everywhere: in the six fixed vk elements (bellperson accepts them there, but a key with gamma
// or delta at infinity verifies forged proofs), in ic and in every vector. Every failure is a Groth16Error
// (kParameters) naming the file, the vector and the byte offset. Trailing bytes after the last vector are
// rejected too (bellperson ignores them; for a file of ours they mean corruption).
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <span>
#include <string>
#include <vector>

#include "prover/algebra/curve.hpp"
#include "prover/algebra/encoding.hpp"

namespace cuzk::groth16 {

using algebra::G1Affine;
using algebra::G2Affine;
using algebra::PointCheck;

// Byte size of the fixed part of a verifying key: 3 G1 + 3 G2 uncompressed points (docs/formats.md, "Groth16
// parameters").
constexpr std::size_t kVkFixedBytes = 3 * algebra::kG1UncompressedSize + 3 * algebra::kG2UncompressedSize;
static_assert(kVkFixedBytes == 864);
constexpr std::size_t kLengthBytes = 4;  // u32 big-endian vector length
// Writes that length field for a vector of `count` points at `out` (kLengthBytes). Throws std::length_error
// naming the vector when it does not fit in a u32 (bellperson writes the lengths as u32).
void write_vector_length(std::size_t count, const char* name, std::uint8_t* out);

struct VerifyingKey {
  G1Affine alpha_g1, beta_g1;
  G2Affine beta_g2, gamma_g2;
  G1Affine delta_g1;
  G2Affine delta_g2;
  std::vector<G1Affine> ic;  // one per public input, ONE included

  std::size_t serialized_size() const {
    return kVkFixedBytes + kLengthBytes + ic.size() * algebra::kG1UncompressedSize;
  }
  // Appends the bellperson encoding to `out`.
  void write(std::vector<std::uint8_t>& out) const;
  std::vector<std::uint8_t> to_bytes() const;
  // Atomic file write (temp file + rename).
  void write_file(const std::string& path) const;

  // Decodes a whole .vk image; `source` names it in errors (a path, or "<memory>").
  static VerifyingKey from_bytes(std::span<const std::uint8_t> bytes, const std::string& source = "<memory>");
  // Reads a .vk file (memory-mapped). Throws Groth16Error (kParameters) naming the file for any fault of it.
  static VerifyingKey read(const std::string& path);

  friend bool operator==(const VerifyingKey&, const VerifyingKey&) = default;
};

struct Parameters {
  VerifyingKey vk;
  std::vector<G1Affine> h;     // tau^i Z(tau) / delta, i < m - 1 (m = domain size)
  std::vector<G1Affine> l;     // (beta u_i + alpha v_i + w_i)(tau) / delta, one per aux variable
  std::vector<G1Affine> a;     // u_i(tau): all inputs, then aux with A density
  std::vector<G1Affine> b_g1;  // v_i(tau): inputs with B density, then aux with B density
  std::vector<G2Affine> b_g2;  // the same in G2

  std::size_t num_inputs() const { return vk.ic.size(); }
  std::size_t num_aux() const { return l.size(); }
  std::size_t domain_size() const { return h.size() + 1; }

  std::uint64_t serialized_size() const;
  // Appends the bellperson encoding to `out` (points encoded in parallel).
  void write(std::vector<std::uint8_t>& out, unsigned threads = 0) const;
  std::vector<std::uint8_t> to_bytes(unsigned threads = 0) const;
  // Streams the encoding in bounded chunks (for parameters too large to hold twice in memory). Stream
  // failures are left in the stream's state for the caller to check.
  void write(std::ostream& out, unsigned threads = 0) const;
  // Atomic file write (temp file + rename).
  void write_file(const std::string& path, unsigned threads = 0) const;

  // Decodes a whole .params image; vectors are decoded in parallel (`threads` = 0: all OpenMP threads).
  static Parameters from_bytes(std::span<const std::uint8_t> bytes, PointCheck vector_check,
                               const std::string& source = "<memory>", unsigned threads = 0);
  // Reads a .params file (memory-mapped). Throws Groth16Error (kParameters) naming the file for any fault of
  // it.
  static Parameters read(const std::string& path, PointCheck vector_check, unsigned threads = 0);

  friend bool operator==(const Parameters&, const Parameters&) = default;
};

// The layout of a .params file from its length fields alone (no point is decoded), for
// `cuzk params info`. Validates that the file size is exactly the size the lengths imply.
struct ParametersInfo {
  struct Vector {
    std::string name;             // "ic", "h", "l", "a", "b_g1", "b_g2"
    std::uint64_t length_offset;  // byte offset of the u32 length field
    std::uint32_t count;
    std::size_t point_bytes;  // 96 (G1) or 192 (G2)
    std::uint64_t bytes() const { return kLengthBytes + static_cast<std::uint64_t>(count) * point_bytes; }
  };
  std::uint64_t file_size = 0;
  std::vector<Vector> vectors;  // in file order: ic, h, l, a, b_g1, b_g2

  const Vector& vector(const std::string& name) const;
  std::uint32_t num_inputs() const { return vector("ic").count; }  // ONE included
  std::uint32_t num_aux() const { return vector("l").count; }
  std::uint64_t domain_size() const { return std::uint64_t{vector("h").count} + 1; }
  std::uint64_t vk_bytes() const { return kVkFixedBytes + vector("ic").bytes(); }
};

ParametersInfo parameters_info(std::span<const std::uint8_t> bytes, const std::string& source = "<memory>");
ParametersInfo read_parameters_info(const std::string& path);

// What the prover needs of a parameter set besides its five base vectors: the verifying key (the
// blinding terms use alpha, beta and delta) and the vector lengths (checked against every witness). An
// engine that holds the bases elsewhere (the GPU engine: on the device, read straight from the file) is
// driven through this, so the host never decodes the ~44 GiB of a 32GiB sector's bases.
struct ParameterHeader {
  VerifyingKey vk;
  std::size_t h = 0, l = 0, a = 0, b_g1 = 0, b_g2 = 0;

  std::size_t domain_size() const { return h + 1; }
  friend bool operator==(const ParameterHeader&, const ParameterHeader&) = default;
};

ParameterHeader header_of(const Parameters& params);
// The header of a .params file: the vk block at its start, fully checked (as VerifyingKey::read), and the
// lengths of its vectors (parameters_info: they must add up to the file size). No base point is decoded.
// Throws Groth16Error (kParameters) naming the file.
ParameterHeader read_parameter_header(const std::string& path);

}  // namespace cuzk::groth16
