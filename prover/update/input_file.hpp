// The update input file: what cuzk proves an EmptySectorUpdate (SnapDeals) from, one JSON object per
// sector (docs/formats.md, "Update input files"):
//
//   {"registered_proof": "StackedDrg32GiBV1",   (rust-filecoin-proofs-api RegisteredUpdateProof)
//    "sector_id": 7,                            (names the proof; the proof itself does not use it)
//    "comm_r_old": [32 ints 0..255], "comm_r_new": [...], "comm_d_new": [...],
//    "vanilla_proofs": ["<base64 of partition 0's PartitionProofBytes>", ...]}
//
// The reader is strict, like the C1 reader: every field exactly once, no unknown field (a misspelt field
// must not be silently ignored), each commitment a canonical field element, one vanilla proof per
// partition of the sector size, each valid base64 (RFC 4648, padded) of bytes parse_partition_proof
// accepts. Every failure is an UpdateError naming the file and, where there is one, the partition.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "prover/porep/vanilla_proof.hpp"
#include "prover/update/circuit.hpp"
#include "prover/update/shape.hpp"
#include "prover/update/vanilla_proof.hpp"

namespace cuzk::update {

// rust-filecoin-proofs-api registry.rs RegisteredUpdateProof: one per registered sector size.
struct RegisteredUpdateProof {
  const char* name;        // "StackedDrg32GiBV1"
  const char* size_label;  // "32GiB" (UpdateShape::find)
  const UpdateShape& shape() const;
};
std::vector<RegisteredUpdateProof> registered_update_proofs();
// nullptr for a name that is not registered.
const RegisteredUpdateProof* find_registered_update_proof(std::string_view name);
// The proof registered for a sector size label ("2KiB"); nullptr where none is.
const RegisteredUpdateProof* registered_update_proof_for_size(std::string_view size_label);

struct UpdateInput {
  const RegisteredUpdateProof* registered_proof = nullptr;
  std::uint64_t sector_id = 0;
  porep::Domain comm_r_old{}, comm_r_new{}, comm_d_new{};
  std::vector<VanillaPartitionProof> vanilla_proofs;  // one per partition, in order
  friend bool operator==(const UpdateInput& a, const UpdateInput& b) {
    return a.registered_proof == b.registered_proof && a.sector_id == b.sector_id &&
           a.comm_r_old == b.comm_r_old && a.comm_r_new == b.comm_r_new && a.comm_d_new == b.comm_d_new &&
           a.vanilla_proofs == b.vanilla_proofs;
  }
};

// The longest base64 string of one partition's vanilla proof accepted (a 64GiB partition's proof is about
// 1 MB of base64); a longer one is refused before it is decoded.
inline constexpr std::size_t kMaxVanillaProofChars = 64u << 20;

// Parses the file's text; `source_name` names it in errors. Throws UpdateError.
UpdateInput parse_update_input_json(std::string_view text, const std::string& source_name);
// Reads and parses `path`. Throws UpdateError (io::IoError for a file that cannot be opened or mapped).
UpdateInput read_update_input_file(const std::string& path);

// The file's text: one field per line, one vanilla proof per line. Throws UpdateError for an input with
// no registered proof or the wrong number of partitions (the reader would refuse what it wrote).
std::string update_input_to_json(const UpdateInput& input);
// Writes it atomically (a temporary file in the same folder, then a rename): io::IoError naming `path`.
void write_update_input_file(const std::string& path, const UpdateInput& input);

// Partition k's circuit witness (h = the shape's h_default, as filecoin-proofs proves), from the input's
// commitments and vanilla proof; `source_name` names the file in errors. Throws UpdateError.
PartitionWitness partition_witness(const UpdateInput& input, std::size_t k, const std::string& source_name);

// What the verifier checks each partition proof against (randomness.hpp public_inputs, h = h_default), from
// the input's commitments alone: one vector per partition, in order. Throws UpdateError naming the file.
std::vector<std::vector<Fr>> sector_public_inputs(const UpdateInput& input, const std::string& source_name);

}  // namespace cuzk::update
