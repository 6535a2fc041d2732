// The job (job/prove.hpp) in C++, on the committed 2KiB C1 files (testdata/c1) with fixed r and s:
// proofs byte for byte against a pinned value, the order of outputs and errors with and without overlap,
// an output file that already exists, nothing written on failure, and the JSON and YAML reports.
//
// The Groth16 parameters come from fixed toxic waste (NOT FOR PRODUCTION, tests/job_test_support.hpp), so
// every build tree makes the same files and a proof of a given C1 file with given r, s is one fixed byte
// string: a change that alters a proof fails here. Runs over several engines: tests/test_job_engines.cpp.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpu/nvml.hpp"
#include "io/io_error.hpp"
#include "io/temp_dir.hpp"
#include "job/prove.hpp"
#include "job/synthesizer.hpp"
#include "pce/evaluate.hpp"
#include "pce/porep_pce.hpp"
#include "prover/algebra/hex_bytes.hpp"
#include "prover/groth16/errors.hpp"
#include "prover/groth16/parameters.hpp"
#include "prover/porep/c1_file.hpp"
#include "prover/porep/param_names.hpp"
#include "prover/porep/registered_proof.hpp"
#include "prover/porep/synthesis.hpp"
#include "tests/job_test_support.hpp"

namespace cuzk::job {
namespace {

namespace fs = std::filesystem;
using algebra::Fr;
using namespace job_test;

class Job : public ::testing::TestWithParam<bool> {};  // the parameter: overlap

TEST_P(Job, OutputsFollowTheInputsAndProofsAreFixedByRandS) {
  io::TempDir tmp("cuzk-test-job-");
  const std::vector<std::string> inputs = {path_of("2KiB-V1-envelope.json"), path_of("2KiB-V1_1.json")};
  const RunReport report = prove_c1_files(inputs, options(tmp.path(), GetParam()));

  ASSERT_EQ(report.sectors.size(), 2u);
  EXPECT_EQ(report.overlap, GetParam());
  // In the order of the inputs, named after SectorNum (envelope) or the file stem.
  EXPECT_EQ(report.sectors[0].c1_path, inputs[0]);
  EXPECT_EQ(report.sectors[0].sector, "2");
  EXPECT_EQ(report.sectors[1].c1_path, inputs[1]);
  EXPECT_EQ(report.sectors[1].sector, "2KiB-V1_1");
  for (const SectorReport& s : report.sectors) {
    EXPECT_TRUE(s.verified) << s.sector;
    EXPECT_EQ(s.partitions, 1u);
    EXPECT_EQ(read_bytes(s.proof_path).size(), 192u) << s.proof_path;
    EXPECT_EQ(algebra::bytes_to_hex(read_bytes(s.proof_path)), s.proof_hex) << s.proof_path;
  }
  EXPECT_EQ(files_in(tmp.path()), (std::vector<std::string>{"2.proof", "2KiB-V1_1.proof"}));
  // The same bytes with and without overlap, and as when this test was written.
  EXPECT_EQ(report.sectors[1].proof_hex, kGoldenV1_1);
}

TEST_P(Job, TheFirstErrorInInputOrderStopsTheRunAfterTheSectorsBeforeIt) {
  io::TempDir tmp("cuzk-test-job-");
  // A sector that proves, then one whose witness does not satisfy the circuit (found only by synthesis),
  // then another that would prove: the circuit error is reported, the first sector's proof is written
  // although, with overlap, the second was synthesized while the first was proven, and the third sector
  // is not proven.
  const std::vector<std::string> inputs = {path_of("2KiB-V1_1.json"), path_of("bad-label.json"),
                                           path_of("2KiB-V1-envelope.json")};
  try {
    prove_c1_files(inputs, options(tmp.path(), GetParam()));
    FAIL() << "the run did not fail";
  } catch (const JobError& e) {
    EXPECT_EQ(e.kind(), JobError::Kind::kUnsatisfiedCircuit);
    EXPECT_NE(std::string(e.what()).find("bad-label.json partition 0"), std::string::npos) << e.what();
  }
  EXPECT_EQ(files_in(tmp.path()), std::vector<std::string>{"2KiB-V1_1.proof"});
}

TEST_P(Job, AnUnreadableInputStopsTheRunBeforeAnySectorIsProven) {
  // Every input is parsed and validated before the first synthesis (prove_c1_files), so a truncated file
  // anywhere in the batch costs no proving time: nothing is written, and its error is the one reported
  // (not the circuit error of the later file).
  io::TempDir tmp("cuzk-test-job-");
  const std::vector<std::string> inputs = {path_of("2KiB-V1_1.json"), path_of("bad-truncated.json"),
                                           path_of("bad-label.json")};
  EXPECT_THROW(prove_c1_files(inputs, options(tmp.path(), GetParam())), io::IoError);
  EXPECT_EQ(files_in(tmp.path()), std::vector<std::string>{});
}

// The engine always comes from ProveOptions::engine, made by make_engine: the CPU one by default (its
// decoding is the params.load phase); a test's factory is called once per parameter set with the config and
// the run's thread count.
TEST(JobEngine, TheDefaultFactoryIsTheCpuEngineAndItsLoadIsAPhase) {
  io::TempDir tmp("cuzk-test-job-");
  const RunReport report = prove_c1_files({path_of("2KiB-V1_1.json")}, options(tmp.path(), false));
  ASSERT_EQ(report.sectors.size(), 1u);
  EXPECT_EQ(report.engine, "cpu");
  EXPECT_EQ(report.engine_config.kind, EngineConfig::Kind::kCpu);
  EXPECT_EQ(report.sectors[0].proof_hex, kGoldenV1_1);
  ASSERT_TRUE(report.shared_phases.count("params.load"));
  EXPECT_GT(report.shared_phases.at("params.load").wall_s, 0.0);
  EXPECT_FALSE(report.shared_phases.count("cpu.setup")) << "the CPU engine's setup is all params.load";
}

TEST(JobEngine, AGivenFactoryMakesOneEnginePerParameterSetWithTheRunsThreads) {
  io::TempDir tmp("cuzk-test-job-");
  ProveOptions o = options(tmp.path(), false);
  o.threads = 1;
  std::atomic<int> made{0};
  std::atomic<unsigned> threads_given{99};
  const EngineFactory counting = [&](const EngineConfig& config, const EngineRequest& request) {
    ++made;
    threads_given = request.threads;
    EXPECT_EQ(request.header.h, groth16::read_parameter_header(request.params_path).h);
    return make_engine(config, request);
  };
  const RunReport report =
      prove_c1_files({path_of("2KiB-V1-envelope.json"), path_of("2KiB-V1_1.json")}, o, counting);
  ASSERT_EQ(report.sectors.size(), 2u);
  EXPECT_EQ(made.load(), 1) << "two sectors of one size share one engine";
  EXPECT_EQ(threads_given.load(), 1u);
  EXPECT_EQ(report.engine, "cpu");
  EXPECT_EQ(report.sectors[1].proof_hex, kGoldenV1_1);
}

TEST(Synthesizers, ThePceAndTheDirectOneGiveTheSameProverInput) {
  // The two sides of the synthesis seam on a 2KiB partition: the cache path (parallel witness, SpMV, into a
  // recycled buffer) against bellperson's ProvingAssignment, an independent computation of a, b, c.
  const porep::C1Output c1 = porep::read_c1_file(path_of("2KiB-V1_1.json"));
  const porep::StackedCircuitShape shape =
      porep::StackedCircuitShape::from_sector(*c1.registered_proof->shape);
  const auto cached = make_pce_synthesizer(pce::build_porep_pce(shape), shape);
  const auto direct = make_direct_synthesizer();
  groth16::ProverInput recycled;
  recycled.aux.assign(10, Fr::from_u64(3));
  recycled.a.assign(5, Fr::from_u64(4));
  const groth16::ProverInput x = cached->synthesize(c1, 0, 2, std::move(recycled), false);
  const groth16::ProverInput y = direct->synthesize(c1, 0, 2, {}, false);
  EXPECT_EQ(x.inputs, y.inputs);
  EXPECT_TRUE(x.aux == y.aux);
  EXPECT_TRUE(x.a == y.a);
  EXPECT_TRUE(x.b == y.b);
  EXPECT_TRUE(x.c == y.c);
  EXPECT_EQ(x.densities.a_aux, y.densities.a_aux);
  EXPECT_EQ(x.densities.b_input, y.densities.b_input);
  EXPECT_EQ(x.densities.b_aux, y.densities.b_aux);
  // The witness alone (for an engine that evaluates the constraints): the same witness and densities, no
  // a, b, c; direct synthesis has no compact circuit to leave them to, and ignores the request.
  const groth16::ProverInput w = cached->synthesize(c1, 0, 2, {}, true);
  EXPECT_EQ(w.inputs, x.inputs);
  EXPECT_TRUE(w.aux == x.aux);
  EXPECT_TRUE(w.a.empty() && w.b.empty() && w.c.empty());
  EXPECT_EQ(w.densities.a_aux, x.densities.a_aux);
  EXPECT_EQ(w.densities.b_aux, x.densities.b_aux);
  ASSERT_NE(cached->circuit(), nullptr);
  EXPECT_EQ(cached->circuit()->num_constraints(), x.a.size());
  EXPECT_EQ(direct->circuit(), nullptr);
  EXPECT_EQ(direct->synthesize(c1, 0, 2, {}, true).a.size(), x.a.size());
  // A partition the C1 file does not have is refused by both.
  EXPECT_ANY_THROW(cached->synthesize(c1, 1, 2, {}, false));
  EXPECT_ANY_THROW(direct->synthesize(c1, 1, 2, {}, false));
}

// The seam of ProverEngine::hold_constraints, on the CPU: an engine that holds the circuit (evaluating a, b,
// c with the PCE's CPU SpMV, as the GPU engine does with its own) around the CPU engine.
class HoldingEngine final : public groth16::ProverEngine {
 public:
  HoldingEngine(std::unique_ptr<groth16::ProverEngine> inner, pce::CompactR1cs circuit,
                std::atomic<int>& proofs)
      : inner_(std::move(inner)), circuit_(std::move(circuit)), proofs_(proofs) {}
  bool hold_constraints(const r1cs::CompactR1csView& circuit) override {
    held_ = circuit.num_constraints() == circuit_.num_constraints();
    return held_;
  }
  std::size_t held_constraints() const override { return held_ ? circuit_.num_constraints() : 0; }
  std::size_t compute_h_from_witness(const groth16::ProverInput& in) override {
    groth16::ProverInput full = pce::make_prover_input(circuit_, in.inputs, in.aux, 1);
    if (auto row = groth16::first_unsatisfied(full)) throw groth16::Groth16Error(*row, "unsatisfied");
    full.a.insert(full.a.end(), in.inputs.begin(), in.inputs.end());  // prove_with's input rows
    full.b.resize(full.a.size(), Fr::zero());
    full.c.resize(full.a.size(), Fr::zero());
    ++proofs_;
    return inner_->compute_h(full.a, full.b, full.c);
  }
  std::size_t compute_h(std::vector<Fr>& a, std::vector<Fr>& b, std::vector<Fr>& c) override {
    return inner_->compute_h(a, b, c);
  }
  algebra::G1 msm_h() override { return inner_->msm_h(); }
  algebra::G1 msm_g1(G1Bases bases, std::span<const Fr> scalars) override {
    return inner_->msm_g1(bases, scalars);
  }
  algebra::G2 msm_b_g2(std::span<const Fr> scalars) override { return inner_->msm_b_g2(scalars); }

 private:
  std::unique_ptr<groth16::ProverEngine> inner_;
  pce::CompactR1cs circuit_;
  std::atomic<int>& proofs_;
  bool held_ = false;
};

// The run over bad-label.json alone (a witness that does not satisfy the circuit) ends with the circuit
// error naming its partition, and writes nothing.
void expect_refused_as_unsatisfied(ProveOptions o, const EngineFactory& make = make_engine) {
  io::TempDir out("cuzk-test-job-");
  o.output_dir = out.path().string();
  try {
    prove_c1_files({path_of("bad-label.json")}, o, make);
    FAIL() << "the run did not fail";
  } catch (const JobError& e) {
    EXPECT_EQ(e.kind(), JobError::Kind::kUnsatisfiedCircuit);
    EXPECT_NE(std::string(e.what()).find("bad-label.json partition 0"), std::string::npos) << e.what();
  }
  EXPECT_EQ(files_in(out.path()), std::vector<std::string>{});
}

TEST(JobConstraintsOnTheEngine, AHoldingEngineGetsTheWitnessOnlyAndGivesTheSameProof) {
  io::TempDir tmp("cuzk-test-job-");
  ProveOptions o = options(tmp.path(), true);
  o.engine.constraints = EngineConfig::Place::kDevice;
  const porep::StackedCircuitShape shape =
      porep::StackedCircuitShape::from_sector(*porep::parse_sector_size("2KiB"));
  std::atomic<int> witness_proofs{0};
  const EngineFactory holding = [&](const EngineConfig& config, const EngineRequest& request) {
    return std::make_unique<HoldingEngine>(make_engine(config, request), pce::build_porep_pce(shape),
                                           witness_proofs);
  };
  const RunReport report = prove_c1_files({path_of("2KiB-V1_1.json")}, o, holding);
  ASSERT_EQ(report.sectors.size(), 1u);
  EXPECT_EQ(witness_proofs.load(), 1) << "the partition reached the engine as a witness alone";
  EXPECT_EQ(report.sectors[0].proof_hex, kGoldenV1_1);
  EXPECT_FALSE(report.sectors[0].phases.count("satisfied")) << "the check is the engine's";
  EXPECT_FALSE(report.sectors[0].phases.count("evaluate"));

  // The engine's check is refused as the host's would be.
  expect_refused_as_unsatisfied(o, holding);
}

TEST(JobConstraintsOnTheEngine, AnEngineThatDeclinesGetsThemFromTheProvingStage) {
  // The CPU engine holds no constraints: the witness-only partition made before it was asked is evaluated and
  // checked on the host by the proving stage (the `evaluate` phase); once it has declined, synthesis makes
  // a, b, c itself again (sequential here, so the second sector is synthesized after the first proof). The
  // same proofs, and the same refusal of a bad witness.
  io::TempDir tmp("cuzk-test-job-");
  ProveOptions o = options(tmp.path(), false);
  o.engine.constraints = EngineConfig::Place::kDevice;
  const RunReport report = prove_c1_files({path_of("2KiB-V1_1.json"), path_of("2KiB-V1-envelope.json")}, o);
  ASSERT_EQ(report.sectors.size(), 2u);
  EXPECT_EQ(report.sectors[0].proof_hex, kGoldenV1_1);
  EXPECT_TRUE(report.sectors[0].phases.count("evaluate"));
  EXPECT_FALSE(report.sectors[0].phases.count("satisfied"));
  EXPECT_FALSE(report.sectors[1].phases.count("evaluate"));
  EXPECT_TRUE(report.sectors[1].phases.count("satisfied"));
  expect_refused_as_unsatisfied(o);
}

INSTANTIATE_TEST_SUITE_P(OverlapOffAndOn, Job, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "overlap" : "sequential"; });

TEST(JobFailure, NothingIsWrittenForASectorThatFails) {
  io::TempDir tmp("cuzk-test-job-");
  const fs::path out = tmp.path() / "out";
  for (const char* bad : {"bad-label.json", "bad-seed.json", "bad-zero-seed.json"}) {
    ProveOptions o = options(out, false);
    o.dump_public_inputs = true;
    EXPECT_ANY_THROW(prove_c1_files({path_of(bad)}, o)) << bad;
    EXPECT_EQ(files_in(out), std::vector<std::string>{}) << bad;  // no proof, no inputs, no temporary file
  }
}

TEST(JobOutputs, AnExistingProofFileIsReplacedWhole) {
  io::TempDir tmp("cuzk-test-job-");
  const fs::path stale = tmp.path() / "2KiB-V1_1.proof";
  {
    std::ofstream(stale, std::ios::binary) << std::string(500, 'x');  // an earlier run's leftover
  }
  const RunReport report = prove_c1_files({path_of("2KiB-V1_1.json")}, options(tmp.path(), false));
  ASSERT_EQ(report.sectors.size(), 1u);
  EXPECT_EQ(algebra::bytes_to_hex(read_bytes(stale)), kGoldenV1_1);
  EXPECT_EQ(files_in(tmp.path()), std::vector<std::string>{"2KiB-V1_1.proof"});  // no temporary left
}

TEST(JobOutputs, TwoInputsForTheSameProofFileAreRefused) {
  io::TempDir tmp("cuzk-test-job-");
  fs::create_directories(tmp.path() / "a");
  fs::create_directories(tmp.path() / "b");
  fs::copy_file(path_of("2KiB-V1_1.json"), tmp.path() / "a" / "x.json");
  fs::copy_file(path_of("2KiB-V1_1.json"), tmp.path() / "b" / "x.json");
  try {
    prove_c1_files({(tmp.path() / "a" / "x.json").string(), (tmp.path() / "b" / "x.json").string()},
                   options(tmp.path() / "out", false));
    FAIL() << "two inputs writing x.proof were accepted";
  } catch (const JobError& e) {
    EXPECT_EQ(e.kind(), JobError::Kind::kOutputExists);
    EXPECT_NE(std::string(e.what()).find("x.proof"), std::string::npos) << e.what();
  }
}

// A .vk of another setup than the .params was found only by the self-verification after a whole proof (exit 5
// after 56 s): the .params begins with its own verifying key, and inputs.check compares the two.
TEST(JobInputsCheck, AVerifyingKeyOfAnotherSetupIsRefusedBeforeAnyProving) {
  io::TempDir tmp("cuzk-test-job-");
  const fs::path params_dir = tmp.path() / "params";
  fs::create_directories(params_dir);
  const porep::SectorShape& shape = *porep::parse_sector_size("2KiB");
  const fs::path params = params_dir / porep::param_file_name(shape, porep::ParamFileKind::kParams);
  const fs::path vk = params_dir / porep::param_file_name(shape, porep::ParamFileKind::kVerifyingKey);

  // Two keys with the 2KiB circuit's 40 ic points, different in gamma only. Only the header of the .params
  // is read before the proving, so it is the key and five empty vectors.
  const algebra::G1Affine g1 = algebra::G1::generator().to_affine();
  const algebra::G2Affine g2 = algebra::G2::generator().to_affine();
  groth16::VerifyingKey own{g1, g1, g2, g2, g1, g2, std::vector<algebra::G1Affine>(40, g1)};
  groth16::VerifyingKey other = own;
  other.gamma_g2 = (algebra::G2::generator() * Fr::from_u64(5)).to_affine();
  std::vector<std::uint8_t> params_bytes = own.to_bytes();
  params_bytes.resize(params_bytes.size() + 5 * groth16::kLengthBytes, 0);
  {
    std::ofstream out(params, std::ios::binary);
    out.write(reinterpret_cast<const char*>(params_bytes.data()),
              static_cast<std::streamsize>(params_bytes.size()));
  }
  other.write_file(vk.string());

  ProveOptions o;  // not options(): the fixed parameters are not needed
  o.output_dir = (tmp.path() / "out").string();
  o.params_dir = params_dir.string();
  o.pce_cache_dir = (tmp.path() / "pce").string();
  for (bool dry_run : {false, true}) {
    SCOPED_TRACE(dry_run ? "dry run" : "run");
    try {
      if (dry_run)
        (void)plan_c1_files({path_of("2KiB-V1_1.json")}, o);
      else
        (void)prove_c1_files({path_of("2KiB-V1_1.json")}, o);
      FAIL() << "a .vk of another setup was accepted";
    } catch (const JobError& e) {
      EXPECT_EQ(e.kind(), JobError::Kind::kMissingParameters);  // exit 6
      const std::string message = e.what();
      EXPECT_NE(message.find(params.string()), std::string::npos) << message;
      EXPECT_NE(message.find(vk.string()), std::string::npos) << message;
      EXPECT_NE(message.find("vk.gamma_g2"), std::string::npos) << message;
    }
  }
  EXPECT_EQ(files_in(tmp.path() / "out"), std::vector<std::string>{});
  EXPECT_FALSE(fs::exists(tmp.path() / "pce")) << "no constraint cache was built";

  // The .params' own key passes the check (the run then fails on the empty vectors, which is not checked
  // here).
  own.write_file(vk.string());
  EXPECT_NO_THROW((void)plan_c1_files({path_of("2KiB-V1_1.json")}, o));
}

// Scalars as text, numbers in one form (12.5 and 12.50 alike), so that the two documents compare.
std::string normalized(const std::string& s) {
  char* end = nullptr;
  const double d = std::strtod(s.c_str(), &end);
  return !s.empty() && end == s.c_str() + s.size() ? std::to_string(d) : s;
}

// "path = scalar" for every leaf of a JSON document.
void flatten(const nlohmann::json& j, const std::string& path, std::map<std::string, std::string>& out) {
  if (j.is_object()) {
    for (const auto& [k, v] : j.items()) flatten(v, path + "/" + k, out);
  } else if (j.is_array()) {
    for (std::size_t i = 0; i < j.size(); ++i) flatten(j[i], path + "/" + std::to_string(i), out);
  } else {
    out[path] = normalized(j.is_string() ? j.get<std::string>() : j.dump());
  }
}

// The same for a YAML document.
void flatten(const YAML::Node& y, const std::string& path, std::map<std::string, std::string>& out) {
  if (y.IsMap()) {
    for (const auto& kv : y) flatten(kv.second, path + "/" + kv.first.as<std::string>(), out);
  } else if (y.IsSequence()) {
    for (std::size_t i = 0; i < y.size(); ++i) flatten(y[i], path + "/" + std::to_string(i), out);
  } else {
    out[path] = normalized(y.as<std::string>());
  }
}

TEST(JobReports, JsonAndYamlHoldTheSameKeysAndValues) {
  RunReport report;
  report.engine = "cpu";
  report.overlap = true;
  report.peak_rss_bytes = 123456789;
  report.total = {12.5, 40.25};
  report.shared_phases["params.load"] = {1.5, 1.25};
  report.shared_phases["pce.load"] = {0.5, 0.75};
  SectorReport s;
  s.c1_path = "/data/c1 file.json";
  s.sector = "2";
  s.proof_type = "StackedDrg2KiBV1_1";
  s.partitions = 1;
  s.proof_path = "/out/2.proof";
  s.verified = true;
  s.total = {10.125, 30.5};
  s.phases["parse"] = {0.001, 0.002};
  s.phases["prove.msm_g1"] = {3.0, 9.0};
  report.sectors = {s, s};
  report.sectors[1].sector = "3";

  std::map<std::string, std::string> from_json, from_yaml;
  flatten(nlohmann::json::parse(to_json(report)), "", from_json);
  flatten(YAML::Load(to_yaml(report)), "", from_yaml);
  EXPECT_EQ(from_json, from_yaml);
  EXPECT_EQ(from_json.at("/total/wall_s"), std::to_string(12.5));
  EXPECT_EQ(from_json.at("/sectors/1/total/cpu_s"), std::to_string(30.5));
  EXPECT_EQ(from_json.at("/sectors/0/phases/prove.msm_g1/wall_s"), std::to_string(3.0));
  EXPECT_EQ(from_json.at("/engine_config/kind"), "cpu");
  EXPECT_FALSE(from_json.count("/engine_config/memory_limit_bytes")) << "the GPU's fields with kind gpu only";
}

// The engine is data: the report records the config as given, and the log line says the same.
TEST(JobReports, TheEngineConfigIsRecorded) {
  RunReport report;
  report.engine = "gpu";
  report.engine_config.kind = EngineConfig::Kind::kGpu;
  report.engine_config.memory_limit = std::size_t{22} << 30;
  report.engine_config.constraints = EngineConfig::Place::kDevice;
  const nlohmann::json json = nlohmann::json::parse(to_json(report));
  std::map<std::string, std::string> from_json, from_yaml;
  flatten(json, "", from_json);
  flatten(YAML::Load(to_yaml(report)), "", from_yaml);
  EXPECT_EQ(from_json, from_yaml);
  EXPECT_EQ(json.at("engine"), "gpu");
  EXPECT_EQ(json.at("engine_config"), nlohmann::json::parse(R"({"kind": "gpu", "constraints": "device",
      "devices": [0], "memory_limit_bytes": 23622320128, "gather": "host", "reader_threads": 0,
      "stream_from_file": true, "max_witness_batch": 2})"));
  EXPECT_EQ(
      describe(report.engine_config),
      "gpu on device 0: memory limit 22.0 GiB, constraints on the device, dense scalars gathered on the "
      "host, parameter readers by default, streamed bases read again from the parameter file");
  EXPECT_EQ(describe(EngineConfig{}), "cpu");
}

// The job looks the devices up itself: a CPU config has none and no budget; a GPU config's budget is its
// memory limit less the estimate of CUDA's own memory where no GPU is visible (a dry run's), and the run
// itself is refused as no-device.
TEST(JobEngine, TheDeviceBudgetIsTheLimitLessCudaWhereNoGpuIsVisible) {
  const EngineDevices cpu = find_devices(EngineConfig{});
  EXPECT_TRUE(cpu.found.empty());
  EXPECT_EQ(cpu.budget, 0u);
  EngineConfig gpu_config;
  gpu_config.kind = EngineConfig::Kind::kGpu;
  gpu_config.memory_limit = std::size_t{8} << 30;
  const EngineDevices gpu = find_devices(gpu_config);
  if (!gpu.found.empty()) GTEST_SKIP() << "a GPU is visible here";
  EXPECT_EQ(gpu.cuda_memory, gpu::kCudaMemoryEstimate);
  EXPECT_EQ(gpu.budget, (std::size_t{8} << 30) - gpu::kCudaMemoryEstimate);
  EXPECT_EQ(gpu.budget_from.rfind("--gpu-memory less 1.37 GiB that CUDA holds (estimated", 0), 0u)
      << gpu.budget_from;
  // A limit below CUDA's own memory leaves a budget that no plan fits, not an unlimited one (0).
  gpu_config.memory_limit = std::size_t{1} << 30;
  EXPECT_EQ(find_devices(gpu_config).budget, 1u);
  EXPECT_FALSE(gpu.why_none.empty());
  try {
    require_devices(gpu_config);
    FAIL() << "a GPU config without a visible GPU was accepted";
  } catch (const JobError& e) {
    EXPECT_EQ(e.kind(), JobError::Kind::kNoGpu);
    EXPECT_NE(std::string(e.what()).find("no usable GPU"), std::string::npos) << e.what();
  }
}

// The GPU's figures in a run (job/gpu_meter.hpp) through the fake NVML of tests/fake_nvml.cpp (250 J per
// read of its energy counter, 80% busy): the CPU engine proves, a fake device is metered. Two sectors: the
// counter is read at the start, at each sector's write and at the end.
TEST(JobGpuFigures, EnergyBusyAndCostOfARunFollowTheFakesScript) {
  ::setenv(gpu::kNvmlLibraryVariable, CUZK_FAKE_NVML, 1);
  io::TempDir tmp("cuzk-test-job-");
  ProveOptions o = options(tmp.path(), false);
  // One GPU named twice, as --devices 0,0 names it: metered once (its energy counter is the board's).
  o.metered_pci_bus_ids = {"00000000:17:00.0", "00000000:17:00.0"};
  o.gpu_price_per_hour = 3.6;
  o.gpu_sample_interval = std::chrono::milliseconds(1);  // samples inside the short prover span of 2KiB
  const RunReport report = prove_c1_files({path_of("2KiB-V1-envelope.json"), path_of("2KiB-V1_1.json")}, o);
  const nlohmann::json j = nlohmann::json::parse(to_json(report));
  EXPECT_EQ(j["energy_joules"], 750.0);
  ASSERT_EQ(j["sectors"].size(), 2u);
  double spans = 0;
  for (const auto& sector : j["sectors"]) {
    EXPECT_EQ(sector["energy_joules"], 250.0);
    EXPECT_DOUBLE_EQ(sector["usd"].get<double>(), 3.6 * sector["span_s"].get<double>() / 3600);
    spans += sector["span_s"].get<double>();
  }
  EXPECT_LE(spans, report.total.wall_s);
  EXPECT_NEAR(j["gpu_busy"]["run"].get<double>(), 0.8, 1e-9);  // a mean of samples of 0.8
  EXPECT_NEAR(j["gpu_busy"]["steady_state"].get<double>(), 0.8, 1e-9);
  EXPECT_EQ(j["gpu_metrics"]["devices"], nlohmann::json::array({"Fake GPU"}));
  EXPECT_NEAR(j["average_watts"].get<double>() * j["gpu_metrics"]["energy_span_s"].get<double>(), 750, 1e-9);
  EXPECT_DOUBLE_EQ(j["cost"]["usd_per_proof"].get<double>(), 3.6 * report.total.wall_s / 3600 / 2);
}

// The CPU engine's run meters nothing: NVML is not even loaded, and the report says why its figures are
// absent.
TEST(JobGpuFigures, TheCpuEnginesRunDoesNotLoadNvml) {
  ::setenv(gpu::kNvmlLibraryVariable, CUZK_FAKE_NVML, 1);
  io::TempDir tmp("cuzk-test-job-");
  const RunReport report = prove_c1_files({path_of("2KiB-V1_1.json")}, options(tmp.path(), false));
  EXPECT_EQ(::dlopen(CUZK_FAKE_NVML, RTLD_NOW | RTLD_NOLOAD), nullptr) << "the run loaded NVML";
  const nlohmann::json j = nlohmann::json::parse(to_json(report));
  for (const char* key : {"gpu_busy", "energy_joules", "average_watts", "cost"})
    EXPECT_FALSE(j.contains(key)) << key;
  EXPECT_FALSE(j["sectors"][0].contains("energy_joules"));
  EXPECT_EQ(j["gpu_metrics"]["unavailable"], "not applicable: the CPU engine proves");
}

}  // namespace
}  // namespace cuzk::job
