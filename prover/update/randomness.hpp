// The update proof's randomness, natively (the verifier's side and the native twin of the circuit):
// rust-fil-proofs `storage-proofs-update/src/vanilla.rs` (`phi`, `rho`, `Rhos`), `challenges.rs`
// (`Challenges::new`) and `circuit.rs` (`PublicInputs::new`, `to_vec`).
//
// Every hash here is Poseidon of arity 2 with neptune's HashType::Custom(CType::Arbitrary(1)) (constants.rs
// HASH_TYPE_GEN_RANDOMNESS): the Standard constants of arity 2 with the domain tag 1 * 2^40 (neptune
// hash_type.rs CType::domain_tag) in place of the Merkle tree tag.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "prover/algebra/bls12_381.hpp"
#include "prover/gadgets/poseidon_constants.hpp"
#include "prover/update/shape.hpp"

namespace cuzk::update {

using algebra::Fr;

// constants.rs POSEIDON_CONSTANTS_GEN_RANDOMNESS (shared, built once).
const gadgets::poseidon::Constants& gen_randomness_constants();

// vanilla.rs phi = H(comm_d_new || comm_r_old).
Fr phi(const Fr& comm_d_new, const Fr& comm_r_old);
// vanilla.rs rho = H(phi || high), `high` the h high bits of a node index.
Fr rho(const Fr& phi, std::uint32_t high);
// The h high bits of `node` (vanilla.rs Rhos: node >> (log2(sector_nodes) - h)).
std::uint32_t node_high_bits(const UpdateShape& shape, std::uint64_t node, std::size_t h);
// The encoding of one node: label_r_new = label_r_old + label_d_new * rho (gadgets.rs label_r_new).
inline Fr encode_node(const Fr& label_r_old, const Fr& label_d_new, const Fr& rho) {
  return label_r_old + label_d_new * rho;
}

// challenges.rs Challenges::new(sector_nodes, comm_r_new, k): partition k's challenges; each has the
// partition index in its high bits, the rest drawn from digest_j = H(comm_r_new || k * digests + j).
std::vector<std::uint64_t> partition_challenges(const UpdateShape& shape, const Fr& comm_r_new,
                                                std::size_t k);

// circuit.rs PublicInputs::new: k | h_select << partition_bit_len. UpdateError for k or h out of range.
Fr k_and_h_select(const UpdateShape& shape, std::size_t k, std::size_t h);

// circuit.rs PublicInputs::to_vec, what the verifier checks a partition proof against (without ONE):
// k_and_h_select, comm_r_old, comm_d_new, comm_r_new.
std::vector<Fr> public_inputs(const UpdateShape& shape, std::size_t k, std::size_t h, const Fr& comm_r_old,
                              const Fr& comm_d_new, const Fr& comm_r_new);

}  // namespace cuzk::update
