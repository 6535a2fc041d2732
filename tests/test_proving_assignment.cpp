// ProvingAssignment (prover/r1cs/proving_assignment.hpp) against the recorded matrices times the witness
// (groth16::witness_from_r1cs over a RecorderWithWitness), on hand-written constraints that exercise
// bellperson's density rule (merged coefficients, zero coefficients, inputs in B) and on the gadgets.
#include <gtest/gtest.h>

#include <array>
#include <random>
#include <span>
#include <vector>

#include "prover/gadgets/multipack.hpp"
#include "prover/gadgets/num.hpp"
#include "prover/gadgets/por.hpp"
#include "prover/gadgets/poseidon.hpp"
#include "prover/gadgets/sha256.hpp"
#include "prover/groth16/prover.hpp"
#include "prover/r1cs/constraint_system.hpp"
#include "prover/r1cs/proving_assignment.hpp"
#include "tests/test_util.hpp"

namespace {

using cuzk::algebra::Fr;
using cuzk::groth16::ProverInput;
using cuzk::r1cs::ProvingAssignment;
using cuzk::r1cs::RecorderWithWitness;
using cuzk::r1cs::Variable;
using namespace cuzk::gadgets;

// Runs `circuit` (a generic lambda over the constraint system) on both systems and compares everything
// the prover consumes. Returns the ProvingAssignment's result for further checks.
template <class Circuit>
ProverInput expect_matches_recorder(Circuit&& circuit) {
  ProvingAssignment pa;
  circuit(pa);
  ProverInput direct = std::move(pa).finish<ProverInput>();
  RecorderWithWitness recorder;
  circuit(recorder);
  std::vector<Fr> inputs = recorder.inputs(), aux = recorder.aux();
  ProverInput expected =
      cuzk::groth16::witness_from_r1cs(recorder.finish(), std::move(inputs), std::move(aux));
  EXPECT_TRUE(direct.inputs == expected.inputs);
  EXPECT_TRUE(direct.aux == expected.aux);
  EXPECT_EQ(direct.a.size(), expected.a.size());
  EXPECT_TRUE(direct.a == expected.a);
  EXPECT_TRUE(direct.b == expected.b);
  EXPECT_TRUE(direct.c == expected.c);
  EXPECT_EQ(direct.densities.a_aux, expected.densities.a_aux);
  EXPECT_EQ(direct.densities.b_input, expected.densities.b_input);
  EXPECT_EQ(direct.densities.b_aux, expected.densities.b_aux);
  return direct;
}

TEST(ProvingAssignment, DensityRuleOnHandWrittenConstraints) {
  auto rng = cuzk::test::seeded_rng("ProvingAssignment.DensityRuleOnHandWrittenConstraints");
  const Fr xv = cuzk::test::random_field<Fr>(rng), yv = cuzk::test::random_field<Fr>(rng);
  const Fr k = cuzk::test::random_field<Fr>(rng);
  ProverInput out = expect_matches_recorder([&](auto& cs) {
    using LC = typename std::remove_reference_t<decltype(cs)>::LC;
    Variable x = cs.alloc("x", [&] { return xv; });            // aux 0
    Variable y = cs.alloc("y", [&] { return yv; });            // aux 1
    Variable z = cs.alloc("z", [&] { return xv * yv; });       // aux 2
    Variable u = cs.alloc("u", [&] { return Fr::one(); });     // aux 3
    Variable in1 = cs.alloc_input("in1", [&] { return xv; });  // input 1
    Variable in2 = cs.alloc_input("in2", [&] { return yv; });  // input 2
    // A: x cancels (k x - k x), y stays; B: in1 and u with a zero coefficient; C: z.
    cs.enforce("cancel", LC(x, k).sub(x, k).add(y), LC(in1).add(u, Fr::zero()), LC(z));
    // A: x twice (2x), B: in2 - in2 + y (in2 cancels), C: ONE.
    cs.enforce("repeat", LC(x).add(x), LC(in2).sub(in2).add(y), LC(Variable::one()));
    // A: ONE only (inputs have no tracked A density); B: ONE.
    cs.enforce("ones", LC(Variable::one()), LC(Variable::one()), LC(u));
  });
  // Independent expectations from bellperson's rule.
  EXPECT_TRUE(out.densities.a_aux.test(0));     // x (2x in "repeat"; cancelled in "cancel")
  EXPECT_TRUE(out.densities.a_aux.test(1));     // y
  EXPECT_FALSE(out.densities.a_aux.test(2));    // z only in C
  EXPECT_FALSE(out.densities.a_aux.test(3));    // u never in A
  EXPECT_TRUE(out.densities.b_input.test(0));   // ONE in B of "ones"
  EXPECT_TRUE(out.densities.b_input.test(1));   // in1
  EXPECT_FALSE(out.densities.b_input.test(2));  // in2 cancels
  EXPECT_TRUE(out.densities.b_aux.test(1));     // y
  EXPECT_FALSE(out.densities.b_aux.test(3));    // u had a zero coefficient
  EXPECT_FALSE(out.densities.b_aux.test(0));
  EXPECT_EQ(out.a[0], yv);
  EXPECT_EQ(out.b[0], xv);
  EXPECT_EQ(out.a[1], xv + xv);
  EXPECT_EQ(out.b[1], yv);
}

TEST(ProvingAssignment, MatchesRecorderOnGadgets) {
  auto rng = cuzk::test::seeded_rng("ProvingAssignment.MatchesRecorderOnGadgets");
  std::vector<bool> bits(512);
  for (std::size_t i = 0; i < bits.size(); ++i) bits[i] = rng() & 1;
  std::array<Fr, 11> values;
  for (Fr& v : values) v = cuzk::test::random_field<Fr>(rng);
  // A tree C path of shape 8-8-2 with random siblings (satisfaction is not needed here).
  const TreeShape shape{8, 8, 2};
  std::vector<PathElementValues> path = blank_path(8 * 8 * 8 * 2, shape);
  for (auto& e : path) {
    e.index = rng() % (e.siblings.size() + 1);
    for (Fr& s : e.siblings) s = cuzk::test::random_field<Fr>(rng);
  }

  expect_matches_recorder([&](auto& cs) {
    std::vector<Boolean> input;
    for (bool b : bits) input.push_back(AllocatedBit::alloc(cs, b));
    // Two compressions: from the constant IV, then from an allocated state with an all-constant block.
    Sha256State state = sha256_compression_function(cs, std::span<const Boolean>(input), sha256_iv());
    std::vector<Boolean> constant_block(512, Boolean::constant(false));
    constant_block[0] = Boolean::constant(true);
    sha256_compression_function(cs, std::span<const Boolean>(constant_block), state);
  });
  expect_matches_recorder([&](auto& cs) {
    std::vector<AllocatedNum> nums;
    for (const Fr& v : values) nums.push_back(AllocatedNum::alloc_value(cs, v));
    poseidon_hash(cs, std::span<const AllocatedNum>(nums).first(2));
    AllocatedNum column = poseidon_hash(cs, std::span<const AllocatedNum>(nums));
    std::vector<Boolean> le = column.to_bits_le(cs);
    pack_into_inputs(cs, std::span<const Boolean>(le));
    pack_bits(cs, std::span<const Boolean>(reverse_bit_numbering(le)));
    UInt64::alloc(cs, 0x0123456789abcdefull).pack_into_input(cs);
    AllocatedNum root = AllocatedNum::alloc_value(cs, values[1]);
    enforce_inclusion<PoseidonTreeHash>(cs, shape, std::span<const PathElementValues>(path), root, column);
  });
}

}  // namespace
