// MultiEq: bellpepper `gadgets/multieq.rs` (docs/circuit.md §8.1). Packs several equalities lhs_i = rhs_i of at most
// L_i bits each into one constraint (Σ 2^{offset_i} lhs_i) * ONE = Σ 2^{offset_i} rhs_i while the total
// stays below Fr::CAPACITY (254) bits. Emits the pending constraint when it would overflow, and on
// destruction (bellpepper's Drop) if anything is pending.
#pragma once

#include <cstddef>
#include <string>

#include "prover/r1cs/constraint_system.hpp"

namespace cuzk::gadgets {

using algebra::Fr;
using r1cs::Variable;

inline constexpr std::size_t kFrCapacity = 254;  // Fr::CAPACITY = NUM_BITS - 1 (bellpepper / ff)

template <class CS>
class MultiEq {
 public:
  using LC = typename CS::LC;

  explicit MultiEq(CS& cs) : cs_(cs) {}
  MultiEq(const MultiEq&) = delete;
  MultiEq& operator=(const MultiEq&) = delete;
  ~MultiEq() {
    if (bits_used_ > 0) accumulate();
  }

  CS& cs() { return cs_; }

  void enforce_equal(std::size_t num_bits, const LC& lhs, const LC& rhs) {
    std::size_t offset = reserve_bits(num_bits);
    if constexpr (CS::kRecordsConstraints) {
      const Fr& coeff = r1cs::detail::pow2(offset);
      lhs_.add_scaled(lhs, coeff);
      rhs_.add_scaled(rhs, coeff);
    }
    bits_used_ += num_bits;
  }

  // The same as enforce_equal in two steps, for callers that build their linear combinations already
  // multiplied by 2^offset (a table lookup per coefficient instead of a field multiplication per term):
  // reserve_bits emits the pending constraint when num_bits would not fit (exactly when enforce_equal
  // would) and returns the offset; append_shifted then adds the shifted sides.
  std::size_t reserve_bits(std::size_t num_bits) {
    if (kFrCapacity <= bits_used_ + num_bits) accumulate();
    if (kFrCapacity <= bits_used_ + num_bits) {
      throw r1cs::ConstraintSystemError("MultiEq: an equality wider than Fr::CAPACITY bits");
    }
    return bits_used_;
  }
  void append_shifted(std::size_t num_bits, const LC& shifted_lhs, const LC& shifted_rhs) {
    lhs_.add(shifted_lhs);
    rhs_.add(shifted_rhs);
    bits_used_ += num_bits;
  }

 private:
  void accumulate() {
    std::size_t ops = ops_;
    cs_.enforce([ops] { return "multieq " + std::to_string(ops); }, lhs_, LC(Variable::one()), rhs_);
    lhs_.clear();
    rhs_.clear();
    bits_used_ = 0;
    ++ops_;
  }

  CS& cs_;
  std::size_t ops_ = 0;
  std::size_t bits_used_ = 0;
  LC lhs_, rhs_;
};

}  // namespace cuzk::gadgets
