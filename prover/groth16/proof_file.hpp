// Proof files: the raw concatenation of a sector's partition proofs, 192 bytes each in partition order
// (rust-fil-proofs MultiProof::write; 192 B for 2KiB/8MiB/512MiB sectors, 1920 B for 32/64GiB), as
// `cuzk prove` writes `<sector>.proof`.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "prover/algebra/encoding.hpp"
#include "prover/groth16/proof.hpp"

namespace cuzk::groth16 {

// The most partition proofs a proof file holds: NI-PoRep's 126 partitions at 32GiB and 64GiB, the most of
// any registered proof (porep::RegisteredSealProof::partitions(); tests/test_proof_file.cpp checks it). A
// larger file is refused by its size before it is read, so that reading one is bounded by the format.
inline constexpr std::size_t kMaxProofsPerFile = 126;

// The number of partition proofs in `size` bytes. Throws algebra::EncodingError (kWrongLength) naming
// `source` and the offset of the first byte that does not belong to a whole proof when size is 0, not a
// multiple of 192, or more than kMaxProofsPerFile proofs.
std::size_t proof_count(std::uint64_t size, const std::string& source);

// The file's bytes, after the size check of proof_count, made before the file is read (io::IoError if
// missing or unreadable, algebra::EncodingError if of a wrong size).
std::vector<std::uint8_t> read_proof_file_bytes(const std::filesystem::path& path);

// Decodes every partition proof of `bytes` (size checked as proof_count). A bad point throws
// algebra::EncodingError (so the CLI reports it as an encoding error) whose message names `source`,
// the partition index, its byte offset and the point: "f.proof: partition 3 (offset 576): proof point b
// (G2 compressed): point is not in the prime-order subgroup".
std::vector<groth16::Proof> parse_proofs(std::span<const std::uint8_t> bytes, const std::string& source,
                                         algebra::PointCheck check = algebra::PointCheck::kFull);

std::vector<groth16::Proof> read_proof_file(const std::filesystem::path& path,
                                            algebra::PointCheck check = algebra::PointCheck::kFull);

std::vector<std::uint8_t> serialize_proofs(std::span<const groth16::Proof> proofs);

// Writes the proofs with write_file_atomic (io/atomic_file.hpp): never a half-written proof file.
void write_proof_file_atomic(const std::filesystem::path& path, std::span<const groth16::Proof> proofs);

}  // namespace cuzk::groth16
