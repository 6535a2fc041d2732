// Filecoin's Groth16 parameter files for the EmptySectorUpdate (SnapDeals) circuit: their v28 names and
// parameters.json entries, one .params and one .vk per registered sector size (docs/formats.md, "File
// names, digests, directory"). The names are data here, not derived: the circuit's PublicParams
// identifier is not reproduced (porep/param_names.hpp derives the PoRep ones).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "prover/porep/param_names.hpp"

namespace cuzk::update {

// The ten entries, smallest size first, .params before .vk.
std::span<const porep::ManifestEntry> update_manifest();

// The entry of one sector size (in bytes) and kind (kParams or kVerifyingKey); nullopt for a size with no
// registered update proof or another kind.
std::optional<porep::ManifestEntry> find_update_manifest_entry(std::uint64_t sector_size,
                                                               porep::ParamFileKind kind);

}  // namespace cuzk::update
