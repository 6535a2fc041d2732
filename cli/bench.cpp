// `cuzk bench` (the whole prove job repeated, with warm-up runs kept apart, and per-phase statistics
// in a JSON report) and `cuzk compare` (two reports side by side; exit kRegression when a phase got
// slower than the threshold allows). What regression users expect of these is in
// shared/reference/users.md (lotus-bench --json-out, Google Benchmark's compare.py).
#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "io/atomic_file.hpp"
#include "io/io_error.hpp"
#include "io/temp_dir.hpp"
#include "job/prove.hpp"
#include "job/timing_report.hpp"

namespace cuzk::cli {

namespace {

struct BenchFlags {
  JobFlags job;
  std::string report;
  unsigned repetitions = 3;
  unsigned warmup = 1;
};

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("model name", 0) == 0) {
      auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
    }
  }
  return "unknown";
}

nlohmann::json system_json(const nlohmann::json& build) {
  const long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGE_SIZE);
  return {{"cpu_model", cpu_model()},
          {"hardware_threads", std::thread::hardware_concurrency()},
          {"memory_bytes", pages > 0 && page_size > 0 ? std::uint64_t(pages) * std::uint64_t(page_size) : 0},
          {"cuda", build["cuda"]},
          {"gpus", build["gpus"]}};
}

// The environment variables that change what a run does (recorded as lotus-bench records its own).
nlohmann::json environment_json() {
  nlohmann::json env = nlohmann::json::object();
  for (const char* name : {"FIL_PROOFS_PARAMETER_CACHE", "CUZK_PCE_CACHE", "CUDA_VISIBLE_DEVICES", "CUZK_LOG",
                           "OMP_NUM_THREADS"})
    if (const char* value = std::getenv(name)) env[name] = value;
  return env;
}

std::string utc_now() {
  std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

void run_bench(const BenchFlags& f) {
  job::ProveOptions options;
  apply_job_flags(f.job, options);
  options.progress = [](const std::string& m) { spdlog::debug("{}", m); };

  job::PhaseMap<std::vector<double>> samples;
  std::uint64_t peak_rss = 0;
  unsigned partitions = 0, sectors = 0;
  const unsigned runs = f.warmup + f.repetitions;
  for (unsigned run = 0; run < runs; ++run) {
    const bool warm_up = run < f.warmup;
    io::TempDir out("cuzk-bench-");  // proofs are written and verified as in production, then dropped
    options.output_dir = out.path().string();
    spdlog::info("bench run {}/{}{}", run + 1, runs, warm_up ? " (warm-up, not counted)" : "");
    job::RunReport report = job::prove_c1_files(f.job.c1_files, options);
    peak_rss = std::max(peak_rss, report.peak_rss_bytes);
    partitions = sectors = 0;
    for (const auto& s : report.sectors) {
      partitions += s.partitions;
      ++sectors;
    }
    spdlog::info("  total {:.3f} s", report.total.wall_s);
    if (warm_up) continue;
    for (const auto& [phase, wall] : job::phase_walls(report)) samples[phase].push_back(wall);
  }

  nlohmann::ordered_json phases = nlohmann::ordered_json::object();  // in the order the phases run
  fmt::print("{:<16} {:>11} {:>11} {:>11} {:>11}   ({} runs, {} warm-up)\n", "phase", "median s", "min s",
             "max s", "stddev s", f.repetitions, f.warmup);
  std::vector<std::string> names;
  for (const auto& [name, values] : samples)
    if (name != "total") names.push_back(name);
  names.push_back("total");
  for (const auto& name : names) {
    job::PhaseStats s = job::phase_stats(samples[name]);
    fmt::print("{:<16} {:>11.3f} {:>11.3f} {:>11.3f} {:>11.3f}\n", name, s.median_s, s.min_s, s.max_s,
               s.stddev_s);
    phases[name] = {{"median_s", s.median_s}, {"min_s", s.min_s},       {"max_s", s.max_s},
                    {"mean_s", s.mean_s},     {"stddev_s", s.stddev_s}, {"samples_s", s.samples_s}};
  }
  const double median_total = phases["total"]["median_s"].get<double>();
  const double per_hour = median_total > 0 ? 3600.0 / median_total : 0;
  fmt::print("throughput: {:.1f} sectors/hour, {:.1f} partitions/hour (median run); peak RSS {:.1f} MiB\n",
             per_hour * sectors, per_hour * partitions, double(peak_rss) / (1 << 20));

  if (f.report.empty()) return;
  nlohmann::ordered_json j;  // keys, and the phases, in the order written
  j["tool"] = "cuzk";
  j["format"] = "cuzk-bench-1";
  j["date"] = utc_now();
  const nlohmann::json build = build_info_json();
  j["version"] = build["version"];
  j["commit"] = build["commit"];
  j["system"] = system_json(build);
  j["environment"] = environment_json();
  j["inputs"] = f.job.c1_files;
  j["options"] = {{"pce", options.use_pce},
                  {"engine", options.engine_name},
                  {"overlap", options.overlap},
                  {"threads", options.threads},
                  {"params_dir", options.params_dir}};
  j["warmup_runs"] = f.warmup;
  j["repetitions"] = f.repetitions;
  j["sectors"] = sectors;
  j["partitions"] = partitions;
  j["phases"] = phases;
  j["throughput"] = {{"sectors_per_hour", per_hour * sectors},
                     {"partitions_per_hour", per_hour * partitions}};
  j["peak_rss_bytes"] = peak_rss;
  const std::string text = j.dump(2) + "\n";
  io::write_file_atomic(f.report, {reinterpret_cast<const std::uint8_t*>(text.data()), text.size()});
  spdlog::info("bench report written to {}", f.report);
}

struct CompareFlags {
  std::string baseline, contender;
  double threshold_percent = 5;
  double min_seconds = 0.05;
  double alpha = 0.05;
};

int run_compare(const CompareFlags& f) {
  const job::TimingReport base = job::read_timing_report(f.baseline);
  const job::TimingReport cont = job::read_timing_report(f.contender);
  const auto rows = job::compare_reports(base, cont, f.threshold_percent / 100, f.min_seconds, f.alpha);
  fmt::print("baseline  ({}): {}\ncontender ({}): {}\n", base.kind, f.baseline, cont.kind, f.contender);
  fmt::print("{:<16} {:>12} {:>12} {:>9} {:>8}\n", "phase", "baseline s", "contender s", "change", "U test");
  unsigned regressions = 0;
  for (const auto& r : rows) {
    auto seconds = [](bool present, double s) {
      return present ? fmt::format("{:.3f}", s) : std::string("-");
    };
    std::string change = r.compared                          ? fmt::format("{:+.1f}%", 100 * r.change)
                         : (r.in_baseline && r.in_contender) ? std::string("(short)")
                                                             : std::string("(one side)");
    const std::string p_value = r.p_value ? fmt::format("p={:.3f}", *r.p_value) : std::string();
    fmt::print("{:<16} {:>12} {:>12} {:>9} {:>8}{}\n", r.phase, seconds(r.in_baseline, r.baseline_s),
               seconds(r.in_contender, r.contender_s), change, p_value, r.regression ? "  REGRESSION" : "");
    if (r.regression) ++regressions;
  }
  if (base.peak_rss_bytes && cont.peak_rss_bytes)
    fmt::print("peak RSS: {:.1f} MiB -> {:.1f} MiB\n", double(base.peak_rss_bytes) / (1 << 20),
               double(cont.peak_rss_bytes) / (1 << 20));
  const bool tested =
      std::any_of(rows.begin(), rows.end(), [](const auto& r) { return r.p_value.has_value(); });
  if (!tested && base.kind == "bench" && cont.kind == "bench")
    spdlog::info("fewer than {} runs a side: the threshold alone judges (no U test)",
                 job::kMinRunsForUTest);
  if (regressions) {
    spdlog::error("{} phase(s) slower than the baseline by more than {}%{}", regressions, f.threshold_percent,
                  tested ? fmt::format(" (U test p < {})", f.alpha) : std::string());
    return kRegression;
  }
  return kOk;
}

}  // namespace

void register_bench_commands(CLI::App& app) {
  auto bf = std::make_shared<BenchFlags>();
  CLI::App* bench = app.add_subcommand(
      "bench", "Prove the given C1 files repeatedly (warm-up runs apart) and report statistics per phase");
  add_job_flags(bench, bf->job);
  bench
      ->add_option("--reps", bf->repetitions,
                   "counted runs (5 or more a side let `cuzk compare` apply its U test to them)")
      ->capture_default_str()
      ->check(CLI::Range(1u, 1000u));
  bench->add_option("--warmup", bf->warmup, "runs before the counted ones (parameter load, caches)")
      ->capture_default_str()
      ->check(CLI::Range(0u, 100u));
  bench->add_option("--report", bf->report, "write the JSON report here (input of `cuzk compare`)");
  bench->callback([bf] { run_bench(*bf); });

  auto cf = std::make_shared<CompareFlags>();
  CLI::App* compare = app.add_subcommand(
      "compare", "Compare two timing reports (prove --report or bench --report); exit 10 on a regression");
  compare->add_option("baseline", cf->baseline, "the reference report")->required()->check(CLI::ExistingFile);
  compare->add_option("contender", cf->contender, "the report to judge")
      ->required()
      ->check(CLI::ExistingFile);
  compare->add_option("--threshold", cf->threshold_percent, "allowed slow-down per phase, percent")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  compare
      ->add_option("--min-seconds", cf->min_seconds,
                   "phases shorter than this in the baseline are not judged")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  compare
      ->add_option("--alpha", cf->alpha,
                   "bench reports with 5+ runs a side: a slow-down counts only when the Mann-Whitney U "
                   "test gives p below this")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0));
  compare->callback([cf] {
    int code = run_compare(*cf);
    if (code != kOk) throw CLI::RuntimeError(code);
  });
}

}  // namespace cuzk::cli
