// A constraint system (the interface of prover/r1cs/constraint_system.hpp) that records the matrices
// straight into the compact form: no 32-byte coefficient per entry is ever stored, so extracting the
// 32 GiB circuit needs ~6 bytes per entry instead of the Recorder's ~36.
//
//   pce::CompactRecorder cs;
//   porep::synthesize_stacked_circuit(cs, shape, porep::PartitionWitness::blank(shape));
//   pce::CompactR1cs pce = cs.finish();
//
// It treats each row exactly as r1cs::Recorder does (terms sorted by variable, repeated variables merged,
// zero sums dropped), so expand(cs.finish()) equals Recorder::finish() for the same circuit (the tests
// check it). It reads no values (kHasValues false), like the Recorder.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "pce/compact_r1cs.hpp"
#include "prover/r1cs/constraint_system.hpp"

namespace cuzk::pce {

class CompactRecorder {
 public:
  static constexpr bool kRecordsConstraints = true;
  static constexpr bool kHasValues = false;
  using LC = r1cs::LinearCombination;
  using Variable = r1cs::Variable;

  template <class Name, class ValueFn>
  Variable alloc(const Name&, ValueFn&&) {
    return Variable::aux(static_cast<std::uint32_t>(num_aux_++));
  }
  template <class Name, class ValueFn>
  Variable alloc_input(const Name&, ValueFn&&) {
    return Variable::input(static_cast<std::uint32_t>(num_inputs_++));
  }
  template <class Name>
  void enforce(const Name&, const LC& a, const LC& b, const LC& c) {
    append_row(a_, a.terms());
    append_row(b_, b.terms());
    append_row(c_, c.terms());
  }
  template <class Name>
  r1cs::NullNamespace push_namespace(const Name&) {
    return {};
  }
  static constexpr Variable one() { return Variable::one(); }

  std::size_t num_constraints() const { return a_.rows(); }
  std::size_t num_inputs() const { return num_inputs_; }
  std::size_t num_aux() const { return num_aux_; }
  // Optional: avoids regrowing the vectors when the sizes are known (e.g. from a Counter run).
  void reserve_constraints(std::size_t rows, std::size_t nnz_per_matrix);

  // Moves the matrices out (columns converted to unified indices, densities computed); the recorder is
  // empty afterwards.
  CompactR1cs finish();

 private:
  // Columns stay in Variable::raw() encoding (inputs sort before aux) until finish(). Throws
  // PceError(kLimits) when a matrix would exceed 2^32 - 1 entries.
  void append_row(CompactMatrix& m, std::span<const r1cs::Term> terms);

  CompactMatrix a_, b_, c_;
  CoefficientEncoder encoder_;
  std::vector<std::uint64_t> scratch_;
  std::size_t num_inputs_ = 1;
  std::size_t num_aux_ = 0;
};

}  // namespace cuzk::pce
