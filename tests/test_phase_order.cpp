// Phases are listed in the order they run (job/phase_order.hpp): in maps keyed by phase, in the JSON and
// YAML reports of `cuzk prove --report`, and in `cuzk compare`.
#include <gtest/gtest.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "job/phase_order.hpp"
#include "job/prove.hpp"
#include "job/timing_report.hpp"

namespace {

using namespace cuzk;

const std::vector<std::string> kRunOrder = {
    "inputs.check",  "params.header", "params.load", "params.load.cold", "params.load.warm",
    "params.decode", "pce.load",      "pce.build",   "gpu.setup",        "gpu.constraints",
    "parse",         "validate",      "check",       "synthesize",       "inputs",
    "satisfied",     "evaluate",      "prove",       "prove.h",          "prove.msm_g1",
    "prove.msm_g2",  "verify",        "write"};

template <class Map>
std::vector<std::string> keys(const Map& m) {
  std::vector<std::string> out;
  for (const auto& [name, value] : m) out.push_back(name);
  return out;
}

TEST(PhaseOrder, KnownPhasesInRunOrderWhateverTheInsertionOrder) {
  std::vector<std::string> shuffled = kRunOrder;
  std::mt19937 rng(19);
  for (int round = 0; round < 20; ++round) {
    std::shuffle(shuffled.begin(), shuffled.end(), rng);
    job::PhaseMap<int> m;
    for (const auto& name : shuffled) m[name] = 1;
    EXPECT_EQ(keys(m), kRunOrder);
  }
}

TEST(PhaseOrder, UnknownAfterKnownAlphabeticallyThenTotal) {
  job::PhaseMap<int> m;
  for (const char* name : {"total", "zeta", "write", "alpha", "parse", "params.load", "prove.ntt"})
    m[name] = 0;
  EXPECT_EQ(keys(m), (std::vector<std::string>{"params.load", "parse", "write", "alpha", "prove.ntt", "zeta",
                                               "total"}));
}

TEST(PhaseOrder, AnyEngineSetupRanksWithTheSharedPhases) {
  EXPECT_EQ(job::phase_rank("cpu.setup"), job::phase_rank("gpu.setup"));
  EXPECT_LT(job::phase_rank("cpu.setup"), job::phase_rank("parse"));
  EXPECT_GT(job::phase_rank("cpu.setup"), job::phase_rank("pce.build"));
  EXPECT_EQ(job::phase_rank("cpu.constraints"), job::phase_rank("gpu.constraints"));
  EXPECT_GT(job::phase_rank("cpu.constraints"), job::phase_rank("cpu.setup"));
  EXPECT_LT(job::phase_rank("cpu.constraints"), job::phase_rank("parse"));
  // A strict weak order: irreflexive, and two different names are never equivalent.
  job::PhaseOrder less;
  EXPECT_FALSE(less("prove", "prove"));
  EXPECT_TRUE(less("cpu.setup", "gpu.setup") != less("gpu.setup", "cpu.setup"));
  EXPECT_TRUE(less("a", "b") != less("b", "a"));
}

job::RunReport sample_report() {
  job::RunReport r;
  r.shared_phases["pce.load"] = {0.5, 0.5};
  r.shared_phases["params.load"] = {1.0, 1.0};
  job::SectorReport s;
  s.sector = "7";
  for (const char* name : {"write", "verify", "prove.msm_g2", "prove.msm_g1", "prove.h", "prove", "satisfied",
                           "inputs", "synthesize", "validate", "parse"})
    s.phases[name] = {0.1, 0.1};
  r.sectors.push_back(s);
  r.total = {3, 3};
  return r;
}

const std::vector<std::string> kSectorOrder = {"parse",        "validate", "synthesize", "inputs",
                                               "satisfied",    "prove",    "prove.h",    "prove.msm_g1",
                                               "prove.msm_g2", "verify",   "write"};

TEST(PhaseOrder, JsonReportListsPhasesInRunOrder) {
  // ordered_json keeps the order of the text, which a plain json object would sort.
  auto j = nlohmann::ordered_json::parse(job::to_json(sample_report()));
  std::vector<std::string> shared, sector;
  for (const auto& [name, t] : j["shared_phases"].items()) shared.push_back(name);
  for (const auto& [name, t] : j["sectors"][0]["phases"].items()) sector.push_back(name);
  EXPECT_EQ(shared, (std::vector<std::string>{"params.load", "pce.load"}));
  EXPECT_EQ(sector, kSectorOrder);
}

TEST(PhaseOrder, YamlReportListsPhasesInRunOrder) {
  YAML::Node y = YAML::Load(job::to_yaml(sample_report()));
  std::vector<std::string> shared, sector;
  for (const auto& kv : y["shared_phases"]) shared.push_back(kv.first.as<std::string>());
  for (const auto& kv : y["sectors"][0]["phases"]) sector.push_back(kv.first.as<std::string>());
  EXPECT_EQ(shared, (std::vector<std::string>{"params.load", "pce.load"}));
  EXPECT_EQ(sector, kSectorOrder);
}

TEST(PhaseOrder, CompareListsSharedPhasesFirstAndTotalLast) {
  job::TimingReport a, b;
  a.wall_s = job::phase_walls(sample_report());
  b.wall_s = a.wall_s;
  b.wall_s["zz.extra"] = 1;
  std::vector<std::string> rows;
  for (const auto& row : job::compare_reports(a, b, 0.05, 0.0)) rows.push_back(row.phase);
  std::vector<std::string> expected = {"params.load", "pce.load"};
  expected.insert(expected.end(), kSectorOrder.begin(), kSectorOrder.end());
  expected.push_back("zz.extra");
  expected.push_back("total");
  EXPECT_EQ(rows, expected);
}

TEST(PhaseOrder, ReadReportKeepsRunOrder) {
  auto path =
      std::filesystem::temp_directory_path() / ("cuzk-phase-order-" + std::to_string(::getpid()) + ".json");
  std::ofstream(path) << job::to_json(sample_report());
  job::TimingReport r = job::read_timing_report(path.string());
  std::filesystem::remove(path);
  std::vector<std::string> expected = {"params.load", "pce.load"};
  expected.insert(expected.end(), kSectorOrder.begin(), kSectorOrder.end());
  expected.push_back("total");
  EXPECT_EQ(keys(r.wall_s), expected);
}

}  // namespace
