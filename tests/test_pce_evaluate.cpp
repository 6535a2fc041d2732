// pce/compact_recorder and pce/evaluate: the compact recorder against the plain Recorder, SpMV against
// r1cs::evaluate (the naive one-multiplication-per-entry reference), and proofs made through the PCE path.
#include "tests/pce_test_support.hpp"

namespace cuzk::pce {
namespace {

TEST(PceEvaluate, DemoCircuitMatchesDirectEvaluation) {
  const groth16::DemoCircuit demo = groth16::make_demo_circuit();
  const CompactR1cs pce = compact(demo.cs);
  EXPECT_EQ(expand(pce), demo.cs);
  const r1cs::Evaluation expected = r1cs::evaluate(demo.cs, demo.inputs, demo.aux);
  for (unsigned threads : {1u, 3u}) {
    const r1cs::Evaluation got = evaluate(pce, demo.inputs, demo.aux, threads);
    EXPECT_EQ(got.a, expected.a);
    EXPECT_EQ(got.b, expected.b);
    EXPECT_EQ(got.c, expected.c);
  }
  const r1cs::Densities d = r1cs::compute_densities(demo.cs);
  EXPECT_EQ(pce.densities.a_aux, d.a_aux);
  EXPECT_EQ(pce.densities.b_input, d.b_input);
  EXPECT_EQ(pce.densities.b_aux, d.b_aux);
}

TEST(PceEvaluate, MergeRulesMatchTheRecorder) {
  auto rng = test::seeded_rng("PceEvaluate.MergeRulesMatchTheRecorder");
  expect_pce_matches_direct(MergeCircuit{rand_fr(rng)}, "merge");
}

TEST(PceEvaluate, Sha256CircuitMatchesDirectEvaluation) {
  auto rng = test::seeded_rng("PceEvaluate.Sha256CircuitMatchesDirectEvaluation");
  expect_pce_matches_direct(Sha256Circuit(rng), "sha256 512 bits");
  expect_pce_matches_direct(Sha256Circuit(rng, 1000), "sha256 1000 bits");
}

TEST(PceEvaluate, PoseidonCircuitsMatchDirectEvaluation) {
  auto rng = test::seeded_rng("PceEvaluate.PoseidonCircuitsMatchDirectEvaluation");
  for (std::size_t arity : {2, 4, 8, 11}) {
    expect_pce_matches_direct(PoseidonCircuit(rng, arity), "poseidon arity " + std::to_string(arity));
  }
}

TEST(PceEvaluate, PorCircuitMatchesDirectEvaluation) {
  auto rng = test::seeded_rng("PceEvaluate.PorCircuitMatchesDirectEvaluation");
  expect_pce_matches_direct(PorCircuit(rng), "por 8-4-2");
}

// Random matrices with every coefficient class against random witnesses mixing 0, 1, small and random
// values: every fast path of the SpMV against one multiplication per entry.
TEST(PceEvaluate, RandomMatricesEveryCoefficientClass) {
  auto rng = test::seeded_rng("PceEvaluate.RandomMatricesEveryCoefficientClass");
  const r1cs::R1cs cs = random_r1cs(rng, {});
  const CompactR1cs pce = compact(cs);
  ASSERT_EQ(expand(pce), cs);
  const CoefficientStats stats = coefficient_stats(pce);
  EXPECT_GT(stats.plus_minus_one, 0u);
  EXPECT_GT(stats.power_of_two, 0u);
  EXPECT_GT(stats.table, 0u);
  EXPECT_EQ(stats.plus_minus_one + stats.power_of_two + stats.table, pce.nnz());
  for (int trial = 0; trial < 4; ++trial) {
    std::vector<Fr> inputs, aux;
    random_witness(rng, cs, inputs, aux);
    const r1cs::Evaluation expected = r1cs::evaluate(cs, inputs, aux);
    const r1cs::Evaluation got = evaluate(pce, inputs, aux, 1 + trial);
    EXPECT_EQ(got.a, expected.a);
    EXPECT_EQ(got.b, expected.b);
    EXPECT_EQ(got.c, expected.c);
  }
}

TEST(PceEvaluate, WrongWitnessSizeIsRefused) {
  const groth16::DemoCircuit demo = groth16::make_demo_circuit();
  const CompactR1cs pce = compact(demo.cs);
  std::vector<Fr> short_aux(demo.aux.begin(), demo.aux.end() - 1);
  try {
    evaluate(pce, demo.inputs, short_aux);
    FAIL() << "a short witness must be refused";
  } catch (const PceError& e) {
    EXPECT_EQ(e.kind(), PceErrorKind::kWitness);
  }
}

// --------------------------------------------------------------------------------------------------------
// Proofs through the PCE path verify.

template <class Circuit>
void expect_pce_proof_verifies(const Circuit& circuit, std::mt19937_64& rng) {
  r1cs::Recorder recorder;
  circuit(recorder);
  const r1cs::R1cs direct = recorder.finish();
  CompactRecorder compact_recorder;
  circuit(compact_recorder);
  const CompactR1cs pce = compact_recorder.finish();
  r1cs::WitnessGen witness;
  circuit(witness);
  const groth16::ToxicWaste waste{rand_fr(rng), rand_fr(rng), rand_fr(rng), rand_fr(rng), rand_fr(rng)};
  const groth16::Parameters params = groth16::generate_parameters(expand(pce), waste, 2);
  const std::vector<Fr> public_inputs(witness.inputs().begin() + 1, witness.inputs().end());
  groth16::ProverInput input = make_prover_input(pce, witness.inputs(), witness.aux(), 2);
  const groth16::Proof proof = groth16::prove(params, std::move(input), rand_fr(rng), rand_fr(rng), 2);
  const groth16::PreparedVerifyingKey pvk = groth16::prepare_verifying_key(params.vk);
  EXPECT_TRUE(groth16::verify(pvk, proof, public_inputs));
  std::vector<Fr> tampered = public_inputs;
  tampered[0] += Fr::one();
  EXPECT_FALSE(groth16::verify(pvk, proof, tampered));
}

TEST(PceProof, DemoCircuitProofThroughPceVerifies) {
  auto rng = test::seeded_rng("PceProof.DemoCircuitProofThroughPceVerifies");
  const groth16::DemoCircuit demo = groth16::make_demo_circuit();
  const CompactR1cs pce = compact(demo.cs);
  const groth16::ToxicWaste waste{rand_fr(rng), rand_fr(rng), rand_fr(rng), rand_fr(rng), rand_fr(rng)};
  const groth16::Parameters params = groth16::generate_parameters(demo.cs, waste, 2);
  const groth16::Proof proof =
      groth16::prove(params, make_prover_input(pce, demo.inputs, demo.aux, 2), rand_fr(rng), rand_fr(rng), 2);
  const groth16::PreparedVerifyingKey pvk = groth16::prepare_verifying_key(params.vk);
  EXPECT_TRUE(groth16::verify(pvk, proof, demo.public_inputs()));
}

TEST(PceProof, PoseidonCircuitProofThroughPceVerifies) {
  auto rng = test::seeded_rng("PceProof.PoseidonCircuitProofThroughPceVerifies");
  expect_pce_proof_verifies(PoseidonCircuit(rng, 2), rng);
}

}  // namespace
}  // namespace cuzk::pce
