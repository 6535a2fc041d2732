#include "prover/porep/registered_proof.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace cuzk::porep {

std::string_view to_string(ApiVersion v) {
  switch (v) {
    case ApiVersion::kV1_0_0: return "1.0.0";
    case ApiVersion::kV1_1_0: return "1.1.0";
    case ApiVersion::kV1_2_0: return "1.2.0";
  }
  return "?";
}

unsigned SectorShape::tree_d_depth() const { return static_cast<unsigned>(__builtin_ctzll(nodes)); }

unsigned SectorShape::base_path_length() const {
  // The base tree spans nodes / (sub * top) leaves, each level divides by base_arity (8 = 2^3).
  std::uint64_t base_leaves = nodes / (sub_arity ? sub_arity : 1) / (top_arity ? top_arity : 1);
  return static_cast<unsigned>(__builtin_ctzll(base_leaves)) / 3;
}

const std::vector<SectorShape>& all_sector_shapes() {
  // docs/circuit.md §1: nodes, layers, shape, partitions, challenges per partition (= ceil(min_challenges/partitions)).
  static const std::vector<SectorShape> shapes = {
      {2048, "2KiB", 1ull << 6, 2, 8, 0, 0, 1, 2, "StackedDrg2KiBV1"},
      {8ull << 20, "8MiB", 1ull << 18, 2, 8, 0, 0, 1, 2, "StackedDrg8MiBV1"},
      {512ull << 20, "512MiB", 1ull << 24, 2, 8, 0, 0, 1, 2, "StackedDrg512MiBV1"},
      {32ull << 30, "32GiB", 1ull << 30, 11, 8, 8, 0, 10, 18, "StackedDrg32GiBV1"},
      {64ull << 30, "64GiB", 1ull << 31, 11, 8, 8, 2, 10, 18, "StackedDrg64GiBV1"},
  };
  return shapes;
}

const SectorShape* find_sector_shape(std::uint64_t sector_size) {
  for (const auto& s : all_sector_shapes())
    if (s.sector_size == sector_size) return &s;
  return nullptr;
}

const SectorShape* parse_sector_size(std::string_view text) {
  for (const auto& s : all_sector_shapes()) {
    if (text.size() == s.label.size() &&
        std::equal(text.begin(), text.end(), s.label.begin(),
                   [](char a, char b) { return std::tolower(a) == std::tolower(b); }))
      return &s;
  }
  std::uint64_t bytes = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), bytes);
  if (ec == std::errc() && end == text.data() + text.size()) return find_sector_shape(bytes);
  return nullptr;
}

std::array<std::uint8_t, 32> RegisteredSealProof::porep_id() const {
  std::array<std::uint8_t, 32> out{};
  for (int i = 0; i < 8; ++i) out[i] = static_cast<std::uint8_t>(id >> (8 * i));
  return out;
}

unsigned RegisteredSealProof::partitions() const {
  if (feature != PorepFeature::kNonInteractive) return shape->partitions;
  // rfp filecoin-proofs/src/constants.rs: NI-PoRep partitions (docs/circuit.md §1).
  return shape->sector_size >= (32ull << 30) ? 126 : 13;
}

const std::vector<RegisteredSealProof>& all_registered_seal_proofs() {
  static const std::vector<RegisteredSealProof> proofs = [] {
    // docs/circuit.md §1: ids 0..4 V1 (1.0.0), 5..9 V1_1 (1.1.0), 10..14 synthetic (1.2.0), 15..19 NI (1.2.0).
    static const char* const kSuffixes[4] = {"V1", "V1_1", "V1_1_Feat_SyntheticPoRep",
                                             "V1_2_Feat_NonInteractivePoRep"};
    static std::vector<std::string> names;  // storage for the string_views below
    names.reserve(20);
    std::vector<RegisteredSealProof> out;
    const ApiVersion versions[4] = {ApiVersion::kV1_0_0, ApiVersion::kV1_1_0, ApiVersion::kV1_2_0,
                                    ApiVersion::kV1_2_0};
    const PorepFeature features[4] = {PorepFeature::kInteractive, PorepFeature::kInteractive,
                                      PorepFeature::kSynthetic, PorepFeature::kNonInteractive};
    for (unsigned group = 0; group < 4; ++group) {
      for (unsigned i = 0; i < all_sector_shapes().size(); ++i) {
        const SectorShape& shape = all_sector_shapes()[i];
        names.push_back("StackedDrg" + std::string(shape.label) + kSuffixes[group]);
        out.push_back({names.back(), group * 5 + i, &shape, versions[group], features[group]});
      }
    }
    return out;
  }();
  return proofs;
}

const RegisteredSealProof* find_registered_seal_proof(std::string_view name) {
  for (const auto& p : all_registered_seal_proofs())
    if (p.name == name) return &p;
  return nullptr;
}

const RegisteredSealProof* find_registered_seal_proof(std::uint64_t id) {
  for (const auto& p : all_registered_seal_proofs())
    if (p.id == id) return &p;
  return nullptr;
}

}  // namespace cuzk::porep
