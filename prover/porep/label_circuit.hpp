// The SDR label circuit: rust-fil-proofs `storage-proofs-porep/src/stacked/circuit/create_label.rs`
// `create_label_circuit` (docs/circuit.md §5).
//
// Preimage, in SHA-256 message bit order (bit 8k + j = bit 7 - j of message byte k):
//   replica_id bits, padded with Constant(false) to 256 bits
//   ‖ layer_index.into_bits_be() (32) ‖ node.to_bits_be() (64) ‖ Constant(false) up to 512 bits
//   ‖ each of the 37 parents, padded with Constant(false) to a multiple of 256 bits.
// That is 39 x 256 = 9,984 bits; bellpepper's sha256 pads them to 20 blocks (namespace "hash"). The
// digest bits are renumbered LSB first within each byte and the first Fr::CAPACITY (254) of them are
// packed into one aux variable (namespace "result_num"): the label, which equals the vanilla
// `bytes_into_fr_repr_safe(sha256(...))` (byte 31 &= 0x3f).
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "prover/gadgets/multipack.hpp"
#include "prover/gadgets/num.hpp"
#include "prover/gadgets/sha256.hpp"
#include "prover/gadgets/uint32.hpp"
#include "prover/porep/errors.hpp"
#include "prover/porep/registered_proof.hpp"

namespace cuzk::porep {

// (1 + 1 + TOTAL_PARENTS) * 32 bytes: replica_id, layer/node block and the 37 parents (create_label.rs).
inline constexpr std::size_t kLabelPreimageBits = (1 + 1 + kLabelParents) * kNodeBytes * 8;

// `parents` holds the 37 parents' bit vectors (already expanded by the caller: the per-layer repetition
// of docs/circuit.md §1). Throws PorepError for sizes rfp asserts on.
template <class CS>
gadgets::AllocatedNum create_label_circuit(CS& cs, std::span<const gadgets::Boolean> replica_id,
                                           std::span<const std::span<const gadgets::Boolean>> parents,
                                           const gadgets::UInt32& layer_index, const gadgets::UInt64& node) {
  using gadgets::Boolean;
  if (replica_id.size() < 32 || replica_id.size() > 256)
    throw PorepError("create_label_circuit: replica id must have 32 to 256 bits");
  if (parents.size() != kLabelParents) throw PorepError("create_label_circuit: 37 parents expected");

  std::vector<Boolean> preimage;
  preimage.reserve(kLabelPreimageBits);
  preimage.insert(preimage.end(), replica_id.begin(), replica_id.end());
  preimage.resize(256, Boolean::constant(false));
  layer_index.append_bits_be(preimage);
  for (std::size_t i = 64; i-- > 0;) preimage.push_back(node.bits[i]);  // to_bits_be
  preimage.resize(512, Boolean::constant(false));
  for (std::span<const Boolean> parent : parents) {
    preimage.insert(preimage.end(), parent.begin(), parent.end());
    while (preimage.size() % 256 != 0) preimage.push_back(Boolean::constant(false));
  }
  if (preimage.size() != kLabelPreimageBits)
    throw PorepError("create_label_circuit: preimage is not 9,984 bits");

  std::vector<Boolean> digest;
  {
    auto ns = cs.push_namespace("hash");
    digest = gadgets::sha256(cs, std::span<const Boolean>(preimage));
  }
  std::vector<Boolean> le = gadgets::reverse_bit_numbering(digest);
  auto ns = cs.push_namespace("result_num");
  return gadgets::pack_bits(cs, std::span<const Boolean>(le).first(gadgets::kFrCapacity));
}

}  // namespace cuzk::porep
