// One suite of cases for every proving engine (groth16::ProverEngine): the CPU engine runs it in `make
// test` (tests/test_engine_conformance.cpp), the GPU engine on the GPU machine (label gpu,
// tests/gpu/test_engine_conformance.cu), so that both are held to the same facts instead of each test file
// restating its own:
// - the MSMs over each base vector with edge scalars (all 0, all 1, r - 1, mixed) equal the naive sums;
// - the H step and its MSM equal the CPU domain's h (prover/groth16/domain.hpp) summed naively;
// - whole proofs are the CPU prover's bytes for the same r and s, verify, and fail to verify for a
//   tampered witness;
// - what the engine cannot do it declines (a witness without a, b, c needs held constraints), and an engine
//   that holds the constraints refuses an unsatisfied witness naming the first bad constraint.
//
// An instantiation gives a Maker with `static std::unique_ptr<groth16::ProverEngine> make(const
// groth16::Parameters&)`, `static bool holds_constraints()` (whether make()'s engine accepts the circuit's
// matrices) and `static void require()` (skips with the reason where the engine cannot run: no GPU).
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <random>
#include <span>
#include <vector>

#include "pce/compact_r1cs.hpp"
#include "prover/groth16/demo_circuit.hpp"
#include "prover/groth16/domain.hpp"
#include "prover/groth16/errors.hpp"
#include "prover/groth16/parameters.hpp"
#include "prover/groth16/prover.hpp"
#include "prover/groth16/setup.hpp"
#include "prover/groth16/verifier.hpp"
#include "tests/test_util.hpp"

namespace cuzk::test::conformance {

using algebra::Fr;
using groth16::ProverEngine;

// The demo circuit (prover/groth16/demo_circuit.hpp) with parameters of random toxic waste: ~1k constraints,
// a domain of 2^11, every base vector non-empty.
struct Instance {
  groth16::DemoCircuit circuit;
  groth16::Parameters params;
  groth16::ProverInput witness;
};

inline Instance make_instance(std::mt19937_64& rng) {
  Instance in;
  std::vector<Fr> secrets;
  for (int i = 0; i < 4; ++i) secrets.push_back(random_field<Fr>(rng));
  in.circuit = groth16::make_demo_circuit(secrets, 250);
  in.params = groth16::generate_parameters(
      in.circuit.cs,
      groth16::ToxicWaste{random_nonzero_field<Fr>(rng), random_nonzero_field<Fr>(rng),
                          random_nonzero_field<Fr>(rng), random_nonzero_field<Fr>(rng),
                          random_nonzero_field<Fr>(rng)},
      0);
  in.witness = groth16::witness_from_r1cs(in.circuit.cs, in.circuit.inputs, in.circuit.aux);
  return in;
}

// sum scalars[i] * bases[i] by double-and-add, one point at a time: independent of every MSM.
template <class Cfg>
algebra::Jacobian<Cfg> naive_sum(std::span<const algebra::Affine<Cfg>> bases, std::span<const Fr> scalars) {
  auto sum = algebra::Jacobian<Cfg>::identity();
  for (std::size_t i = 0; i < scalars.size(); ++i)
    sum = sum + algebra::Jacobian<Cfg>::from_affine(bases[i]) * scalars[i];
  return sum;
}

// Scalar vectors that exercise the engines' special cases: zeros skipped, ones summed apart, r - 1 (the
// largest scalar), and a mix of all of them with random values.
inline std::vector<std::vector<Fr>> edge_scalar_vectors(std::size_t n, std::mt19937_64& rng) {
  const Fr minus_one = Fr::zero() - Fr::one();
  std::vector<std::vector<Fr>> out(4, std::vector<Fr>(n));
  for (std::size_t i = 0; i < n; ++i) {
    out[0][i] = Fr::zero();
    out[1][i] = Fr::one();
    out[2][i] = minus_one;
    switch (rng() % 4) {
      case 0:
        out[3][i] = Fr::zero();
        break;
      case 1:
        out[3][i] = Fr::one();
        break;
      case 2:
        out[3][i] = minus_one;
        break;
      default:
        out[3][i] = random_field<Fr>(rng);
    }
  }
  return out;
}

template <class Maker>
class EngineConformance : public ::testing::Test {
 protected:
  void SetUp() override { Maker::require(); }
};
TYPED_TEST_SUITE_P(EngineConformance);

TYPED_TEST_P(EngineConformance, MsmsWithEdgeScalarsEqualTheNaiveSums) {
  auto rng = seeded_rng("EngineConformance.Msms");
  const Instance in = make_instance(rng);
  const groth16::Parameters& p = in.params;
  auto engine = TypeParam::make(p);
  using Bases = ProverEngine::G1Bases;
  const struct {
    Bases which;
    const std::vector<algebra::G1Affine>* bases;
    const char* name;
  } g1[] = {{Bases::kL, &p.l, "l"}, {Bases::kA, &p.a, "a"}, {Bases::kBG1, &p.b_g1, "b_g1"}};
  for (const auto& v : g1) {
    // All of the vector, and a prefix (fewer scalars than bases).
    for (std::size_t n : {v.bases->size(), v.bases->size() / 3 + 1}) {
      for (const std::vector<Fr>& scalars : edge_scalar_vectors(n, rng)) {
        EXPECT_EQ(engine->msm_g1(v.which, scalars).to_affine(),
                  naive_sum<algebra::G1Config>(*v.bases, scalars).to_affine())
            << v.name << ", " << n << " scalars";
      }
    }
  }
  for (const std::vector<Fr>& scalars : edge_scalar_vectors(p.b_g2.size(), rng))
    EXPECT_EQ(engine->msm_b_g2(scalars).to_affine(),
              naive_sum<algebra::G2Config>(p.b_g2, scalars).to_affine());
}

TYPED_TEST_P(EngineConformance, HStepEqualsTheCpuDomain) {
  auto rng = seeded_rng("EngineConformance.H");
  const Instance in = make_instance(rng);
  auto engine = TypeParam::make(in.params);
  // A satisfied witness's a, b, c, then random ones (h of full degree): twice each on one engine.
  std::vector<std::vector<Fr>> abc[2] = {{in.witness.a, in.witness.b, in.witness.c}, {}};
  for (int k = 0; k < 3; ++k) {
    std::vector<Fr> v(in.witness.a.size());
    for (Fr& x : v) x = random_field<Fr>(rng);
    abc[1].push_back(std::move(v));
  }
  for (int round = 0; round < 2; ++round) {
    for (const auto& vectors : abc) {
      const std::vector<Fr> h = groth16::compute_h(vectors[0], vectors[1], vectors[2]);
      std::vector<Fr> a = vectors[0], b = vectors[1], c = vectors[2];
      ASSERT_EQ(engine->compute_h(a, b, c), h.size());
      EXPECT_EQ(engine->msm_h().to_affine(), naive_sum<algebra::G1Config>(in.params.h, h).to_affine())
          << "round " << round;
    }
  }
}

TYPED_TEST_P(EngineConformance, ProofsAreTheCpuProversBytesAndVerify) {
  auto rng = seeded_rng("EngineConformance.Proofs");
  const Instance in = make_instance(rng);
  auto engine = TypeParam::make(in.params);
  const groth16::PreparedVerifyingKey pvk = groth16::prepare_verifying_key(in.params.vk);
  const std::vector<Fr> public_inputs(in.circuit.public_inputs().begin(), in.circuit.public_inputs().end());
  for (int k = 0; k < 3; ++k) {  // one engine, several proofs: nothing of one leaks into the next
    const Fr r = random_field<Fr>(rng), s = random_field<Fr>(rng);
    const groth16::Proof expected = groth16::prove(in.params, in.witness, r, s, 1);
    const groth16::Proof proof =
        groth16::prove_with(*engine, in.params, groth16::ProverInput(in.witness), r, s);
    EXPECT_EQ(proof.to_bytes(), expected.to_bytes()) << "proof " << k;
    EXPECT_TRUE(groth16::verify(pvk, proof, public_inputs)) << "proof " << k;
  }
  // A tampered witness (one aux value, a, b, c evaluated from it): a proof that does not verify.
  std::vector<Fr> aux = in.circuit.aux;
  aux[aux.size() / 2] += Fr::one();
  const groth16::Proof bad = groth16::prove_with(
      *engine, in.params, groth16::witness_from_r1cs(in.circuit.cs, in.circuit.inputs, aux),
      random_field<Fr>(rng), random_field<Fr>(rng));
  EXPECT_FALSE(groth16::verify(pvk, bad, public_inputs));
}

TYPED_TEST_P(EngineConformance, HeldConstraintsOrADecline) {
  auto rng = seeded_rng("EngineConformance.Constraints");
  const Instance in = make_instance(rng);
  auto engine = TypeParam::make(in.params);
  const pce::CompactR1cs circuit = pce::compact(in.circuit.cs);
  groth16::ProverInput only_witness = in.witness;
  only_witness.a.clear();
  only_witness.b.clear();
  only_witness.c.clear();
  const Fr r = random_field<Fr>(rng), s = random_field<Fr>(rng);
  if (!TypeParam::holds_constraints()) {
    EXPECT_FALSE(engine->hold_constraints(circuit.view()));
    EXPECT_EQ(engine->held_constraints(), 0u);
    EXPECT_THROW(groth16::prove_with(*engine, in.params, groth16::ProverInput(only_witness), r, s),
                 groth16::Groth16Error);
    return;
  }
  ASSERT_TRUE(engine->hold_constraints(circuit.view()));
  EXPECT_EQ(engine->held_constraints(), in.circuit.cs.num_constraints());
  const groth16::Proof expected = groth16::prove(in.params, in.witness, r, s, 1);
  EXPECT_EQ(groth16::prove_with(*engine, in.params, groth16::ProverInput(only_witness), r, s).to_bytes(),
            expected.to_bytes());
  // An unsatisfied witness is refused before any proving, naming the constraint the CPU finds first.
  groth16::ProverInput tampered = only_witness;
  tampered.aux[tampered.aux.size() / 2] += Fr::one();
  const std::optional<std::size_t> row =
      groth16::first_unsatisfied(groth16::witness_from_r1cs(in.circuit.cs, tampered.inputs, tampered.aux));
  ASSERT_TRUE(row.has_value());
  try {
    groth16::prove_with(*engine, in.params, groth16::ProverInput(tampered), r, s);
    ADD_FAILURE() << "an unsatisfied witness was proven";
  } catch (const groth16::Groth16Error& e) {
    EXPECT_EQ(e.kind(), groth16::Groth16ErrorKind::kUnsatisfied) << e.what();
    EXPECT_EQ(e.constraint(), row) << e.what();
  }
  // And goes on proving good witnesses.
  EXPECT_EQ(groth16::prove_with(*engine, in.params, groth16::ProverInput(only_witness), r, s).to_bytes(),
            expected.to_bytes());
}

REGISTER_TYPED_TEST_SUITE_P(EngineConformance, MsmsWithEdgeScalarsEqualTheNaiveSums, HStepEqualsTheCpuDomain,
                            ProofsAreTheCpuProversBytesAndVerify, HeldConstraintsOrADecline);

}  // namespace cuzk::test::conformance
