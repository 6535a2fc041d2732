// Filecoin Groth16 parameter files: sector sizes, the PoRep PublicParams identifier, the v28 file
// names derived from it, the parameters.json manifest entries, the parameter cache directory and
// the BLAKE2b digest rust-fil-proofs checks (docs/formats.md, "File names, digests, directory"; rfp
// `storage-proofs-core/src/parameter_cache.rs`).
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace cuzk::io {

// The five production PoRep sector sizes; the value is the size in bytes.
enum class SectorSize : std::uint64_t {
  k2KiB = std::uint64_t{2} << 10,
  k8MiB = std::uint64_t{8} << 20,
  k512MiB = std::uint64_t{512} << 20,
  k32GiB = std::uint64_t{32} << 30,
  k64GiB = std::uint64_t{64} << 30,
};

inline constexpr std::array<SectorSize, 5> kAllSectorSizes = {
    SectorSize::k2KiB, SectorSize::k8MiB, SectorSize::k512MiB, SectorSize::k32GiB, SectorSize::k64GiB};

constexpr std::uint64_t sector_bytes(SectorSize s) {
  return static_cast<std::uint64_t>(s);
}

// "2KiB", "8MiB", "512MiB", "32GiB", "64GiB".
std::string_view format_sector_size(SectorSize s);

// Accepts the names above (case-insensitive) or the size in bytes in decimal ("2048",
// "34359738368"). Anything else, including sizes that are not one of the five, gives nullopt.
std::optional<SectorSize> parse_sector_size(std::string_view text);

// The circuit-shaping values per sector size (docs/circuit.md §1).
struct PorepShape {
  std::uint64_t nodes;                             // sector_size / 32 (NODE_SIZE = 32)
  std::uint32_t layers;                            // SDR layers
  std::uint32_t partitions;                        // PoRep partitions
  std::uint32_t challenges_per_partition;          // LayerChallenges::max_count
  std::uint32_t base_arity, sub_arity, top_arity;  // tree_r shape, e.g. 8-8-0
};

PorepShape porep_shape(SectorSize s);

// rfp `layered_drgporep::PublicParams::identifier()` for the StackedDrg PoRep of this size
// (docs/formats.md, "File names, digests, directory"), e.g. for 2KiB:
// "layered_drgporep::PublicParams{ graph: stacked_graph::StackedGraph{expansion_degree: 8 base_graph:
//  drgraph::BucketGraph{size: 64; degree: 6; hasher: poseidon_hasher} }, challenges: LayerChallenges
//  { layers: 2, max_count: 2 }, tree: merkletree-poseidon_hasher-8-0-0 }" (one line).
std::string porep_public_params_identifier(SectorSize s);

// "stacked-proof-of-replication-merkletree-poseidon_hasher-8-S-T-sha256_hasher-<hex(sha256(identifier))>".
std::string porep_cache_identifier(SectorSize s);

// Lowercase hex SHA-256 of the identifier (the file id of the v28 file names).
std::string porep_identifier_sha256(SectorSize s);

enum class ParamFileKind { kParams, kVerifyingKey, kMeta };

std::string_view extension(ParamFileKind kind);  // "params", "vk", "meta"

// "v28-<cache_identifier>.<ext>" (parameter_cache.rs VERSION = 28).
std::string porep_param_file_name(SectorSize s, ParamFileKind kind);

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

// FIL_PROOFS_PARAMETER_CACHE when set and non-empty, else /var/tmp/filecoin-proof-parameters
// (rfp storage-proofs-core/src/settings.rs).
std::filesystem::path parameter_cache_dir();

// Lowercase hex BLAKE2b-512 of a whole file, read in chunks (files of tens of GiB). Throws IoError.
std::string blake2b512_file_hex(const std::filesystem::path& path);

// What parameters.json records as `digest`: the first 32 hex chars of blake2b512_file_hex
// (verify_production_entry slices [..32] of the hex string). Throws IoError.
std::string filecoin_param_digest(const std::filesystem::path& path);

}  // namespace cuzk::io
