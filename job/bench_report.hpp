// `cuzk bench`'s statistics and report (docs/formats.md, "Bench reports"): the counted runs of the prove
// job summarized per phase, throughput from the median run, and the JSON document that `cuzk compare`
// reads back (job/timing_report.hpp). The CLI runs the job and prints; everything computed is here.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "job/phase_order.hpp"
#include "job/prove.hpp"
#include "job/timing_report.hpp"

namespace cuzk::job {

// The format tag read_timing_report recognizes bench reports by.
inline constexpr const char* kBenchFormat = "cuzk-bench-1";

struct BenchSummary {
  unsigned warmup_runs = 0;
  unsigned repetitions = 0;          // counted runs
  unsigned sectors = 0;              // per run
  unsigned partitions = 0;           // per run
  std::uint64_t peak_rss_bytes = 0;  // over every run, warm-up included
  PhaseMap<PhaseStats> phases;       // every phase of phase_walls, "total" included
  // The GPU energy per proven sector of each counted run that measured it (job/gpu_meter.hpp), joules in
  // PhaseStats' fields; none when no run did (the CPU engine, no NVML).
  std::optional<PhaseStats> energy_joules_per_sector;

  // Phase names in report order: the order they run (job/phase_order.hpp), "total" last.
  std::vector<std::string> phase_order() const;
  // From the median total wall time; 0 when there is none.
  double sectors_per_hour() const;
  double partitions_per_hour() const;
};

// Collects the runs of a bench, warm-up runs first (they count only towards the peak memory).
class BenchRecorder {
 public:
  explicit BenchRecorder(unsigned warmup_runs) : warmup_runs_(warmup_runs) {}
  void add_run(const RunReport& run);
  BenchSummary summary() const;

 private:
  unsigned warmup_runs_;
  unsigned runs_ = 0;
  unsigned sectors_ = 0, partitions_ = 0;
  std::uint64_t peak_rss_ = 0;
  PhaseMap<std::vector<double>> samples_;
  std::vector<double> energy_joules_per_sector_;
};

// What the report records besides the statistics: when, which build, which machine, which inputs.
struct BenchContext {
  std::string date;     // UTC, ISO 8601
  std::string version;  // cuzk's
  std::string commit;
  nlohmann::json system = nlohmann::json::object();  // cpu_model, hardware_threads, memory_bytes, cuda, gpus
  std::vector<std::string> inputs;
  const ProveOptions* options = nullptr;
};

// Keys, and the phases, in the order written.
nlohmann::ordered_json bench_report_json(const BenchSummary& summary, const BenchContext& context);

// The environment variables that change what a run does (recorded as lotus-bench records its own).
nlohmann::json bench_environment_json();

// This machine: host name, CPU model (/proc/cpuinfo), hardware threads, memory and load average; the caller
// adds cuda and gpus.
nlohmann::json machine_json();

// The current time in UTC, e.g. "2026-12-01T14:12:00Z".
std::string utc_now();

}  // namespace cuzk::job
