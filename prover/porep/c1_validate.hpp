// Semantic checks of a parsed C1 output against its registered proof's shape, before any circuit
// work: everything rust-fil-proofs would reject at C2 (docs/circuit.md §10: zero comm_d/comm_r/seed, empty
// partitions), everything that cannot fit the circuit shape, and the consistency the circuit relies on
// (one comm_c and one comm_r_last per partition, canonical field elements).
#pragma once

#include <string>

#include "prover/porep/vanilla_proof.hpp"

namespace cuzk::porep {

// Throws PorepError naming `source_name`, the partition and the challenge.
void validate_c1(const C1Output& c1, const std::string& source_name);

// The LE u64 index a Merkle path encodes: fold over the path reversed, acc * arity + index
// (docs/formats.md, "C1 files"), over base, then sub, then top elements.
std::uint64_t merkle_path_index(const MerkleProof& proof, unsigned base_arity, unsigned sub_arity,
                                unsigned top_arity);

bool is_canonical_fr(const Domain& d);

}  // namespace cuzk::porep
