// Runs over several engines (EngineConfig::cpu_engines, as --devices gives several GPU engines) and the
// witness MSMs of two partitions paired on one engine, on the CPU with fixed r and s: proofs byte for byte
// against the pinned value of tests/job_test_support.hpp, the order of outputs, and what a fault fails.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "io/temp_dir.hpp"
#include "job/prove.hpp"
#include "prover/algebra/hex_bytes.hpp"
#include "prover/groth16/prover.hpp"
#include "tests/job_test_support.hpp"

namespace cuzk::job {
namespace {

namespace fs = std::filesystem;
using algebra::Fr;
using namespace job_test;

// Several engines (EngineConfig::cpu_engines, as --devices gives several GPU engines): partitions go to
// whichever engine is free, across sectors. The sectors are copies of 2KiB-V1_1.json named by file stem, so
// every proof must be kGoldenV1_1, the one-engine run's proof (a proof takes seconds on the 2-core CI
// machine: few sectors).
std::vector<std::string> copies_of_v1_1(const fs::path& dir, int count) {
  std::vector<std::string> inputs;
  for (int i = 0; i < count; ++i) {
    const fs::path to = dir / ("sector-" + std::to_string(i) + ".json");
    fs::copy_file(path_of("2KiB-V1_1.json"), to);
    inputs.push_back(to.string());
  }
  return inputs;
}

ProveOptions engines_options(const fs::path& out, unsigned engines, bool overlap) {
  ProveOptions o = options(out, overlap);
  o.proof_naming = ProveOptions::ProofNaming::kFileStem;
  o.engine.cpu_engines = engines;
  return o;
}

TEST(SeveralEngines, GiveTheProofsOfOneEngineInTheSameOrderAndEachProvesSome) {
  io::TempDir tmp("cuzk-test-job-");
  const std::vector<std::string> inputs = copies_of_v1_1(tmp.path(), 3);
  const RunReport run = prove_c1_files(inputs, engines_options(tmp.path() / "out", 3, true));
  ASSERT_EQ(run.sectors.size(), inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    EXPECT_EQ(run.sectors[i].c1_path, inputs[i]) << "sectors are finished in input order";
    EXPECT_EQ(run.sectors[i].proof_hex, kGoldenV1_1) << inputs[i];
    EXPECT_EQ(algebra::bytes_to_hex(read_bytes(run.sectors[i].proof_path)), kGoldenV1_1);
  }
  ASSERT_EQ(run.engines.size(), 3u);
  unsigned proven = 0;
  for (const EngineReport& e : run.engines) {
    EXPECT_GE(e.partitions, 1u) << "engine " << e.lane << " proved nothing";
    EXPECT_GT(e.busy_s, 0.0);
    EXPECT_FALSE(e.device) << "CPU engines have no device";
    proven += e.partitions;
  }
  EXPECT_EQ(proven, inputs.size());
  // The report's lane per engine, and a timeline lane per engine.
  const nlohmann::json json = nlohmann::json::parse(to_json(run));
  EXPECT_EQ(json.at("engines").size(), 3u);
  EXPECT_EQ(json.at("engine_config").at("engines"), 3);
  EXPECT_TRUE(std::any_of(run.timeline.begin(), run.timeline.end(),
                          [](const TimelineEvent& e) { return e.lane == "prover 2"; }));
}

// An engine that throws on the `fault_at`-th partition proven by any of them (whichever engine holds it):
// like a device fault.
class FaultyEngine final : public groth16::ProverEngine {
 public:
  FaultyEngine(std::unique_ptr<groth16::ProverEngine> inner, std::atomic<int>& proofs, int fault_at)
      : inner_(std::move(inner)), proofs_(proofs), fault_at_(fault_at) {}
  std::size_t compute_h(std::vector<Fr>& a, std::vector<Fr>& b, std::vector<Fr>& c) override {
    if (++proofs_ == fault_at_) throw std::runtime_error("the engine's device fell off the bus");
    return inner_->compute_h(a, b, c);
  }
  algebra::G1 msm_h() override { return inner_->msm_h(); }
  algebra::G1 msm_g1(G1Bases bases, std::span<const Fr> scalars) override {
    return inner_->msm_g1(bases, scalars);
  }
  algebra::G2 msm_b_g2(std::span<const Fr> scalars) override { return inner_->msm_b_g2(scalars); }

 private:
  std::unique_ptr<groth16::ProverEngine> inner_;
  std::atomic<int>& proofs_;
  const int fault_at_;
};

TEST(SeveralEngines, AFaultOnOneEngineFailsOnlyThePartitionsSectorWithKeepGoing) {
  io::TempDir tmp("cuzk-test-job-");
  const std::vector<std::string> inputs = copies_of_v1_1(tmp.path(), 4);
  std::atomic<int> proofs{0};
  std::atomic<int> made{0};
  const EngineFactory faulty = [&](const EngineConfig& config, const EngineRequest& request) {
    ++made;
    return std::make_unique<FaultyEngine>(make_engine(config, request), proofs, 3);
  };
  ProveOptions o = engines_options(tmp.path() / "out", 2, false);
  o.keep_going = true;
  const RunReport run = prove_c1_files(inputs, o, faulty);
  ASSERT_EQ(run.failures.size(), 1u);
  EXPECT_EQ(run.failures[0].stage, "prove partition 0");
  EXPECT_NE(run.failures[0].message.find("fell off the bus"), std::string::npos) << run.failures[0].message;
  ASSERT_EQ(run.sectors.size(), inputs.size() - 1) << "the other sectors go on";
  for (const SectorReport& s : run.sectors) {
    EXPECT_NE(s.c1_path, run.failures[0].c1_path);
    EXPECT_EQ(s.proof_hex, kGoldenV1_1) << s.c1_path;
  }
  const std::string failed_stem = fs::path(run.failures[0].c1_path).stem().string();
  EXPECT_FALSE(fs::exists(fs::path(o.output_dir) / (failed_stem + ".proof")));
  // Two engines made at first; the faulty one is replaced by a fresh one if it gets another sector.
  EXPECT_GE(made.load(), 2);
  EXPECT_LE(made.load(), 3);
}

// Without keep_going the fault ends the run with its error, as on one engine: of two sectors, the first
// proof to start fails; the first sector's proof is written only when the second sector's failed.
TEST(SeveralEngines, AFaultEndsTheRunWithoutKeepGoing) {
  io::TempDir tmp("cuzk-test-job-");
  std::atomic<int> proofs{0};
  const EngineFactory faulty = [&](const EngineConfig& config, const EngineRequest& request) {
    return std::make_unique<FaultyEngine>(make_engine(config, request), proofs, 1);
  };
  try {
    prove_c1_files(copies_of_v1_1(tmp.path(), 2), engines_options(tmp.path() / "out", 2, true), faulty);
    FAIL() << "the run did not fail";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("fell off the bus"), std::string::npos) << e.what();
  }
  const std::vector<std::string> written = files_in(tmp.path() / "out");
  EXPECT_TRUE(written.empty() || written == std::vector<std::string>{"sector-0.proof"});
}

// An engine that asks for the witness MSMs of two partitions at once (as the GPU engine does when its bases
// stream) and counts the batches it is given; the MSMs themselves are the CPU engine's. `fault_in_batch`:
// the first batch of two throws, like a device fault in the shared pass.
class BatchingEngine final : public groth16::ProverEngine {
 public:
  BatchingEngine(std::unique_ptr<groth16::ProverEngine> inner, std::atomic<int>& batches_of_two,
                 bool fault_in_batch = false)
      : inner_(std::move(inner)), batches_of_two_(batches_of_two), fault_(fault_in_batch) {}
  std::size_t compute_h(std::vector<Fr>& a, std::vector<Fr>& b, std::vector<Fr>& c) override {
    return inner_->compute_h(a, b, c);
  }
  algebra::G1 msm_h() override { return inner_->msm_h(); }
  algebra::G1 msm_g1(G1Bases bases, std::span<const Fr> scalars) override {
    return inner_->msm_g1(bases, scalars);
  }
  algebra::G2 msm_b_g2(std::span<const Fr> scalars) override { return inner_->msm_b_g2(scalars); }
  unsigned witness_batch() const override { return 2; }
  std::vector<WitnessMsms> msm_witness_batch(std::span<const groth16::ProverInput* const> inputs,
                                             std::span<std::vector<Fr>* const> a_scratch,
                                             std::span<std::vector<Fr>* const> b_scratch) override {
    if (inputs.size() == 2) {
      ++batches_of_two_;
      if (fault_) throw std::runtime_error("the engine's device fell off the bus in a batch");
    }
    return ProverEngine::msm_witness_batch(inputs, a_scratch, b_scratch);
  }

 private:
  std::unique_ptr<groth16::ProverEngine> inner_;
  std::atomic<int>& batches_of_two_;
  const bool fault_;
};

// Partitions of different sectors (a 2KiB sector has one) paired for their witness MSMs give the pinned
// proofs, in input order; an odd one out is proven alone at the end. The lane's steps do not overlap.
// (Overlapped, the run's default: the pairing is in the back stage alone, which both modes share.)
TEST(WitnessBatch, PairedPartitionsGiveThePinnedProofs) {
  for (bool overlap : {true}) {
    io::TempDir tmp("cuzk-test-job-");
    const std::vector<std::string> inputs = copies_of_v1_1(tmp.path(), 3);
    std::atomic<int> batches{0};
    const EngineFactory batching = [&](const EngineConfig& config, const EngineRequest& request) {
      return std::make_unique<BatchingEngine>(make_engine(config, request), batches);
    };
    const RunReport run = prove_c1_files(inputs, engines_options(tmp.path() / "out", 1, overlap), batching);
    ASSERT_EQ(run.sectors.size(), inputs.size());
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      EXPECT_EQ(run.sectors[i].c1_path, inputs[i]);
      EXPECT_EQ(run.sectors[i].proof_hex, kGoldenV1_1) << inputs[i] << (overlap ? " (overlapped)" : "");
      EXPECT_TRUE(run.sectors[i].verified);
    }
    EXPECT_EQ(batches.load(), 1) << "sectors 0 and 1 paired, sector 2 alone";
    ASSERT_EQ(run.engines.size(), 1u);
    EXPECT_EQ(run.engines[0].partitions, 3u);
    EXPECT_LE(run.engines[0].busy_share, 1.0 + 1e-9);
    // Steps of the prover lane follow one another.
    std::vector<TimelineEvent> prover;
    for (const TimelineEvent& e : run.timeline)
      if (e.lane == "prover" && e.step != "prove.wait") prover.push_back(e);
    std::sort(prover.begin(), prover.end(),
              [](const TimelineEvent& x, const TimelineEvent& y) { return x.start_s < y.start_s; });
    for (std::size_t i = 1; i < prover.size(); ++i)
      EXPECT_LE(prover[i - 1].end_s, prover[i].start_s + 1e-6)
          << prover[i - 1].step << " of partition " << prover[i - 1].partition << " overlaps "
          << prover[i].step;
  }
}

// A fault in a batch fails both of its partitions' sectors (with keep_going, the run goes on) and writes
// neither.
TEST(WitnessBatch, AFaultInABatchFailsBothSectors) {
  io::TempDir tmp("cuzk-test-job-");
  const std::vector<std::string> inputs = copies_of_v1_1(tmp.path(), 2);
  std::atomic<int> batches{0};
  const EngineFactory faulty = [&](const EngineConfig& config, const EngineRequest& request) {
    return std::make_unique<BatchingEngine>(make_engine(config, request), batches, true);
  };
  ProveOptions o = engines_options(tmp.path() / "out", 1, false);
  o.keep_going = true;
  const RunReport run = prove_c1_files(inputs, o, faulty);
  EXPECT_EQ(batches.load(), 1);
  ASSERT_EQ(run.failures.size(), 2u);
  for (const auto& f : run.failures) {
    EXPECT_EQ(f.stage, "prove partition 0");
    EXPECT_NE(f.message.find("in a batch"), std::string::npos) << f.message;
  }
  EXPECT_TRUE(run.sectors.empty());
  EXPECT_TRUE(files_in(tmp.path() / "out").empty());
}

}  // namespace
}  // namespace cuzk::job
