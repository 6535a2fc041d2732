// SDR labelling on the CPU (used to seal small sectors for real in gen-c1, and checked against
// rust-fil-proofs' published last-label vectors, docs/circuit.md §9).
#pragma once

#include <vector>

#include "prover/porep/graph.hpp"
#include "prover/porep/vanilla_proof.hpp"

namespace cuzk::porep {

// labels[l][v] = label of node v at layer l + 1 (trimmed: byte 31 &= 0x3f), docs/circuit.md §5:
// sha256(replica_id || layer u32 BE || node u64 BE || 20 zero bytes || 37 parent labels); node 0
// hashes only the first 64 bytes. Layer 1 parents: DRG d0..d5 six times then d0 (current layer);
// later layers: P ++ P ++ P[0..9] with P = DRG labels of this layer ++ expander labels of the previous.
std::vector<std::vector<Domain>> generate_labels(const StackedGraph& graph, unsigned layers, const Domain& replica_id);

// The label of one node given its 37 parent labels (in the order above).
Domain label_node(const Domain& replica_id, std::uint32_t layer, std::uint64_t node, const Domain* parents37);

// The 37 parent labels of `node` at `layer`, in hashing order, from the full label arrays.
void collect_label_parents(const StackedGraph& graph, const std::vector<std::vector<Domain>>& labels,
                           std::uint32_t layer, std::uint64_t node, Domain out[37]);

}  // namespace cuzk::porep
