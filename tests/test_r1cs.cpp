// The circuit framework: variables, linear combinations, the constraint systems, their concept and
// evaluation.
#include <gtest/gtest.h>

#include <type_traits>

#include "prover/r1cs/constraint_system.hpp"
#include "prover/r1cs/evaluate.hpp"
#include "tests/test_util.hpp"

namespace cuzk::r1cs {
namespace {

TEST(Variable, EncodesKindAndIndex) {
  EXPECT_TRUE(Variable::one().is_input());
  EXPECT_EQ(Variable::one().index(), 0u);
  Variable a = Variable::aux(7);
  EXPECT_TRUE(a.is_aux());
  EXPECT_EQ(a.index(), 7u);
  EXPECT_EQ(a.unified(3), 10u);
  EXPECT_EQ(Variable::input(2).unified(3), 2u);
  EXPECT_LT(Variable::input(1000).raw(), Variable::aux(0).raw());  // inputs sort first
}

TEST(LinearCombination, InlineThenHeapKeepsEveryTerm) {
  auto rng = test::seeded_rng("LinearCombination.InlineThenHeapKeepsEveryTerm");
  std::vector<Term> expected;
  LinearCombination lc;
  for (std::uint32_t i = 0; i < 40; ++i) {
    Fr c = test::random_field<Fr>(rng);
    lc.add(Variable::aux(i), c);
    expected.push_back({Variable::aux(i), c});
    ASSERT_EQ(lc.size(), expected.size());
  }
  LinearCombination copy = lc;
  LinearCombination moved = std::move(copy);
  LinearCombination small(Variable::one());
  LinearCombination small_moved = std::move(small);
  ASSERT_EQ(moved.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(moved.terms()[i].var, expected[i].var);
    EXPECT_EQ(moved.terms()[i].coeff, expected[i].coeff);
    EXPECT_EQ(lc.terms()[i].coeff, expected[i].coeff);
  }
  ASSERT_EQ(small_moved.size(), 1u);
  EXPECT_EQ(small_moved.terms()[0].coeff, Fr::one());

  LinearCombination scaled;
  Fr k = test::random_field<Fr>(rng);
  scaled.add_scaled(lc, k);
  for (std::size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(scaled.terms()[i].coeff, expected[i].coeff * k);

  LinearCombination diff = LinearCombination(Variable::aux(1)) - Variable::aux(2) + lc;
  EXPECT_EQ(diff.size(), 2 + expected.size());
  EXPECT_EQ(diff.terms()[1].coeff, -Fr::one());
}

TEST(LinearCombination, NullLcIsEmpty) {
  static_assert(std::is_empty_v<NullLc>);
  static_assert(std::is_same_v<WitnessGen::LC, NullLc>);
  static_assert(std::is_same_v<Counter::LC, NullLc>);
  static_assert(!WitnessGen::kRecordsConstraints && WitnessGen::kHasValues);
  static_assert(!Counter::kRecordsConstraints && !Counter::kHasValues);
  static_assert(Recorder::kRecordsConstraints && !Recorder::kHasValues);
  static_assert(RecorderWithWitness::kHasValues && Checker::kHasValues);
}

// A system with the given flags and LC type and only the members every system has.
template <bool kRecords, class L>
struct MinimalSystem {
  static constexpr bool kRecordsConstraints = kRecords;
  static constexpr bool kHasValues = false;
  using LC = L;
  template <class Name, class ValueFn>
  Variable alloc(const Name&, ValueFn&&) {
    return Variable::aux(0);
  }
  template <class Name, class ValueFn>
  Variable alloc_input(const Name&, ValueFn&&) {
    return Variable::input(1);
  }
  template <class Name>
  void enforce(const Name&, const LC&, const LC&, const LC&) {}
  template <class Name>
  NullNamespace push_namespace(const Name&) {
    return {};
  }
  static constexpr Variable one() { return Variable::one(); }
};
// The same, with the bulk interface of the systems that record no constraints.
struct MinimalBulkSystem : MinimalSystem<false, NullLc> {
  void alloc_bits(std::uint32_t, std::uint32_t) {}
  void add_constraints(std::size_t) {}
};
// A flag that is not a compile-time constant.
struct RuntimeFlagSystem : MinimalSystem<true, LinearCombination> {
  static inline bool kRecordsConstraints = true;
};
// alloc() returning a raw index instead of a Variable.
struct RawIndexSystem : MinimalSystem<true, LinearCombination> {
  template <class Name, class ValueFn>
  std::uint32_t alloc(const Name&, ValueFn&&) {
    return 0;
  }
};

TEST(ConstraintSystemConcept, HoldsForEverySystemAndRejectsBrokenOnes) {
  // The systems of this layer (each header asserts it as well).
  static_assert(ConstraintSystem<Counter> && ConstraintSystem<WitnessGen> && ConstraintSystem<Recorder> &&
                ConstraintSystem<RecorderWithWitness> && ConstraintSystem<Checker>);
  static_assert(LinearCombinationType<LinearCombination> && LinearCombinationType<NullLc>);
  static_assert(ConstraintSystem<MinimalSystem<true, LinearCombination>>);
  static_assert(ConstraintSystem<MinimalBulkSystem>);
  // A system that records no constraints must offer alloc_bits and add_constraints.
  static_assert(!ConstraintSystem<MinimalSystem<false, NullLc>>);
  static_assert(!ConstraintSystem<RuntimeFlagSystem>);
  static_assert(!ConstraintSystem<RawIndexSystem>);
  static_assert(!ConstraintSystem<MinimalSystem<true, int>>);  // no linear-combination type
  static_assert(!ConstraintSystem<LinearCombination>);
  static_assert(!LinearCombinationType<Variable>);
}

// A tiny circuit that interleaves alloc and alloc_input, repeats variables within an LC and produces
// a zero coefficient: x (aux 0), input x' (input 1), y = x^2 (aux 1), input y' (input 2).
template <ConstraintSystem CS>
void tiny_circuit(CS& cs, const Fr& x_value) {
  using LC = typename CS::LC;
  auto ns = cs.push_namespace("tiny");
  Variable x = cs.alloc("x", [&] { return x_value; });
  Variable x_in = cs.alloc_input("x input", [&] { return x_value; });
  cs.enforce("x input", LC(x_in), LC(Variable::one()), LC(x));
  Variable y = cs.alloc("y", [&] { return x_value * x_value; });
  // (x + x - x) * x = y + y - y, written with repeated terms; plus a term that cancels (+ONE - ONE).
  cs.enforce("square", LC(x).add(x).sub(x).add(Variable::one()).sub(Variable::one()), LC(x),
             LC(y).add(y).sub(y));
  Variable y_in = cs.alloc_input("y input", [&] { return x_value * x_value; });
  cs.enforce("y input", LC(y_in), LC(Variable::one()), LC(y));
}

TEST(Recorder, UnifiedNumberingMergedTermsAndDroppedZeros) {
  Recorder rec;
  tiny_circuit(rec, Fr::zero());
  R1cs r = rec.finish();
  EXPECT_EQ(r.num_inputs, 3u);  // ONE, x', y'
  EXPECT_EQ(r.num_aux, 2u);
  ASSERT_EQ(r.num_constraints(), 3u);
  // Unified: ONE=0, x'=1, y'=2, x=3, y=4.
  EXPECT_EQ(r.a.row_offsets, (std::vector<std::uint64_t>{0, 1, 2, 3}));
  EXPECT_EQ(r.a.columns, (std::vector<std::uint32_t>{1, 3, 2}));
  EXPECT_EQ(r.b.columns, (std::vector<std::uint32_t>{0, 3, 0}));
  EXPECT_EQ(r.c.columns, (std::vector<std::uint32_t>{3, 4, 4}));
  for (const Fr& v : r.a.values) EXPECT_EQ(v, Fr::one());  // x + x - x merged to 1·x, ONE - ONE dropped
  for (const Fr& v : r.c.values) EXPECT_EQ(v, Fr::one());

  Densities d = compute_densities(r);
  EXPECT_EQ(d.a_aux.popcount(), 1u);  // x only
  EXPECT_TRUE(d.a_aux.test(0));
  EXPECT_EQ(d.b_input.popcount(), 1u);  // ONE
  EXPECT_TRUE(d.b_input.test(0));
  EXPECT_EQ(d.b_aux.popcount(), 1u);
  EXPECT_TRUE(d.b_aux.test(0));
}

TEST(Recorder, WitnessSatisfiesMatricesAndBadWitnessIsFound) {
  auto rng = test::seeded_rng("Recorder.WitnessSatisfiesMatricesAndBadWitnessIsFound");
  Fr x = test::random_field<Fr>(rng);
  RecorderWithWitness rec;
  tiny_circuit(rec, x);
  std::vector<Fr> inputs = rec.inputs(), aux = rec.aux();
  R1cs r = rec.finish();
  EXPECT_EQ(inputs, (std::vector<Fr>{Fr::one(), x, x * x}));
  EXPECT_EQ(aux, (std::vector<Fr>{x, x * x}));
  EXPECT_FALSE(first_unsatisfied(r, inputs, aux).has_value());
  Evaluation e = evaluate(r, inputs, aux);
  EXPECT_EQ(e.a[1], x);
  EXPECT_EQ(e.c[1], x * x);
  aux[1] += Fr::one();
  EXPECT_EQ(first_unsatisfied(r, inputs, aux), std::optional<std::size_t>(1));
  EXPECT_THROW(first_unsatisfied(r, inputs, std::vector<Fr>{x}), std::invalid_argument);
}

TEST(Systems, AgreeOnCountsAndValues) {
  auto rng = test::seeded_rng("Systems.AgreeOnCountsAndValues");
  Fr x = test::random_field<Fr>(rng);
  Counter counter;
  WitnessGen wit;
  RecorderWithWitness rec;
  Checker checker;
  tiny_circuit(counter, x);
  tiny_circuit(wit, x);
  tiny_circuit(rec, x);
  tiny_circuit(checker, x);
  EXPECT_EQ(counter.num_constraints(), rec.num_constraints());
  EXPECT_EQ(counter.num_inputs(), rec.num_inputs());
  EXPECT_EQ(counter.num_aux(), rec.num_aux());
  EXPECT_EQ(wit.inputs(), rec.inputs());
  EXPECT_EQ(wit.aux(), rec.aux());
  EXPECT_EQ(checker.aux(), rec.aux());
  EXPECT_TRUE(checker.is_satisfied());
  EXPECT_EQ(checker.num_constraints(), 3u);
}

TEST(Checker, ReportsFirstFailureWithNamespacePath) {
  Checker checker;
  checker.corrupt_aux_on_alloc(1, Fr::from_u64(5));  // y
  tiny_circuit(checker, Fr::from_u64(3));
  ASSERT_FALSE(checker.is_satisfied());
  EXPECT_EQ(checker.first_failure()->constraint_index, 1u);
  EXPECT_EQ(checker.first_failure()->path, "tiny/square");
}

TEST(Checker, LazyNamesAreOnlyBuiltOnFailure) {
  Checker checker;
  int built = 0;
  using LC = Checker::LC;
  Variable v = checker.alloc("v", [] { return Fr::from_u64(2); });
  checker.enforce(
      [&] {
        ++built;
        return std::string("ok");
      },
      LC(v), LC(v), LC(Variable::one()).scale(Fr::from_u64(4)));
  EXPECT_EQ(built, 0);
  EXPECT_TRUE(checker.is_satisfied());
  checker.enforce(
      [&] {
        ++built;
        return std::string("bad");
      },
      LC(v), LC(v), LC(v));
  EXPECT_EQ(built, 1);
  EXPECT_EQ(checker.first_failure()->path, "bad");
}

}  // namespace
}  // namespace cuzk::r1cs
