#include "job/bench_report.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <thread>

namespace cuzk::job {

std::vector<std::string> BenchSummary::phase_order() const {
  std::vector<std::string> names;
  for (const auto& [name, stats] : phases)
    if (name != "total") names.push_back(name);
  if (phases.count("total")) names.push_back("total");
  return names;
}

double BenchSummary::sectors_per_hour() const {
  auto it = phases.find("total");
  return it != phases.end() && it->second.median_s > 0 ? 3600.0 / it->second.median_s * sectors : 0.0;
}

double BenchSummary::partitions_per_hour() const {
  auto it = phases.find("total");
  return it != phases.end() && it->second.median_s > 0 ? 3600.0 / it->second.median_s * partitions : 0.0;
}

void BenchRecorder::add_run(const RunReport& run) {
  peak_rss_ = std::max(peak_rss_, run.peak_rss_bytes);
  sectors_ = static_cast<unsigned>(run.sectors.size());
  partitions_ = 0;
  for (const auto& s : run.sectors) partitions_ += s.partitions;
  if (runs_++ < warmup_runs_) return;
  for (const auto& [phase, wall] : phase_walls(run)) samples_[phase].push_back(wall);
  if (const std::optional<double> joules = energy_joules_per_sector(run))
    energy_joules_per_sector_.push_back(*joules);
}

BenchSummary BenchRecorder::summary() const {
  BenchSummary s;
  s.warmup_runs = std::min(runs_, warmup_runs_);
  s.repetitions = runs_ - s.warmup_runs;
  s.sectors = sectors_;
  s.partitions = partitions_;
  s.peak_rss_bytes = peak_rss_;
  for (const auto& [phase, values] : samples_) s.phases[phase] = phase_stats(values);
  if (!energy_joules_per_sector_.empty()) s.energy_joules_per_sector = phase_stats(energy_joules_per_sector_);
  return s;
}

nlohmann::ordered_json bench_report_json(const BenchSummary& summary, const BenchContext& context) {
  nlohmann::ordered_json j;
  j["tool"] = "cuzk";
  j["format"] = kBenchFormat;
  j["date"] = context.date;
  j["version"] = context.version;
  j["commit"] = context.commit;
  j["system"] = context.system;
  j["environment"] = bench_environment_json();
  j["inputs"] = context.inputs;
  if (context.options) {
    const ProveOptions& o = *context.options;
    j["options"] = {{"pce", o.use_pce},
                    {"engine", o.engine.name()},
                    {"overlap", o.overlap},
                    {"threads", o.threads},
                    {"params_dir", o.params_dir}};
  }
  j["warmup_runs"] = summary.warmup_runs;
  j["repetitions"] = summary.repetitions;
  j["sectors"] = summary.sectors;
  j["partitions"] = summary.partitions;
  nlohmann::ordered_json phases = nlohmann::ordered_json::object();
  for (const auto& [name, s] : summary.phases)
    phases[name] = {{"median_s", s.median_s}, {"min_s", s.min_s},       {"max_s", s.max_s},
                    {"mean_s", s.mean_s},     {"stddev_s", s.stddev_s}, {"samples_s", s.samples_s}};
  j["phases"] = phases;
  j["throughput"] = {{"sectors_per_hour", summary.sectors_per_hour()},
                     {"partitions_per_hour", summary.partitions_per_hour()}};
  j["peak_rss_bytes"] = summary.peak_rss_bytes;
  if (const auto& e = summary.energy_joules_per_sector)
    j["energy_joules_per_sector"] = {{"median", e->median_s}, {"min", e->min_s},
                                     {"max", e->max_s},       {"mean", e->mean_s},
                                     {"stddev", e->stddev_s}, {"samples", e->samples_s}};
  return j;
}

nlohmann::json bench_environment_json() {
  nlohmann::json env = nlohmann::json::object();
  for (const char* name : {"FIL_PROOFS_PARAMETER_CACHE", "CUZK_PCE_CACHE", "CUDA_VISIBLE_DEVICES", "CUZK_LOG",
                           "OMP_NUM_THREADS", "CUZK_NVML_LIBRARY"})
    if (const char* value = std::getenv(name)) env[name] = value;
  return env;
}

namespace {

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

}  // namespace

nlohmann::json machine_json() {
  const long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGE_SIZE);
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0) host[0] = 0;
  nlohmann::json j = {
      {"host", std::string(host)},
      {"cpu_model", cpu_model()},
      {"hardware_threads", std::thread::hardware_concurrency()},
      {"memory_bytes", pages > 0 && page_size > 0 ? std::uint64_t(pages) * std::uint64_t(page_size) : 0}};
  // The 1, 5 and 15 minute load averages when the report was made: a busy host explains a slow run.
  double load[3] = {0, 0, 0};
  if (getloadavg(load, 3) == 3) j["load_average"] = {load[0], load[1], load[2]};
  return j;
}

std::string utc_now() {
  std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace cuzk::job
