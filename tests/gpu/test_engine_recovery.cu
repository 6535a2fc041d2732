// A GPU engine made after another one is gone computes exactly what the CPU engine computes, step by step
// (the H step, the h, l, a and b_g1 MSMs, the b_g2 MSM), and proves as the CPU prover does: after an engine
// that proved, and after an engine whose proof failed at each of its device allocations in turn (the
// test-only fault hook of gpu/device_buffer.hpp). A batch run with --keep-going makes such a fresh engine
// after a device fault (job/stage_resources.hpp, EngineCache::forget), and every later sector depends on it.
// Also the endomorphism table of the h MSM made from device bases again and again at the 2KiB circuit's size.
//
// Its own executable: the fault hook's allocation counter is process-wide.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "gpu/cuda_check.hpp"
#include "gpu/device_buffer.hpp"
#include "gpu/groth16_engine.hpp"
#include "gpu/msm.hpp"
#include "prover/groth16/demo_circuit.hpp"
#include "prover/groth16/prover.hpp"
#include "prover/groth16/setup.hpp"
#include "tests/gpu/gpu_test_util.hpp"
#include "tests/test_util.hpp"

using namespace cuzk;
using namespace cuzk::groth16;

namespace {

namespace fs = std::filesystem;

// What each of the engine's steps returns for one set of inputs.
struct StepResults {
  std::size_t h_count = 0;
  algebra::G1Affine h, l, a, b_g1;
  algebra::G2Affine b_g2;
};

struct StepInputs {
  std::vector<Fr> a, b, c;  // the H step's evaluations (the input rows appended, as the prover does)
  std::vector<Fr> l, a_scalars, b_scalars;
};

StepResults run_steps(ProverEngine& engine, const StepInputs& in) {
  StepResults out;
  std::vector<Fr> a = in.a, b = in.b, c = in.c;
  out.h_count = engine.compute_h(a, b, c);
  out.h = engine.msm_h().to_affine();
  out.l = engine.msm_g1(ProverEngine::G1Bases::kL, in.l).to_affine();
  out.a = engine.msm_g1(ProverEngine::G1Bases::kA, in.a_scalars).to_affine();
  out.b_g1 = engine.msm_g1(ProverEngine::G1Bases::kBG1, in.b_scalars).to_affine();
  out.b_g2 = engine.msm_b_g2(in.b_scalars).to_affine();
  return out;
}

void expect_same_steps(const StepResults& gpu, const StepResults& cpu, const std::string& where) {
  EXPECT_EQ(gpu.h_count, cpu.h_count) << where << ": H step length";
  EXPECT_TRUE(gpu.h == cpu.h) << where << ": the h MSM differs";
  EXPECT_TRUE(gpu.l == cpu.l) << where << ": the l MSM differs";
  EXPECT_TRUE(gpu.a == cpu.a) << where << ": the a MSM differs";
  EXPECT_TRUE(gpu.b_g1 == cpu.b_g1) << where << ": the b_g1 MSM differs";
  EXPECT_TRUE(gpu.b_g2 == cpu.b_g2) << where << ": the b_g2 MSM differs";
}

class GpuEngineRecovery : public ::testing::Test {
 protected:
  void SetUp() override {
    CUZK_REQUIRE_GPU();
    auto rng = test::seeded_rng("GpuEngineRecovery");
    std::vector<Fr> secrets;
    for (int i = 0; i < 4; ++i) secrets.push_back(test::random_field<Fr>(rng));
    circuit_.emplace(make_demo_circuit(secrets, 600));
    params_ = generate_parameters(
        circuit_->cs,
        ToxicWaste{test::random_nonzero_field<Fr>(rng), test::random_nonzero_field<Fr>(rng),
                   test::random_nonzero_field<Fr>(rng), test::random_nonzero_field<Fr>(rng),
                   test::random_nonzero_field<Fr>(rng)},
        0);
    path_ = fs::temp_directory_path() / ("cuzk-recovery-" + std::to_string(::getpid()) + ".params");
    params_.write_file(path_.string());
    header_ = read_parameter_header(path_.string());
    witness_ = witness_from_r1cs(circuit_->cs, circuit_->inputs, circuit_->aux);
    r_ = test::random_field<Fr>(rng);
    s_ = test::random_field<Fr>(rng);

    inputs_.a = witness_.a;
    inputs_.a.insert(inputs_.a.end(), witness_.inputs.begin(), witness_.inputs.end());
    inputs_.b = witness_.b;
    inputs_.b.resize(inputs_.a.size(), Fr::zero());
    inputs_.c = witness_.c;
    inputs_.c.resize(inputs_.a.size(), Fr::zero());
    // Random scalars: every bucket of every window is used, unlike the witness's mostly 0/1 values.
    auto random_vector = [&](std::size_t n) {
      std::vector<Fr> v(n);
      for (Fr& x : v) x = test::random_field<Fr>(rng);
      return v;
    };
    inputs_.l = random_vector(params_.l.size());
    inputs_.a_scalars = random_vector(params_.a.size());
    inputs_.b_scalars = random_vector(params_.b_g1.size());
    auto cpu = make_cpu_engine(params_, 1);
    cpu_steps_ = run_steps(*cpu, inputs_);
    cpu_proof_ = prove(params_, witness_, r_, s_).to_bytes();
  }
  void TearDown() override {
    gpu::fail_device_allocation_in(0);
    if (!path_.empty()) fs::remove(path_);
  }

  // One reader thread: the default (half the cores, up to 8) pins 128 MiB per thread, about half a second
  // per engine on the H200 machine, and the fault test makes two engines for each allocation of a proof.
  std::unique_ptr<ProverEngine> make_engine() {
    gpu::GpuEngineOptions options;
    options.reader_threads = 1;
    return gpu::make_gpu_engine(path_.string(), header_, options);
  }

  // A fresh engine's steps and proof equal the CPU's.
  void expect_fresh_engine_correct(const std::string& where) {
    auto engine = make_engine();
    expect_same_steps(run_steps(*engine, inputs_), cpu_steps_, where);
    EXPECT_EQ(prove_with(*engine, header_, ProverInput(witness_), r_, s_).to_bytes(), cpu_proof_)
        << where << ": the proof differs";
  }

  std::optional<DemoCircuit> circuit_;
  Parameters params_;
  fs::path path_;
  ParameterHeader header_;
  ProverInput witness_;
  Fr r_, s_;
  StepInputs inputs_;
  StepResults cpu_steps_;
  std::array<std::uint8_t, Proof::kSize> cpu_proof_{};
};

TEST_F(GpuEngineRecovery, AnEngineMadeAfterAnotherComputesTheSame) {
  {
    auto first = make_engine();
    expect_same_steps(run_steps(*first, inputs_), cpu_steps_, "first engine");
    EXPECT_EQ(prove_with(*first, header_, ProverInput(witness_), r_, s_).to_bytes(), cpu_proof_);
  }
  expect_fresh_engine_correct("second engine, made after the first was destroyed");
  // Two at once (a batch of two sector sizes keeps one engine per size).
  auto one = make_engine();
  auto two = make_engine();
  expect_same_steps(run_steps(*one, inputs_), cpu_steps_, "one of two engines alive together");
  expect_same_steps(run_steps(*two, inputs_), cpu_steps_, "the other of two engines alive together");
}

TEST_F(GpuEngineRecovery, AnEngineMadeAfterADeviceFaultInsideAProofComputesTheSame) {
  int faults = 0;
  for (long k = 1; k <= 400; ++k) {
    bool failed = false;
    {
      auto faulted = make_engine();
      gpu::fail_device_allocation_in(k);  // inside the proof: the engine is already made
      try {
        (void)prove_with(*faulted, header_, ProverInput(witness_), r_, s_);
      } catch (const gpu::GpuError& e) {
        failed = true;
        EXPECT_NE(std::string(e.what()).find("injected_alloc_fault"), std::string::npos) << e.what();
      }
      gpu::fail_device_allocation_in(0);
    }
    if (!failed) break;  // the proof makes fewer than k allocations: each one has been failed once
    ++faults;
    expect_fresh_engine_correct("engine made after a fault at allocation " + std::to_string(k) +
                                " of a proof");
    if (HasFailure()) break;  // the first allocation whose fault breaks later engines is the finding
  }
  EXPECT_GE(faults, 1) << "no allocation inside a proof was failed (is the hook built in?)";
  std::printf("faults injected inside a proof: %d\n", faults);
}

// The endomorphism table made from device bases (as the engine makes h's from the parameter file), at the
// size of the 2KiB PoRep circuit's h vector and made again after the last one is gone: its MSM equals the
// plain table's. The table's kernel must wait for the copy of the bases into the table's buffer; a copy it
// did not wait for would leave part of the phi half made from stale memory.
TEST(GpuMsmEndomorphismTable, MadeFromDeviceBasesAgainAndAgainAtScale) {
  CUZK_REQUIRE_GPU();
  constexpr std::size_t kPoints = (std::size_t{1} << 22) - 1;
  constexpr std::uint64_t kPointSeed = 11;
  Fr* scalars = gpu::generate_scalars_on_device(kPoints, 7);
  const std::unique_ptr<Fr, cudaError_t (*)(void*)> free_scalars(scalars, cudaFree);
  gpu::G1Msm plain(gpu::generate_points_on_device<algebra::G1Config>(kPoints, kPointSeed), kPoints);
  const algebra::G1Affine want = plain.run_device(scalars, kPoints).to_affine();
  for (int round = 0; round < 3; ++round) {
    gpu::G1Msm with_table(gpu::generate_points_on_device<algebra::G1Config>(kPoints, kPointSeed), kPoints,
                          nullptr, gpu::MsmTables::kEndomorphism);
    EXPECT_TRUE(with_table.run_device(scalars, kPoints).to_affine() == want) << "round " << round;
  }
}

}  // namespace
