// The StackedDRG PoRep circuit of one partition: rust-fil-proofs
// `storage-proofs-porep/src/stacked/circuit/proof.rs` (`StackedCircuit::synthesize`, docs/circuit.md §4) and
// `params.rs` (`Proof::synthesize`, docs/circuit.md §5), with the label circuit of label_circuit.hpp and the
// Merkle inclusion gadget of gadgets/por.hpp (docs/circuit.md §6).
//
// The sequence of alloc / alloc_input / enforce calls and their linear combinations are bellperson's,
// so the same Groth16 parameters serve both. Public inputs, in order (docs/circuit.md §7):
//   replica_id, comm_d, comm_r, then per challenge: the tree D path index, the 6 DRG and 8 expander
//   parents' tree C path indices, the challenge, the tree R_last path index and the tree C path index of
//   the challenged column (18 per challenge).
//
// Usage:
//   porep::PartitionWitness w = porep::PartitionWitness::from_c1(c1, k);
//   r1cs::WitnessGen cs;
//   porep::synthesize_stacked_circuit(cs,
//   porep::StackedCircuitShape::from_sector(*c1.registered_proof->shape), w);
// Counter and Recorder read no values: PartitionWitness::blank(shape) serves them (rfp's blank circuit).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "prover/algebra/bls12_381.hpp"
#include "prover/gadgets/multipack.hpp"
#include "prover/gadgets/num.hpp"
#include "prover/gadgets/por.hpp"
#include "prover/gadgets/poseidon.hpp"
#include "prover/gadgets/uint32.hpp"
#include "prover/porep/errors.hpp"
#include "prover/porep/label_circuit.hpp"
#include "prover/porep/registered_proof.hpp"
#include "prover/porep/vanilla_proof.hpp"

namespace cuzk::porep {

using algebra::Fr;

// What fixes the circuit: sector nodes, layers, challenges per partition and the tree C / R_last shape.
struct StackedCircuitShape {
  std::uint64_t nodes = 0;
  unsigned layers = 0;
  unsigned challenges = 0;
  unsigned base_arity = 8, sub_arity = 0, top_arity = 0;

  static StackedCircuitShape from_sector(const SectorShape& sector);

  gadgets::TreeShape tree_shape() const { return {base_arity, sub_arity, top_arity}; }  // trees C, R_last
  unsigned tree_d_depth() const;  // log2(nodes): tree D is binary over every node
  // Inputs including ONE: 1 + 3 + 18 per challenge.
  std::size_t num_inputs() const { return inputs_per_partition(challenges); }
  friend bool operator==(const StackedCircuitShape&, const StackedCircuitShape&) = default;
};

// The circuit's private and public values for one partition: the five commitments and the partition's
// vanilla challenge proofs as C1 carries them (field elements as bytes, converted while synthesizing).
struct PartitionWitness {
  Fr replica_id, comm_d, comm_r, comm_r_last, comm_c;
  std::vector<ChallengeProof> challenges;

  // Partition k of a C1 output. comm_r_last and comm_c are the roots of the first challenge's tree
  // R_last and c_x proofs (rfp StackedCompound::circuit), which every challenge must share. Throws
  // PorepError naming the partition and challenge for a missing partition, inconsistent roots or a
  // non-canonical field element the circuit reads.
  static PartitionWitness from_c1(const C1Output& c1, unsigned k);
  // All values zero, every path and column of the shape's size: for Counter and Recorder, which read
  // only the structure (rfp StackedCompound::blank_circuit).
  static PartitionWitness blank(const StackedCircuitShape& shape);
};

// Throws PorepError unless `w` has the shape's challenge count, path lengths and arities, column
// heights and parent counts (a witness of another shape would synthesize another circuit).
void check_witness_shape(const StackedCircuitShape& shape, const PartitionWitness& w);

namespace circuit_detail {

// A C1 field element the circuit reads; PorepError if it is not canonical (from_c1 checks them first).
Fr to_fr(const Domain& d);
// The path of a C1 Merkle proof as the inclusion gadget takes it: base, then sub, then top elements.
std::vector<gadgets::PathElementValues> path_values(const MerkleProof& proof);

struct AllocatedColumn {
  std::vector<gadgets::AllocatedNum> rows;  // rows[l - 1] = label of layer l
};

// rfp ColumnProof::alloc (namespace "column", rows "column_num_row_j").
template <class CS>
AllocatedColumn alloc_column(CS& cs, const Column& column) {
  auto ns = cs.push_namespace("column");
  AllocatedColumn out;
  out.rows.reserve(column.rows.size());
  for (std::size_t j = 0; j < column.rows.size(); ++j) {
    auto ns_row = cs.push_namespace([&] { return "column_num_row_" + std::to_string(j); });
    out.rows.push_back(gadgets::AllocatedNum::alloc(cs, [&] { return to_fr(column.rows[j]); }));
  }
  return out;
}

// One parent column: allocate it, hash it (rfp hash_single_column: Poseidon of arity = layers) and
// prove the hash is in tree C.
template <class CS>
AllocatedColumn parent_column(CS& cs, const char* kind, std::size_t i, const ColumnProof& proof,
                              const gadgets::TreeShape& tree_c, const gadgets::AllocatedNum& comm_c) {
  AllocatedColumn column;
  {
    auto ns = cs.push_namespace([&] { return std::string(kind) + "_" + std::to_string(i) + "_num"; });
    column = alloc_column(cs, proof.column);
  }
  gadgets::AllocatedNum hash;
  {
    auto ns = cs.push_namespace([&] { return std::string(kind) + "_" + std::to_string(i) + "_constraint"; });
    hash = gadgets::poseidon_hash(cs, std::span<const gadgets::AllocatedNum>(column.rows));
  }
  auto ns = cs.push_namespace([&] { return std::string(kind) + "_" + std::to_string(i) + "_inclusion"; });
  const auto path = path_values(proof.inclusion_proof);
  gadgets::enforce_inclusion<gadgets::PoseidonTreeHash>(
      cs, tree_c, std::span<const gadgets::PathElementValues>(path), comm_c, hash);
  return column;
}

// rfp params.rs Proof::synthesize for one challenge (docs/circuit.md §5).
template <class CS>
void synthesize_challenge(CS& cs, const StackedCircuitShape& shape, const ChallengeProof& proof,
                          const gadgets::AllocatedNum& comm_d, const gadgets::AllocatedNum& comm_c,
                          const gadgets::AllocatedNum& comm_r_last,
                          std::span<const gadgets::Boolean> replica_id_bits) {
  using gadgets::AllocatedNum;
  using gadgets::Boolean;
  using gadgets::PathElementValues;
  const gadgets::TreeShape tree_d{2, 0, 0};  // tree D: binary SHA-256 (DefaultPieceHasher)
  const gadgets::TreeShape tree_c = shape.tree_shape();

  // Tree D: the data leaf.
  AllocatedNum data_leaf;
  {
    auto ns = cs.push_namespace("data_leaf");
    data_leaf = AllocatedNum::alloc(cs, [&] { return to_fr(proof.comm_d_proofs.leaf); });
  }
  {
    auto ns = cs.push_namespace("comm_d_inclusion");
    const auto path = path_values(proof.comm_d_proofs);
    gadgets::enforce_inclusion<gadgets::Sha256TreeHash>(cs, tree_d, std::span<const PathElementValues>(path),
                                                        comm_d, data_leaf);
  }

  // The 6 DRG and 8 expander parent columns, each hashed and proven in tree C.
  const ReplicaColumnProofs& rc = proof.replica_column_proofs;
  std::array<AllocatedColumn, kDrgParents + kExpanderParents> parents;
  for (std::size_t i = 0; i < kDrgParents; ++i)
    parents[i] = parent_column(cs, "drg_parent", i, rc.drg_parents[i], tree_c, comm_c);
  for (std::size_t i = 0; i < kExpanderParents; ++i)
    parents[kDrgParents + i] = parent_column(cs, "exp_parent", i, rc.exp_parents[i], tree_c, comm_c);

  // The challenge, as 64 bits and as a public input.
  const std::uint64_t challenge = proof.labeling_proofs[0].node;
  gadgets::UInt64 challenge_num;
  {
    auto ns = cs.push_namespace("challenge");
    challenge_num = gadgets::UInt64::alloc(cs, challenge);
  }
  {
    auto ns = cs.push_namespace("challenge input");
    challenge_num.pack_into_input(cs);
  }

  // Labels of the challenged node, layer by layer, from its parents' labels.
  std::vector<AllocatedNum> column_labels;
  column_labels.reserve(shape.layers);
  std::vector<std::vector<Boolean>> parent_bits;
  parent_bits.reserve(kDrgParents + kExpanderParents);
  for (unsigned layer = 1; layer <= shape.layers; ++layer) {
    const gadgets::UInt32 layer_num = gadgets::UInt32::constant(layer);
    auto ns = cs.push_namespace([&] { return "labeling_" + std::to_string(layer); });
    parent_bits.clear();
    auto parent_label_bits = [&](const AllocatedNum& label, const char* kind) {
      auto ns_bits = cs.push_namespace(
          [&] { return std::string(kind) + "_" + std::to_string(parent_bits.size()) + "_bits"; });
      std::vector<Boolean> le = label.to_bits_le(cs);
      parent_bits.push_back(gadgets::reverse_bit_numbering(le));
    };
    for (std::size_t i = 0; i < kDrgParents; ++i) parent_label_bits(parents[i].rows[layer - 1], "drg_parent");
    if (layer > 1) {
      // Expander parents contribute their labels of the previous layer.
      for (std::size_t i = 0; i < kExpanderParents; ++i)
        parent_label_bits(parents[kDrgParents + i].rows[layer - 2], "exp_parent");
    }
    // Expand to 37 (docs/circuit.md §5): layer 1 repeats the 6 DRG parents six times then parents[0]; later
    // layers take the 14 parents twice then parents[0..9]. Both are "parent q mod count".
    std::array<std::span<const Boolean>, kLabelParents> expanded;
    for (std::size_t q = 0; q < kLabelParents; ++q) expanded[q] = parent_bits[q % parent_bits.size()];
    auto ns_label = cs.push_namespace("create_label");
    column_labels.push_back(create_label_circuit(
        cs, replica_id_bits, std::span<const std::span<const Boolean>>(expanded), layer_num, challenge_num));
  }

  // Encoding: replica node = last label + data leaf, proven in tree R_last.
  {
    AllocatedNum encoded;
    {
      auto ns = cs.push_namespace("encode_node");
      auto ns_add = cs.push_namespace("encode_add");
      encoded = gadgets::add(cs, column_labels.back(), data_leaf);
    }
    auto ns = cs.push_namespace("comm_r_last_data_inclusion");
    const auto path = path_values(proof.comm_r_last_proof);
    gadgets::enforce_inclusion<gadgets::PoseidonTreeHash>(
        cs, tree_c, std::span<const PathElementValues>(path), comm_r_last, encoded);
  }

  // The challenged column (its computed labels) is in tree C.
  AllocatedNum column_hash;
  {
    auto ns = cs.push_namespace("c_x_column_hash");
    column_hash = gadgets::poseidon_hash(cs, std::span<const AllocatedNum>(column_labels));
  }
  auto ns = cs.push_namespace("c_x_inclusion");
  const auto path = path_values(rc.c_x.inclusion_proof);
  gadgets::enforce_inclusion<gadgets::PoseidonTreeHash>(cs, tree_c, std::span<const PathElementValues>(path),
                                                        comm_c, column_hash);
}

}  // namespace circuit_detail

// What every challenge of a partition uses, allocated before the first challenge (rfp
// StackedCircuit::synthesize up to its loop over the challenges).
struct PartitionCommon {
  gadgets::AllocatedNum comm_d, comm_c, comm_r_last;
  std::vector<gadgets::Boolean> replica_id_bits;  // big-endian bit numbering, as the label circuit hashes it
};

// The part of rfp StackedCircuit::synthesize before the challenges (docs/circuit.md §4): replica_id with
// its bits, comm_d and comm_r as inputs, comm_r_last and comm_c, and comm_r = H(comm_c || comm_r_last).
template <class CS>
PartitionCommon synthesize_partition_common(CS& cs, const PartitionWitness& w) {
  using gadgets::AllocatedNum;
  auto alloc_num = [&](const char* name, const Fr& value) {
    auto ns = cs.push_namespace(name);
    return AllocatedNum::alloc_value(cs, value);
  };
  auto inputize = [&](const char* name, const AllocatedNum& num) {
    auto ns = cs.push_namespace(name);
    num.inputize(cs);
  };

  PartitionCommon common;
  const AllocatedNum replica_id = alloc_num("replica_id", w.replica_id);
  inputize("replica_id_input", replica_id);
  {
    auto ns = cs.push_namespace("replica_id_bits");
    std::vector<gadgets::Boolean> le = replica_id.to_bits_le(cs);
    common.replica_id_bits = gadgets::reverse_bit_numbering(le);
  }
  common.comm_d = alloc_num("comm_d", w.comm_d);
  inputize("comm_d_input", common.comm_d);
  const AllocatedNum comm_r = alloc_num("comm_r", w.comm_r);
  inputize("comm_r_input", comm_r);
  common.comm_r_last = alloc_num("comm_r_last", w.comm_r_last);
  common.comm_c = alloc_num("comm_c", w.comm_c);

  // comm_r = Poseidon-2(comm_c, comm_r_last) (rfp PoseidonFunction::hash2_circuit).
  AllocatedNum hash;
  {
    auto ns = cs.push_namespace("H_comm_c_comm_r_last");
    const std::array<AllocatedNum, 2> preimage{common.comm_c, common.comm_r_last};
    hash = gadgets::poseidon_hash(cs, std::span<const AllocatedNum>(preimage));
  }
  gadgets::enforce_equal(cs, "enforce comm_r = H(comm_c || comm_r_last)", comm_r, hash);
  return common;
}

// Challenge i of the partition, in its namespace "challenge_i" (rfp params.rs Proof::synthesize).
template <class CS>
void synthesize_partition_challenge(CS& cs, const StackedCircuitShape& shape, const PartitionWitness& w,
                                    const PartitionCommon& common, std::size_t i) {
  auto ns = cs.push_namespace([&] { return "challenge_" + std::to_string(i); });
  circuit_detail::synthesize_challenge(cs, shape, w.challenges[i], common.comm_d, common.comm_c,
                                       common.comm_r_last,
                                       std::span<const gadgets::Boolean>(common.replica_id_bits));
}

// rfp StackedCircuit::synthesize (docs/circuit.md §4). Throws PorepError when `w` does not fit `shape`.
// porep/parallel_witness.hpp computes the same values with the challenges on several threads.
template <class CS>
void synthesize_stacked_circuit(CS& cs, const StackedCircuitShape& shape, const PartitionWitness& w) {
  check_witness_shape(shape, w);
  const PartitionCommon common = synthesize_partition_common(cs, w);
  for (std::size_t i = 0; i < w.challenges.size(); ++i)
    synthesize_partition_challenge(cs, shape, w, common, i);
}

}  // namespace cuzk::porep
