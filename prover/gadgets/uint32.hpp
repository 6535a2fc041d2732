// UInt32: bellpepper `gadgets/uint32.rs` (docs/circuit.md §8.1). 32 Booleans, least significant bit first, plus the
// native value (meaningless when the constraint system carries no values).
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>

#include "prover/gadgets/boolean.hpp"
#include "prover/gadgets/multieq.hpp"

namespace cuzk::gadgets {

class UInt32 {
 public:
  std::array<Boolean, 32> bits;  // LSB first
  std::uint32_t value = 0;

  static UInt32 constant(std::uint32_t v) {
    UInt32 r;
    for (int i = 0; i < 32; ++i) r.bits[i] = Boolean::constant(((v >> i) & 1) != 0);
    r.value = v;
    return r;
  }

  // 32 AllocatedBits, LSB first, in namespaces "allocated bit i".
  template <class CS>
  static UInt32 alloc(CS& cs, std::uint32_t v) {
    UInt32 r;
    for (int i = 0; i < 32; ++i) {
      auto ns = cs.push_namespace([&] { return "allocated bit " + std::to_string(i); });
      r.bits[i] = AllocatedBit::alloc(cs, ((v >> i) & 1) != 0);
    }
    r.value = v;
    return r;
  }

  // The first of the 32 bits is the most significant.
  static UInt32 from_bits_be(std::span<const Boolean> be) {
    UInt32 r;
    for (int i = 0; i < 32; ++i) {
      r.bits[i] = be[31 - i];
      r.value |= static_cast<std::uint32_t>(r.bits[i].value()) << i;
    }
    return r;
  }
  // Appends the 32 bits, most significant first.
  template <class Out>
  void append_bits_be(Out& out) const {
    for (int i = 31; i >= 0; --i) out.push_back(bits[i]);
  }
  static UInt32 from_bits_le(std::span<const Boolean> le) {
    UInt32 r;
    for (int i = 0; i < 32; ++i) {
      r.bits[i] = le[i];
      r.value |= static_cast<std::uint32_t>(r.bits[i].value()) << i;
    }
    return r;
  }

  bool is_all_constant() const {
    for (const Boolean& b : bits) {
      if (!b.is_constant()) return false;
    }
    return true;
  }

  UInt32 rotr(int by) const {
    by %= 32;
    UInt32 r;
    for (int i = 0; i < 32; ++i) r.bits[i] = bits[(i + by) % 32];
    r.value = (value >> by) | (by == 0 ? 0 : value << (32 - by));
    return r;
  }

  UInt32 shr(int by) const {
    by %= 32;
    UInt32 r;
    for (int i = 0; i < 32; ++i) r.bits[i] = i + by < 32 ? bits[i + by] : Boolean::constant(false);
    r.value = value >> by;
    return r;
  }

  // Bitwise Boolean::xor, bit 0 first, in namespaces "xor of bit i".
  template <class CS>
  static UInt32 xor_(CS& cs, const UInt32& a, const UInt32& b) {
    UInt32 r;
    for (int i = 0; i < 32; ++i) {
      auto ns = cs.push_namespace([&] { return "xor of bit " + std::to_string(i); });
      r.bits[i] = Boolean::xor_(cs, a.bits[i], b.bits[i]);
    }
    r.value = a.value ^ b.value;
    return r;
  }

  template <class CS>
  static UInt32 sha256_ch(CS& cs, const UInt32& a, const UInt32& b, const UInt32& c) {
    UInt32 r;
    for (int i = 0; i < 32; ++i) {
      auto ns = cs.push_namespace([&] { return "ch " + std::to_string(i); });
      r.bits[i] = Boolean::sha256_ch(cs, a.bits[i], b.bits[i], c.bits[i]);
    }
    r.value = (a.value & b.value) ^ (~a.value & c.value);
    return r;
  }

  template <class CS>
  static UInt32 sha256_maj(CS& cs, const UInt32& a, const UInt32& b, const UInt32& c) {
    UInt32 r;
    for (int i = 0; i < 32; ++i) {
      auto ns = cs.push_namespace([&] { return "maj " + std::to_string(i); });
      r.bits[i] = Boolean::sha256_maj(cs, a.bits[i], b.bits[i], c.bits[i]);
    }
    r.value = (a.value & b.value) ^ (a.value & c.value) ^ (b.value & c.value);
    return r;
  }

  // Modular addition of 2..10 operands. All-constant operands fold to a constant. Otherwise allocates
  // L = bitlen(n * (2^32 - 1)) result bits (namespaces "result bit i"), then asks the MultiEq to
  // enforce Σ_ops Σ_i 2^i op.bit_i = Σ_j 2^j result_j; returns the low 32 bits.
  template <class CS>
  static UInt32 addmany(MultiEq<CS>& multi_eq, std::span<const UInt32* const> operands) {
    using LC = typename CS::LC;
    if (operands.size() < 2 || operands.size() > 10) {
      throw r1cs::ConstraintSystemError("UInt32::addmany takes 2 to 10 operands");
    }
    std::uint64_t sum = 0;
    bool all_constants = true;
    for (const UInt32* op : operands) {
      sum += op->value;
      all_constants = all_constants && op->is_all_constant();
    }
    if (all_constants) return constant(static_cast<std::uint32_t>(sum));

    CS& cs = multi_eq.cs();
    std::uint64_t max_value = operands.size() * std::uint64_t{0xffffffff};
    std::size_t num_bits = 0;
    while (max_value != 0) {
      ++num_bits;
      max_value >>= 1;
    }
    UInt32 r;
    Variable result_vars[36];
    for (std::size_t i = 0; i < num_bits; ++i) {
      auto ns = cs.push_namespace([&] { return "result bit " + std::to_string(i); });
      AllocatedBit bit = AllocatedBit::alloc(cs, ((sum >> i) & 1) != 0);
      result_vars[i] = bit.variable();
      if (i < 32) r.bits[i] = bit;  // the carry bits stay allocated and constrained, but are dropped
    }
    r.value = static_cast<std::uint32_t>(sum);

    // Σ_ops Σ_i 2^i op.bit_i = Σ_j 2^j result_j, both sides shifted by the MultiEq's offset.
    std::size_t offset = multi_eq.reserve_bits(num_bits);
    LC operands_lc, result_lc;
    if constexpr (CS::kRecordsConstraints) {
      operands_lc.reserve(static_cast<std::uint32_t>(operands.size() * 64));
      for (const UInt32* op : operands) {
        for (int i = 0; i < 32; ++i) op->bits[i].add_to(operands_lc, r1cs::detail::pow2(offset + i));
      }
      result_lc.reserve(static_cast<std::uint32_t>(num_bits));
      for (std::size_t j = 0; j < num_bits; ++j)
        result_lc.add(result_vars[j], r1cs::detail::pow2(offset + j));
    }
    multi_eq.append_shifted(num_bits, operands_lc, result_lc);
    return r;
  }
  template <class CS>
  static UInt32 addmany(MultiEq<CS>& multi_eq, std::initializer_list<const UInt32*> operands) {
    return addmany(multi_eq, std::span<const UInt32* const>(operands.begin(), operands.size()));
  }
};

}  // namespace cuzk::gadgets
