// The vanilla proof of one update partition as rust-filecoin-proofs-api hands it over:
// `PartitionProofBytes` = bincode 1 (`bincode::serialize`: fixed-width little-endian integers, u64 lengths,
// u32 enum variant indices) of rust-fil-proofs `storage-proofs-update/src/vanilla.rs` PartitionProof:
//
//   PartitionProof { comm_c: [u8; 32], apex_leafs: Vec<[u8; 32]>, challenge_proofs: Vec<ChallengeProof> }
//   ChallengeProof { proof_r_old: MerkleProof, proof_d_new: MerkleProof, proof_r_new: MerkleProof }
//   MerkleProof    = u32 variant, then Single { root, leaf, path } | Sub { base, sub, root, leaf }
//                    | Top { base, sub, top, root, leaf }  (storage-proofs-core merkle/proof.rs ProofData)
//   path           = u64 count, then per element { hashes: u64 count + 32 bytes each, index: u64 }
//
// Field elements stay as their 32 bytes here (porep::Domain); from_vanilla converts them with context.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "prover/porep/vanilla_proof.hpp"
#include "prover/update/circuit.hpp"
#include "prover/update/shape.hpp"

namespace cuzk::update {

struct VanillaChallengeProof {
  porep::MerkleProof proof_r_old, proof_d_new, proof_r_new;
  friend bool operator==(const VanillaChallengeProof&, const VanillaChallengeProof&) = default;
};

struct VanillaPartitionProof {
  porep::Domain comm_c{};
  std::vector<porep::Domain> apex_leafs;
  std::vector<VanillaChallengeProof> challenge_proofs;
  friend bool operator==(const VanillaPartitionProof&, const VanillaPartitionProof&) = default;
};

// Parses PartitionProofBytes. `context` names the bytes in errors (e.g. "u.json partition 3"). Throws
// UpdateError naming the context and the byte offset for truncated input, an unknown proof variant, a
// length beyond what the bytes can hold, or bytes left over.
VanillaPartitionProof parse_partition_proof(std::span<const std::uint8_t> bytes, const std::string& context);
// The same bytes rust-filecoin-proofs-api writes (for generators and round trips).
std::vector<std::uint8_t> serialize_partition_proof(const VanillaPartitionProof& proof);

// Partition k's circuit witness from its vanilla proof and the public commitments, as rfp
// EmptySectorUpdateCompound::circuit does (roots from the first challenge's proofs). Throws UpdateError,
// naming `context` and the challenge, for a proof of another shape (challenge or apex leaf count, tree kind,
// path lengths), a non-canonical field element, roots that differ between challenges, or a challenge whose
// path index is not the one partition_challenges derives from comm_r_new.
PartitionWitness witness_from_vanilla(const UpdateShape& shape, std::size_t k, std::size_t h,
                                      const Fr& comm_r_old, const Fr& comm_d_new, const Fr& comm_r_new,
                                      const VanillaPartitionProof& proof, const std::string& context);

}  // namespace cuzk::update
