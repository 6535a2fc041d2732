// Timing reports for regression runs: a flat "phase -> wall seconds" view of a `cuzk prove --report`
// file or of a `cuzk bench` report, the statistics `cuzk bench` keeps over repetitions, and the
// comparison of two reports that `cuzk compare` prints (a regression = a phase slower than the
// threshold allows; users expect a non-zero exit then, as with Google Benchmark's compare.py).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "job/prove.hpp"

namespace cuzk::job {

// Wall seconds per phase: every sector's phases summed by name (parse, synthesize, prove.msm_g1, ...),
// the shared phases (params.load), and "total" for the whole run.
using PhaseWalls = PhaseMap<double>;

PhaseWalls phase_walls(const RunReport& report);

// The run's GPU energy over its proven sectors, joules; none when it was not measured or nothing was proven.
std::optional<double> energy_joules_per_sector(const RunReport& report);

// Median, extremes, mean and sample standard deviation of one phase over the repetitions.
struct PhaseStats {
  std::vector<double> samples_s;
  double median_s = 0, min_s = 0, max_s = 0, mean_s = 0, stddev_s = 0;
};
PhaseStats phase_stats(std::vector<double> samples);

// A loaded report: the wall time per phase (the median for bench reports) and where it came from.
struct TimingReport {
  std::string path;
  std::string kind;  // "prove" or "bench"
  PhaseWalls wall_s;
  PhaseMap<std::vector<double>> samples_s;  // bench reports: each counted run's wall seconds
  std::uint64_t peak_rss_bytes = 0;
  unsigned runs = 1;  // the runs behind each figure: a prove report's 1, a bench report's repetitions
  // GPU energy per proven sector, joules (a bench report's median and its runs), when the report has it.
  std::optional<double> energy_joules_per_sector;
  std::vector<double> energy_samples_j;
};

// Reads a `cuzk prove --report` JSON file or a `cuzk bench --report` JSON file. Throws io::IoError
// naming the file when it is unreadable or not such a report.
TimingReport read_timing_report(const std::string& path);

// Two-sided p-value of the Mann-Whitney U test (Wilcoxon rank-sum) that samples a and b come from the same
// distribution: exact (the U distribution by counting) when there are no ties and both have at most 30
// values, else the normal approximation with tie and continuity corrections. 1 when either is empty or
// every value is the same. The test Google Benchmark's compare.py reports for repeated runs.
double mann_whitney_p(const std::vector<double>& a, const std::vector<double>& b);

// With fewer runs a side, no difference can reach p < 0.05 (5 against 5: the smallest two-sided p is
// 2/252 = 0.008; 3 against 3: 0.1), so the test cannot judge and the threshold alone decides.
inline constexpr std::size_t kMinRunsForUTest = 5;

// The name of the row of compare_reports that compares the energy per sector (joules, not seconds).
inline constexpr const char* kEnergyPerSectorRow = "energy/sector";

struct PhaseComparison {
  std::string phase;
  const char* unit = "s";  // "J" for the kEnergyPerSectorRow row
  double baseline_s = 0, contender_s = 0;
  bool in_baseline = false, in_contender = false;
  bool compared = false;          // both sides have it and the baseline is long enough to judge
  double change = 0;              // contender / baseline - 1
  std::optional<double> p_value;  // compared, and both sides have kMinRunsForUTest runs or more
  bool regression = false;        // compared, change > threshold, and p_value < alpha when there is one
};

// Phases of both reports, in the order they run ("total" last; job/phase_order.hpp). A phase shorter than
// `min_seconds` in the baseline is listed but not judged (timer noise dominates it). When both reports hold
// the runs of a phase (bench reports with kMinRunsForUTest or more repetitions), a slow-down past the
// threshold is a regression only if the U test also says the two sets of runs differ (p < alpha): noise
// between runs is not flagged. When either report has the GPU energy per sector, a last row
// (kEnergyPerSectorRow, joules) compares it the same way: more energy than the threshold allows is a
// regression as a slower phase is (min_seconds does not apply to it).
std::vector<PhaseComparison> compare_reports(const TimingReport& baseline, const TimingReport& contender,
                                             double threshold, double min_seconds, double alpha = 0.05);

}  // namespace cuzk::job
