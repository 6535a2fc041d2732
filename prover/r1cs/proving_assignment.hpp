// ProvingAssignment: bellperson's prover-side constraint system (src/groth16/prover/mod.rs), with the
// same API as the systems of constraint_system.hpp.
//
// It keeps the witness and, for every enforce, evaluates <A,z>, <B,z>, <C,z> into the vectors a, b, c
// (no matrices are kept), and tracks the densities the prover needs, with bellperson's rule
// (src/lc.rs eval_with_trackers): a variable gets A (B) density when it occurs with a non-zero
// coefficient in the A (B) linear combination of some constraint. Coefficients of a repeated variable
// are summed first (bellpepper's LinearCombination merges them), so a variable whose terms cancel
// counts for nothing. Tracked: A density of aux variables, B density of inputs and of aux variables;
// inputs are always dense in A because the prover appends `input_i * 0 = 0` constraints (groth16 layer).
//
// The result is exactly what groth16::witness_from_r1cs computes from a Recorder's matrices and the
// witness (tests check it), without building the matrices.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "prover/algebra/bits.hpp"
#include "prover/r1cs/constraint_system.hpp"
#include "prover/r1cs/evaluate.hpp"

namespace cuzk::r1cs {

class ProvingAssignment : public Assignment {
 public:
  static constexpr bool kRecordsConstraints = true;
  static constexpr bool kHasValues = true;
  using LC = LinearCombination;

  ProvingAssignment() { b_input_density_.push_back(0); }  // ONE is input 0

  template <class Name, class ValueFn>
  Variable alloc(const Name&, ValueFn&& value) {
    auto index = static_cast<std::uint32_t>(aux_.size());
    aux_.push_back(value());
    if (index % 64 == 0) {
      a_aux_density_.push_back(0);
      b_aux_density_.push_back(0);
    }
    return Variable::aux(index);
  }
  template <class Name, class ValueFn>
  Variable alloc_input(const Name&, ValueFn&& value) {
    auto index = static_cast<std::uint32_t>(inputs_.size());
    inputs_.push_back(value());
    if (index % 64 == 0) b_input_density_.push_back(0);
    return Variable::input(index);
  }
  template <class Name>
  void enforce(const Name&, const LC& a, const LC& b, const LC& c) {
    a_.push_back(eval(a.terms(), nullptr, &a_aux_density_));
    b_.push_back(eval(b.terms(), &b_input_density_, &b_aux_density_));
    c_.push_back(eval(c.terms(), nullptr, nullptr));
  }
  template <class Name>
  NullNamespace push_namespace(const Name&) {
    return {};
  }
  static constexpr Variable one() { return Variable::one(); }

  void reserve(std::size_t num_inputs, std::size_t num_aux, std::size_t num_constraints) {
    Assignment::reserve(num_inputs, num_aux);
    a_.reserve(num_constraints);
    b_.reserve(num_constraints);
    c_.reserve(num_constraints);
    a_aux_density_.reserve(num_aux / 64 + 1);
    b_aux_density_.reserve(num_aux / 64 + 1);
  }

  std::size_t num_constraints() const { return a_.size(); }
  const std::vector<Fr>& a() const { return a_; }
  const std::vector<Fr>& b() const { return b_; }
  const std::vector<Fr>& c() const { return c_; }
  Densities densities() const {
    Densities d;
    d.a_aux = bits(a_aux_density_, aux_.size());
    d.b_input = bits(b_input_density_, inputs_.size());
    d.b_aux = bits(b_aux_density_, aux_.size());
    return d;
  }

  // Moves everything into an aggregate with the members inputs, aux, a, b, c, densities (e.g.
  // groth16::ProverInput, which the layers above this one define). The assignment is empty afterwards.
  template <class ProverInputT>
  ProverInputT finish() && {
    ProverInputT out;
    out.densities = densities();
    out.inputs = std::move(inputs_);
    out.aux = std::move(aux_);
    out.a = std::move(a_);
    out.b = std::move(b_);
    out.c = std::move(c_);
    *this = ProvingAssignment();
    return out;
  }

 private:
  using Words = std::vector<std::uint64_t>;

  static DensityBits bits(const Words& words, std::size_t n) {
    DensityBits d;
    d.bit_len = n;
    d.words = words;
    d.words.resize((n + 63) / 64, 0);
    return d;
  }
  static void mark(Words* density, std::uint32_t index) {
    if (density) (*density)[index / 64] |= std::uint64_t{1} << (index % 64);
  }
  void mark(Variable v, Words* input_density, Words* aux_density) {
    if (v.is_aux()) {
      mark(aux_density, v.index());
    } else {
      mark(input_density, v.index());
    }
  }

  // Σ coeff * value, and the densities of the variables whose merged coefficient is non-zero.
  Fr eval(std::span<const Term> terms, Words* input_density, Words* aux_density) {
    Fr acc = Fr::zero();
    for (const Term& t : terms) {
      // Most values are bits: skip the multiplication for 0 and 1 (and for a coefficient of 1).
      const Fr& v = value(t.var);
      if (v.is_zero()) continue;
      if (v.is_one()) {
        acc += t.coeff;
      } else if (t.coeff.is_one()) {
        acc += v;
      } else {
        acc += t.coeff * v;
      }
    }
    if (input_density == nullptr && aux_density == nullptr) return acc;
    constexpr std::size_t kQuadraticLimit = 16;  // small LCs: pairwise comparison finds repeats fastest
    if (terms.size() <= kQuadraticLimit) {
      bool repeated = false;
      for (std::size_t i = 1; i < terms.size() && !repeated; ++i)
        for (std::size_t j = 0; j < i; ++j)
          if (terms[i].var == terms[j].var) repeated = true;
      if (!repeated) {
        for (const Term& t : terms)
          if (!t.coeff.is_zero()) mark(t.var, input_density, aux_density);
        return acc;
      }
    }
    // Merge the coefficients of each variable in an open-addressing table, then track the non-zero sums.
    const unsigned log_capacity = std::max(5u, algebra::log2_ceil(2 * terms.size()));
    const std::size_t capacity = std::size_t{1} << log_capacity;
    table_keys_.assign(capacity, kEmptyKey);
    table_sums_.resize(capacity);
    for (const Term& t : terms) {
      const std::uint32_t raw = t.var.raw();
      std::size_t slot = (raw * 0x9e3779b9u) >> (32 - log_capacity);  // Fibonacci hashing: top bits
      while (table_keys_[slot] != kEmptyKey && table_keys_[slot] != raw) slot = (slot + 1) & (capacity - 1);
      if (table_keys_[slot] == kEmptyKey) {
        table_keys_[slot] = raw;
        table_sums_[slot] = t.coeff;
      } else {
        table_sums_[slot] += t.coeff;
      }
    }
    for (std::size_t slot = 0; slot < capacity; ++slot)
      if (table_keys_[slot] != kEmptyKey && !table_sums_[slot].is_zero())
        mark(Variable::from_raw(static_cast<std::uint32_t>(table_keys_[slot])), input_density, aux_density);
    return acc;
  }

  static constexpr std::uint64_t kEmptyKey = ~std::uint64_t{0};  // no variable encodes to this

  std::vector<Fr> a_, b_, c_;
  Words a_aux_density_, b_input_density_, b_aux_density_;
  std::vector<std::uint64_t> table_keys_;  // eval's merge table: variable (raw) or kEmptyKey
  std::vector<Fr> table_sums_;
};
static_assert(ConstraintSystem<ProvingAssignment>);

}  // namespace cuzk::r1cs
