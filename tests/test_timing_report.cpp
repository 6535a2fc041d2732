// Timing reports for regression runs (prover/pipeline/timing_report.hpp): flattening, statistics,
// reading both report formats, the comparison's threshold and its refusals of malformed files.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "io/io_error.hpp"
#include "prover/pipeline/timing_report.hpp"

namespace {

using namespace cuzk;
using pipeline::TimingReport;

std::filesystem::path write_temp(const std::string& name, const std::string& text) {
  auto dir = std::filesystem::temp_directory_path() / ("cuzk-timing-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto path = dir / name;
  std::ofstream(path) << text;
  return path;
}

TEST(TimingReport, PhaseWallsSumSectorsAndKeepSharedAndTotal) {
  pipeline::RunReport r;
  r.shared_phases["params.load"] = {2.0, 1.0};
  pipeline::SectorReport a, b;
  a.phases["synthesize"] = {1.5, 3.0};
  a.phases["prove"] = {4.0, 8.0};
  b.phases["synthesize"] = {0.5, 1.0};
  r.sectors = {a, b};
  r.total = {8.25, 13.0};
  pipeline::PhaseWalls w = pipeline::phase_walls(r);
  EXPECT_DOUBLE_EQ(w.at("params.load"), 2.0);
  EXPECT_DOUBLE_EQ(w.at("synthesize"), 2.0);
  EXPECT_DOUBLE_EQ(w.at("prove"), 4.0);
  EXPECT_DOUBLE_EQ(w.at("total"), 8.25);
  EXPECT_EQ(w.size(), 4u);
}

TEST(TimingReport, StatsOddEvenAndSingle) {
  auto odd = pipeline::phase_stats({3.0, 1.0, 2.0});
  EXPECT_DOUBLE_EQ(odd.median_s, 2.0);
  EXPECT_DOUBLE_EQ(odd.min_s, 1.0);
  EXPECT_DOUBLE_EQ(odd.max_s, 3.0);
  EXPECT_DOUBLE_EQ(odd.mean_s, 2.0);
  EXPECT_DOUBLE_EQ(odd.stddev_s, 1.0);  // sample standard deviation: sqrt((1 + 0 + 1) / 2)
  EXPECT_EQ(odd.samples_s, (std::vector<double>{3.0, 1.0, 2.0}));  // run order kept
  EXPECT_DOUBLE_EQ(pipeline::phase_stats({4.0, 1.0, 2.0, 3.0}).median_s, 2.5);
  auto one = pipeline::phase_stats({7.0});
  EXPECT_DOUBLE_EQ(one.median_s, 7.0);
  EXPECT_DOUBLE_EQ(one.stddev_s, 0.0);
}

const char* kProveReport = R"({
  "tool": "cuzk", "peak_rss_bytes": 1048576, "total": {"wall_s": 10.0, "cpu_s": 12.0},
  "shared_phases": {"params.load": {"wall_s": 3.0, "cpu_s": 3.0}},
  "sectors": [
    {"sector": "a", "phases": {"synthesize": {"wall_s": 1.0, "cpu_s": 1.0}, "prove": {"wall_s": 2.0, "cpu_s": 4.0}}},
    {"sector": "b", "phases": {"synthesize": {"wall_s": 1.5, "cpu_s": 1.0}, "prove": {"wall_s": 2.5, "cpu_s": 4.0}}}
  ]})";

TEST(TimingReport, ReadsProveReports) {
  TimingReport r = pipeline::read_timing_report(write_temp("prove.json", kProveReport).string());
  EXPECT_EQ(r.kind, "prove");
  EXPECT_DOUBLE_EQ(r.wall_s.at("synthesize"), 2.5);
  EXPECT_DOUBLE_EQ(r.wall_s.at("prove"), 4.5);
  EXPECT_DOUBLE_EQ(r.wall_s.at("params.load"), 3.0);
  EXPECT_DOUBLE_EQ(r.wall_s.at("total"), 10.0);
  EXPECT_EQ(r.peak_rss_bytes, 1048576u);
}

TEST(TimingReport, ReadsBenchReportsByTheirMedians) {
  const char* bench = R"({"tool": "cuzk", "format": "cuzk-bench-1",
    "phases": {"prove": {"median_s": 4.0, "min_s": 3.0}, "total": {"median_s": 9.0}}})";
  TimingReport r = pipeline::read_timing_report(write_temp("bench.json", bench).string());
  EXPECT_EQ(r.kind, "bench");
  EXPECT_DOUBLE_EQ(r.wall_s.at("prove"), 4.0);
  EXPECT_DOUBLE_EQ(r.wall_s.at("total"), 9.0);
}

TEST(TimingReport, RefusesWhatIsNotAReportAndNamesTheFile) {
  for (const auto& [name, text] : std::vector<std::pair<std::string, std::string>>{
           {"truncated.json", std::string(kProveReport).substr(0, 80)},
           {"other-tool.json", R"({"tool": "bellperson", "sectors": [], "total": {"wall_s": 1}})"},
           {"array.json", "[1, 2]"},
           {"no-sectors.json", R"({"tool": "cuzk", "total": {"wall_s": 1}})"},
           {"text-wall.json", R"({"tool": "cuzk", "total": {"wall_s": "fast"}, "sectors": []})"},
           {"bench-no-median.json",
            R"({"tool": "cuzk", "format": "cuzk-bench-1", "phases": {"p": {"min_s": 1}}})"}}) {
    const std::string path = write_temp(name, text).string();
    try {
      pipeline::read_timing_report(path);
      ADD_FAILURE() << name << " was accepted";
    } catch (const io::IoError& e) {
      EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(pipeline::read_timing_report("/nonexistent/cuzk-report.json"), io::IoError);
}

TEST(TimingReport, CompareFlagsOnlySlowdownsBeyondTheThreshold) {
  TimingReport base, cont;
  base.wall_s = {{"synthesize", 10.0}, {"prove", 20.0}, {"write", 0.01}, {"old", 1.0}, {"total", 31.0}};
  cont.wall_s = {{"synthesize", 10.4}, {"prove", 23.0}, {"write", 0.05}, {"new", 1.0}, {"total", 33.5}};
  auto rows = pipeline::compare_reports(base, cont, 0.05, 0.05);
  ASSERT_EQ(rows.size(), 6u);
  EXPECT_EQ(rows.back().phase, "total");  // total last
  std::map<std::string, pipeline::PhaseComparison> by;
  for (const auto& r : rows) by[r.phase] = r;
  EXPECT_TRUE(by["synthesize"].compared);
  EXPECT_FALSE(by["synthesize"].regression);  // +4% <= 5%
  EXPECT_NEAR(by["synthesize"].change, 0.04, 1e-12);
  EXPECT_TRUE(by["prove"].regression);  // +15%
  EXPECT_FALSE(by["write"].compared);   // 10 ms baseline: below --min-seconds, not judged
  EXPECT_FALSE(by["write"].regression);
  EXPECT_FALSE(by["old"].compared);
  EXPECT_TRUE(by["old"].in_baseline && !by["old"].in_contender);
  EXPECT_TRUE(by["new"].in_contender && !by["new"].in_baseline);
  EXPECT_TRUE(by["total"].regression);  // +8%
  // Faster is never a regression, and a larger threshold forgives the slow-down.
  for (const auto& r : pipeline::compare_reports(cont, base, 0.05, 0.05))
    EXPECT_FALSE(r.regression) << r.phase;
  for (const auto& r : pipeline::compare_reports(base, cont, 0.20, 0.05))
    EXPECT_FALSE(r.regression) << r.phase;
}

}  // namespace
