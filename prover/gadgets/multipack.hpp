// Bit packing: bellpepper `gadgets/multipack.rs` (pack_into_inputs, bytes_to_bits(_le),
// compute_multipacking, pack_bits) and rust-fil-proofs' `reverse_bit_numbering`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "prover/gadgets/multieq.hpp"
#include "prover/gadgets/num.hpp"

namespace cuzk::gadgets {

// Bits of each byte, most significant first.
std::vector<bool> bytes_to_bits(std::span<const std::uint8_t> bytes);
// Bits of each byte, least significant first.
std::vector<bool> bytes_to_bits_le(std::span<const std::uint8_t> bytes);
// Σ 2^i bits[i] per chunk of kFrCapacity (254) bits: the public inputs pack_into_inputs creates.
std::vector<Fr> compute_multipacking(const std::vector<bool>& bits);

// One input per chunk of 254 bits: alloc_input "input i", then (Σ 2^j bit_j) * ONE = input.
template <class CS>
void pack_into_inputs(CS& cs, std::span<const Boolean> bits) {
  using LC = typename CS::LC;
  for (std::size_t start = 0, i = 0; start < bits.size(); start += kFrCapacity, ++i) {
    std::size_t end = std::min(bits.size(), start + kFrCapacity);
    Num<CS> num;
    for (std::size_t j = start; j < end; ++j) num.add_bool_with_coeff(bits[j], r1cs::detail::pow2(j - start));
    Variable input =
        cs.alloc_input([&] { return "input " + std::to_string(i); }, [&] { return num.value(); });
    cs.enforce([&] { return "packing constraint " + std::to_string(i); }, num.lc(), LC(Variable::one()),
               LC(input));
  }
}

// The first 254 bits packed into one aux variable (namespace "input"), (Σ 2^j bit_j) * ONE = num.
template <class CS>
AllocatedNum pack_bits(CS& cs, std::span<const Boolean> bits) {
  using LC = typename CS::LC;
  Num<CS> num;
  std::size_t n = std::min(bits.size(), kFrCapacity);
  for (std::size_t j = 0; j < n; ++j) num.add_bool_with_coeff(bits[j], r1cs::detail::pow2(j));
  AllocatedNum packed;
  {
    auto ns = cs.push_namespace("input");
    packed = AllocatedNum::alloc(cs, [&] { return num.value(); });
  }
  cs.enforce("packing constraint", num.lc(), LC(Variable::one()), LC(packed.variable()));
  return packed;
}

// rust-fil-proofs `reverse_bit_numbering`: pad with Constant(false) to a multiple of 8, then reverse the
// bit order within each byte.
std::vector<Boolean> reverse_bit_numbering(std::span<const Boolean> bits);

// rust-fil-proofs `storage-proofs-core/src/gadgets/uint64.rs`.
class UInt64 {
 public:
  std::vector<Boolean> bits;  // 64, LSB first
  std::uint64_t value = 0;

  static UInt64 constant(std::uint64_t v) {
    UInt64 r;
    r.bits.resize(64);
    for (int i = 0; i < 64; ++i) r.bits[i] = Boolean::constant(((v >> i) & 1) != 0);
    r.value = v;
    return r;
  }
  // 64 AllocatedBits, namespaces "allocated bit i".
  template <class CS>
  static UInt64 alloc(CS& cs, std::uint64_t v) {
    UInt64 r;
    r.bits.resize(64);
    for (int i = 0; i < 64; ++i) {
      auto ns = cs.push_namespace([&] { return "allocated bit " + std::to_string(i); });
      r.bits[i] = AllocatedBit::alloc(cs, ((v >> i) & 1) != 0);
    }
    r.value = v;
    return r;
  }
  std::vector<Boolean> to_bits_be() const { return {bits.rbegin(), bits.rend()}; }
  const std::vector<Boolean>& to_bits_le() const { return bits; }
  // pack_into_inputs of the 64 bits: one input equal to the value.
  template <class CS>
  void pack_into_input(CS& cs) const {
    pack_into_inputs(cs, std::span<const Boolean>(bits));
  }
};

}  // namespace cuzk::gadgets
