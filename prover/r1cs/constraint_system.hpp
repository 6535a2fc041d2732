// The circuit-writing API: variables, linear combinations and interchangeable constraint systems.
//
// Usage. A circuit or gadget is written once, as a template over the constraint-system type:
//
//   template <ConstraintSystem CS>   // or `class CS`: the concept is checked where each system is defined
//   Variable square(CS& cs, Variable x, const Fr& x_value) {
//     using LC = typename CS::LC;
//     auto ns = cs.push_namespace("square");                  // const char* or a callable -> string
//     Variable y = cs.alloc("y", [&] { return x_value * x_value; });   // value callable: lazy
//     cs.enforce("y = x*x", LC(x), LC(x), LC(y));                       // A * B = C
//     return y;
//   }
//
// Constraint systems: eight, each satisfying the concept ConstraintSystem (below), which states the
// members they share: LC, kRecordsConstraints, kHasValues, alloc, alloc_input, enforce, push_namespace,
// one(), and alloc_bits/add_constraints for those that record no constraints.
//   Counter        counts constraints / inputs / aux; no values, no linear combinations.
//   WitnessGen     values only (inputs(), aux()); enforce() compiles to nothing.
//   Recorder       builds the A, B, C matrices (R1cs, unified numbering, see r1cs.hpp); no values.
//   RecorderWithWitness  both matrices and values (tests: "witness and recorder agree").
//   Checker        values + evaluates every constraint when it is enforced; remembers the first
//                  unsatisfied one with its namespace path (first_failure()).
//   ProvingAssignment (proving_assignment.hpp)  values + <A,z>, <B,z>, <C,z> per constraint and the
//                  densities, without matrices: bellperson's prover-side system.
//   pce::CompactRecorder (pce/compact_recorder.hpp)  the matrices straight into the compact form of the
//                  pre-compiled constraint cache; no values.
//   WitnessSlice (witness_slice.hpp)  WitnessGen into a fixed range of a preallocated witness, so that
//                  independent parts of a circuit (a PoRep partition's challenges) fill theirs in parallel.
// The first five are defined in this header; all but CompactRecorder are in cuzk::r1cs. The tests define
// a few more of their own.
//
// Rules for gadget writers:
//   - `typename CS::LC` is the linear-combination type. For Counter and WitnessGen it is NullLc, an empty
//     type whose operations compile to nothing, so building LCs costs nothing on the witness path.
//     Expensive coefficient computations may be guarded with `if constexpr (CS::kRecordsConstraints)`.
//   - `CS::kHasValues` says whether value callables are evaluated and values are meaningful. When it is
//     false (Counter, Recorder) the value callables passed to alloc/alloc_input are never called and
//     values carried by gadgets are meaningless (bellperson's `None`). Gadgets must never let a value
//     change the sequence of alloc/enforce calls. Guard costly value arithmetic (Poseidon rounds) with
//     `if constexpr (CS::kHasValues)`.
//   - Names (namespaces and annotations) are `const char*` or callables returning something convertible
//     to std::string. Only the Checker evaluates them (namespaces when pushed, an annotation only when its
//     constraint fails), so `[&] { return "bit " + std::to_string(i); }` costs nothing elsewhere.
//   - Systems without constraints (Counter, WitnessGen) also offer alloc_bits(mask, values) and
//     add_constraints(n), a bulk form of alloc/enforce that word-level fast paths use (the SHA-256
//     compression does). In those systems the Variables inside gadget outputs may be placeholders: only
//     values and the constant/allocated structure are meaningful there.
//   - Variable::one() is input 0, the constant ONE. alloc() appends an aux variable, alloc_input() an
//     input, enforce() a constraint, in program order: that order is bellperson's and fixes the
//     parameters, so it must follow the Rust code exactly.
//
// Linear combinations: `LC lc; lc.add(v, coeff); lc.add(v); lc.sub(v); lc.sub(v, coeff); lc.add(other);
// lc.sub(other); lc.add_scaled(other, k); lc.reserve(n); lc.clear();` and the operators `lc + v`, `lc - v`,
// `lc + other`, `lc - other`, `LC(v)`, `LC(v, coeff)`. A variable may appear several times; the terms are
// summed (bellperson's LinearCombination merges them). The Recorder merges them per row and drops zero sums;
// r1cs/evaluate.hpp evaluates A·z, B·z, C·z and gives the A/B densities. Gadgets (Boolean, UInt32, MultiEq,
// SHA-256, AllocatedNum, multipack) are in prover/gadgets/.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "prover/algebra/bls12_381.hpp"
#include "prover/r1cs/r1cs.hpp"

namespace cuzk::r1cs {

// The error type of this layer (misuse of the API, e.g. finishing a recorder twice).
class ConstraintSystemError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// An input or aux variable. Encoded in 32 bits: the top bit marks aux, the rest is the index within its
// kind. Sorting by raw() puts inputs first, then aux, each by index: the unified order of r1cs.hpp.
class Variable {
 public:
  static constexpr std::uint32_t kAuxFlag = std::uint32_t{1} << 31;

  constexpr Variable() = default;  // ONE
  static constexpr Variable input(std::uint32_t index) { return Variable(index); }
  static constexpr Variable aux(std::uint32_t index) { return Variable(index | kAuxFlag); }
  static constexpr Variable one() { return input(0); }
  static constexpr Variable from_raw(std::uint32_t raw) { return Variable(raw); }

  constexpr bool is_aux() const { return (raw_ & kAuxFlag) != 0; }
  constexpr bool is_input() const { return !is_aux(); }
  constexpr std::uint32_t index() const { return raw_ & ~kAuxFlag; }
  constexpr std::uint32_t raw() const { return raw_; }
  // Unified index (r1cs.hpp): inputs first, then aux.
  constexpr std::size_t unified(std::size_t num_inputs) const {
    return is_aux() ? num_inputs + index() : index();
  }
  friend constexpr bool operator==(Variable, Variable) = default;

 private:
  constexpr explicit Variable(std::uint32_t raw) : raw_(raw) {}
  std::uint32_t raw_ = 0;
};

struct Term {
  Variable var;
  Fr coeff;
};

namespace detail {

// 2^i in Fr for i < 256 (used for bit packing coefficients).
const Fr& pow2(std::size_t i);
inline const Fr& fr_one() {
  static const Fr one = Fr::one();
  return one;
}
inline const Fr& fr_minus_one() {
  static const Fr minus_one = -Fr::one();
  return minus_one;
}

template <class Name>
std::string name_string(const Name& name) {
  if constexpr (std::is_invocable_v<const Name&>) {
    return std::string(name());
  } else {
    return std::string(name);
  }
}

}  // namespace detail

// Calls emit(raw_variable, summed_coefficient) once per distinct variable of `terms`, in increasing
// Variable::raw() order, skipping sums that are zero: bellperson's LinearCombination sums the
// coefficients of a repeated variable, and its density rule ignores zero coefficients. `scratch` is
// reused between calls (the Recorder and the PCE's CompactRecorder share this one definition).
template <class Emit>
void merge_terms(std::span<const Term> terms, std::vector<std::uint64_t>& scratch, Emit&& emit) {
  auto emit_nonzero = [&](std::uint32_t raw, const Fr& sum) {
    if (!sum.is_zero()) emit(raw, sum);
  };
  bool sorted = true;
  for (std::size_t i = 1; i < terms.size() && sorted; ++i)
    sorted = terms[i - 1].var.raw() <= terms[i].var.raw();
  if (sorted) {
    for (std::size_t i = 0; i < terms.size();) {
      Fr sum = terms[i].coeff;
      std::size_t j = i + 1;
      while (j < terms.size() && terms[j].var == terms[i].var) sum += terms[j++].coeff;
      emit_nonzero(terms[i].var.raw(), sum);
      i = j;
    }
    return;
  }
  // Sort (variable, position) keys rather than the 40-byte terms; positions keep the order stable.
  scratch.resize(terms.size());
  for (std::size_t i = 0; i < terms.size(); ++i) scratch[i] = std::uint64_t{terms[i].var.raw()} << 32 | i;
  std::sort(scratch.begin(), scratch.end());
  for (std::size_t i = 0; i < scratch.size();) {
    const auto raw = static_cast<std::uint32_t>(scratch[i] >> 32);
    Fr sum = terms[static_cast<std::uint32_t>(scratch[i])].coeff;
    std::size_t j = i + 1;
    while (j < scratch.size() && static_cast<std::uint32_t>(scratch[j] >> 32) == raw)
      sum += terms[static_cast<std::uint32_t>(scratch[j++])].coeff;
    emit_nonzero(raw, sum);
    i = j;
  }
}

// A linear combination with inline storage for kInline terms (most LCs in the circuits are that small);
// larger ones spill to the heap.
class LinearCombination {
 public:
  static constexpr std::uint32_t kInline = 4;

  LinearCombination() : data_(inline_data()) {}
  explicit LinearCombination(Variable v) : LinearCombination() { add(v); }
  LinearCombination(Variable v, const Fr& coeff) : LinearCombination() { add(v, coeff); }
  LinearCombination(const LinearCombination& other) : LinearCombination() { append(other); }
  LinearCombination(LinearCombination&& other) noexcept : LinearCombination() { steal(other); }
  LinearCombination& operator=(const LinearCombination& other) {
    if (this != &other) {
      size_ = 0;
      append(other);
    }
    return *this;
  }
  LinearCombination& operator=(LinearCombination&& other) noexcept {
    if (this != &other) {
      release();
      steal(other);
    }
    return *this;
  }
  ~LinearCombination() { release(); }

  LinearCombination& add(Variable v, const Fr& coeff) {
    if (size_ == capacity_) grow(capacity_ * 2);
    data_[size_].var = v;
    data_[size_].coeff = coeff;
    ++size_;
    return *this;
  }
  LinearCombination& add(Variable v) { return add(v, detail::fr_one()); }
  LinearCombination& sub(Variable v) { return add(v, detail::fr_minus_one()); }
  LinearCombination& sub(Variable v, const Fr& coeff) { return add(v, -coeff); }
  LinearCombination& add(const LinearCombination& other) { return append(other); }
  LinearCombination& sub(const LinearCombination& other) { return add_scaled(other, detail::fr_minus_one()); }
  LinearCombination& add_scaled(const LinearCombination& other, const Fr& k) {
    reserve(size_ + other.size_);
    for (const Term& t : other.terms()) add(t.var, t.coeff * k);
    return *this;
  }
  LinearCombination& scale(const Fr& k) {
    for (std::uint32_t i = 0; i < size_; ++i) data_[i].coeff *= k;
    return *this;
  }
  void reserve(std::uint32_t n) {
    if (n > capacity_) grow(std::max(n, capacity_ * 2));
  }
  void clear() { size_ = 0; }

  std::span<const Term> terms() const { return {data_, size_}; }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  friend LinearCombination operator+(LinearCombination lc, Variable v) { return std::move(lc.add(v)); }
  friend LinearCombination operator-(LinearCombination lc, Variable v) { return std::move(lc.sub(v)); }
  friend LinearCombination operator+(LinearCombination lc, const LinearCombination& o) {
    return std::move(lc.add(o));
  }
  friend LinearCombination operator-(LinearCombination lc, const LinearCombination& o) {
    return std::move(lc.sub(o));
  }

 private:
  Term* inline_data() { return reinterpret_cast<Term*>(inline_storage_); }
  bool on_heap() const { return data_ != reinterpret_cast<const Term*>(inline_storage_); }
  void release() {
    if (on_heap()) delete[] reinterpret_cast<unsigned char*>(data_);
    data_ = inline_data();
    capacity_ = kInline;
    size_ = 0;
  }
  void grow(std::uint32_t new_capacity) {
    auto* fresh = reinterpret_cast<Term*>(new unsigned char[sizeof(Term) * new_capacity]);
    std::memcpy(static_cast<void*>(fresh), data_, sizeof(Term) * size_);
    if (on_heap()) delete[] reinterpret_cast<unsigned char*>(data_);
    data_ = fresh;
    capacity_ = new_capacity;
  }
  LinearCombination& append(const LinearCombination& other) {
    reserve(size_ + other.size_);
    std::memcpy(static_cast<void*>(data_ + size_), other.data_, sizeof(Term) * other.size_);
    size_ += other.size_;
    return *this;
  }
  void steal(LinearCombination& other) {
    if (other.on_heap()) {
      data_ = other.data_;
      capacity_ = other.capacity_;
      size_ = other.size_;
      other.data_ = other.inline_data();
      other.capacity_ = kInline;
      other.size_ = 0;
    } else {
      size_ = 0;
      append(other);
      other.size_ = 0;
    }
  }

  static_assert(std::is_trivially_copyable_v<Term>);
  alignas(Term) unsigned char inline_storage_[sizeof(Term) * kInline];
  Term* data_;
  std::uint32_t size_ = 0;
  std::uint32_t capacity_ = kInline;
};

// The linear combination of systems that record no constraints: every operation is a no-op.
struct NullLc {
  NullLc() = default;
  explicit NullLc(Variable) {}
  NullLc(Variable, const Fr&) {}
  NullLc& add(Variable, const Fr&) { return *this; }
  NullLc& add(Variable) { return *this; }
  NullLc& sub(Variable) { return *this; }
  NullLc& sub(Variable, const Fr&) { return *this; }
  NullLc& add(const NullLc&) { return *this; }
  NullLc& sub(const NullLc&) { return *this; }
  NullLc& add_scaled(const NullLc&, const Fr&) { return *this; }
  NullLc& scale(const Fr&) { return *this; }
  void reserve(std::uint32_t) {}
  void clear() {}
  std::size_t size() const { return 0; }
  bool empty() const { return true; }
  friend NullLc operator+(NullLc, Variable) { return {}; }
  friend NullLc operator-(NullLc, Variable) { return {}; }
  friend NullLc operator+(NullLc, const NullLc&) { return {}; }
  friend NullLc operator-(NullLc, const NullLc&) { return {}; }
};

// Returned by push_namespace of the systems that ignore names.
struct NullNamespace {
  NullNamespace() = default;
  ~NullNamespace() {}  // user-provided: guards are "used" by their destructor, so no unused-variable warnings
  NullNamespace(const NullNamespace&) = delete;
  NullNamespace& operator=(const NullNamespace&) = delete;
};

// Values held by the systems that compute a witness. inputs()[0] is ONE.
class Assignment {
 public:
  Assignment() { inputs_.push_back(Fr::one()); }
  const std::vector<Fr>& inputs() const { return inputs_; }
  const std::vector<Fr>& aux() const { return aux_; }
  std::vector<Fr>& mutable_aux() { return aux_; }
  std::vector<Fr>& mutable_inputs() { return inputs_; }
  const Fr& value(Variable v) const { return v.is_aux() ? aux_[v.index()] : inputs_[v.index()]; }
  void reserve(std::size_t num_inputs, std::size_t num_aux) {
    inputs_.reserve(num_inputs);
    aux_.reserve(num_aux);
  }
  std::size_t num_inputs() const { return inputs_.size(); }
  std::size_t num_aux() const { return aux_.size(); }

 protected:
  std::vector<Fr> inputs_;
  std::vector<Fr> aux_;
};

// ---------------------------------------------------------------------------------------------------------
// The contract above, checked by the compiler: what a gadget may call on a constraint system. Each system
// static_asserts it below its definition (ProvingAssignment in proving_assignment.hpp; pce::CompactRecorder
// and the tests' own systems in tests/test_r1cs.cpp).
namespace detail {
// Stand-ins for the callables gadgets pass; declared only, for the unevaluated requirements below.
struct ValueCallable {
  Fr operator()() const;
};
struct NameCallable {
  std::string operator()() const;
};
}  // namespace detail

// `typename CS::LC`: built from nothing, a variable, or a variable and a coefficient; the operations and
// operators the header comment lists.
template <class LC>
concept LinearCombinationType = std::default_initializable<LC> && std::constructible_from<LC, Variable> &&
    std::constructible_from<LC, Variable, const Fr&> && std::copy_constructible<LC> &&
    requires(LC lc, const LC& other, Variable v, const Fr& k, std::uint32_t n) {
  lc.add(v, k);
  lc.add(v);
  lc.sub(v);
  lc.sub(v, k);
  lc.add(other);
  lc.sub(other);
  lc.add_scaled(other, k);
  lc.reserve(n);
  lc.clear();
  { lc + v } -> std::convertible_to<LC>;
  { lc - v } -> std::convertible_to<LC>;
  { lc + other } -> std::convertible_to<LC>;
  { lc - other } -> std::convertible_to<LC>;
};

template <class CS>
concept ConstraintSystem = LinearCombinationType<typename CS::LC> &&
    requires(CS& cs, const typename CS::LC& lc, detail::ValueCallable value, detail::NameCallable name) {
  typename std::bool_constant<CS::kRecordsConstraints>;  // compile-time flags
  typename std::bool_constant<CS::kHasValues>;
  { CS::one() } -> std::same_as<Variable>;
  { cs.alloc("name", value) } -> std::same_as<Variable>;
  { cs.alloc(name, value) } -> std::same_as<Variable>;
  { cs.alloc_input("name", value) } -> std::same_as<Variable>;
  { cs.alloc_input(name, value) } -> std::same_as<Variable>;
  cs.enforce("name", lc, lc, lc);
  cs.enforce(name, lc, lc, lc);
  cs.push_namespace("name");  // a guard: the namespace ends with it
  cs.push_namespace(name);
} &&
    // The bulk interface of the systems that record no constraints (the SHA-256 word-level path).
    (bool(CS::kRecordsConstraints) || requires(CS & cs, std::uint32_t bits, std::size_t n) {
      cs.alloc_bits(bits, bits);
      cs.add_constraints(n);
    });

// ---------------------------------------------------------------------------------------------------------
// Counter: counts only.
class Counter {
 public:
  static constexpr bool kRecordsConstraints = false;
  static constexpr bool kHasValues = false;
  using LC = NullLc;

  template <class Name, class ValueFn>
  Variable alloc(const Name&, ValueFn&&) {
    return Variable::aux(static_cast<std::uint32_t>(num_aux_++));
  }
  template <class Name, class ValueFn>
  Variable alloc_input(const Name&, ValueFn&&) {
    return Variable::input(static_cast<std::uint32_t>(num_inputs_++));
  }
  template <class Name>
  void enforce(const Name&, const LC&, const LC&, const LC&) {
    ++num_constraints_;
  }
  template <class Name>
  NullNamespace push_namespace(const Name&) {
    return {};
  }
  static constexpr Variable one() { return Variable::one(); }

  // Bulk interface of the systems that record no constraints (see WitnessGen::alloc_bits).
  void alloc_bits(std::uint32_t mask, std::uint32_t /*values*/) {
    num_aux_ += static_cast<std::size_t>(__builtin_popcount(mask));
  }
  void add_constraints(std::size_t n) { num_constraints_ += n; }

  std::size_t num_constraints() const { return num_constraints_; }
  std::size_t num_inputs() const { return num_inputs_; }  // including ONE
  std::size_t num_aux() const { return num_aux_; }

 private:
  std::size_t num_constraints_ = 0;
  std::size_t num_inputs_ = 1;
  std::size_t num_aux_ = 0;
};
static_assert(ConstraintSystem<Counter>);

// ---------------------------------------------------------------------------------------------------------
// WitnessGen: values only; the fast path.
// The members shared by the systems that compute values only (WitnessGen, WitnessSlice): enforce() and
// namespaces compile to nothing, and the bulk interface for word-level fast paths. `Derived` stores values
// through append_aux(v) / append_input(v), which return the new variable's index.
template <class Derived>
class ValuesOnlySystem {
 public:
  static constexpr bool kRecordsConstraints = false;
  static constexpr bool kHasValues = true;
  using LC = NullLc;

  template <class Name, class ValueFn>
  Variable alloc(const Name&, ValueFn&& value) {
    return Variable::aux(self().append_aux(value()));
  }
  template <class Name, class ValueFn>
  Variable alloc_input(const Name&, ValueFn&& value) {
    return Variable::input(self().append_input(value()));
  }
  template <class Name>
  void enforce(const Name&, const LC&, const LC&, const LC&) {}
  template <class Name>
  NullNamespace push_namespace(const Name&) {
    return {};
  }
  static constexpr Variable one() { return Variable::one(); }

  // Appends one aux variable per set bit of `mask`, in ascending bit order, with the value of that bit of
  // `values` (the same as popcount(mask) calls of alloc). add_constraints(n) stands for n enforce calls.
  void alloc_bits(std::uint32_t mask, std::uint32_t values) {
    constexpr Fr kZero = Fr::zero(), kOne = Fr::one();
    while (mask != 0) {
      const int i = __builtin_ctz(mask);
      self().append_aux(((values >> i) & 1) ? kOne : kZero);
      mask &= mask - 1;
    }
  }
  void add_constraints(std::size_t) {}

 private:
  Derived& self() { return static_cast<Derived&>(*this); }
};

class WitnessGen : public Assignment, public ValuesOnlySystem<WitnessGen> {
 private:
  friend class ValuesOnlySystem<WitnessGen>;
  std::uint32_t append_aux(const Fr& value) {
    aux_.push_back(value);
    return static_cast<std::uint32_t>(aux_.size() - 1);
  }
  std::uint32_t append_input(const Fr& value) {
    inputs_.push_back(value);
    return static_cast<std::uint32_t>(inputs_.size() - 1);
  }
};
static_assert(ConstraintSystem<WitnessGen>);

// ---------------------------------------------------------------------------------------------------------
// Recorder: the A, B, C matrices. Within a row, terms are sorted by unified index, repeated variables are
// merged and zero coefficients dropped (they contribute neither to <A_k, z> nor to the densities).
namespace detail {

class MatrixBuilder {
 public:
  // Appends one row from `lc` (columns still in Variable::raw() encoding until finish()).
  void append_row(std::span<const Term> terms, std::vector<std::uint64_t>& scratch);
  void reserve(std::size_t rows, std::size_t nnz);
  // Converts raw-encoded columns into unified indices.
  SparseMatrix finish(std::size_t num_inputs) &&;
  std::size_t rows() const { return matrix_.rows(); }

 private:
  SparseMatrix matrix_;
};

}  // namespace detail

template <bool kWithWitness>
class BasicRecorder : public Assignment {
 public:
  static constexpr bool kRecordsConstraints = true;
  static constexpr bool kHasValues = kWithWitness;
  using LC = LinearCombination;

  template <class Name, class ValueFn>
  Variable alloc(const Name&, ValueFn&& value) {
    if constexpr (kWithWitness) aux_.push_back(value());
    return Variable::aux(static_cast<std::uint32_t>(num_aux_++));
  }
  template <class Name, class ValueFn>
  Variable alloc_input(const Name&, ValueFn&& value) {
    if constexpr (kWithWitness) inputs_.push_back(value());
    return Variable::input(static_cast<std::uint32_t>(num_inputs_++));
  }
  template <class Name>
  void enforce(const Name&, const LC& a, const LC& b, const LC& c) {
    a_.append_row(a.terms(), scratch_);
    b_.append_row(b.terms(), scratch_);
    c_.append_row(c.terms(), scratch_);
  }
  template <class Name>
  NullNamespace push_namespace(const Name&) {
    return {};
  }
  static constexpr Variable one() { return Variable::one(); }

  std::size_t num_constraints() const { return a_.rows(); }
  std::size_t num_inputs() const { return num_inputs_; }
  std::size_t num_aux() const { return num_aux_; }
  void reserve_constraints(std::size_t rows, std::size_t nnz_per_matrix) {
    a_.reserve(rows, nnz_per_matrix);
    b_.reserve(rows, nnz_per_matrix);
    c_.reserve(rows, nnz_per_matrix);
  }

  // Moves the matrices out; the recorder is empty afterwards (the witness, if any, stays).
  R1cs finish() {
    R1cs r;
    r.num_inputs = num_inputs_;
    r.num_aux = num_aux_;
    r.a = std::move(a_).finish(num_inputs_);
    r.b = std::move(b_).finish(num_inputs_);
    r.c = std::move(c_).finish(num_inputs_);
    a_ = {};
    b_ = {};
    c_ = {};
    return r;
  }

 private:
  detail::MatrixBuilder a_, b_, c_;
  std::vector<std::uint64_t> scratch_;
  std::size_t num_inputs_ = 1;
  std::size_t num_aux_ = 0;
};

using Recorder = BasicRecorder<false>;
using RecorderWithWitness = BasicRecorder<true>;
static_assert(ConstraintSystem<Recorder>);
static_assert(ConstraintSystem<RecorderWithWitness>);

// ---------------------------------------------------------------------------------------------------------
// Checker: evaluates each constraint as it is enforced.
class Checker : public Assignment {
 public:
  static constexpr bool kRecordsConstraints = true;
  static constexpr bool kHasValues = true;
  using LC = LinearCombination;

  struct Failure {
    std::size_t constraint_index;
    std::string path;  // namespace path joined by '/', then the constraint's annotation
  };

  class Namespace {
   public:
    explicit Namespace(Checker& cs) : cs_(&cs) {}
    Namespace(const Namespace&) = delete;
    Namespace& operator=(const Namespace&) = delete;
    ~Namespace() { cs_->pop_namespace(); }

   private:
    Checker* cs_;
  };

  // Test hook: when aux variable `index` is allocated, store `value` instead of the computed value.
  void corrupt_aux_on_alloc(std::size_t index, const Fr& value) { corruption_ = {index, value}; }

  template <class Name, class ValueFn>
  Variable alloc(const Name&, ValueFn&& value) {
    auto index = static_cast<std::uint32_t>(aux_.size());
    aux_.push_back(value());
    if (corruption_ && corruption_->first == index) aux_.back() = corruption_->second;
    return Variable::aux(index);
  }
  template <class Name, class ValueFn>
  Variable alloc_input(const Name&, ValueFn&& value) {
    auto index = static_cast<std::uint32_t>(inputs_.size());
    inputs_.push_back(value());
    return Variable::input(index);
  }
  template <class Name>
  void enforce(const Name& annotation, const LC& a, const LC& b, const LC& c) {
    std::size_t index = num_constraints_++;
    if (failure_ || eval(a) * eval(b) == eval(c)) return;
    failure_ = Failure{index, path_ + detail::name_string(annotation)};
  }
  template <class Name>
  [[nodiscard]] Namespace push_namespace(const Name& name) {
    path_lengths_.push_back(path_.size());
    path_ += detail::name_string(name);
    path_ += '/';
    return Namespace(*this);
  }
  static constexpr Variable one() { return Variable::one(); }

  Fr eval(const LC& lc) const {
    Fr acc = Fr::zero();
    for (const Term& t : lc.terms()) {
      // Most values are bits: skip the multiplication for 0 and 1.
      const Fr& v = value(t.var);
      if (v.is_zero()) continue;
      if (v.is_one()) {
        acc += t.coeff;
      } else {
        acc += t.coeff * v;
      }
    }
    return acc;
  }
  bool is_satisfied() const { return !failure_.has_value(); }
  const std::optional<Failure>& first_failure() const { return failure_; }
  std::size_t num_constraints() const { return num_constraints_; }

 private:
  void pop_namespace() {
    path_.resize(path_lengths_.back());
    path_lengths_.pop_back();
  }

  std::string path_;
  std::vector<std::size_t> path_lengths_;
  std::size_t num_constraints_ = 0;
  std::optional<Failure> failure_;
  std::optional<std::pair<std::size_t, Fr>> corruption_;
};
static_assert(ConstraintSystem<Checker>);

}  // namespace cuzk::r1cs
