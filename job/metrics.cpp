#include "job/metrics.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <string_view>
#include <vector>

#include "job/timing_report.hpp"

namespace cuzk::job {

std::string prometheus_label_escape(const std::string& value) {
  std::string out;
  for (char c : value) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

namespace {

// The labels cuzk puts on its series itself: the operator's may not take their names.
constexpr std::array<std::string_view, 9> kOwnLabels = {"engine", "gpu",  "gpu_uuid", "phase", "parent",
                                                        "result", "kind", "lane",     "device"};

bool is_label_name(std::string_view name) {
  const auto letter = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  if (name.empty() || !letter(name.front())) return false;
  return std::all_of(name.begin(), name.end(), [&](char c) { return letter(c) || (c >= '0' && c <= '9'); });
}

// Well-formed UTF-8: no stray continuation byte, no overlong form, no surrogate, nothing above U+10FFFF.
bool is_utf8(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    const auto byte = static_cast<unsigned char>(text[i]);
    const std::size_t length = byte < 0x80           ? 1
                               : (byte >> 5) == 0x6  ? 2
                               : (byte >> 4) == 0xe  ? 3
                               : (byte >> 3) == 0x1e ? 4
                                                     : 0;
    if (length == 0 || i + length > text.size()) return false;
    std::uint32_t code = length == 1 ? byte : byte & (0x7f >> length);
    for (std::size_t k = 1; k < length; ++k) {
      const auto next = static_cast<unsigned char>(text[i + k]);
      if ((next & 0xc0) != 0x80) return false;
      code = (code << 6) | (next & 0x3f);
    }
    constexpr std::uint32_t kShortest[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (code < kShortest[length] || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return false;
    i += length;
  }
  return true;
}

// A phase measured inside another one (prove's parts: prove.h, prove.msm_g1, prove.msm_g2) names its
// parent; a top-level phase none. cuzk_phase_seconds holds the top-level ones only, so that its sum is the
// time of the phases, each counted once.
std::string_view parent_phase(std::string_view phase) {
  return phase.starts_with("prove.") ? std::string_view("prove") : std::string_view();
}

// Values as Go's strconv.ParseFloat reads them (what Prometheus parses): shortest round-trip decimal.
std::string number(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  return fmt::format("{}", v);
}

class Exposition {
 public:
  // The labels of every series: the engine, the GPU's name, the devices' UUIDs (only when a GPU proved),
  // then the operator's.
  Exposition(const std::string& engine, const RunOutcome& outcome)
      : common_(fmt::format("engine=\"{}\",gpu=\"{}\"", prometheus_label_escape(engine),
                            prometheus_label_escape(outcome.gpu_name))) {
    if (!outcome.gpu_uuids.empty())
      common_ += fmt::format(",gpu_uuid=\"{}\"",
                             prometheus_label_escape(fmt::format("{}", fmt::join(outcome.gpu_uuids, ","))));
    for (const auto& [name, value] : outcome.labels)
      common_ += fmt::format(",{}=\"{}\"", name, prometheus_label_escape(value));
  }

  void family(const std::string& name, const std::string& help) {
    // HELP text escapes backslash and newline (the exposition format's rules for HELP).
    std::string escaped;
    for (char c : help) escaped += c == '\\' ? "\\\\" : c == '\n' ? "\\n" : std::string(1, c);
    text_ += fmt::format("# HELP {} {}\n# TYPE {} gauge\n", name, escaped, name);
    name_ = name;
  }
  void sample(double value, const std::vector<std::pair<std::string, std::string>>& labels = {}) {
    std::string l;
    for (const auto& [key, v] : labels) l += fmt::format("{}=\"{}\",", key, prometheus_label_escape(v));
    text_ += fmt::format("{}{{{}{}}} {}\n", name_, l, common_, number(value));
  }
  std::string text() const { return text_; }

 private:
  std::string common_, name_, text_;
};

}  // namespace

std::string metrics_label_problem(const std::string& name, const std::string& value) {
  if (!is_label_name(name))
    return "'" + name + "' is not a Prometheus label name (letters, digits and _, not first a digit)";
  if (name.starts_with("__")) return "label names beginning with __ are reserved to Prometheus";
  if (std::find(kOwnLabels.begin(), kOwnLabels.end(), name) != kOwnLabels.end())
    return "'" + name + "' is a label cuzk sets itself";
  if (value.empty()) return "the value of '" + name + "' is empty (Prometheus reads an empty label as none)";
  if (!is_utf8(value)) return "the value of '" + name + "' is not valid UTF-8";
  return {};
}

std::string prometheus_metrics(const RunReport& report, const RunOutcome& outcome) {
  Exposition out(report.engine, outcome);
  unsigned partitions = 0;
  for (const auto& s : report.sectors) partitions += s.partitions;

  out.family("cuzk_last_run_success", "1 if the last cuzk prove run proved every input, else 0.");
  out.sample(outcome.success ? 1 : 0);
  out.family("cuzk_last_run_timestamp_seconds",
             "When the last cuzk prove run ended, seconds since the epoch.");
  out.sample(outcome.finished_unix_s);
  out.family("cuzk_last_run_seconds", "Wall-clock seconds of the last cuzk prove run.");
  out.sample(report.total.wall_s);
  const PhaseWalls walls = phase_walls(report);
  out.family("cuzk_phase_seconds",
             "Wall-clock seconds per phase in the last run, summed over its sectors (phases in run order; "
             "their parts are in cuzk_subphase_seconds).");
  for (const auto& [phase, wall] : walls)
    if (phase != "total" && parent_phase(phase).empty()) out.sample(wall, {{"phase", phase}});
  if (std::any_of(walls.begin(), walls.end(), [](const auto& w) { return !parent_phase(w.first).empty(); })) {
    out.family("cuzk_subphase_seconds",
               "Wall-clock seconds per part of a phase in the last run (prove.h, prove.msm_g1, prove.msm_g2 "
               "of prove), summed over its sectors; counted in their parent's cuzk_phase_seconds too.");
    for (const auto& [phase, wall] : walls)
      if (const std::string_view parent = parent_phase(phase); !parent.empty())
        out.sample(wall, {{"phase", phase}, {"parent", std::string(parent)}});
  }
  out.family("cuzk_sectors",
             "Sectors (proof files) of the last run by result: proven, failed, skipped (not attempted after "
             "a failure), already_proven (--skip-existing: the proof file was there and verified).");
  out.sample(double(report.sectors.size()), {{"result", "proven"}});
  out.sample(outcome.sectors_failed, {{"result", "failed"}});
  out.sample(outcome.sectors_skipped, {{"result", "skipped"}});
  out.sample(double(report.already_proven.size()), {{"result", "already_proven"}});
  if (!outcome.failed_by_kind.empty()) {
    out.family("cuzk_failed_sectors",
               "Failed sectors of the last run by error kind (the kind of their --json records).");
    for (const auto& [kind, count] : outcome.failed_by_kind) out.sample(count, {{"kind", kind}});
  }
  out.family("cuzk_partitions",
             "Partition proofs of the last run by result: proven (in written proofs), failed.");
  out.sample(partitions, {{"result", "proven"}});
  out.sample(outcome.partitions_failed, {{"result", "failed"}});
  if (report.engines.size() > 1) {
    // A lane per engine (--devices, --cpu-engines): `device` is its CUDA ordinal, empty on the CPU.
    auto lane_labels = [](const EngineReport& e) {
      return std::vector<std::pair<std::string, std::string>>{
          {"lane", std::to_string(e.lane)}, {"device", e.device ? std::to_string(*e.device) : ""}};
    };
    out.family("cuzk_engine_partitions", "Partitions each engine of the last run proved.");
    for (const EngineReport& e : report.engines) out.sample(e.partitions, lane_labels(e));
    out.family("cuzk_engine_busy_seconds", "Wall-clock seconds each engine of the last run spent proving.");
    for (const EngineReport& e : report.engines) out.sample(e.busy_s, lane_labels(e));
    out.family("cuzk_engine_busy_ratio",
               "Each engine's busy seconds over the last run's proving span (first proof's start to last "
               "proof's end).");
    for (const EngineReport& e : report.engines) out.sample(e.busy_share, lane_labels(e));
  }
  out.family("cuzk_peak_rss_bytes", "Peak resident host memory of the last run, bytes.");
  out.sample(double(report.peak_rss_bytes));
  if (outcome.gpu_memory_used_bytes) {
    out.family("cuzk_gpu_memory_used_bytes",
               "Most device memory seen in use during the last run (sampled after each partition), bytes.");
    out.sample(double(*outcome.gpu_memory_used_bytes));
  }
  // NVML's figures (job/gpu_meter.hpp): absent, never zero, when they were not measured.
  const GpuMeterFigures& gpu = report.gpu;
  if (gpu.busy_steady) {
    out.family("cuzk_gpu_busy_ratio",
               "Share of the last run's steady state (the prover lane's span) during which the GPU ran "
               "kernels, 0..1 (NVML utilization, sampled).");
    out.sample(*gpu.busy_steady);
  }
  if (gpu.busy_run) {
    out.family("cuzk_gpu_busy_run_ratio",
               "Share of the whole last run during which the GPU ran kernels, 0..1 (NVML utilization).");
    out.sample(*gpu.busy_run);
  }
  if (gpu.energy_joules) {
    out.family("cuzk_gpu_energy_joules", "GPU energy of the last run, joules (NVML's energy counter).");
    out.sample(*gpu.energy_joules);
    if (!report.sectors.empty()) {
      out.family("cuzk_gpu_energy_joules_per_proof", "GPU energy of the last run per proven sector, joules.");
      out.sample(*gpu.energy_joules / double(report.sectors.size()));
    }
  }
  if (gpu.average_watts) {
    out.family("cuzk_gpu_average_watts", "Average GPU power over the last run, watts.");
    out.sample(*gpu.average_watts);
  }
  if (const std::optional<double> per_proof = cost_per_proof_usd(report)) {
    out.family("cuzk_cost_usd_per_proof",
               "Cost of a proof in the last run: --gpu-price-per-hour times the run's wall hours over its "
               "proven sectors, USD.");
    out.sample(*per_proof);
  }
  return out.text();
}

}  // namespace cuzk::job
