// Reading and writing commit-phase-1 output files:
//  - raw serde JSON of filecoin-proofs-api SealCommitPhase1Output (docs/formats.md, "C1 files"), and
//  - the lotus-bench / curio envelope {"SectorNum": i64, "Phase1Out": base64(raw JSON), "SectorSize": u64}.
// Parsing is a strict pull parse over the mmapped file (no DOM): unknown, missing and duplicate
// fields, wrong array lengths and malformed JSON are io::IoError naming the file, the offset and the
// partition/challenge being read. Semantic checks (shape, consistency) are in prover/porep/c1_validate.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "prover/porep/vanilla_proof.hpp"

namespace cuzk::porep {

// The longest envelope Phase1Out accepted, in base64 characters; a longer one is refused before it is
// decoded. The largest C1 output (64GiB NI-PoRep: 126 partitions x 18 challenges, each ~1,900 32-byte
// nodes of tree paths, 11-layer columns and 37 label parents, at most 129 bytes each as serde writes
// them) is ~0.6 GB of JSON; 1 GiB of JSON leaves room for whitespace, and base64 makes it 4/3 as long.
inline constexpr std::size_t kMaxPhase1OutChars = (std::size_t{1} << 30) / 3 * 4;

porep::C1Output read_c1_file(const std::string& path);
// The SectorNum of an envelope, read without decoding its Phase1Out (lotus writes SectorNum first, so only
// the file's first bytes are looked at); nothing for the raw form. Cheap enough to key thousands of C1 files
// (job/shard.hpp). Throws io::IoError where read_c1_file would fail before reaching the SectorNum.
std::optional<std::int64_t> read_c1_sector_number(const std::string& path);
// `max_phase1_out_chars`: kMaxPhase1OutChars, smaller only in tests.
porep::C1Output parse_c1_json(std::string_view text, const std::string& source_name,
                              std::size_t max_phase1_out_chars = kMaxPhase1OutChars);

// serde_json's compact output (field order as the Rust structs, "_h": null on columns).
std::string c1_to_json(const porep::C1Output& c1);
// The envelope around c1_to_json; SectorNum from c1.sector_num (0 when absent).
std::string c1_to_envelope_json(const porep::C1Output& c1);

std::string base64_encode(std::string_view bytes);
// Throws IoError(source_name, ...) on invalid base64, found in a first pass before any memory is taken.
std::string base64_decode(std::string_view text, const std::string& source_name);

}  // namespace cuzk::porep
