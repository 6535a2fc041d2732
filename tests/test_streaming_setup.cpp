// The streaming test setup (pce/test_setup.hpp) against groth16::generate_parameters: the same bytes for
// the same toxic waste, the same errors for degenerate waste, nothing left behind on failure; the CPU
// fixed-base encoder; ToxicWaste::from_seed.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "io/temp_dir.hpp"
#include "pce/compact_r1cs.hpp"
#include "pce/compact_recorder.hpp"
#include "pce/test_setup.hpp"
#include "prover/algebra/encoding.hpp"
#include "prover/gadgets/merkle_native.hpp"
#include "prover/gadgets/multipack.hpp"
#include "prover/gadgets/num.hpp"
#include "prover/gadgets/por.hpp"
#include "prover/gadgets/poseidon.hpp"
#include "prover/groth16/demo_circuit.hpp"
#include "prover/groth16/domain.hpp"
#include "prover/groth16/errors.hpp"
#include "prover/groth16/fixed_base.hpp"
#include "prover/groth16/setup.hpp"
#include "prover/r1cs/constraint_system.hpp"
#include "tests/test_util.hpp"

namespace cuzk::pce {
namespace {

namespace fs = std::filesystem;
using gadgets::AllocatedBit;
using gadgets::AllocatedNum;
using gadgets::Boolean;
using groth16::ToxicWaste;

std::vector<std::uint8_t> read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

ToxicWaste random_waste(std::mt19937_64& rng) {
  auto nonzero = [&] {
    Fr x;
    do x = test::random_field<Fr>(rng);
    while (x.is_zero());
    return x;
  };
  return {nonzero(), nonzero(), nonzero(), nonzero(), nonzero()};
}

// A small circuit with the PoRep circuit's ingredients (SHA-256 aside, which would make the test minutes
// long on two cores and adds no coefficient class): allocated bits packed into public inputs (2^k
// coefficients, B-dense inputs), a Poseidon Merkle inclusion proof in an 8-4-2 tree (insertion gadgets,
// index bits packed into an input, table coefficients), a Poseidon hash inputized and decomposed into bits.
r1cs::R1cs porep_like_circuit(std::mt19937_64& rng) {
  r1cs::Recorder cs;
  std::vector<Boolean> bits;
  for (int i = 0; i < 512; ++i) bits.push_back(AllocatedBit::alloc(cs, (rng() & 1) != 0));
  gadgets::pack_into_inputs(cs, std::span<const Boolean>(bits));

  const gadgets::merkle::TreeShape shape{8, 4, 2};
  std::vector<Fr> leaves;
  for (std::size_t i = 0; i < 64 * shape.base_tree_count(); ++i) leaves.push_back(test::random_field<Fr>(rng));
  const std::size_t index = static_cast<std::size_t>(rng() % leaves.size());
  const Fr root = gadgets::merkle::tree_root<gadgets::merkle::PoseidonHasher>(leaves, shape);
  const auto path = gadgets::merkle::tree_path<gadgets::merkle::PoseidonHasher>(leaves, shape, index);
  gadgets::por_circuit<gadgets::PoseidonTreeHash>(cs, shape, leaves[index],
                                                  std::span<const gadgets::PathElementValues>(path), root,
                                                  /*private_root=*/false);
  std::vector<AllocatedNum> preimage;
  for (int i = 0; i < 2; ++i) preimage.push_back(AllocatedNum::alloc_value(cs, test::random_field<Fr>(rng)));
  AllocatedNum out = gadgets::poseidon_hash(cs, std::span<const AllocatedNum>(preimage),
                                            gadgets::poseidon::constants(preimage.size()));
  out.inputize(cs);
  out.to_bits_le_strict(cs);
  return cs.finish();
}

struct Written {
  std::vector<std::uint8_t> params, vk;
};

Written stream_setup(const CompactR1cs& pce, const ToxicWaste& waste, groth16::FixedBaseEncoder& encoder,
                     std::size_t chunk_points, std::vector<std::string>* lines = nullptr) {
  io::TempDir dir("cuzk-streaming-setup");
  const fs::path params = dir.path() / "t.params", vk = dir.path() / "t.vk";
  write_test_parameters(
      pce, waste, encoder, params, vk, 2,
      [&](const std::string& line) {
        if (lines) lines->push_back(line);
      },
      chunk_points);
  return {read_bytes(params), read_bytes(vk)};
}

void expect_same_files_as_generate_parameters(const r1cs::R1cs& cs, const ToxicWaste& waste) {
  const groth16::Parameters expected = groth16::generate_parameters(cs, waste, 2);
  const std::vector<std::uint8_t> expected_params = expected.to_bytes(2);
  const std::vector<std::uint8_t> expected_vk = expected.vk.to_bytes();
  const CompactR1cs pce = compact(cs);
  EXPECT_EQ(test_parameters_size(pce).params_bytes, expected_params.size());
  EXPECT_EQ(test_parameters_size(pce).vk_bytes, expected_vk.size());
  auto encoder = groth16::make_cpu_fixed_base_encoder(2);
  // The default chunk (one chunk per vector here), and 7 points per chunk (3 in G2): every vector
  // crosses chunk boundaries and both buffers are reused.
  for (std::size_t chunk : {std::size_t{0}, std::size_t{7}}) {
    SCOPED_TRACE("chunk_points " + std::to_string(chunk));
    std::vector<std::string> lines;
    const Written got = stream_setup(pce, waste, *encoder, chunk, &lines);
    EXPECT_EQ(got.params.size(), expected_params.size());
    EXPECT_TRUE(got.params == expected_params) << "the .params bytes differ";
    EXPECT_TRUE(got.vk == expected_vk) << "the .vk bytes differ";
    // Every phase is reported with its seconds.
    for (const char* phase : {"phase lagrange:", "phase qap:", "phase checks:", "phase vk:", "phase h:",
                              "phase l:", "phase a:", "phase b_g1:", "phase b_g2:", "phase sync:"}) {
      bool found = false;
      for (const auto& line : lines) found = found || line.rfind(phase, 0) == 0;
      EXPECT_TRUE(found) << "no progress line starts with " << phase;
    }
  }
}

TEST(StreamingSetup, DemoCircuitGivesTheBytesOfGenerateParameters) {
  auto rng = test::seeded_rng("StreamingSetup.DemoCircuit");
  expect_same_files_as_generate_parameters(groth16::make_demo_circuit().cs, random_waste(rng));
}

TEST(StreamingSetup, PorepLikeCircuitGivesTheBytesOfGenerateParameters) {
  auto rng = test::seeded_rng("StreamingSetup.PorepLikeCircuit");
  const r1cs::R1cs cs = porep_like_circuit(rng);
  ASSERT_GT(cs.num_constraints(), 1000u);
  ASSERT_GT(cs.num_inputs, 3u);
  expect_same_files_as_generate_parameters(cs, ToxicWaste::from_seed(42));
}

// Degenerate waste: the error kind and text of generate_parameters, and neither file nor a temporary
// left in the directory.
TEST(StreamingSetup, DegenerateWasteFailsLikeGenerateParametersAndLeavesNothing) {
  auto rng = test::seeded_rng("StreamingSetup.DegenerateWaste");
  const groth16::DemoCircuit demo = groth16::make_demo_circuit();
  const CompactR1cs pce = compact(demo.cs);
  const groth16::EvaluationDomain domain(demo.cs.num_constraints() + demo.cs.num_inputs);
  std::vector<ToxicWaste> cases(4, random_waste(rng));
  cases[0].gamma = Fr::zero();
  cases[1].delta = Fr::zero();
  cases[2].tau = domain.omega().pow(3);  // in the domain: Z(tau) = 0
  // alpha = beta = 0 leaves ic_i = w_i(tau) / gamma: zero for the odd y_k, which appear in no C row.
  cases[3].alpha = cases[3].beta = Fr::zero();
  auto encoder = groth16::make_cpu_fixed_base_encoder(2);
  for (std::size_t c = 0; c < cases.size(); ++c) {
    SCOPED_TRACE("case " + std::to_string(c));
    std::string expected_message;
    groth16::Groth16ErrorKind expected_kind{};
    bool expected_throws = false;
    try {
      (void)groth16::generate_parameters(demo.cs, cases[c], 2);
    } catch (const groth16::Groth16Error& e) {
      expected_throws = true;
      expected_message = e.what();
      expected_kind = e.kind();
    }
    ASSERT_TRUE(expected_throws);
    io::TempDir dir("cuzk-streaming-setup");
    try {
      write_test_parameters(pce, cases[c], *encoder, dir.path() / "t.params", dir.path() / "t.vk", 2, {});
      ADD_FAILURE() << "degenerate waste must be refused";
    } catch (const groth16::Groth16Error& e) {
      EXPECT_EQ(e.kind(), expected_kind);
      EXPECT_EQ(std::string(e.what()), expected_message);
    }
    EXPECT_TRUE(fs::is_empty(dir.path())) << "files were left behind";
  }
}

TEST(StreamingSetup, UnconstrainedVariableIsRefusedLikeGenerateParameters) {
  r1cs::Recorder cs;
  const r1cs::Variable x = cs.alloc("x", [] { return Fr::one(); });
  (void)cs.alloc("unused", [] { return Fr::one(); });
  cs.enforce("x * x = x", r1cs::LinearCombination(x), r1cs::LinearCombination(x), r1cs::LinearCombination(x));
  const r1cs::R1cs r = cs.finish();
  const ToxicWaste waste = ToxicWaste::from_seed(1);
  std::string expected;
  try {
    (void)groth16::generate_parameters(r, waste, 2);
    FAIL() << "generate_parameters accepted an unconstrained variable";
  } catch (const groth16::Groth16Error& e) {
    ASSERT_EQ(e.kind(), groth16::Groth16ErrorKind::kUnconstrainedVariable);
    expected = e.what();
  }
  io::TempDir dir("cuzk-streaming-setup");
  auto encoder = groth16::make_cpu_fixed_base_encoder(2);
  try {
    write_test_parameters(compact(r), waste, *encoder, dir.path() / "t.params", dir.path() / "t.vk", 2, {});
    FAIL() << "write_test_parameters accepted an unconstrained variable";
  } catch (const groth16::Groth16Error& e) {
    EXPECT_EQ(e.kind(), groth16::Groth16ErrorKind::kUnconstrainedVariable);
    EXPECT_EQ(std::string(e.what()), expected);
  }
  EXPECT_TRUE(fs::is_empty(dir.path()));
}

TEST(StreamingSetup, UnwritableDestinationIsAnIoErrorNamingTheFile) {
  const groth16::DemoCircuit demo = groth16::make_demo_circuit();
  auto encoder = groth16::make_cpu_fixed_base_encoder(2);
  const fs::path missing = "/nonexistent-cuzk-dir/t.params";
  try {
    write_test_parameters(compact(demo.cs), ToxicWaste::from_seed(3), *encoder, missing,
                          "/nonexistent-cuzk-dir/t.vk", 2, {});
    FAIL() << "writing into a missing directory must fail";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find(missing.string()), std::string::npos) << e.what();
  }
}

TEST(CpuFixedBaseEncoder, EdgeScalarsAndRandomScalarsMatchTheCurveArithmetic) {
  auto rng = test::seeded_rng("CpuFixedBaseEncoder.Edges");
  std::vector<Fr> scalars = {Fr::zero(), Fr::one(),           Fr::from_u64(2),
                             -Fr::one(), Fr::from_u64(65535), Fr::from_u64(65536)};
  for (int i = 0; i < 200; ++i) scalars.push_back(test::random_field<Fr>(rng));
  auto encoder = groth16::make_cpu_fixed_base_encoder(2);
  std::vector<std::uint8_t> g1(scalars.size() * algebra::kG1UncompressedSize);
  std::vector<std::uint8_t> g2(scalars.size() * algebra::kG2UncompressedSize);
  encoder->encode_g1(scalars, g1.data());
  encoder->encode_g2(scalars, g2.data());
  for (std::size_t i = 0; i < scalars.size(); ++i) {
    SCOPED_TRACE("scalar " + std::to_string(i));
    const auto limbs = scalars[i].to_canonical();
    std::uint8_t want1[algebra::kG1UncompressedSize], want2[algebra::kG2UncompressedSize];
    algebra::encode_g1_uncompressed(algebra::G1::generator().mul_limbs(limbs).to_affine(), want1);
    algebra::encode_g2_uncompressed(algebra::G2::generator().mul_limbs(limbs).to_affine(), want2);
    EXPECT_TRUE(std::equal(want1, want1 + sizeof(want1), g1.begin() + i * sizeof(want1)));
    EXPECT_TRUE(std::equal(want2, want2 + sizeof(want2), g2.begin() + i * sizeof(want2)));
  }
  EXPECT_EQ(g1[0], 0x40) << "zero is the point at infinity";
}

TEST(ToxicWasteFromSeed, DeterministicNonZeroAndSeedDependent) {
  const ToxicWaste a = ToxicWaste::from_seed(7), b = ToxicWaste::from_seed(7), c = ToxicWaste::from_seed(8);
  const Fr* ea[] = {&a.tau, &a.alpha, &a.beta, &a.gamma, &a.delta};
  const Fr* eb[] = {&b.tau, &b.alpha, &b.beta, &b.gamma, &b.delta};
  const Fr* ec[] = {&c.tau, &c.alpha, &c.beta, &c.gamma, &c.delta};
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(*ea[i], *eb[i]);
    EXPECT_NE(*ea[i], *ec[i]);
    EXPECT_FALSE(ea[i]->is_zero());
    for (int j = 0; j < i; ++j) EXPECT_NE(*ea[i], *ea[j]) << "elements " << i << " and " << j;
  }
}

}  // namespace
}  // namespace cuzk::pce
