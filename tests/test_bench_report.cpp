// `cuzk bench`'s statistics and report (job/bench_report.hpp): warm-up runs kept out of the statistics,
// per-phase figures, throughput from the median run, the report's schema, and `cuzk compare` reading it
// back (job/timing_report.hpp).
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "io/temp_dir.hpp"
#include "job/bench_report.hpp"
#include "job/timing_report.hpp"

namespace cuzk::job {
namespace {

// One run of two sectors (3 partitions in all) whose phases take `scale` times the base figures.
RunReport run(double scale, std::uint64_t rss) {
  RunReport r;
  r.shared_phases["params.load"] = {1.0 * scale, 1.0};
  SectorReport a, b;
  a.partitions = 1;
  b.partitions = 2;
  a.phases["prove"] = {2.0 * scale, 8.0};
  b.phases["prove"] = {3.0 * scale, 12.0};
  b.phases["synthesize"] = {0.5 * scale, 1.0};
  r.sectors = {a, b};
  r.total = {10.0 * scale, 30.0};
  r.peak_rss_bytes = rss;
  return r;
}

TEST(BenchReport, WarmUpRunsCountOnlyTowardsPeakMemory) {
  BenchRecorder recorder(2);
  recorder.add_run(run(100.0, 9000));  // warm-up: slow (parameter load) and the largest footprint
  recorder.add_run(run(50.0, 10));
  recorder.add_run(run(1.0, 100));
  recorder.add_run(run(3.0, 300));
  recorder.add_run(run(2.0, 200));
  const BenchSummary s = recorder.summary();
  EXPECT_EQ(s.warmup_runs, 2u);
  EXPECT_EQ(s.repetitions, 3u);
  EXPECT_EQ(s.sectors, 2u);
  EXPECT_EQ(s.partitions, 3u);
  EXPECT_EQ(s.peak_rss_bytes, 9000u);
  // total: 10, 30, 20 -> median 20, min 10, max 30, mean 20, sample stddev 10.
  const PhaseStats& total = s.phases.at("total");
  EXPECT_EQ(total.samples_s, (std::vector<double>{10.0, 30.0, 20.0}));
  EXPECT_DOUBLE_EQ(total.median_s, 20.0);
  EXPECT_DOUBLE_EQ(total.min_s, 10.0);
  EXPECT_DOUBLE_EQ(total.max_s, 30.0);
  EXPECT_DOUBLE_EQ(total.mean_s, 20.0);
  EXPECT_DOUBLE_EQ(total.stddev_s, 10.0);
  // Sector phases are summed per run: prove = 2 + 3 per unit of scale.
  EXPECT_DOUBLE_EQ(s.phases.at("prove").median_s, 10.0);
  // In the order the phases run (job/phase_order.hpp), "total" last.
  EXPECT_EQ(s.phase_order(), (std::vector<std::string>{"params.load", "synthesize", "prove", "total"}));
  // 3600 s / 20 s per run = 180 runs an hour.
  EXPECT_DOUBLE_EQ(s.sectors_per_hour(), 360.0);
  EXPECT_DOUBLE_EQ(s.partitions_per_hour(), 540.0);
}

TEST(BenchReport, NoCountedRunGivesNoThroughput) {
  BenchRecorder recorder(1);
  recorder.add_run(run(1.0, 1));
  const BenchSummary s = recorder.summary();
  EXPECT_EQ(s.repetitions, 0u);
  EXPECT_TRUE(s.phases.empty());
  EXPECT_EQ(s.sectors_per_hour(), 0.0);
}

TEST(BenchReport, TheReportHasItsSchemaAndCompareReadsItBack) {
  BenchRecorder recorder(0);
  for (double scale : {1.0, 2.0, 4.0, 3.0, 5.0}) recorder.add_run(run(scale, 4096));
  const BenchSummary summary = recorder.summary();
  ProveOptions options;
  options.params_dir = "/params";
  options.overlap = true;
  BenchContext context;
  context.date = "2026-12-01T00:00:00Z";
  context.version = "0.1.0";
  context.commit = "abcdef";
  context.system = machine_json();
  context.inputs = {"a.json", "b.json"};
  context.options = &options;
  const nlohmann::ordered_json j = bench_report_json(summary, context);  // keys in the order written

  EXPECT_EQ(j.at("tool"), "cuzk");
  EXPECT_EQ(j.at("format"), kBenchFormat);
  EXPECT_EQ(j.at("date"), "2026-12-01T00:00:00Z");
  EXPECT_EQ(j.at("inputs").size(), 2u);
  EXPECT_EQ(j.at("options").at("overlap"), true);
  EXPECT_EQ(j.at("options").at("params_dir"), "/params");
  EXPECT_GT(j.at("system").at("hardware_threads").get<unsigned>(), 0u);
  EXPECT_EQ(j.at("repetitions"), 5u);
  EXPECT_EQ(j.at("partitions"), 3u);
  EXPECT_EQ(j.at("peak_rss_bytes"), 4096u);
  for (const char* key : {"median_s", "min_s", "max_s", "mean_s", "stddev_s", "samples_s"})
    EXPECT_TRUE(j.at("phases").at("total").contains(key)) << key;
  EXPECT_DOUBLE_EQ(j.at("phases").at("total").at("median_s").get<double>(), 30.0);
  EXPECT_DOUBLE_EQ(j.at("throughput").at("sectors_per_hour").get<double>(), 240.0);

  io::TempDir dir("cuzk-test-bench-");
  const std::string path = (dir.path() / "bench.json").string();
  std::ofstream(path) << j.dump(2);
  const TimingReport back = read_timing_report(path);
  EXPECT_EQ(back.kind, "bench");
  EXPECT_DOUBLE_EQ(back.wall_s.at("total"), 30.0);
  EXPECT_DOUBLE_EQ(back.wall_s.at("prove"), 15.0);
  EXPECT_EQ(back.samples_s.at("total"), (std::vector<double>{10.0, 20.0, 40.0, 30.0, 50.0}));
  EXPECT_EQ(back.peak_rss_bytes, 4096u);
}

}  // namespace
}  // namespace cuzk::job
