// NVML loaded at run time (gpu/nvml.hpp) and the GPU meter of a run (job/gpu_meter.hpp), through the fake
// libnvidia-ml.so.1 of tests/fake_nvml.cpp: its energy counter rises by 250 J at every read and its
// utilization is 80%, so the figures follow from the script. Also the run report's, the metrics' and
// `cuzk compare`'s use of them, and that a machine without NVML gets absent figures with a reason, not zeros.
// ctest runs each test in a process of its own, so the environment each one sets stays its own.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "gpu/nvml.hpp"
#include "io/temp_dir.hpp"
#include "job/bench_report.hpp"
#include "job/gpu_meter.hpp"
#include "job/metrics.hpp"
#include "job/run_report.hpp"
#include "job/timing_report.hpp"

namespace cuzk::job {
namespace {

constexpr double kStepJoules = 250;  // tests/fake_nvml.cpp: kDefaultEnergyStepMillijoules
constexpr double kBusy = 0.8;        // tests/fake_nvml.cpp: kDefaultUtilizationPercent
const std::vector<std::string> kBusIds = {"00000000:17:00.0"};

void use_fake_nvml() {
  ::setenv(gpu::kNvmlLibraryVariable, CUZK_FAKE_NVML, 1);
}

TEST(Nvml, TheLibraryNamedByTheVariableIsLoadedAndRead) {
  use_fake_nvml();
  EXPECT_EQ(gpu::nvml_library_path(), CUZK_FAKE_NVML);
  std::string why_not;
  std::unique_ptr<gpu::Nvml> nvml = gpu::Nvml::open(why_not);
  ASSERT_TRUE(nvml) << why_not;
  const std::optional<gpu::NvmlDevice> device = nvml->device_by_pci_bus_id(kBusIds[0], why_not);
  ASSERT_TRUE(device) << why_not;
  EXPECT_EQ(device->name, "Fake GPU");
  const std::optional<std::uint64_t> first = nvml->total_energy_millijoules(*device, why_not);
  const std::optional<std::uint64_t> second = nvml->total_energy_millijoules(*device, why_not);
  ASSERT_TRUE(first && second);
  EXPECT_EQ(*second - *first, 250'000u);
  EXPECT_EQ(nvml->gpu_utilization_percent(*device, why_not), 80u);
  EXPECT_EQ(nvml->power_milliwatts(*device, why_not), 415'000u);
  EXPECT_FALSE(nvml->device_by_index(7, why_not));
  EXPECT_NE(why_not.find("Invalid Argument"), std::string::npos) << why_not;
}

TEST(Nvml, TheDriversLibraryByDefault) {
  ::unsetenv(gpu::kNvmlLibraryVariable);
  EXPECT_EQ(gpu::nvml_library_path(), "libnvidia-ml.so.1");
}

TEST(Nvml, AMissingLibraryOrAFailedInitIsAReasonNotAnError) {
  ::setenv(gpu::kNvmlLibraryVariable, "/nonexistent/libnvidia-ml.so.1", 1);
  std::string why_not;
  EXPECT_FALSE(gpu::Nvml::open(why_not));
  EXPECT_NE(why_not.find("/nonexistent/libnvidia-ml.so.1"), std::string::npos) << why_not;

  use_fake_nvml();
  ::setenv("FAKE_NVML_INIT_FAILS", "1", 1);
  EXPECT_FALSE(gpu::Nvml::open(why_not));
  EXPECT_NE(why_not.find("nvmlInit_v2 failed: Driver Not Loaded"), std::string::npos) << why_not;
}

TEST(GpuMeter, EnergyPerSectorAndRunAndBusyFollowTheFakesScript) {
  use_fake_nvml();
  GpuMeter meter(kBusIds, std::chrono::milliseconds(5));
  const auto begin = GpuMeter::Clock::now();
  std::this_thread::sleep_for(std::chrono::milliseconds(40));
  EXPECT_EQ(meter.energy_since_last_read(), kStepJoules);  // the first sector: one read after the start
  EXPECT_EQ(meter.energy_since_last_read(), kStepJoules);
  const GpuMeterFigures figures = meter.finish(begin, GpuMeter::Clock::now());
  EXPECT_TRUE(figures.unavailable.empty()) << figures.unavailable;
  EXPECT_EQ(figures.library, CUZK_FAKE_NVML);
  EXPECT_EQ(figures.devices, std::vector<std::string>{"Fake GPU"});
  EXPECT_EQ(figures.interval_ms, 5u);
  EXPECT_GE(figures.samples, 2u);
  ASSERT_TRUE(figures.busy_run && figures.busy_steady);
  EXPECT_NEAR(*figures.busy_run, kBusy, 1e-9);  // a mean of samples of 0.8: rounding apart
  EXPECT_NEAR(*figures.busy_steady, kBusy, 1e-9);
  // Four reads (start, two sectors, end): three steps.
  EXPECT_EQ(figures.energy_joules, 3 * kStepJoules);
  ASSERT_TRUE(figures.energy_span_s && figures.average_watts);
  EXPECT_GE(*figures.energy_span_s, 0.04);
  EXPECT_DOUBLE_EQ(*figures.average_watts, 3 * kStepJoules / *figures.energy_span_s);
}

TEST(GpuMeter, AnEmptySteadyStateHasNoSteadyFigure) {
  use_fake_nvml();
  GpuMeter meter(kBusIds, std::chrono::milliseconds(5));
  const auto now = GpuMeter::Clock::now();
  const GpuMeterFigures figures = meter.finish(now + std::chrono::hours(1), now);
  ASSERT_TRUE(figures.busy_run);
  EXPECT_NEAR(*figures.busy_run, kBusy, 1e-9);
  EXPECT_FALSE(figures.busy_steady);
}

TEST(GpuMeter, AGpuWithoutAnEnergyCounterStillHasItsBusyShare) {
  use_fake_nvml();
  ::setenv("FAKE_NVML_NO_ENERGY", "1", 1);
  GpuMeter meter(kBusIds, std::chrono::milliseconds(5));
  EXPECT_FALSE(meter.energy_since_last_read());
  const GpuMeterFigures figures = meter.finish(GpuMeter::Clock::now(), GpuMeter::Clock::now());
  EXPECT_TRUE(figures.unavailable.empty());
  ASSERT_TRUE(figures.busy_run);
  EXPECT_NEAR(*figures.busy_run, kBusy, 1e-9);
  EXPECT_FALSE(figures.energy_joules);
  EXPECT_FALSE(figures.average_watts);
  EXPECT_NE(figures.energy_unavailable.find("Not Supported"), std::string::npos)
      << figures.energy_unavailable;
}

TEST(GpuMeter, WithoutNvmlEveryFigureIsAbsentWithTheReason) {
  ::setenv(gpu::kNvmlLibraryVariable, "/nonexistent/libnvidia-ml.so.1", 1);
  GpuMeter meter(kBusIds, std::chrono::milliseconds(5));
  EXPECT_FALSE(meter.energy_since_last_read());
  const GpuMeterFigures figures = meter.finish(GpuMeter::Clock::now(), GpuMeter::Clock::now());
  EXPECT_NE(figures.unavailable.find("NVML is not loaded"), std::string::npos) << figures.unavailable;
  EXPECT_FALSE(figures.busy_run || figures.busy_steady || figures.energy_joules || figures.average_watts);
}

RunReport two_sector_report() {
  RunReport report;
  report.engine = "gpu";
  report.total = {36, 40};
  for (const char* name : {"1", "2"}) {
    SectorReport s;
    s.sector = name;
    s.partitions = 10;
    s.span_s = 18;
    s.energy_joules = 6000;
    report.sectors.push_back(s);
  }
  report.gpu.library = "libnvidia-ml.so.1";
  report.gpu.devices = {"NVIDIA H200"};
  report.gpu.interval_ms = 100;
  report.gpu.samples = 360;
  report.gpu.busy_run = 0.75;
  report.gpu.busy_steady = 0.81;
  report.gpu.energy_joules = 12600;
  report.gpu.energy_span_s = 36;
  report.gpu.average_watts = 350;
  return report;
}

TEST(GpuFiguresInTheReport, MeasuredFiguresAndTheCost) {
  RunReport report = two_sector_report();
  report.usd_per_hour = 4;
  const nlohmann::json j = nlohmann::json::parse(to_json(report));
  EXPECT_EQ(j["gpu_busy"]["steady_state"], 0.81);
  EXPECT_EQ(j["gpu_busy"]["run"], 0.75);
  EXPECT_EQ(j["energy_joules"], 12600.0);
  EXPECT_EQ(j["average_watts"], 350.0);
  EXPECT_EQ(j["gpu_metrics"]["source"], "nvml");
  EXPECT_EQ(j["gpu_metrics"]["samples"], 360);
  EXPECT_FALSE(j["gpu_metrics"].contains("unavailable"));
  EXPECT_EQ(j["sectors"][1]["energy_joules"], 6000.0);
  EXPECT_EQ(j["sectors"][1]["span_s"], 18.0);
  // 4 USD an hour over a 36 s run of two proofs: 0.04 USD, 0.02 a proof and 0.02 a sector's 18 s span.
  EXPECT_DOUBLE_EQ(j["cost"]["usd"].get<double>(), 0.04);
  EXPECT_DOUBLE_EQ(j["cost"]["usd_per_proof"].get<double>(), 0.02);
  EXPECT_DOUBLE_EQ(j["sectors"][0]["usd"].get<double>(), 0.02);

  const std::string metrics = prometheus_metrics(report, RunOutcome{});
  EXPECT_NE(metrics.find("\ncuzk_gpu_busy_ratio{engine=\"gpu\",gpu=\"\"} 0.81\n"), std::string::npos)
      << metrics;
  EXPECT_NE(metrics.find("\ncuzk_gpu_busy_run_ratio{engine=\"gpu\",gpu=\"\"} 0.75\n"), std::string::npos);
  EXPECT_NE(metrics.find("\ncuzk_gpu_energy_joules{engine=\"gpu\",gpu=\"\"} 12600\n"), std::string::npos);
  EXPECT_NE(metrics.find("\ncuzk_gpu_energy_joules_per_proof{engine=\"gpu\",gpu=\"\"} 6300\n"),
            std::string::npos);
  EXPECT_NE(metrics.find("\ncuzk_gpu_average_watts{engine=\"gpu\",gpu=\"\"} 350\n"), std::string::npos);
  EXPECT_NE(metrics.find("\ncuzk_cost_usd_per_proof{engine=\"gpu\",gpu=\"\"} 0.02\n"), std::string::npos);
}

TEST(GpuFiguresInTheReport, UnmeasuredFiguresAreAbsentNotZero) {
  RunReport report = two_sector_report();
  report.gpu = GpuMeter::not_applicable("the CPU engine proves");
  for (SectorReport& s : report.sectors) s.energy_joules.reset();
  const nlohmann::json j = nlohmann::json::parse(to_json(report));
  for (const char* key : {"gpu_busy", "energy_joules", "average_watts", "cost"})
    EXPECT_FALSE(j.contains(key)) << key;
  EXPECT_FALSE(j["sectors"][0].contains("energy_joules"));
  EXPECT_FALSE(j["sectors"][0].contains("usd"));
  EXPECT_EQ(j["gpu_metrics"]["unavailable"], "not applicable: the CPU engine proves");
  const std::string metrics = prometheus_metrics(report, RunOutcome{});
  EXPECT_EQ(metrics.find("cuzk_gpu_"), std::string::npos) << metrics;
  EXPECT_EQ(metrics.find("cuzk_cost_"), std::string::npos) << metrics;
}

TEST(GpuFiguresInCompare, MoreEnergyPerSectorThanTheThresholdIsARegression) {
  TimingReport base, cont;
  base.wall_s["total"] = cont.wall_s["total"] = 30;
  base.energy_joules_per_sector = 6500;
  cont.energy_joules_per_sector = 7000;  // +7.7%
  auto rows = compare_reports(base, cont, 0.05, 0.05);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows.back().phase, kEnergyPerSectorRow);
  EXPECT_STREQ(rows.back().unit, "J");
  EXPECT_TRUE(rows.back().regression);
  EXPECT_NEAR(rows.back().change, 7000.0 / 6500 - 1, 1e-12);
  rows = compare_reports(base, cont, 0.10, 0.05);
  EXPECT_FALSE(rows.back().regression);
  cont.energy_joules_per_sector.reset();  // the contender ran without NVML: shown, not judged
  rows = compare_reports(base, cont, 0.05, 0.05);
  EXPECT_FALSE(rows.back().compared);
  EXPECT_FALSE(rows.back().regression);
  base.energy_joules_per_sector.reset();  // neither has it: no row
  EXPECT_EQ(compare_reports(base, cont, 0.05, 0.05).size(), 1u);
}

// What compare reads back: a prove report's energy over its sectors, a bench report's median and runs.
TEST(GpuFiguresInCompare, ProveAndBenchReportsGiveTheirEnergyPerSector) {
  io::TempDir tmp("cuzk-test-gpu-meter-");
  const RunReport run = two_sector_report();
  const std::string prove_path = (tmp.path() / "prove.json").string();
  std::ofstream(prove_path) << to_json(run);
  const TimingReport prove = read_timing_report(prove_path);
  EXPECT_EQ(prove.energy_joules_per_sector, 6300);

  BenchRecorder recorder(/*warmup_runs=*/1);
  RunReport warmup = run;
  warmup.gpu.energy_joules = 99999;  // not counted
  recorder.add_run(warmup);
  recorder.add_run(run);
  RunReport second = run;
  second.gpu.energy_joules = 13000;
  recorder.add_run(second);
  const std::string bench_path = (tmp.path() / "bench.json").string();
  std::ofstream(bench_path) << bench_report_json(recorder.summary(), BenchContext{}).dump(2);
  const TimingReport bench = read_timing_report(bench_path);
  EXPECT_EQ(bench.energy_joules_per_sector, (6300 + 6500) / 2.0);
  EXPECT_EQ(bench.energy_samples_j, (std::vector<double>{6300, 6500}));

  RunReport unmeasured = run;
  unmeasured.gpu = GpuMeter::not_applicable("the CPU engine proves");
  std::ofstream(prove_path) << to_json(unmeasured);
  EXPECT_FALSE(read_timing_report(prove_path).energy_joules_per_sector);
}

}  // namespace
}  // namespace cuzk::job
