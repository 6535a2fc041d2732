#include "prover/update/param_names.hpp"

#include <string>

namespace cuzk::update {
namespace {

// The "v28-empty-sector-update-*" entries of lotus build/proof-params/parameters.json (filecoin-project/
// lotus at commit 10af768c6048132d5861a520a04736a5168dc977), the manifest lotus fetches parameters by:
// file name, IPFS CID, digest (first 32 hex chars of BLAKE2b-512 of the file), sector size in bytes. The
// tree shape in each name is the size's TreeR (base-sub-top arities, shape.hpp).
constexpr porep::ManifestEntry kUpdateManifest[] = {
    {"v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-"
     "fb9e095bebdd77511c0269b967b4d87ba8b8a525edaa0e165de23ba454510194.params",
     "QmYM6Hg7mjmvA3ZHTsqkss1fkdyDju5dDmLiBZGJ5pz9y9", "311f92a3e75036ced01b1c0025f1fa0c", 2048},
    {"v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-"
     "fb9e095bebdd77511c0269b967b4d87ba8b8a525edaa0e165de23ba454510194.vk",
     "QmaQsTLL3nc5dw6wAvaioJSBfd1jhQrA2o6ucFf7XeV74P", "eadad9784969890d30f2749708c79771", 2048},
    {"v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-"
     "92180959e1918d26350b8e6cfe217bbdd0a2d8de51ebec269078b364b715ad63.params",
     "QmQiT4qBGodrVNEgVTDXxBNDdPbaD8Ag7Sx3ZTq1zHX79S", "5aedd2cf3e5c0a15623d56a1b43110ad", 8388608},
    {"v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-"
     "92180959e1918d26350b8e6cfe217bbdd0a2d8de51ebec269078b364b715ad63.vk",
     "QmdcpKUQvHM8RFRVKbk1yHfEqMcBzhtFWKRp9SNEmWq37i", "abd80269054d391a734febdac0d2e687", 8388608},
    {"v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-"
     "61fa69f38b9cc771ba27b670124714b4ea77fbeae05e377fb859c4a43b73a30c.params",
     "Qma5WL6abSqYg9uUQAZ3EHS286bsNsha7oAGsJBD48Bq2q", "c3ad7bb549470b82ad52ed070aebb4f4", 536870912},
    {"v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-"
     "61fa69f38b9cc771ba27b670124714b4ea77fbeae05e377fb859c4a43b73a30c.vk",
     "QmUa7f9JtJMsqJJ3s3ZXk6WyF4xJLE8FiqYskZGgk8GCDv", "994c5b7d450ca9da348c910689f2dc7f", 536870912},
    {"v28-empty-sector-update-merkletree-poseidon_hasher-8-8-0-"
     "3b7f44a9362e3985369454947bc94022e118211e49fd672d52bec1cbfd599d18.params",
     "QmNPc75iEfcahCwNKdqnWLtxnjspUGGR4iscjiz3wP3RtS", "1b3cfd761a961543f9eb273e435a06a2", 34359738368},
    {"v28-empty-sector-update-merkletree-poseidon_hasher-8-8-0-"
     "3b7f44a9362e3985369454947bc94022e118211e49fd672d52bec1cbfd599d18.vk",
     "QmdFFUe1gcz9MMHc6YW8aoV48w4ckvcERjt7PkydQAMfCN", "3a6941983754737fde880d29c7094905", 34359738368},
    {"v28-empty-sector-update-merkletree-poseidon_hasher-8-8-2-"
     "102e1444a7e9a97ebf1e3d6855dcc77e66c011ea66f936d9b2c508f87f2f83a7.params",
     "QmUB6xTVjzBQGuDNeyJMrrJ1byk58vhPm8eY2Lv9pgwanp", "1a392e7b759fb18e036c7559b5ece816", 68719476736},
    {"v28-empty-sector-update-merkletree-poseidon_hasher-8-8-2-"
     "102e1444a7e9a97ebf1e3d6855dcc77e66c011ea66f936d9b2c508f87f2f83a7.vk",
     "Qmd794Jty7k26XJ8Eg4NDEks65Qk8G4GVfGkwqvymv8HAg", "80e366df2f1011953c2d01c7b7c9ee8e", 68719476736},
};

}  // namespace

std::span<const porep::ManifestEntry> update_manifest() {
  return kUpdateManifest;
}

std::optional<porep::ManifestEntry> find_update_manifest_entry(std::uint64_t sector_size,
                                                               porep::ParamFileKind kind) {
  if (kind != porep::ParamFileKind::kParams && kind != porep::ParamFileKind::kVerifyingKey)
    return std::nullopt;
  const std::string suffix = "." + std::string(porep::extension(kind));
  for (const porep::ManifestEntry& e : kUpdateManifest) {
    if (e.sector_size == sector_size && e.file_name.ends_with(suffix)) return e;
  }
  return std::nullopt;
}

}  // namespace cuzk::update
