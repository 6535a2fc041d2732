// `cuzk bench` (the whole prove job repeated, with warm-up runs kept apart, and per-phase statistics
// in a JSON report) and `cuzk compare` (two reports side by side; exit kRegression when a phase got
// slower than the threshold allows). The report follows what lotus-bench
// --json-out and Google Benchmark's compare.py users expect (docs/formats.md, "Bench reports").
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/format.hpp"
#include "cli/help_format.hpp"
#include "io/atomic_file.hpp"
#include "io/io_error.hpp"
#include "io/temp_dir.hpp"
#include "job/bench_report.hpp"
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

void run_bench(const BenchFlags& f) {
  if (!f.report.empty()) io::check_output_file(f.report);  // before the runs, not after them
  job::ProveOptions options;
  apply_job_flags(f.job, options);
  options.progress = [](const std::string& m) { spdlog::debug("{}", m); };

  job::BenchRecorder recorder(f.warmup);
  const unsigned runs = f.warmup + f.repetitions;
  for (unsigned run = 0; run < runs; ++run) {
    io::TempDir out("cuzk-bench-");  // proofs are written and verified as in production, then dropped
    options.output_dir = out.path().string();
    spdlog::info("bench run {}/{}{}", run + 1, runs, run < f.warmup ? " (warm-up, not counted)" : "");
    const job::RunReport report = job::prove_c1_files(f.job.c1_files, options);
    spdlog::info("  total {:.3f} s", report.total.wall_s);
    recorder.add_run(report);
  }

  const job::BenchSummary summary = recorder.summary();
  fmt::print("{:<16} {:>11} {:>11} {:>11} {:>11}   ({} runs, {} warm-up)\n", "phase", "median s", "min s",
             "max s", "stddev s", f.repetitions, f.warmup);
  for (const auto& name : summary.phase_order()) {
    const job::PhaseStats& s = summary.phases.at(name);
    fmt::print("{:<16} {:>11.3f} {:>11.3f} {:>11.3f} {:>11.3f}\n", name, s.median_s, s.min_s, s.max_s,
               s.stddev_s);
  }
  fmt::print("throughput: {:.1f} sectors/hour, {:.1f} partitions/hour (median run); peak RSS {:.1f} MiB\n",
             summary.sectors_per_hour(), summary.partitions_per_hour(),
             double(summary.peak_rss_bytes) / (1 << 20));

  if (f.report.empty()) return;
  const nlohmann::json build = build_info_json();
  job::BenchContext context;
  context.date = job::utc_now();
  context.version = build["version"].get<std::string>();
  context.commit = build["commit"].get<std::string>();
  context.system = job::machine_json();
  context.system["cuda"] = build["cuda"];
  context.system["gpus"] = build["gpus"];
  context.inputs = f.job.c1_files;
  context.options = &options;
  const std::string text = json_text(job::bench_report_json(summary, context), 2) + "\n";
  io::write_file_atomic(f.report, {reinterpret_cast<const std::uint8_t*>(text.data()), text.size()});
  spdlog::info("bench report written to {}", f.report);
}

struct CompareFlags {
  std::string baseline, contender;
  double threshold_percent = 5;
  double min_seconds = 0.05;
  double alpha = 0.05;
  bool judge_single_runs = false;
};

int run_compare(const CompareFlags& f) {
  const job::TimingReport base = job::read_timing_report(f.baseline);
  const job::TimingReport cont = job::read_timing_report(f.contender);
  const auto rows = job::compare_reports(base, cont, f.threshold_percent / 100, f.min_seconds, f.alpha);
  // One run a side is one sample of the host's noise (a 2KiB proof on a busy host varies by half), and a
  // prove report's sums are not a bench report's medians: those are shown, not judged.
  std::string not_judged;
  if (base.kind != cont.kind)
    not_judged = fmt::format("a {} report against a {} report", base.kind, cont.kind);
  else if ((base.runs < 2 || cont.runs < 2) && !f.judge_single_runs)
    not_judged = fmt::format(
        "{} run(s) against {} (a single run is noise; use `cuzk bench --reps 5`, or "
        "--judge-single-runs)",
        base.runs, cont.runs);
  fmt::print("baseline  ({}, {} run{}): {}\ncontender ({}, {} run{}): {}\n", base.kind, base.runs,
             base.runs == 1 ? "" : "s", f.baseline, cont.kind, cont.runs, cont.runs == 1 ? "" : "s",
             f.contender);
  fmt::print("{:<16} {:>12} {:>12} {:>9} {:>8}\n", "phase", "baseline s", "contender s", "change", "U test");
  unsigned regressions = 0;
  for (const auto& r : rows) {
    // Seconds as they are; the energy row's joules with their unit.
    auto seconds = [&r](bool present, double s) {
      if (!present) return std::string("-");
      return r.unit == std::string_view("s") ? fmt::format("{:.3f}", s) : fmt::format("{:.1f} {}", s, r.unit);
    };
    std::string change = r.compared                          ? fmt::format("{:+.1f}%", 100 * r.change)
                         : (r.in_baseline && r.in_contender) ? std::string("(short)")
                                                             : std::string("(one side)");
    const std::string p_value = r.p_value ? fmt::format("p={:.3f}", *r.p_value) : std::string();
    fmt::print("{:<16} {:>12} {:>12} {:>9} {:>8}{}\n", r.phase, seconds(r.in_baseline, r.baseline_s),
               seconds(r.in_contender, r.contender_s), change, p_value,
               !r.regression        ? ""
               : not_judged.empty() ? "  REGRESSION"
                                    : "  (slower)");
    if (r.regression) ++regressions;
  }
  if (base.peak_rss_bytes && cont.peak_rss_bytes)
    fmt::print("peak RSS: {:.1f} MiB -> {:.1f} MiB\n", double(base.peak_rss_bytes) / (1 << 20),
               double(cont.peak_rss_bytes) / (1 << 20));
  const bool tested =
      std::any_of(rows.begin(), rows.end(), [](const auto& r) { return r.p_value.has_value(); });
  if (!tested && base.kind == "bench" && cont.kind == "bench")
    spdlog::info("fewer than {} runs a side: the threshold alone judges (no U test)", job::kMinRunsForUTest);
  if (!not_judged.empty()) {
    if (regressions)
      spdlog::warn("{} phase(s) slower by more than {}%, not judged: {}", regressions, f.threshold_percent,
                   not_judged);
    else
      spdlog::warn("not judged: {}", not_judged);
    return kOk;
  }
  if (regressions) {
    spdlog::error("{} phase(s) slower than the baseline by more than {}%{}", regressions, f.threshold_percent,
                  tested ? fmt::format(" (U test p < {})", f.alpha) : std::string());
    return kRegression;
  }
  return kOk;
}

}  // namespace

// The option group of `cuzk bench --help` beside the proving job's (cli/help_format.hpp).
constexpr const char* kRunsGroup = "Runs";

void register_bench_commands(CLI::App& app) {
  auto bf = std::make_shared<BenchFlags>();
  CLI::App* bench = app.add_subcommand(
      "bench", "Prove the given C1 files repeatedly (warm-up runs apart) and report statistics per phase");
  add_job_flags(bench, bf->job);
  bench->add_option("--report", bf->report, "write the JSON report here (input of `cuzk compare`)")
      ->group(kInputsOutputsGroup);
  bench
      ->add_option("--reps", bf->repetitions,
                   "counted runs (5 or more a side let `cuzk compare` apply its U test to them)")
      ->capture_default_str()
      ->check(CLI::Range(1u, 1000u))
      ->group(kRunsGroup);
  bench->add_option("--warmup", bf->warmup, "runs before the counted ones (parameter load, caches)")
      ->capture_default_str()
      ->check(CLI::Range(0u, 100u))
      ->group(kRunsGroup);
  bench->callback([bf] { run_bench(*bf); });

  auto cf = std::make_shared<CompareFlags>();
  CLI::App* compare = app.add_subcommand(
      "compare", "Compare two timing reports (prove --report or bench --report); exit 10 on a regression");
  // No CLI::ExistingFile: a missing, special or unreadable report is an input error (exit 3), named by
  // job::read_timing_report, not a usage error.
  compare->add_option("baseline", cf->baseline, "the reference report")->required();
  compare->add_option("contender", cf->contender, "the report to judge")->required();
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
  compare->add_flag("--judge-single-runs", cf->judge_single_runs,
                    "judge reports of one run a side too (by default they are shown, with a warning)");
  compare->callback([cf] {
    int code = run_compare(*cf);
    if (code != kOk) throw CLI::RuntimeError(code);
  });
}

}  // namespace cuzk::cli
