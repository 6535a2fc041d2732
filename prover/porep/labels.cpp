#include "prover/porep/labels.hpp"

#include <cstring>

#include "prover/porep/hashing.hpp"
#include "prover/porep/registered_proof.hpp"

namespace cuzk::porep {

namespace {
}

Domain label_node(const Domain& replica_id, std::uint32_t layer, std::uint64_t node, const Domain* parents37) {
  std::uint8_t header[64] = {};
  std::memcpy(header, replica_id.data(), 32);
  for (int b = 0; b < 4; ++b) header[32 + b] = static_cast<std::uint8_t>(layer >> (24 - 8 * b));
  for (int b = 0; b < 8; ++b) header[36 + b] = static_cast<std::uint8_t>(node >> (56 - 8 * b));
  Digest32 d = node == 0 ? sha256(std::span<const std::uint8_t>(header, 64))
                         : sha256({std::span<const std::uint8_t>(header, 64),
                                   std::span<const std::uint8_t>(parents37->data(), kNodeBytes * kLabelParents)});
  trim_to_fr32(d);
  return d;
}

void collect_label_parents(const StackedGraph& graph, const std::vector<std::vector<Domain>>& labels,
                           std::uint32_t layer, std::uint64_t node, Domain out[37]) {
  std::uint32_t parents[kGraphParents];
  graph.parents(node, parents);
  const auto& current = labels[layer - 1];
  if (layer == 1) {
    for (unsigned i = 0; i < kLabelParents; ++i) out[i] = current[parents[i % kDrgParents]];
    return;
  }
  const auto& previous = labels[layer - 2];
  for (unsigned i = 0; i < kLabelParents; ++i) {
    unsigned p = i % kGraphParents;
    out[i] = p < kDrgParents ? current[parents[p]] : previous[parents[p]];
  }
}

std::vector<std::vector<Domain>> generate_labels(const StackedGraph& graph, unsigned layers, const Domain& replica_id) {
  std::vector<std::vector<Domain>> labels(layers, std::vector<Domain>(graph.nodes()));
  Domain parents[kLabelParents];
  for (std::uint32_t layer = 1; layer <= layers; ++layer) {
    for (std::uint64_t node = 0; node < graph.nodes(); ++node) {
      if (node > 0) collect_label_parents(graph, labels, layer, node, parents);
      labels[layer - 1][node] = label_node(replica_id, layer, node, parents);
    }
  }
  return labels;
}

}  // namespace cuzk::porep
