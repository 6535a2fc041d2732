// The SDR parent graph: DRG BucketGraph parents (degree 6) and expander parents (degree 8), both
// seeded by porep_id, with the parent order of the API version (docs/circuit.md §3).
#pragma once

#include <array>
#include <cstdint>

#include "prover/porep/registered_proof.hpp"

namespace cuzk::porep {


class StackedGraph {
 public:
  StackedGraph(std::uint64_t nodes, const std::array<std::uint8_t, 32>& porep_id, ApiVersion api_version);

  std::uint64_t nodes() const { return nodes_; }
  ApiVersion api_version() const { return api_version_; }
  void drg_parents(std::uint64_t node, std::uint32_t out[kDrgParents]) const;
  void expander_parents(std::uint64_t node, std::uint32_t out[kExpanderParents]) const;
  // [6 DRG] ++ [8 expander]: the order of C1's drg_parents/exp_parents and of the public inputs.
  void parents(std::uint64_t node, std::uint32_t out[kGraphParents]) const;

  const std::array<std::uint64_t, 4>& feistel_keys() const { return feistel_keys_; }

 private:
  std::uint64_t feistel_encode(std::uint64_t x) const;
  std::uint64_t feistel_permute(std::uint64_t n, std::uint64_t x) const;

  std::uint64_t nodes_;
  ApiVersion api_version_;
  std::array<std::uint8_t, 28> drg_seed_{};
  std::array<std::uint64_t, 4> feistel_keys_{};
  unsigned feistel_half_bits_ = 0;
  std::uint64_t feistel_right_mask_ = 0, feistel_left_mask_ = 0;
};

}  // namespace cuzk::porep
