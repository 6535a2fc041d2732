// The GPU proving engine (gpu/groth16_engine.hpp) gives the CPU prover's proof, byte for byte, for the
// same r and s: the two differ only in where H and the multi-scalar multiplications run (and, with
// GpuEngineOptions::device_gather, where the MSMs' dense scalars are gathered; with device_constraints,
// where a, b, c are evaluated).
#include <gtest/gtest.h>

#include <optional>
#include <random>
#include <vector>

#include "gpu/groth16_engine.hpp"
#include "pce/compact_r1cs.hpp"
#include "prover/groth16/demo_circuit.hpp"
#include "prover/groth16/errors.hpp"
#include "prover/groth16/prover.hpp"
#include "prover/groth16/setup.hpp"
#include "prover/groth16/verifier.hpp"
#include "tests/gpu/gpu_test_util.hpp"
#include "tests/test_util.hpp"

using namespace cuzk;
using namespace cuzk::groth16;

namespace {

void check_same_proof(const DemoCircuit& d, std::mt19937_64& rng) {
  const Parameters params =
      generate_parameters(d.cs,
                          ToxicWaste{test::random_nonzero_field<Fr>(rng), test::random_nonzero_field<Fr>(rng),
                                     test::random_nonzero_field<Fr>(rng), test::random_nonzero_field<Fr>(rng),
                                     test::random_nonzero_field<Fr>(rng)},
                          0);
  const ProverInput witness = witness_from_r1cs(d.cs, d.inputs, d.aux);
  const Fr r = test::random_field<Fr>(rng), s = test::random_field<Fr>(rng);
  const Proof cpu = prove(params, witness, r, s);
  auto engine = gpu::make_gpu_engine(params);
  ProveTimings t;
  const Proof on_gpu = prove_with(*engine, params, ProverInput(witness), r, s, &t);
  EXPECT_EQ(on_gpu.to_bytes(), cpu.to_bytes());
  const std::vector<Fr> public_inputs(d.inputs.begin() + 1, d.inputs.end());
  EXPECT_TRUE(verify(prepare_verifying_key(params.vk), on_gpu, public_inputs));
  // The engine keeps its bases: a second proof with other randomness, still equal to the CPU's.
  const Fr r2 = r + Fr::one();
  EXPECT_EQ(prove_with(*engine, params, ProverInput(witness), r2, s).to_bytes(),
            prove(params, witness, r2, s).to_bytes());
  // The dense scalars gathered on the device from the uploaded witness: the same proofs, twice (the second
  // reuses the engine's witness buffer and gather tables).
  gpu::GpuEngineOptions device_gather;
  device_gather.device_gather = true;
  auto gathering = gpu::make_gpu_engine(params, device_gather);
  EXPECT_EQ(prove_with(*gathering, params, ProverInput(witness), r, s).to_bytes(), cpu.to_bytes());
  EXPECT_EQ(prove_with(*gathering, params, ProverInput(witness), r2, s).to_bytes(),
            prove(params, witness, r2, s).to_bytes());

  // The constraint matrices held on the device: the witness alone goes up, a, b, c are evaluated there.
  const pce::CompactR1cs circuit = pce::compact(d.cs);
  EXPECT_FALSE(engine->hold_constraints(circuit.view())) << "not asked for: declined";
  EXPECT_EQ(engine->held_constraints(), 0u);
  gpu::GpuEngineOptions on_device;
  on_device.device_constraints = true;
  auto evaluating = gpu::make_gpu_engine(params, on_device);
  ASSERT_TRUE(evaluating->hold_constraints(circuit.view()));
  EXPECT_EQ(evaluating->held_constraints(), d.cs.num_constraints());
  ProverInput only_witness = witness;
  only_witness.a.clear();
  only_witness.b.clear();
  only_witness.c.clear();
  EXPECT_EQ(prove_with(*evaluating, params, ProverInput(only_witness), r, s).to_bytes(), cpu.to_bytes());
  EXPECT_EQ(prove_with(*evaluating, params, ProverInput(only_witness), r2, s).to_bytes(),
            prove(params, witness, r2, s).to_bytes());
  // A full input still takes the host's a, b, c on the same engine.
  EXPECT_EQ(prove_with(*evaluating, params, ProverInput(witness), r, s).to_bytes(), cpu.to_bytes());
  // The CPU prover cannot take a witness alone.
  EXPECT_THROW(prove(params, only_witness, r, s), Groth16Error);

  // A tampered witness is refused before any proving, naming the first constraint the CPU finds unsatisfied.
  ProverInput tampered = only_witness;
  tampered.aux[tampered.aux.size() / 2] += Fr::one();
  const std::optional<std::size_t> expected_row =
      first_unsatisfied(witness_from_r1cs(d.cs, tampered.inputs, tampered.aux));
  ASSERT_TRUE(expected_row.has_value());
  try {
    prove_with(*evaluating, params, ProverInput(tampered), r, s);
    ADD_FAILURE() << "a tampered witness was proven";
  } catch (const Groth16Error& e) {
    EXPECT_EQ(e.kind(), Groth16ErrorKind::kUnsatisfied) << e.what();
    EXPECT_EQ(e.constraint(), expected_row) << e.what();
  }
  // The engine goes on proving good witnesses after it.
  EXPECT_EQ(prove_with(*evaluating, params, ProverInput(only_witness), r, s).to_bytes(), cpu.to_bytes());
}

TEST(GpuGroth16Engine, DemoCircuitSameProofAsCpu) {
  CUZK_REQUIRE_GPU();
  auto rng = test::seeded_rng("GpuGroth16Engine.Demo");
  check_same_proof(make_demo_circuit(), rng);
}

TEST(GpuGroth16Engine, LargerCircuitSameProofAsCpu) {
  CUZK_REQUIRE_GPU();
  auto rng = test::seeded_rng("GpuGroth16Engine.Larger");
  std::vector<Fr> secrets;
  for (int i = 0; i < 6; ++i) secrets.push_back(test::random_field<Fr>(rng));
  check_same_proof(make_demo_circuit(secrets, 3000), rng);  // ~18k constraints, domain 2^15
}

}  // namespace
