// WitnessSlice: WitnessGen (constraint_system.hpp) writing into a fixed range of a preallocated witness,
// so that independent parts of one circuit fill their own ranges at the same time. A PoRep partition's
// challenges are such parts: each allocates the same number of aux and input variables, and a challenge's
// gadgets read only values they carry, never the constraint system's, so challenge i's values are the
// range [prefix + i * per_challenge, ...) whichever thread computes them (porep/parallel_witness.hpp).
//
// Same contract as WitnessGen (values only, enforce() compiles to nothing, alloc_bits / add_constraints).
// Allocating past the end of the range writes nothing and is counted: filled() then says false, and the
// caller refuses the witness (a circuit whose part sizes are not what the caller computed).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "prover/r1cs/constraint_system.hpp"

namespace cuzk::r1cs {

class WitnessSlice {
 public:
  static constexpr bool kRecordsConstraints = false;
  static constexpr bool kHasValues = true;
  using LC = NullLc;

  // `aux` and `inputs` are the ranges this part fills; `aux_base` / `input_base` their first indices in the
  // whole witness (the Variables returned carry those indices, as WitnessGen's would).
  WitnessSlice(std::span<Fr> aux, std::size_t aux_base, std::span<Fr> inputs, std::size_t input_base)
      : aux_(aux), inputs_(inputs), aux_base_(aux_base), input_base_(input_base) {}

  template <class Name, class ValueFn>
  Variable alloc(const Name&, ValueFn&& value) {
    const std::size_t at = aux_used_++;
    if (at < aux_.size()) aux_[at] = value();
    return Variable::aux(static_cast<std::uint32_t>(aux_base_ + at));
  }
  template <class Name, class ValueFn>
  Variable alloc_input(const Name&, ValueFn&& value) {
    const std::size_t at = inputs_used_++;
    if (at < inputs_.size()) inputs_[at] = value();
    return Variable::input(static_cast<std::uint32_t>(input_base_ + at));
  }
  template <class Name>
  void enforce(const Name&, const LC&, const LC&, const LC&) {}
  template <class Name>
  NullNamespace push_namespace(const Name&) {
    return {};
  }
  static constexpr Variable one() { return Variable::one(); }

  // WitnessGen::alloc_bits: one aux variable per set bit of `mask`, ascending, valued by `values`' bit.
  void alloc_bits(std::uint32_t mask, std::uint32_t values) {
    constexpr Fr kZero = Fr::zero(), kOne = Fr::one();
    while (mask != 0) {
      const int i = __builtin_ctz(mask);
      const std::size_t at = aux_used_++;
      if (at < aux_.size()) aux_[at] = ((values >> i) & 1) ? kOne : kZero;
      mask &= mask - 1;
    }
  }
  void add_constraints(std::size_t) {}

  std::size_t aux_used() const { return aux_used_; }
  std::size_t inputs_used() const { return inputs_used_; }
  // Exactly the range was allocated: every value written, none lost.
  bool filled() const { return aux_used_ == aux_.size() && inputs_used_ == inputs_.size(); }

 private:
  std::span<Fr> aux_, inputs_;
  std::size_t aux_base_, input_base_;
  std::size_t aux_used_ = 0, inputs_used_ = 0;
};
static_assert(ConstraintSystem<WitnessSlice>);

}  // namespace cuzk::r1cs
