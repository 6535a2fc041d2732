// WitnessSlice: WitnessGen (constraint_system.hpp) writing into a fixed range of a preallocated witness,
// so that independent parts of one circuit fill their own ranges at the same time. A PoRep partition's
// challenges are such parts: each allocates the same number of aux and input variables, and a challenge's
// gadgets read only values they carry, never the constraint system's, so challenge i's values are the
// range [prefix + i * per_challenge, ...) whichever thread computes them (porep/parallel_witness.hpp).
//
// Same contract as WitnessGen, and the same members (r1cs::ValuesOnlySystem): values only, enforce() compiles
// to nothing, alloc_bits / add_constraints.
// Allocating past the end of the range writes nothing and is counted: filled() then says false, and the
// caller refuses the witness (a circuit whose part sizes are not what the caller computed).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "prover/r1cs/constraint_system.hpp"

namespace cuzk::r1cs {

class WitnessSlice : public ValuesOnlySystem<WitnessSlice> {
 public:
  // `aux` and `inputs` are the ranges this part fills; `aux_base` / `input_base` their first indices in the
  // whole witness (the Variables returned carry those indices, as WitnessGen's would).
  WitnessSlice(std::span<Fr> aux, std::size_t aux_base, std::span<Fr> inputs, std::size_t input_base)
      : aux_(aux), inputs_(inputs), aux_base_(aux_base), input_base_(input_base) {}

  std::size_t aux_used() const { return aux_used_; }
  std::size_t inputs_used() const { return inputs_used_; }
  // Exactly the range was allocated: every value written, none lost.
  bool filled() const { return aux_used_ == aux_.size() && inputs_used_ == inputs_.size(); }

 private:
  friend class ValuesOnlySystem<WitnessSlice>;
  std::uint32_t append_aux(const Fr& value) {
    const std::size_t at = aux_used_++;
    if (at < aux_.size()) aux_[at] = value;
    return static_cast<std::uint32_t>(aux_base_ + at);
  }
  std::uint32_t append_input(const Fr& value) {
    const std::size_t at = inputs_used_++;
    if (at < inputs_.size()) inputs_[at] = value;
    return static_cast<std::uint32_t>(input_base_ + at);
  }

  std::span<Fr> aux_, inputs_;
  std::size_t aux_base_, input_base_;
  std::size_t aux_used_ = 0, inputs_used_ = 0;
};
static_assert(ConstraintSystem<WitnessSlice>);

}  // namespace cuzk::r1cs
