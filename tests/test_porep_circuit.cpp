// The StackedDRG PoRep circuit (prover/porep/circuit.hpp): constraint, input and aux counts against
// rust-fil-proofs' published anchors (docs/circuit.md §9), the circuit's public inputs against the
// verifier-side generate_public_inputs, satisfaction on gen-c1 output, tampered witnesses, the witness
// systems agreeing with each other, and ProvingAssignment against Recorder matrices x witness.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "prover/groth16/prover.hpp"
#include "prover/porep/challenges.hpp"
#include "prover/porep/circuit.hpp"
#include "prover/porep/errors.hpp"
#include "prover/porep/gen_c1.hpp"
#include "prover/porep/label_circuit.hpp"
#include "prover/porep/labels.hpp"
#include "prover/porep/parallel_witness.hpp"
#include "prover/r1cs/constraint_system.hpp"
#include "prover/r1cs/proving_assignment.hpp"
#include "tests/test_util.hpp"

namespace {

using cuzk::algebra::Fr;
using namespace cuzk::porep;
using cuzk::gadgets::AllocatedBit;
using cuzk::gadgets::Boolean;
using cuzk::r1cs::Checker;
using cuzk::r1cs::Counter;
using cuzk::r1cs::ProvingAssignment;
using cuzk::r1cs::RecorderWithWitness;
using cuzk::r1cs::WitnessGen;

struct Counts {
  std::size_t constraints, inputs, aux;
};

Counts count(const StackedCircuitShape& shape) {
  Counter cs;
  synthesize_stacked_circuit(cs, shape, PartitionWitness::blank(shape));
  return {cs.num_constraints(), cs.num_inputs(), cs.num_aux()};
}

// rfp storage-proofs-porep/tests/stacked_circuit.rs: 2 layers, 1 challenge, nodes = 8 * base tree count.
StackedCircuitShape rfp_test_shape(unsigned base, unsigned sub, unsigned top) {
  StackedCircuitShape s;
  s.base_arity = base;
  s.sub_arity = sub;
  s.top_arity = top;
  s.nodes = 8ull * (sub ? sub : 1) * (top ? top : 1);
  s.layers = 2;
  s.challenges = 1;
  return s;
}

const SectorShape& sector(const char* label) {
  const SectorShape* s = parse_sector_size(label);
  if (!s) throw std::runtime_error(std::string("no sector shape ") + label);
  return *s;
}

GeneratedC1 gen(const char* proof_name, std::uint64_t seed, bool sparse) {
  GenC1Options o;
  o.proof = find_registered_seal_proof(proof_name);
  o.seed = seed;
  o.sparse = sparse;
  return generate_c1(o);
}

std::vector<Fr> verifier_inputs(const C1Output& c1, unsigned k) {
  return generate_public_inputs(*c1.registered_proof, c1.replica_id, c1.comm_d, c1.comm_r, c1.seed, k);
}

std::vector<Fr> public_part(const std::vector<Fr>& inputs) {
  return {inputs.begin() + 1, inputs.end()};  // without ONE
}

// A value-computing system that keeps the inputs and only counts aux variables: the public inputs of a
// 32GiB partition without holding its 130 M aux values (4 GiB).
class InputsOnly : public cuzk::r1cs::Assignment {
 public:
  static constexpr bool kRecordsConstraints = false;
  static constexpr bool kHasValues = true;
  using LC = cuzk::r1cs::NullLc;
  template <class Name, class ValueFn>
  cuzk::r1cs::Variable alloc(const Name&, ValueFn&& value) {
    (void)value();  // gadgets capture their values through the callable
    return cuzk::r1cs::Variable::aux(static_cast<std::uint32_t>(num_aux_++));
  }
  template <class Name, class ValueFn>
  cuzk::r1cs::Variable alloc_input(const Name&, ValueFn&& value) {
    inputs_.push_back(value());
    return cuzk::r1cs::Variable::input(static_cast<std::uint32_t>(inputs_.size() - 1));
  }
  template <class Name>
  void enforce(const Name&, const LC&, const LC&, const LC&) {
    ++num_constraints_;
  }
  template <class Name>
  cuzk::r1cs::NullNamespace push_namespace(const Name&) {
    return {};
  }
  static constexpr cuzk::r1cs::Variable one() { return cuzk::r1cs::Variable::one(); }
  void alloc_bits(std::uint32_t mask, std::uint32_t) {
    num_aux_ += static_cast<std::size_t>(__builtin_popcount(mask));
  }
  void add_constraints(std::size_t n) { num_constraints_ += n; }
  std::size_t num_aux_ = 0, num_constraints_ = 0;
};
static_assert(cuzk::r1cs::ConstraintSystem<InputsOnly>);

// --- counts ------------------------------------------------------------------------------------------

TEST(StackedCircuitCounts, RustFilProofsTestCircuits) {
  // rfp stacked_circuit.rs (docs/circuit.md §9): (inputs incl. ONE, constraints) for tree shapes 2-0-0,
  // 8-0-0, 8-4-0, 8-4-2.
  struct Case {
    unsigned base, sub, top;
    std::size_t constraints;
  };
  for (const Case& c : {Case{2, 0, 0, 1'206'212}, Case{8, 0, 0, 1'199'620}, Case{8, 4, 0, 1'296'576},
                        Case{8, 4, 2, 1'346'982}}) {
    SCOPED_TRACE(std::to_string(c.base) + "-" + std::to_string(c.sub) + "-" + std::to_string(c.top));
    Counts n = count(rfp_test_shape(c.base, c.sub, c.top));
    EXPECT_EQ(n.inputs, 22u);
    EXPECT_EQ(n.constraints, c.constraints);
  }
}

TEST(StackedCircuitCounts, ProductionSectorSizes) {
  // 32GiB: rfp PR #1325 (130,278,541 constraints, 328 inputs); the others and every aux count are
  // docs/circuit.md §9's derivation from the per-gadget rules.
  struct Case {
    const char* size;
    std::size_t constraints, inputs, aux;
  };
  for (const Case& c :
       {Case{"2KiB", 2'687'921, 40, 2'685'673}, Case{"8MiB", 3'844'929, 40, 3'842'449},
        Case{"512MiB", 4'423'433, 40, 4'420'837}, Case{"32GiB", 130'278'541, 328, 130'169'893},
        Case{"64GiB", 131'185'849, 328, 131'076'643}}) {
    SCOPED_TRACE(c.size);
    const SectorShape& s = sector(c.size);
    StackedCircuitShape shape = StackedCircuitShape::from_sector(s);
    Counts n = count(shape);
    EXPECT_EQ(n.constraints, c.constraints);
    EXPECT_EQ(n.inputs, c.inputs);
    EXPECT_EQ(n.inputs, shape.num_inputs());
    EXPECT_EQ(n.inputs, s.inputs_per_partition());
    EXPECT_EQ(n.aux, c.aux);
  }
}

// --- the label circuit -------------------------------------------------------------------------------

// rfp create_label.rs test_create_label: 38 x 256 input bits allocated (bytes_into_boolean_vec_be: each
// byte MSB first), layer 3 and node 22 constant; 532,025 constraints, and the label equals the vanilla
// one (here: label_node, which reproduces rfp's published SDR label vectors).
TEST(LabelCircuit, RustFilProofsCreateLabelTest) {
  auto rng = cuzk::test::seeded_rng("LabelCircuit.RustFilProofsCreateLabelTest");
  auto random_domain = [&] {
    Domain d;
    Fr f = cuzk::test::random_field<Fr>(rng);
    f.to_bytes_le(d.data());
    return d;
  };
  const Domain id = random_domain();
  std::array<Domain, 14> raw_parents;
  for (auto& p : raw_parents) p = random_domain();
  std::array<Domain, kLabelParents> parents;
  for (std::size_t q = 0; q < parents.size(); ++q) parents[q] = raw_parents[q % raw_parents.size()];
  constexpr std::uint32_t kLayer = 3;
  constexpr std::uint64_t kNode = 22;

  Checker cs;
  auto alloc_bytes_be = [&](const Domain& bytes) {
    std::vector<Boolean> bits;
    for (std::uint8_t byte : bytes)
      for (int i = 7; i >= 0; --i) bits.push_back(AllocatedBit::alloc(cs, ((byte >> i) & 1) != 0));
    return bits;
  };
  std::vector<std::vector<Boolean>> parent_bits;
  for (const Domain& p : parents) parent_bits.push_back(alloc_bytes_be(p));
  std::vector<Boolean> id_bits = alloc_bytes_be(id);
  std::array<std::span<const Boolean>, kLabelParents> spans;
  for (std::size_t q = 0; q < spans.size(); ++q) spans[q] = parent_bits[q];
  auto label = create_label_circuit(
      cs, std::span<const Boolean>(id_bits), std::span<const std::span<const Boolean>>(spans),
      cuzk::gadgets::UInt32::constant(kLayer), cuzk::gadgets::UInt64::constant(kNode));
  EXPECT_TRUE(cs.is_satisfied()) << cs.first_failure()->path;
  EXPECT_EQ(cs.num_constraints(), 532'025u);
  Domain expected = label_node(id, kLayer, kNode, parents.data());
  EXPECT_EQ(label.value(), domain_to_fr(expected, "expected label"));
}

// --- public inputs and satisfaction on gen-c1 output -------------------------------------------------

void expect_satisfied_with_verifier_inputs(const GeneratedC1& g) {
  const C1Output& c1 = g.c1;
  const StackedCircuitShape shape = StackedCircuitShape::from_sector(*c1.registered_proof->shape);
  for (unsigned k = 0; k < c1.vanilla_proofs.size(); ++k) {
    SCOPED_TRACE("partition " + std::to_string(k));
    PartitionWitness w = PartitionWitness::from_c1(c1, k);
    Checker checker;
    synthesize_stacked_circuit(checker, shape, w);
    EXPECT_TRUE(checker.is_satisfied()) << checker.first_failure()->path;
    EXPECT_EQ(public_part(checker.inputs()), verifier_inputs(c1, k));
    EXPECT_EQ(checker.num_constraints(), count(shape).constraints);
    // The fast path computes the same witness as the constraint-evaluating one.
    WitnessGen wg;
    synthesize_stacked_circuit(wg, shape, w);
    EXPECT_EQ(wg.inputs(), checker.inputs());
    EXPECT_TRUE(wg.aux() == checker.aux());
    // And so does the parallel one (challenges on 4 threads), into a recycled buffer holding other values.
    std::vector<Fr> inputs(3, Fr::from_u64(7)), aux(wg.aux().size() + 100, Fr::from_u64(9));
    generate_partition_witness(shape, w, inputs, aux, 4);
    EXPECT_EQ(inputs, wg.inputs());
    EXPECT_TRUE(aux == wg.aux());
  }
}

TEST(StackedCircuit, SatisfiedWithVerifierInputs2KiBAllKinds) {
  for (const char* name : {"StackedDrg2KiBV1", "StackedDrg2KiBV1_1", "StackedDrg2KiBV1_1_Feat_SyntheticPoRep",
                           "StackedDrg2KiBV1_2_Feat_NonInteractivePoRep"}) {
    SCOPED_TRACE(name);
    GeneratedC1 g = gen(name, 11, false);
    ASSERT_FALSE(g.sparse);
    expect_satisfied_with_verifier_inputs(g);
  }
}

TEST(StackedCircuit, SatisfiedWithVerifierInputs8MiBSparse) {
  expect_satisfied_with_verifier_inputs(gen("StackedDrg8MiBV1_1", 12, true));
}

TEST(StackedCircuit, InputsMatchVerifier32GiBSparsePartition) {
  GeneratedC1 g = gen("StackedDrg32GiBV1_1", 13, true);
  const StackedCircuitShape shape = StackedCircuitShape::from_sector(*g.c1.registered_proof->shape);
  const unsigned k = 3;
  InputsOnly cs;
  synthesize_stacked_circuit(cs, shape, PartitionWitness::from_c1(g.c1, k));
  EXPECT_EQ(cs.num_inputs(), 328u);
  EXPECT_EQ(public_part(cs.inputs()), verifier_inputs(g.c1, k));
  EXPECT_EQ(cs.num_aux_, 130'169'893u);
  EXPECT_EQ(cs.num_constraints_, 130'278'541u);
  // The parallel witness's layout counts the same variables: the common part plus 18 equal challenges.
  const PartitionLayout& layout = partition_layout(shape);
  EXPECT_EQ(layout.challenges, 18u);
  EXPECT_EQ(layout.num_inputs(), 328u);
  EXPECT_EQ(layout.num_aux(), 130'169'893u);
  EXPECT_EQ(layout.inputs_per_challenge, 18u);
}

TEST(StackedCircuit, ParallelWitnessRefusesAWitnessOfAnotherShape) {
  GeneratedC1 g = gen("StackedDrg2KiBV1_1", 14, false);
  const StackedCircuitShape shape = StackedCircuitShape::from_sector(*g.c1.registered_proof->shape);
  PartitionWitness w = PartitionWitness::from_c1(g.c1, 0);
  w.challenges.pop_back();
  std::vector<Fr> inputs, aux;
  EXPECT_THROW(generate_partition_witness(shape, w, inputs, aux, 2), PorepError);
  w = PartitionWitness::from_c1(g.c1, 0);
  w.challenges[1].comm_d_proofs.base.path.pop_back();  // one level short: another circuit
  EXPECT_THROW(generate_partition_witness(shape, w, inputs, aux, 2), PorepError);
}

// --- tampering ---------------------------------------------------------------------------------------

class Tampered2KiB : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { generated_ = new GeneratedC1(gen("StackedDrg2KiBV1_1", 21, false)); }
  static void TearDownTestSuite() {
    delete generated_;
    generated_ = nullptr;
  }
  // The first unsatisfied constraint's path, or "" when satisfied.
  static std::string first_failure(const C1Output& c1) {
    Checker cs;
    synthesize_stacked_circuit(cs, StackedCircuitShape::from_sector(*c1.registered_proof->shape),
                               PartitionWitness::from_c1(c1, 0));
    return cs.is_satisfied() ? std::string() : cs.first_failure()->path;
  }
  static Domain other_value(const Domain& d) {
    Domain out = d;
    out[0] ^= 1;  // stays canonical: only the lowest bit changes
    return out;
  }
  static GeneratedC1* generated_;
};
GeneratedC1* Tampered2KiB::generated_ = nullptr;

TEST_F(Tampered2KiB, LabelRowOfAParentColumn) {
  C1Output c1 = generated_->c1;
  auto& row = c1.vanilla_proofs[0][1].replica_column_proofs.drg_parents[2].column.rows[1];
  row = other_value(row);
  std::string failure = first_failure(c1);
  // The column hash no longer opens tree C.
  EXPECT_NE(failure.find("challenge_1/drg_parent_2_inclusion/"), std::string::npos) << failure;
}

TEST_F(Tampered2KiB, PathSibling) {
  C1Output c1 = generated_->c1;
  auto& sibling = c1.vanilla_proofs[0][0].comm_d_proofs.base.path[3].hashes[0];
  sibling = other_value(sibling);
  std::string failure = first_failure(c1);
  EXPECT_NE(failure.find("challenge_0/comm_d_inclusion/enforce root is correct"), std::string::npos)
      << failure;
}

TEST_F(Tampered2KiB, WrongSeedGivesOtherChallenges) {
  // The circuit never sees the seed: with another seed the verifier expects other challenges, so the
  // inputs differ (and the proof would not verify) while the witness still satisfies the circuit.
  C1Output c1 = generated_->c1;
  Checker cs;
  synthesize_stacked_circuit(cs, StackedCircuitShape::from_sector(*c1.registered_proof->shape),
                             PartitionWitness::from_c1(c1, 0));
  ASSERT_TRUE(cs.is_satisfied());
  ASSERT_EQ(public_part(cs.inputs()), verifier_inputs(c1, 0));
  c1.seed = other_value(c1.seed);
  std::vector<Fr> expected = verifier_inputs(c1, 0);
  EXPECT_NE(public_part(cs.inputs()), expected);
  EXPECT_EQ(std::vector<Fr>(expected.begin(), expected.begin() + 3),
            std::vector<Fr>(cs.inputs().begin() + 1, cs.inputs().begin() + 4));  // replica_id, comm_d, comm_r
}

TEST_F(Tampered2KiB, NonCanonicalOrInconsistentValuesAreRefused) {
  C1Output c1 = generated_->c1;
  c1.vanilla_proofs[0][1].replica_column_proofs.exp_parents[4].column.rows[0].fill(0xff);
  try {
    PartitionWitness::from_c1(c1, 0);
    FAIL() << "a non-canonical row was accepted";
  } catch (const PorepError& e) {
    EXPECT_NE(std::string(e.what()).find("partition 0, challenge 1: expander parent column 4 row 0"),
              std::string::npos)
        << e.what();
  }
  c1 = generated_->c1;
  c1.vanilla_proofs[0][1].comm_r_last_proof.root =
      other_value(c1.vanilla_proofs[0][1].comm_r_last_proof.root);
  EXPECT_THROW(PartitionWitness::from_c1(c1, 0), PorepError);
  EXPECT_THROW(PartitionWitness::from_c1(generated_->c1, 1), PorepError);  // 2KiB has one partition
  // A witness of another shape is refused rather than synthesized into another circuit.
  PartitionWitness w = PartitionWitness::from_c1(generated_->c1, 0);
  Counter counter;
  EXPECT_THROW(synthesize_stacked_circuit(counter, StackedCircuitShape::from_sector(sector("8MiB")), w),
               PorepError);
}

// --- the systems agree -------------------------------------------------------------------------------

// A 1-challenge circuit (the 2KiB shape with one challenge per partition, like rfp's test circuits):
// the recorder (Boolean-level SHA-256, symbolic Poseidon) and the fast witness path allocate the same
// variables in the same order with the same values.
TEST(StackedCircuit, RecorderAndWitnessGenAgreeOnOneChallenge) {
  GeneratedC1 g = gen("StackedDrg2KiBV1_1", 31, false);
  StackedCircuitShape shape = StackedCircuitShape::from_sector(*g.c1.registered_proof->shape);
  shape.challenges = 1;
  PartitionWitness w = PartitionWitness::from_c1(g.c1, 0);
  w.challenges.resize(1);

  RecorderWithWitness recorder;
  synthesize_stacked_circuit(recorder, shape, w);
  WitnessGen witness;
  synthesize_stacked_circuit(witness, shape, w);
  const Counts n = count(shape);
  EXPECT_EQ(n.inputs, 22u);
  EXPECT_EQ(recorder.num_constraints(), n.constraints);
  EXPECT_EQ(recorder.num_aux(), n.aux);
  ASSERT_EQ(witness.aux().size(), recorder.aux().size());
  EXPECT_EQ(witness.inputs(), recorder.inputs());
  std::size_t first_difference = 0;
  while (first_difference < witness.aux().size() &&
         witness.aux()[first_difference] == recorder.aux()[first_difference])
    ++first_difference;
  EXPECT_EQ(first_difference, witness.aux().size()) << "aux values differ first at " << first_difference;
  cuzk::r1cs::R1cs r1cs = recorder.finish();
  EXPECT_EQ(cuzk::r1cs::first_unsatisfied(r1cs, witness.inputs(), witness.aux()), std::nullopt);
}

// ProvingAssignment gives exactly a = A z, b = B z, c = C z and the densities of the recorded matrices
// (groth16::witness_from_r1cs), on the full 2KiB circuit.
TEST(StackedCircuit, ProvingAssignmentMatchesRecorder2KiB) {
  GeneratedC1 g = gen("StackedDrg2KiBV1_1", 41, false);
  const StackedCircuitShape shape = StackedCircuitShape::from_sector(*g.c1.registered_proof->shape);
  const PartitionWitness w = PartitionWitness::from_c1(g.c1, 0);

  ProvingAssignment pa;
  synthesize_stacked_circuit(pa, shape, w);
  cuzk::groth16::ProverInput direct = std::move(pa).finish<cuzk::groth16::ProverInput>();

  cuzk::groth16::ProverInput expected;
  {
    RecorderWithWitness recorder;
    synthesize_stacked_circuit(recorder, shape, w);
    std::vector<Fr> inputs = recorder.inputs(), aux = recorder.aux();
    expected = cuzk::groth16::witness_from_r1cs(recorder.finish(), std::move(inputs), std::move(aux));
  }
  EXPECT_EQ(direct.a.size(), 2'687'921u);
  EXPECT_TRUE(direct.inputs == expected.inputs);
  EXPECT_TRUE(direct.aux == expected.aux);
  EXPECT_TRUE(direct.a == expected.a);
  EXPECT_TRUE(direct.b == expected.b);
  EXPECT_TRUE(direct.c == expected.c);
  EXPECT_EQ(direct.densities.a_aux, expected.densities.a_aux);
  EXPECT_EQ(direct.densities.b_input, expected.densities.b_input);
  EXPECT_EQ(direct.densities.b_aux, expected.densities.b_aux);
  EXPECT_EQ(cuzk::groth16::first_unsatisfied(direct), std::nullopt);
}

}  // namespace
