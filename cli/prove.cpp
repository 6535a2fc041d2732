// `cuzk prove`: the main job.
#include "job/prove.hpp"

#include <fmt/format.h>
#include <spdlog/sinks/sink.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <vector>

#include "cli/commands.hpp"
#include "cli/errors.hpp"
#include "cli/exit_codes.hpp"
#include "cli/format.hpp"
#include "cli/help_format.hpp"
#include "cli/prove_output.hpp"
#include "cli/signals.hpp"
#include "gpu/device_info.hpp"
#include "io/atomic_file.hpp"
#include "io/json_reader.hpp"
#include "io/param_names.hpp"
#include "job/bench_report.hpp"
#include "job/engine.hpp"
#include "job/metrics.hpp"
#include "job/progress.hpp"
#include "job/run_memory.hpp"
#include "job/shard.hpp"
#include "job/update_prove.hpp"
#include "prover/timing.hpp"

namespace cuzk::cli {

namespace {

struct ProveFlags {
  JobFlags job;
  std::string output_dir = ".";
  std::string report;
  bool no_verify = false;
  bool check = false;
  bool dump_inputs = false;
  bool pce_readonly = false;
  bool keep_going = false;
  std::string pce_cache_dir;
  bool json = false;
  bool dry_run = false;
  std::string shard;  // --shard K/N|auto; empty: every input
  // --shard-count N: the Kubernetes Job's completions, with --shard auto.
  std::optional<unsigned> shard_count;
  bool skip_existing = false;
  std::string metrics_file;
  // --metrics-label KEY=VALUE, each checked by metrics_label_validator.
  std::vector<std::string> metrics_labels;
  double progress_interval_s = 30;           // a log line every half minute: a 32GiB partition takes minutes
  std::optional<double> gpu_price_per_hour;  // USD; the report adds the run's and each proof's cost
  bool update_files = false;                 // some inputs are update (SnapDeals) input files (choose_kind)
};

void write_text_atomic(const std::string& path, const std::string& text) {
  io::write_file_atomic(path, {reinterpret_cast<const std::uint8_t*>(text.data()), text.size()});
}

void write_report(const std::string& path, const job::RunReport& report) {
  bool yaml = path.ends_with(".yaml") || path.ends_with(".yml");
  write_text_atomic(path, yaml ? job::to_yaml(report) : job::to_json(report));
}

// On a terminal, log lines first erase the live progress line and then draw it
// again below them.
class ProgressAwareSink : public spdlog::sinks::sink {
 public:
  ProgressAwareSink(spdlog::sink_ptr inner, job::ProgressReporter& progress)
      : inner_(std::move(inner)), progress_(progress) {}
  void log(const spdlog::details::log_msg& msg) override {
    progress_.suspend();
    inner_->log(msg);
    inner_->flush();
    progress_.resume();
  }
  void flush() override { inner_->flush(); }
  void set_pattern(const std::string& pattern) override { inner_->set_pattern(pattern); }
  void set_formatter(std::unique_ptr<spdlog::formatter> formatter) override {
    inner_->set_formatter(std::move(formatter));
  }

 private:
  spdlog::sink_ptr inner_;
  job::ProgressReporter& progress_;
};

// Swaps the default logger's sinks for progress-aware ones for the life of the
// run.
class LiveLineLogging {
 public:
  explicit LiveLineLogging(job::ProgressReporter& progress) {
    if (progress.style() != job::ProgressReporter::Style::kLiveLine) return;
    logger_ = spdlog::default_logger();
    saved_ = logger_->sinks();
    for (auto& sink : logger_->sinks()) sink = std::make_shared<ProgressAwareSink>(sink, progress);
  }
  ~LiveLineLogging() {
    if (logger_) logger_->sinks() = saved_;
  }
  LiveLineLogging(const LiveLineLogging&) = delete;
  LiveLineLogging& operator=(const LiveLineLogging&) = delete;

 private:
  std::shared_ptr<spdlog::logger> logger_;
  std::vector<spdlog::sink_ptr> saved_;
};

double unix_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// One `cuzk prove` run: the job's options from the flags, its callbacks
// (progress, result lines, the failure that ends a run) and the two endings, a
// finished run (--keep-going failures included) and a run that stopped.
// Records, report and metrics are written in both.
class ProveRun {
 public:
  explicit ProveRun(const ProveFlags& f)
      : f_(f),
        inputs_(f.job.c1_files.size()),
        progress_(
            job::progress_style_for(stderr, !spdlog::should_log(spdlog::level::info)), stderr,
            [](const std::string& line) { spdlog::info("progress: {}", line); }, f.progress_interval_s),
        live_logging_(progress_) {}

  void run() {
    started_utc_ = job::utc_now();
    const StopOnSignals
        stop_on_signals;  // SIGINT, SIGTERM: stop at the next safe point, report, exit 130/143
    job::ProveOptions options = options_from_flags();
    options.stop_requested = &StopOnSignals::requested();
    PhaseTimer run_timer;
    progress_.begin("proving", 0, "partitions");
    progress_.start_ticker(1);  // heartbeat: the live line's clock, and log
                                // lines during long partitions
    job::RunReport report;
    try {
      // Output paths first: a report or metrics file that cannot be written is found before hours of
      // proving, and the run ends with its records like any other failure.
      if (!f_.report.empty()) io::check_output_file(f_.report);
      if (!f_.metrics_file.empty()) io::check_output_file(f_.metrics_file);
      // Inside the try: a --gpu without a usable GPU is a failed run with its
      // records and metrics too.
      apply_job_flags(f_.job, options);
      // The metrics name the GPU the engines prove on (the config's first device) and every device's UUID;
      // where one is not visible the job refuses the run next.
      if (const job::EngineDevices devices = job::find_devices(options.engine); !devices.found.empty()) {
        gpu_name_ = devices.found.front().name;
        gpu_uuids_.clear();
        for (const gpu::DeviceInfo& d : devices.found)
          if (std::find(gpu_uuids_.begin(), gpu_uuids_.end(), d.uuid) == gpu_uuids_.end())
            gpu_uuids_.push_back(d.uuid);
      }
      report = f_.update_files ? job::prove_input_files(f_.job.c1_files, options)
                               : job::prove_c1_files(f_.job.c1_files, options);
    } catch (...) {
      progress_.finish();
      end_stopped_run(options, run_timer);
    }
    progress_.finish();
    end_finished_run(report);
  }

 private:
  job::ProveOptions options_from_flags() {
    job::ProveOptions options;
    options.output_dir = f_.output_dir;
    options.verify = !f_.no_verify;
    options.check_circuit = f_.check;
    options.dump_public_inputs = f_.dump_inputs;
    options.pce_readonly = f_.pce_readonly;
    options.pce_cache_dir = f_.pce_cache_dir;
    options.keep_going = f_.keep_going;
    options.skip_existing = f_.skip_existing;
    options.gpu_price_per_hour = f_.gpu_price_per_hour;
    options.already_proven = [this](const job::AlreadyProven& s) { on_already_proven(s); };
    if (f_.no_verify) spdlog::warn("--no-verify: proofs are written without being verified first");
    options.progress = [this](const std::string& m) { on_step(m); };
    options.inputs_checked = [this](const std::map<std::string, unsigned>& partitions_by_c1) {
      on_inputs_checked(partitions_by_c1);
    };
    options.partition_proven = [this](const std::string& c1, unsigned, unsigned partitions) {
      on_partition_proven(c1, partitions);
    };
    options.sector_done = [this](const job::SectorReport& s) { on_sector_done(s); };
    // Without --keep-going the job's failure records name the input that ended
    // the run (the exception alone does not: the up-front checks may refuse the
    // fifth input before the first is proven).
    options.sector_failed = [this](const job::SectorFailure& failure) {
      if (!first_failure_ || failure.input_index < first_failure_->input_index) first_failure_ = failure;
      on_sector_failed(failure.c1_path);
    };
    return options;
  }

  bool live() const { return progress_.style() == job::ProgressReporter::Style::kLiveLine; }

  void on_step(const std::string& message) {
    if (message.starts_with("parsing ")) ++sectors_started_;
    // The step shows on the live line and at the end of each progress log line; in a log it is also a line
    // of its own.
    // (The up-front checks go over every input before the first sector starts.)
    progress_.set_detail(message.starts_with("checking ")
                             ? message
                             : fmt::format("sector {}/{}: {}",
                                           std::max<std::size_t>(sectors_started_.load(), 1), inputs_,
                                           message));
    if (live())
      spdlog::debug("{}", message);
    else
      spdlog::info("{}", message);
  }

  // The total is every checked input's partitions, known before the first synthesis.
  void on_inputs_checked(const std::map<std::string, unsigned>& partitions_by_c1) {
    std::lock_guard lock(counts_mutex_);
    partitions_of_ = partitions_by_c1;
    totals_known_ = true;
    progress_.set_total(total_locked());
  }

  void on_partition_proven(const std::string& c1, unsigned partitions) {
    std::lock_guard lock(counts_mutex_);
    partitions_of_[c1] = partitions;
    ++proven_of_[c1];
    progress_.set_total(total_locked());
    progress_.update(++partitions_done_);
  }

  // A failed sector's partitions not proven leave the total: the ETA is that of the work still to do.
  void on_sector_failed(const std::string& c1) {
    std::lock_guard lock(counts_mutex_);
    failed_.insert(c1);
    progress_.set_total(total_locked());
  }

  std::uint64_t total_locked() const {
    std::uint64_t total = 0;
    for (const auto& [path, n] : partitions_of_) {
      auto proven = proven_of_.find(path);
      total += failed_.contains(path) ? (proven == proven_of_.end() ? 0 : proven->second) : n;
    }
    // Before the checks are done, inputs not parsed yet are counted with the last sector's partitions (a run
    // is usually one size).
    if (!totals_known_ && !partitions_of_.empty())
      total +=
          std::uint64_t(inputs_ - std::min(inputs_, partitions_of_.size())) * partitions_of_.rbegin()->second;
    return total;
  }

  void on_sector_done(const job::SectorReport& s) {
    done_.push_back(s);
    // Result lines as each sector is written: a script can move the proof on
    // while the next is proven.
    // On a terminal the live line is erased first (stdout and stderr share the screen), so that a result line
    // copied from it is the result alone, and drawn again after.
    progress_.suspend();
    if (f_.json)
      std::printf("%s\n", proven_record(s).c_str());
    else
      std::printf("%s %s\n", s.sector.c_str(), s.proof_hex.c_str());
    std::fflush(stdout);
    progress_.resume();
    spdlog::info("{}: {} partition(s) of {} proven in {:.2f} s{} -> {}", s.c1_path, s.partitions,
                 s.proof_type, s.total.wall_s, s.verified ? ", verified" : "", s.proof_path);
    for (const auto& [phase, t] : s.phases)
      spdlog::info("  {:<14} wall {:8.3f} s  cpu {:8.3f} s", phase, t.wall_s, t.cpu_s);
  }

  // Found by the up-front checks, before any sector is proven: its line or record now, as a proven one's.
  void on_already_proven(const job::AlreadyProven& s) {
    already_proven_.push_back(s);
    progress_.suspend();
    if (f_.json)
      std::printf("%s\n", already_proven_record(s).c_str());
    else
      std::printf("%s %s\n", s.sector.c_str(), s.proof_hex.c_str());
    std::fflush(stdout);
    progress_.resume();  // the job's progress message has logged it
  }

  unsigned partitions_of(const std::string& c1) {
    std::lock_guard lock(counts_mutex_);
    auto it = partitions_of_.find(c1);
    return it == partitions_of_.end() ? 0 : it->second;
  }

  void write_metrics(const job::RunReport& report, job::RunOutcome& outcome) const {
    outcome.gpu_name = gpu_name_;
    outcome.gpu_uuids = gpu_uuids_;
    for (const std::string& label : f_.metrics_labels) {
      const std::size_t equals = label.find('=');
      outcome.labels.emplace_back(label.substr(0, equals), label.substr(equals + 1));
    }
    outcome.finished_unix_s = unix_now();
    if (!f_.metrics_file.empty())
      write_text_atomic(f_.metrics_file, job::prometheus_metrics(report, outcome));
  }

  // The run stopped at an error (called inside the catch block): the error of
  // the input that ended it logged, its record, exit code and message agreeing;
  // records for the inputs not proven; metrics.
  [[noreturn]] void end_stopped_run(const job::ProveOptions& options, const PhaseTimer& run_timer) {
    ReportedError error;
    std::size_t failed = 0;
    if (first_failure_) {
      failed = first_failure_->input_index;
      try {
        std::rethrow_exception(first_failure_->error);
      } catch (...) {
        error = report_current_exception();
      }
    } else {
      // Before any input was looked at (an unusable output folder, --gpu
      // without a GPU): the first input not proven takes the error.
      error = report_current_exception();
      failed = std::min(done_.size(), inputs_);
    }
    std::set<std::string> proven;
    for (const auto& s : done_) proven.insert(s.c1_path);
    for (const auto& s : already_proven_) proven.insert(s.c1_path);
    // With --keep-going no input is skipped (docs/json-results.md): an error that stops the run fails
    // every input not proven, with that error (a missing GPU fails them all). So does a signal: none was
    // passed over for another's error.
    const bool interrupted = error.exit_code == kInterrupted || error.exit_code == kTerminated;
    job::RunOutcome outcome;
    for (std::size_t i = 0; i < inputs_; ++i) {
      const std::string& c1 = f_.job.c1_files[i];
      if (proven.contains(c1)) continue;
      if (i == failed || f_.keep_going || interrupted) {
        if (f_.json) std::printf("%s\n", failed_record(c1, error).c_str());
        ++outcome.sectors_failed;
        ++outcome.failed_by_kind[error.kind];
        outcome.partitions_failed += partitions_of(c1);
      } else {
        if (f_.json) std::printf("%s\n", skipped_record(c1, error.exit_code).c_str());
        ++outcome.sectors_skipped;
      }
    }
    std::fflush(stdout);
    job::RunReport partial;
    partial.engine = options.engine.name();
    partial.engine_config = options.engine;
    partial.sectors = done_;
    partial.already_proven = already_proven_;
    partial.total = run_timer.elapsed();
    partial.peak_rss_bytes = peak_rss_bytes();
    outcome.success = false;
    try {
      write_metrics(partial, outcome);
    } catch (const std::exception& e) {
      spdlog::error("{}", e.what());
    }
    throw CLI::RuntimeError(error.exit_code);  // already reported
  }

  // The run finished: the shared phases and peaks logged; each failed sector
  // (--keep-going) logged with its exit code, for the report and the run's, and
  // with --json a "failed" record after the proven ones; report and metrics
  // written. Throws the first failure's exit code if a sector failed.
  void end_finished_run(job::RunReport& report) {
    spdlog::info("engine {}", job::describe(report.engine_config));
    for (const auto& [phase, t] : report.shared_phases)
      spdlog::info("shared {:<14} wall {:8.3f} s  cpu {:8.3f} s", phase, t.wall_s, t.cpu_s);
    auto mib = [](std::uint64_t bytes) { return static_cast<double>(bytes) / (1 << 20); };
    spdlog::info(
        "peak RSS {:.1f} MiB (anonymous {:.1f} MiB, file-backed "
        "{:.1f} MiB), peak device {:.1f} MiB, total "
        "{:.2f} s",
        mib(report.peak_rss_bytes), mib(report.peak_anon_bytes), mib(report.peak_file_bytes),
        mib(report.peak_device_bytes), report.total.wall_s);
    if (report.gpu.energy_joules && !report.sectors.empty())
      spdlog::info("GPU busy {} (steady state), energy {:.0f} J ({:.0f} J per proof), average {:.0f} W",
                   report.gpu.busy_steady ? fmt::format("{:.1f}%", 100 * *report.gpu.busy_steady) : "-",
                   *report.gpu.energy_joules, *report.gpu.energy_joules / double(report.sectors.size()),
                   report.gpu.average_watts.value_or(0));
    job::RunOutcome outcome;
    for (auto& failure : report.failures) {
      ReportedError error;
      try {
        std::rethrow_exception(failure.error);
      } catch (...) {
        error = report_current_exception();
      }
      failure.exit_code = error.exit_code;
      failure.kind = error.kind;
      error.message = failure.message;
      if (f_.json) std::printf("%s\n", failed_record(failure.c1_path, error).c_str());
      ++outcome.sectors_failed;
      ++outcome.failed_by_kind[error.kind];
      outcome.partitions_failed += partitions_of(failure.c1_path);
    }
    std::fflush(stdout);
    // The metrics are written even when the report cannot be (its error is the run's, after them).
    std::exception_ptr report_error;
    try {
      report.context = report_context_json(started_utc_, f_.job.gpu);
      if (!f_.report.empty()) write_report(f_.report, report);
    } catch (...) {
      report_error = std::current_exception();
    }
    if (!report.already_proven.empty())
      spdlog::info("{} sector(s) proven, {} already proven (--skip-existing)", report.sectors.size(),
                   report.already_proven.size());
    outcome.success = report.failures.empty() && !report_error;
    if (report.peak_device_bytes) outcome.gpu_memory_used_bytes = report.peak_device_bytes;
    write_metrics(report, outcome);
    if (report_error) std::rethrow_exception(report_error);
    if (!report.failures.empty()) {
      spdlog::error("{} of {} sector(s) failed; {} proven", report.failures.size(), inputs_,
                    report.sectors.size());
      for (const auto& failure : report.failures)
        spdlog::error("  {} ({}): exit {}", failure.c1_path, failure.stage, failure.exit_code);
      throw CLI::RuntimeError(report.failures.front().exit_code);
    }
  }

  const ProveFlags& f_;
  const std::size_t inputs_;
  job::ProgressReporter progress_;  // over the partitions of the run (--quiet or
                                    // a level above info: none)
  LiveLineLogging live_logging_;
  std::mutex counts_mutex_;
  std::map<std::string, unsigned> partitions_of_;  // inputs whose partition count is known
  std::map<std::string, unsigned> proven_of_;      // partitions proven per input
  std::set<std::string> failed_;                   // inputs that failed
  bool totals_known_ = false;                      // every checked input is in partitions_of_
  std::string started_utc_;                        // the run's start, for its report
  std::uint64_t partitions_done_ = 0;
  std::atomic<std::size_t> sectors_started_ = 0;  // read by both stages' threads
  std::vector<job::SectorReport> done_;
  std::vector<job::AlreadyProven> already_proven_;  // --skip-existing: found by the up-front checks
  std::optional<job::SectorFailure> first_failure_;
  std::string gpu_name_;
  std::vector<std::string> gpu_uuids_;
};

// `cuzk prove --dry-run`: the up-front checks and the memory plans, printed; nothing is made, proven or
// written, and neither the parameters nor a GPU are needed. Exit 0 when the plans fit, 8 when one does not.
void run_dry(const ProveFlags& f, const std::optional<job::Shard>& shard) {
  if (!f.report.empty()) io::check_output_file(f.report);
  if (!f.metrics_file.empty()) io::check_output_file(f.metrics_file);
  job::ProveOptions options;
  options.output_dir = f.output_dir;
  options.verify = !f.no_verify;
  options.dump_public_inputs = f.dump_inputs;
  options.pce_cache_dir = f.pce_cache_dir;
  options.skip_existing = f.skip_existing;
  apply_job_flags(f.job, options);
  const job::RunPlan plan = job::plan_input_files(f.job.c1_files, options);
  print_dry_run(plan, shard, f.json);
  std::fflush(stdout);
  if (!plan.fits()) throw job::JobError(job::JobError::Kind::kInsufficientMemory, plan.memory->shortfall());
}

// --metrics-label KEY=VALUE: a Prometheus label for every series of the metrics file (job/metrics.hpp).
CLI::Validator metrics_label_validator() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const std::size_t equals = text.find('=');
        if (equals == std::string::npos) return "expected KEY=VALUE, got " + io::quote_for_message(text);
        return job::metrics_label_problem(text.substr(0, equals), text.substr(equals + 1));
      },
      "KEY=VALUE");
}

void check_metrics_labels(const ProveFlags& f) {
  std::set<std::string> names;
  for (const std::string& label : f.metrics_labels)
    if (!names.insert(label.substr(0, label.find('='))).second)
      throw CLI::ValidationError("--metrics-label",
                                 "label " + label.substr(0, label.find('=')) + " given twice");
}

// --shard: this process's slice, or none (every input). A K/N or a scheduler's variable that names no slice
// is a usage error before any work, naming the flag or the variable.
std::optional<job::Shard> choose_shard(const ProveFlags& f) {
  if (f.shard_count && f.shard != "auto")
    throw CLI::ValidationError("--shard-count",
                               "only with --shard auto (--shard K/N gives the count itself)");
  if (f.shard.empty()) return std::nullopt;
  if (f.shard != "auto") {
    const job::ShardChoice choice = job::parse_shard(f.shard);
    if (!choice.problem.empty()) throw CLI::ValidationError("--shard", choice.problem);
    return choice.shard;
  }
  const auto getenv = [](const char* name) {
    const char* value = std::getenv(name);
    return std::string(value ? value : "");
  };
  const job::ShardChoice choice = job::shard_from_environment(getenv, f.shard_count);
  if (!choice.problem.empty()) throw CLI::ValidationError("--shard auto", choice.problem);
  spdlog::info("--shard auto: {}", choice.source);
  return choice.shard;
}

// The shard's inputs, in the order given (job/shard.hpp: by sector, so every process agrees).
std::vector<std::string> shard_inputs(const ProveFlags& f, job::Shard shard) {
  const std::vector<std::string>& all = f.job.c1_files;
  const job::ProveOptions::ProofNaming naming = f.job.name_by == "stem"
                                                    ? job::ProveOptions::ProofNaming::kFileStem
                                                    : job::ProveOptions::ProofNaming::kSectorNumber;
  std::vector<std::string> mine;
  for (std::size_t i : job::shard_slice(job::shard_keys(all, naming), shard)) mine.push_back(all[i]);
  if (mine.empty())
    spdlog::info("shard {}/{}: none of the {} input(s) falls in this slice: nothing to prove", shard.index,
                 shard.count, all.size());
  else
    spdlog::info("shard {}/{}: {} of the {} input(s)", shard.index, shard.count, mine.size(), all.size());
  return mine;
}

// Whether any input is an update input file (job::is_update_input_file). Update inputs are proven by
// job/update_prove.hpp on the run's engine (the CPU's, or with --gpu one GPU's), synthesis and proving in two
// stages, alone or beside C1 files (job::prove_input_files): the flags that path does not take are usage
// errors before any work, in a mixed run too (never a silent CPU run, never a flag ignored).
bool choose_kind(const ProveFlags& f) {
  std::size_t updates = 0;
  for (const std::string& path : f.job.c1_files) updates += job::is_update_input_file(path) ? 1 : 0;
  if (updates == 0) return false;
  const bool several_devices = f.job.devices == "all" || f.job.devices.find(',') != std::string::npos;
  for (const auto& [flag, given] : {std::pair{"--devices", several_devices},
                                    {"--check", f.check},
                                    {"--no-pce", f.job.no_pce},
                                    {"--cpu-engines", f.job.cpu_engines != 1},
                                    {"--name-by", f.job.name_by != "sector"}})
    if (given)
      throw CLI::ValidationError(flag, "not supported yet for update (SnapDeals) input files (" +
                                           std::to_string(updates) + " of the " +
                                           std::to_string(f.job.c1_files.size()) +
                                           " inputs): they are proven on one engine");
  return true;
}

void run_prove(const ProveFlags& given) {
  ProveFlags f = given;
  f.update_files = choose_kind(f);
  check_metrics_labels(f);
  const std::optional<job::Shard> shard = choose_shard(f);
  ProveFlags sliced = f;
  if (shard) sliced.job.c1_files = shard_inputs(f, *shard);
  if (f.dry_run)
    run_dry(sliced, shard);
  else
    ProveRun(sliced).run();
}

// The footer of `cuzk prove --help`.
constexpr const char* kProveExamples = R"(Examples:
  $ cuzk prove c1.json -o proofs/ --gpu
  $ cuzk prove c1/*.json -o proofs/ --gpu --json --keep-going --metrics-file cuzk.prom
  $ cuzk prove c1/*.json -o proofs/ --gpu --gpu-memory 22GiB --dry-run
  $ cuzk prove c1/*.json -o /shared/proofs --gpu --shard auto --skip-existing   # in a Slurm array
  $ cuzk prove c1.json --test-randomness 1 --report report.json    # reproducible: tests only
  $ cuzk prove u.json -o proofs/ --gpu --json   # a SnapDeals update input file
  $ cuzk prove u.json c1.json -o proofs/   # update and C1 files in one run)";

}  // namespace

void register_prove_commands(CLI::App& app) {
  auto pf = std::make_shared<ProveFlags>();
  CLI::App* prove = app.add_subcommand(
      "prove", "Prove C1 output files, or SnapDeals update input files: write <sector>.proof per sector");
  CLI::Option* no_pce = add_job_flags(prove, pf->job);
  // Short help texts (cli/help_format.hpp); docs/commands.md says what each flag does in full.
  prove->add_option("-o,--output-dir", pf->output_dir, "where <sector>.proof files are written")
      ->check(CLI::Validator(
          [](std::string& dir) {
            return dir.empty() ? std::string("the output directory is an empty path") : "";
          },
          "DIR"))
      ->capture_default_str()
      ->group(kInputsOutputsGroup);
  prove->add_option("--report", pf->report, "write the timing report here (.json, or .yaml/.yml)")
      ->group(kInputsOutputsGroup);
  prove
      ->add_flag("--dump-public-inputs", pf->dump_inputs,
                 "also write <sector>.inputs.json (public inputs, for other verifiers)")
      ->group(kInputsOutputsGroup);
  prove
      ->add_option("--pce-cache-dir", pf->pce_cache_dir,
                   "constraint cache directory (default: $CUZK_PCE_CACHE, else <params dir>/pce)")
      ->excludes(no_pce)
      ->group(kInputsOutputsGroup);
  prove->add_flag("--json", pf->json, "one JSON record per input on stdout (docs/json-results.md)")
      ->group(kScriptingGroup);
  prove
      ->add_flag("--keep-going", pf->keep_going,
                 "prove every sector that can be; exit with the first failure's code")
      ->group(kScriptingGroup);
  prove
      ->add_flag("--dry-run", pf->dry_run,
                 "check the inputs, print the sectors and the memory plans; prove nothing")
      ->group(kScriptingGroup);
  prove
      ->add_option("--shard", pf->shard,
                   "prove slice K (from 0) of N of the sectors; auto: from Slurm or Kubernetes")
      ->type_name("K/N|auto")
      ->group(kScriptingGroup);
  prove
      ->add_option("--shard-count", pf->shard_count,
                   "N for --shard auto under JOB_COMPLETION_INDEX: the Kubernetes Job's completions")
      ->check(CLI::Range(1u, job::kMaxShards))
      ->type_name("N")
      ->group(kScriptingGroup);
  prove
      ->add_flag("--skip-existing", pf->skip_existing,
                 "skip a sector whose proof file verifies; set aside one that does not, and prove it")
      ->group(kScriptingGroup);
  CLI::Option* metrics_file =
      prove
          ->add_option("--metrics-file", pf->metrics_file,
                       "write the run's Prometheus metrics here (textfile collector), failed runs too")
          ->group(kScriptingGroup);
  prove
      ->add_option("--metrics-label", pf->metrics_labels,
                   "a label on every metric, e.g. slot=gpu0 (repeatable)")
      ->allow_extra_args(false)  // one label per --metrics-label: the C1 files that follow are not labels
      ->check(metrics_label_validator())
      ->needs(metrics_file)
      ->group(kScriptingGroup);
  prove
      ->add_option("--progress-interval", pf->progress_interval_s,
                   "seconds between progress log lines when stderr is not a terminal (on a terminal, one "
                   "under 0.1 redraws the live line at every step)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber)
      ->group(kScriptingGroup);
  prove
      ->add_option("--gpu-price-per-hour", pf->gpu_price_per_hour,
                   "USD per GPU hour: the report adds the run's and each proof's cost")
      ->check(CLI::NonNegativeNumber)
      ->group(kGpuGroup);
  prove->add_flag("--check", pf->check, "check every constraint first; name the first unsatisfied one")
      ->group(kTuningGroup);
  prove->add_flag("--no-verify", pf->no_verify, "skip verifying each proof before writing it")
      ->group(kTuningGroup);
  prove->add_flag("--pce-readonly", pf->pce_readonly, "never build or rebuild a constraint cache (exit 9)")
      ->excludes(no_pce)
      ->group(kTuningGroup);
  prove->footer(kProveExamples);
  prove->callback([pf] { run_prove(*pf); });
}

}  // namespace cuzk::cli
