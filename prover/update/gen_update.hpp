// Test data: an EmptySectorUpdate (SnapDeals) instance whose every partition's vanilla proof is valid, for
// any sector size of UpdateShape (the registered ones and upstream's test shapes).
//  - dense (default up to 8MiB): random old replica labels (TreeROld) and comm_c, random fr32 deal data
//    (TreeDNew), every new label encoded as label_r_old + data * rho(phi, high bits) (TreeRNew), all three
//    trees built in full;
//  - sparse (default above 8MiB): a no-deal-data update, every data node zero. Then each new label equals
//    its old one (data * rho = 0), so TreeRNew is TreeROld and comm_r_new = comm_r_old. TreeROld's labels
//    are one random default value with a few random labels at random nodes, so every tree is a sparse one
//    (prover/porep/sparse_tree.hpp) of a few thousand nodes whatever the sector size. The challenges
//    derive from comm_r_new, which the trees must be built to know, so challenged nodes cannot be given
//    data in advance: the encoding (rho) is exercised by the dense sizes only.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "prover/porep/vanilla_proof.hpp"
#include "prover/update/input_file.hpp"
#include "prover/update/shape.hpp"
#include "prover/update/vanilla_proof.hpp"

namespace cuzk::update {

// The largest sector generated dense by default: 8MiB (2^18 nodes).
inline constexpr std::uint64_t kDenseUpdateNodeLimit = std::uint64_t{1} << 18;

struct GenUpdateOptions {
  std::uint64_t seed = 0;                            // drives every random label and data node
  std::optional<bool> sparse;                        // default: dense up to kDenseUpdateNodeLimit nodes
  std::function<void(const std::string&)> progress;  // optional progress messages
};

struct GeneratedUpdate {
  UpdateShape shape;
  std::size_t h = 0;  // the shape's h_default
  porep::Domain comm_c{}, root_r_old{}, root_r_new{};
  porep::Domain comm_r_old{}, comm_r_new{}, comm_d_new{};
  std::vector<VanillaPartitionProof> vanilla_proofs;  // one per partition
  bool sparse = false;
};

// Any shape (UpdateShape::find). Throws UpdateError for a dense instance too large to build in memory
// (above 2^24 nodes).
GeneratedUpdate generate_update(const UpdateShape& shape, const GenUpdateOptions& options);

// An update input file's contents for a registered sector size ("2KiB" ... "64GiB"). Throws UpdateError for
// a size with no registered update proof.
UpdateInput generate_update_input(const std::string& size_label, std::uint64_t sector_id,
                                  const GenUpdateOptions& options);

}  // namespace cuzk::update
