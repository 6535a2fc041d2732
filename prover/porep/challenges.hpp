// PoRep challenge derivation (rfp storage-proofs-porep/src/stacked/vanilla/challenges.rs; docs/circuit.md
// §2), replica_id, and the verifier-side public inputs of a partition (docs/circuit.md §7).
#pragma once

#include <cstdint>
#include <vector>

#include "prover/algebra/bls12_381.hpp"
#include "prover/porep/graph.hpp"
#include "prover/porep/vanilla_proof.hpp"

namespace cuzk::porep {

// Interactive: sha256(replica_id || seed || j u32 LE) as a LE integer, mod (nodes - 1), plus 1, with
// j = challenges_per_partition * k + i.
std::vector<std::uint64_t> interactive_challenges(std::uint64_t nodes, const Domain& replica_id, const Domain& seed,
                                                  unsigned challenges_per_partition, std::uint8_t k);

// Non-interactive: as interactive with sha256("filecoin.io|PoRep|1|NonInteractive|1" || replica_id ||
// comm_r || j u32 LE).
std::vector<std::uint64_t> ni_challenges(std::uint64_t nodes, const Domain& replica_id, const Domain& comm_r,
                                         unsigned challenges_per_partition, std::uint8_t k);

// Synthetic PoRep (docs/circuit.md §2): the porep challenges of partition k selected from the synthetic set.
// `num_synth` = min(nodes, 2^18) in production (rfp DEFAULT_SYNTH_CHALLENGE_COUNT).
std::uint64_t default_num_synth_challenges(std::uint64_t nodes);
std::uint64_t synthetic_challenge(std::uint64_t nodes, const Domain& replica_id, const Domain& comm_r,
                                  std::uint64_t i);
std::vector<std::uint64_t> synthetic_porep_challenges(std::uint64_t nodes, const Domain& replica_id,
                                                      const Domain& comm_r, const Domain& seed,
                                                      unsigned challenges_per_partition, std::uint8_t k,
                                                      std::uint64_t num_synth);

// The challenges of partition k for the registered proof's kind (interactive, synthetic or NI).
std::vector<std::uint64_t> partition_challenges(const RegisteredSealProof& proof, const Domain& replica_id,
                                                const Domain& comm_r, const Domain& seed, unsigned k);

// replica_id = trim(sha256(prover_id || sector_id u64 BE || ticket || comm_d || porep_id)) (docs/circuit.md §2).
Domain replica_id(const Domain& prover_id, std::uint64_t sector_id, const Domain& ticket, const Domain& comm_d,
                  const std::array<std::uint8_t, 32>& porep_id);

// A prover id from a miner actor id, as filecoin-ffi's toProverID does for lotus: the ID address
// payload (the unsigned LEB128 varint of the id, without the protocol byte), zero padded to 32 bytes.
Domain prover_id_from_miner_id(std::uint64_t miner_id);

// The public inputs of partition k without ONE: [replica_id, comm_d, comm_r] then per challenge
// [c, 6 DRG parents, 8 expander parents, c, c, c] (docs/circuit.md §7). Throws PorepError for non-canonical
// commitments.
std::vector<algebra::Fr> generate_public_inputs(const RegisteredSealProof& proof, const Domain& replica_id,
                                                const Domain& comm_d, const Domain& comm_r, const Domain& seed,
                                                unsigned k);

algebra::Fr domain_to_fr(const Domain& d, const char* what);

}  // namespace cuzk::porep
