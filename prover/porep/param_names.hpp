// Filecoin's Groth16 parameter files for the PoRep circuits: the PublicParams identifier of a sector
// shape, the v28 file names derived from it, the parameters.json manifest entries and the BLAKE2b digest
// rust-fil-proofs checks (docs/formats.md, "File names, digests, directory"; rfp
// `storage-proofs-core/src/parameter_cache.rs`). The directory they live in is io::parameter_cache_dir().
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "prover/porep/registered_proof.hpp"

namespace cuzk::porep {

// rfp `layered_drgporep::PublicParams::identifier()` for the StackedDrg PoRep of this shape, e.g. for 2KiB:
// "layered_drgporep::PublicParams{ graph: stacked_graph::StackedGraph{expansion_degree: 8 base_graph:
//  drgraph::BucketGraph{size: 64; degree: 6; hasher: poseidon_hasher} }, challenges: LayerChallenges
//  { layers: 2, max_count: 2 }, tree: merkletree-poseidon_hasher-8-0-0 }" (one line).
std::string public_params_identifier(const SectorShape& shape);

// Lowercase hex SHA-256 of the identifier (the file id of the v28 file names).
std::string identifier_sha256(const SectorShape& shape);

// "stacked-proof-of-replication-merkletree-poseidon_hasher-8-S-T-sha256_hasher-<identifier_sha256>".
std::string cache_identifier(const SectorShape& shape);

enum class ParamFileKind { kParams, kVerifyingKey, kMeta };

std::string_view extension(ParamFileKind kind);  // "params", "vk", "meta"

// "v28-<cache_identifier>.<ext>" (parameter_cache.rs VERSION = 28).
std::string param_file_name(const SectorShape& shape, ParamFileKind kind);

// One parameters.json entry (rfp root parameters.json schema: {"cid", "digest", "sector_size"}).
struct ManifestEntry {
  std::string_view file_name;
  std::string_view cid;
  std::string_view digest;  // first 32 hex chars of BLAKE2b-512 of the whole file
  std::uint64_t sector_size;
};

// The ten PoRep entries (.params and .vk for the five sizes) of rfp's parameters.json.
std::span<const ManifestEntry> porep_manifest();

// The entry for a file name, or nullopt when the name is not one of the ten.
std::optional<ManifestEntry> find_manifest_entry(std::string_view file_name);

// Lowercase hex BLAKE2b-512 of a whole file, read in chunks (files of tens of GiB). Throws io::IoError.
std::string blake2b512_file_hex(const std::filesystem::path& path);

// What parameters.json records as `digest`: the first 32 hex chars of blake2b512_file_hex
// (verify_production_entry slices [..32] of the hex string). Throws io::IoError.
std::string filecoin_param_digest(const std::filesystem::path& path);

}  // namespace cuzk::porep
