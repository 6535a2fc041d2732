// Timing reports for regression runs (job/timing_report.hpp): flattening, statistics,
// reading both report formats, the comparison's threshold and its refusals of malformed files.
#include <gtest/gtest.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>
#include <utility>

#include "io/io_error.hpp"
#include "job/memory_sampler.hpp"
#include "job/run_report.hpp"
#include "job/timing_report.hpp"
#include "tests/test_util.hpp"

namespace {

using namespace cuzk;
using job::TimingReport;

std::filesystem::path write_temp(const std::string& name, const std::string& text) {
  auto dir = std::filesystem::temp_directory_path() / ("cuzk-timing-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto path = dir / name;
  std::ofstream(path) << text;
  return path;
}

TEST(TimingReport, PhaseWallsSumSectorsAndKeepSharedAndTotal) {
  job::RunReport r;
  r.shared_phases["params.load"] = {2.0, 1.0};
  job::SectorReport a, b;
  a.phases["synthesize"] = {1.5, 3.0};
  a.phases["prove"] = {4.0, 8.0};
  b.phases["synthesize"] = {0.5, 1.0};
  r.sectors = {a, b};
  r.total = {8.25, 13.0};
  job::PhaseWalls w = job::phase_walls(r);
  EXPECT_DOUBLE_EQ(w.at("params.load"), 2.0);
  EXPECT_DOUBLE_EQ(w.at("synthesize"), 2.0);
  EXPECT_DOUBLE_EQ(w.at("prove"), 4.0);
  EXPECT_DOUBLE_EQ(w.at("total"), 8.25);
  EXPECT_EQ(w.size(), 4u);
}

TEST(TimingReport, StatsOddEvenAndSingle) {
  auto odd = job::phase_stats({3.0, 1.0, 2.0});
  EXPECT_DOUBLE_EQ(odd.median_s, 2.0);
  EXPECT_DOUBLE_EQ(odd.min_s, 1.0);
  EXPECT_DOUBLE_EQ(odd.max_s, 3.0);
  EXPECT_DOUBLE_EQ(odd.mean_s, 2.0);
  EXPECT_DOUBLE_EQ(odd.stddev_s, 1.0);  // sample standard deviation: sqrt((1 + 0 + 1) / 2)
  EXPECT_EQ(odd.samples_s, (std::vector<double>{3.0, 1.0, 2.0}));  // run order kept
  EXPECT_DOUBLE_EQ(job::phase_stats({4.0, 1.0, 2.0, 3.0}).median_s, 2.5);
  auto one = job::phase_stats({7.0});
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
  TimingReport r = job::read_timing_report(write_temp("prove.json", kProveReport).string());
  EXPECT_EQ(r.kind, "prove");
  EXPECT_DOUBLE_EQ(r.wall_s.at("synthesize"), 2.5);
  EXPECT_DOUBLE_EQ(r.wall_s.at("prove"), 4.5);
  EXPECT_DOUBLE_EQ(r.wall_s.at("params.load"), 3.0);
  EXPECT_DOUBLE_EQ(r.wall_s.at("total"), 10.0);
  EXPECT_EQ(r.peak_rss_bytes, 1048576u);
}

// Runs behind the figures: compare judges only reports of two runs or more a side.
TEST(TimingReport, CountsTheRunsBehindTheFigures) {
  EXPECT_EQ(job::read_timing_report(write_temp("prove-runs.json", kProveReport).string()).runs, 1u);
  const char* five = R"({"tool": "cuzk", "format": "cuzk-bench-1", "repetitions": 5,
    "phases": {"prove": {"median_s": 4.0, "samples_s": [4.0, 3.0, 5.0, 4.1, 3.9]}}})";
  EXPECT_EQ(job::read_timing_report(write_temp("bench-runs.json", five).string()).runs, 5u);
  const char* samples_only = R"({"tool": "cuzk", "format": "cuzk-bench-1",
    "phases": {"prove": {"median_s": 4.0, "samples_s": [4.0, 3.0]}}})";
  EXPECT_EQ(job::read_timing_report(write_temp("bench-samples.json", samples_only).string()).runs, 2u);
}

// A run report is comparable on its own: its format tag and context first, failures in the `--json`
// record's shape, and floats in YAML that read back exactly.
TEST(RunReport, CarriesItsContextFailuresAndExactFloats) {
  job::RunReport report;
  report.context["date"] = "2026-12-03T08:00:00Z";
  report.context["commit"] = "abc";
  report.total = {0.123456789012345, 1234567.8912345};
  job::SectorFailure failure;
  failure.c1_path = "bad.json";
  failure.stage = "check";
  failure.message = "bad.json: truncated";
  failure.exit_code = 3;
  failure.kind = "input";
  report.failures.push_back(failure);
  const nlohmann::ordered_json j = nlohmann::ordered_json::parse(job::to_json(report));
  std::vector<std::string> keys;
  for (const auto& [key, value] : j.items()) keys.push_back(key);
  ASSERT_GE(keys.size(), 4u);
  EXPECT_EQ(keys[0], "tool");
  EXPECT_EQ(keys[1], "format");
  EXPECT_EQ(j["format"], job::kProveReportFormat);
  EXPECT_EQ(keys[2], "date");
  EXPECT_EQ(keys[3], "commit");
  const auto& f = j["failures"][0];
  EXPECT_TRUE(f["sector"].is_null()) << f.dump();
  EXPECT_EQ(f["error"]["kind"], "input");
  EXPECT_EQ(f["error"]["exit_code"], 3);
  EXPECT_EQ(f["error"]["message"], "bad.json: truncated");
  const YAML::Node yaml = YAML::Load(job::to_yaml(report));
  EXPECT_EQ(yaml["total"]["wall_s"].as<double>(), 0.123456789012345);
  EXPECT_EQ(yaml["total"]["cpu_s"].as<double>(), 1234567.8912345);
  EXPECT_EQ(yaml["format"].as<std::string>(), job::kProveReportFormat);
}

// The sampler's series keeps one point per stretch with that stretch's peak: a block of memory held for
// a few stretches and then freed shows up in the series where it was held, the largest point equals the
// run's peak, and the points come in time order.
TEST(MemorySampler, SeriesShowsWhenTheMemoryWasHeld) {
  using namespace std::chrono_literals;
  const auto origin = std::chrono::steady_clock::now();
  job::MemorySampler sampler(5ms, {}, 40ms);
  std::this_thread::sleep_for(60ms);
  const std::uint64_t before = job::current_host_memory().anon_bytes;
  ASSERT_GT(before, 0u) << "/proc/self/status has no RssAnon";
  constexpr std::size_t kHeld = std::size_t{256} << 20;
  auto held = std::make_unique<unsigned char[]>(kHeld);
  std::memset(held.get(), 1, kHeld);  // touched: resident
  std::this_thread::sleep_for(150ms);
  const double held_until = std::chrono::duration<double>(std::chrono::steady_clock::now() - origin).count();
  held.reset();
  std::this_thread::sleep_for(150ms);
  const std::vector<job::MemoryPoint> series = sampler.series(origin);
  const job::MemoryPeaks peaks = sampler.peaks();
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - origin).count();
  ASSERT_GE(series.size(), 4u);
  EXPECT_LE(series.size(), static_cast<std::size_t>(elapsed / 0.040) + 2) << "more points than stretches";
  std::uint64_t largest = 0;
  for (std::size_t i = 0; i < series.size(); ++i) {
    EXPECT_GE(series[i].t_s, 0.0);
    if (i) {
      EXPECT_GT(series[i].t_s, series[i - 1].t_s);
    }
    largest = std::max(largest, series[i].anon_bytes);
  }
  EXPECT_GE(largest, before + kHeld * 3 / 4) << "the held block is missing from the series";
  EXPECT_LE(largest, peaks.anon_bytes);
  EXPECT_LT(series.back().anon_bytes, before + kHeld / 2) << "the freed block is still in the last point";
  for (const job::MemoryPoint& p : series) {
    if (p.anon_bytes >= before + kHeld * 3 / 4) {
      EXPECT_LE(p.t_s, held_until + 0.1) << "held after it was freed";
    }
  }
  // In the report: [t_s, anon_bytes, device_bytes] rows.
  job::RunReport report;
  report.memory_series = series;
  const nlohmann::json j = nlohmann::json::parse(job::to_json(report));
  ASSERT_EQ(j["memory_series"].size(), series.size());
  EXPECT_EQ(j["memory_series"][0].size(), 3u);
  EXPECT_EQ(j["memory_series"][0][1].get<std::uint64_t>(), series[0].anon_bytes);
  EXPECT_NEAR(j["memory_series"].back()[0].get<double>(), series.back().t_s, 1e-3);
}

TEST(TimingReport, ReadsBenchReportsByTheirMedians) {
  const char* bench = R"({"tool": "cuzk", "format": "cuzk-bench-1",
    "phases": {"prove": {"median_s": 4.0, "min_s": 3.0, "samples_s": [4.0, 3.0, 5.0]}, "total": {"median_s": 9.0}}})";
  TimingReport r = job::read_timing_report(write_temp("bench.json", bench).string());
  EXPECT_EQ(r.kind, "bench");
  EXPECT_DOUBLE_EQ(r.wall_s.at("prove"), 4.0);
  EXPECT_DOUBLE_EQ(r.wall_s.at("total"), 9.0);
  EXPECT_EQ(r.samples_s.at("prove"), (std::vector<double>{4.0, 3.0, 5.0}));  // the runs, for the U test
  EXPECT_FALSE(r.samples_s.contains("total"));
}

TEST(TimingReport, RefusesWhatIsNotAReportAndNamesTheFile) {
  for (
      const auto& [name, text] : std::vector<std::pair<std::string, std::string>>{
          {"truncated.json", std::string(kProveReport).substr(0, 80)},
          {"other-tool.json", R"({"tool": "bellperson", "sectors": [], "total": {"wall_s": 1}})"},
          {"array.json", "[1, 2]"},
          {"no-sectors.json", R"({"tool": "cuzk", "total": {"wall_s": 1}})"},
          {"text-wall.json", R"({"tool": "cuzk", "total": {"wall_s": "fast"}, "sectors": []})"},
          {"text-sample.json",
           R"({"tool": "cuzk", "format": "cuzk-bench-1", "phases": {"prove": {"median_s": 1, "samples_s": [1, "x"]}}})"},
          {"tool-number.json", R"({"tool": 5, "sectors": [], "total": {"wall_s": 1}})"},
          {"format-number.json", R"({"tool": "cuzk", "format": 1, "phases": {"p": {"median_s": 1}}})"},
          {"bench-no-median.json",
           R"({"tool": "cuzk", "format": "cuzk-bench-1", "phases": {"p": {"min_s": 1}}})"}}) {
    const std::string path = write_temp(name, text).string();
    try {
      job::read_timing_report(path);
      ADD_FAILURE() << name << " was accepted";
    } catch (const io::IoError& e) {
      EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(job::read_timing_report("/nonexistent/cuzk-report.json"), io::IoError);
}

TEST(TimingReport, CompareFlagsOnlySlowdownsBeyondTheThreshold) {
  TimingReport base, cont;
  base.wall_s = {{"synthesize", 10.0}, {"prove", 20.0}, {"write", 0.01}, {"old", 1.0}, {"total", 31.0}};
  cont.wall_s = {{"synthesize", 10.4}, {"prove", 23.0}, {"write", 0.05}, {"new", 1.0}, {"total", 33.5}};
  auto rows = job::compare_reports(base, cont, 0.05, 0.05);
  ASSERT_EQ(rows.size(), 6u);
  EXPECT_EQ(rows.back().phase, "total");  // total last
  std::map<std::string, job::PhaseComparison> by;
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
  for (const auto& r : job::compare_reports(cont, base, 0.05, 0.05)) EXPECT_FALSE(r.regression) << r.phase;
  for (const auto& r : job::compare_reports(base, cont, 0.20, 0.05)) EXPECT_FALSE(r.regression) << r.phase;
}

// The exact U-test p-value by brute force: every way to split the pooled values into groups of the two
// sizes (all equally likely under the null hypothesis), counting those with a U as extreme as observed.
double brute_force_p(const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<double> pooled = a;
  pooled.insert(pooled.end(), b.begin(), b.end());
  const std::size_t n = pooled.size(), n1 = a.size();
  auto u_of = [](const std::vector<double>& x, const std::vector<double>& y) {
    double u = 0;
    for (double p : x)
      for (double q : y) u += p > q ? 1 : (p == q ? 0.5 : 0);
    return u;
  };
  const double observed = u_of(a, b);
  double low = 0, high = 0, total = 0;
  for (std::uint32_t mask = 0; mask < (1u << n); ++mask) {
    if (std::size_t(__builtin_popcount(mask)) != n1) continue;
    std::vector<double> x, y;
    for (std::size_t i = 0; i < n; ++i) ((mask >> i) & 1 ? x : y).push_back(pooled[i]);
    const double u = u_of(x, y);
    total += 1;
    if (u <= observed) low += 1;
    if (u >= observed) high += 1;
  }
  return std::min(1.0, 2 * std::min(low, high) / total);
}

TEST(TimingReport, MannWhitneyExactMatchesEnumeration) {
  auto rng = test::seeded_rng("TimingReport.MannWhitney");
  std::uniform_real_distribution<double> uniform(1.0, 2.0);
  for (auto [n1, n2] :
       {std::pair{5, 5}, std::pair{3, 7}, std::pair{6, 4}, std::pair{1, 8}, std::pair{7, 7}}) {
    for (int trial = 0; trial < 6; ++trial) {
      std::vector<double> a(n1), b(n2);
      for (auto& x : a) x = uniform(rng);
      for (auto& x : b) x = uniform(rng) + 0.1 * trial;  // from no shift to clearly shifted
      const double want = brute_force_p(a, b);
      EXPECT_NEAR(job::mann_whitney_p(a, b), want, 1e-12) << n1 << " vs " << n2 << " trial " << trial;
      EXPECT_NEAR(job::mann_whitney_p(b, a), want, 1e-12) << "symmetric";
    }
  }
  // Fully separated 5 against 5: U = 0, p = 2 / C(10, 5).
  EXPECT_NEAR(job::mann_whitney_p({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10}), 2.0 / 252, 1e-15);
  EXPECT_EQ(job::mann_whitney_p({}, {1, 2}), 1.0);
  EXPECT_EQ(job::mann_whitney_p({3, 3, 3}, {3, 3, 3, 3}), 1.0);  // all tied
}

TEST(TimingReport, MannWhitneyApproximationForLargeOrTiedSamples) {
  // 40 against 40, separated: far below any alpha; interleaved: far above.
  std::vector<double> low, high, odd, even;
  for (int i = 0; i < 40; ++i) {
    low.push_back(i);
    high.push_back(100 + i);
    odd.push_back(2 * i + 1);
    even.push_back(2 * i);
  }
  EXPECT_LT(job::mann_whitney_p(low, high), 1e-10);
  EXPECT_GT(job::mann_whitney_p(odd, even), 0.8);
  // Ties (timer resolution): the normal approximation with the tie correction, against enumeration.
  const std::vector<double> a = {1.0, 1.0, 1.1, 1.2, 1.2, 1.3}, b = {1.2, 1.3, 1.3, 1.4, 1.4, 1.5};
  EXPECT_NEAR(job::mann_whitney_p(a, b), brute_force_p(a, b), 0.02);
}

TEST(TimingReport, UTestKeepsNoiseFromBeingARegression) {
  TimingReport base, cont;
  // Noisy runs whose medians differ by 8%: not significant, so not a regression.
  base.samples_s["prove"] = {1.0, 1.2, 0.9, 1.1, 1.0};
  cont.samples_s["prove"] = {1.06, 0.95, 1.15, 1.08, 1.2};
  // A real 20% slow-down: every contender run slower than every baseline run.
  base.samples_s["synthesize"] = {1.0, 1.01, 0.99, 1.005, 1.02};
  cont.samples_s["synthesize"] = {1.2, 1.21, 1.19, 1.22, 1.205};
  // Three runs a side: the test cannot judge, the threshold alone decides.
  base.samples_s["write"] = {1.0, 1.0, 1.0};
  cont.samples_s["write"] = {1.1, 1.1, 1.1};
  base.wall_s = {{"prove", 1.0}, {"synthesize", 1.0}, {"write", 1.0}, {"total", 3.0}};
  cont.wall_s = {{"prove", 1.08}, {"synthesize", 1.2}, {"write", 1.1}, {"total", 3.38}};
  std::map<std::string, job::PhaseComparison> by;
  for (const auto& r : job::compare_reports(base, cont, 0.05, 0.05)) by[r.phase] = r;
  ASSERT_TRUE(by["prove"].p_value.has_value());
  EXPECT_GT(*by["prove"].p_value, 0.05);
  EXPECT_FALSE(by["prove"].regression);
  ASSERT_TRUE(by["synthesize"].p_value.has_value());
  EXPECT_NEAR(*by["synthesize"].p_value, 2.0 / 252, 1e-12);
  EXPECT_TRUE(by["synthesize"].regression);
  EXPECT_FALSE(by["write"].p_value.has_value());
  EXPECT_TRUE(by["write"].regression);            // +10% > 5%
  EXPECT_FALSE(by["total"].p_value.has_value());  // no runs kept for it here
  EXPECT_TRUE(by["total"].regression);
  // A stricter alpha forgives even the clear slow-down of five runs a side (p = 0.008).
  for (const auto& r : job::compare_reports(base, cont, 0.05, 0.05, 0.005)) {
    if (r.phase == "synthesize") {
      EXPECT_FALSE(r.regression);
    }
  }
}

}  // namespace
