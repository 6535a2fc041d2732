#include "job/run_report.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "prover/algebra/hex_bytes.hpp"

namespace cuzk::job {

namespace {

nlohmann::json timeline_json(const std::vector<TimelineEvent>& events) {
  nlohmann::json j = nlohmann::json::array();
  for (const auto& e : events)
    j.push_back({{"lane", e.lane},
                 {"step", e.step},
                 {"sector", e.sector},
                 {"partition", e.partition},
                 {"start_s", e.start_s},
                 {"end_s", e.end_s}});
  return j;
}

// The GPU's measured figures, or why there are none: absent fields, never zeros (docs/formats.md).
void add_gpu_figures(nlohmann::ordered_json& j, const GpuMeterFigures& gpu) {
  if (gpu.busy_run) {
    nlohmann::ordered_json busy = nlohmann::ordered_json::object();
    if (gpu.busy_steady) busy["steady_state"] = *gpu.busy_steady;
    busy["run"] = *gpu.busy_run;
    j["gpu_busy"] = std::move(busy);
  }
  if (gpu.energy_joules) j["energy_joules"] = *gpu.energy_joules;
  if (gpu.average_watts) j["average_watts"] = *gpu.average_watts;
  nlohmann::ordered_json metrics = nlohmann::ordered_json::object();
  if (!gpu.unavailable.empty()) {
    metrics["unavailable"] = gpu.unavailable;
  } else {
    metrics["source"] = "nvml";
    metrics["library"] = gpu.library;
    metrics["devices"] = gpu.devices;
    metrics["interval_ms"] = gpu.interval_ms;
    metrics["samples"] = gpu.samples;
    if (gpu.energy_span_s) metrics["energy_span_s"] = *gpu.energy_span_s;
    if (!gpu.busy_unavailable.empty()) metrics["busy_unavailable"] = gpu.busy_unavailable;
    if (!gpu.energy_unavailable.empty()) metrics["energy_unavailable"] = gpu.energy_unavailable;
  }
  j["gpu_metrics"] = std::move(metrics);
}

// ordered_json keeps the phases in the order they run (a plain json object sorts its keys).
nlohmann::ordered_json phases_json(const PhaseMap<PhaseTime>& phases) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (const auto& [name, t] : phases) j[name] = {{"wall_s", t.wall_s}, {"cpu_s", t.cpu_s}};
  return j;
}

}  // namespace

namespace {
constexpr double kSecondsPerHour = 3600;
}  // namespace

std::optional<double> run_cost_usd(const RunReport& report) {
  if (!report.usd_per_hour) return std::nullopt;
  return *report.usd_per_hour * report.total.wall_s / kSecondsPerHour;
}

std::optional<double> cost_per_proof_usd(const RunReport& report) {
  if (!report.usd_per_hour || report.sectors.empty()) return std::nullopt;
  return *run_cost_usd(report) / double(report.sectors.size());
}

double sector_cost_usd(const SectorReport& sector, double usd_per_hour) {
  return usd_per_hour * sector.span_s / kSecondsPerHour;
}

std::string public_inputs_json(const std::vector<std::vector<algebra::Fr>>& inputs) {
  nlohmann::json j = nlohmann::json::array();
  for (const auto& partition : inputs) {
    nlohmann::json row = nlohmann::json::array();
    for (const auto& x : partition) row.push_back(x.to_hex());
    j.push_back(std::move(row));
  }
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

namespace {

// The one description of a run report; to_json and to_yaml write it (docs/formats.md, "Run reports").
nlohmann::ordered_json report_json(const RunReport& report) {
  nlohmann::ordered_json j;
  j["tool"] = "cuzk";
  j["format"] = kProveReportFormat;
  for (const auto& [key, value] : report.context.items()) j[key] = value;
  j["engine"] = report.engine;
  j["engine_config"] = engine_config_json(report.engine_config);
  j["overlap"] = report.overlap;
  j["peak_rss_bytes"] = report.peak_rss_bytes;
  j["peak_anon_bytes"] = report.peak_anon_bytes;
  j["peak_file_bytes"] = report.peak_file_bytes;
  j["peak_device_bytes"] = report.peak_device_bytes;
  j["total"] = {{"wall_s", report.total.wall_s}, {"cpu_s", report.total.cpu_s}};
  j["shared_phases"] = phases_json(report.shared_phases);
  j["synthesis_workers"] = report.synthesis_workers;
  if (report.memory_plan) j["memory_plan"] = memory_plan_json(*report.memory_plan);
  j["timeline"] = timeline_json(report.timeline);
  // [t_s, anon_bytes, device_bytes] rows: compact, as a run of an hour has 3,600 of them.
  j["memory_series"] = nlohmann::ordered_json::array();
  for (const MemoryPoint& p : report.memory_series)
    j["memory_series"].push_back({std::round(p.t_s * 1000) / 1000, p.anon_bytes, p.device_bytes});
  // One engine: the share of its span its lane was busy; several: their mean busy share of the proving span.
  double busy = lane_utilization(report.timeline, "prover");
  if (report.engines.size() > 1) {
    busy = 0;
    for (const EngineReport& e : report.engines) busy += e.busy_share / double(report.engines.size());
  }
  j["prover_busy"] = busy;
  j["engines"] = nlohmann::ordered_json::array();
  for (const EngineReport& e : report.engines)
    j["engines"].push_back(
        {{"lane", e.lane},
         {"device", e.device ? nlohmann::ordered_json(*e.device) : nlohmann::ordered_json()},
         {"partitions", e.partitions},
         {"busy_s", e.busy_s},
         {"busy_share", e.busy_share}});
  add_gpu_figures(j, report.gpu);
  if (report.usd_per_hour) {
    nlohmann::ordered_json cost = {{"usd_per_hour", *report.usd_per_hour}, {"usd", *run_cost_usd(report)}};
    if (const std::optional<double> per_proof = cost_per_proof_usd(report))
      cost["usd_per_proof"] = *per_proof;
    j["cost"] = std::move(cost);
  }
  j["sectors"] = nlohmann::ordered_json::array();
  for (const auto& s : report.sectors) {
    nlohmann::ordered_json sector{{"c1", s.c1_path},
                                  {"sector", s.sector},
                                  {"proof_type", s.proof_type},
                                  {"partitions", s.partitions},
                                  {"proof_file", s.proof_path},
                                  {"verified", s.verified},
                                  {"total", {{"wall_s", s.total.wall_s}, {"cpu_s", s.total.cpu_s}}},
                                  {"phases", phases_json(s.phases)},
                                  {"span_s", s.span_s}};
    if (s.energy_joules) sector["energy_joules"] = *s.energy_joules;
    if (report.usd_per_hour) sector["usd"] = sector_cost_usd(s, *report.usd_per_hour);
    j["sectors"].push_back(std::move(sector));
  }
  j["failures"] = nlohmann::ordered_json::array();
  for (const auto& f : report.failures) {
    // The shape of a failed `--json` record (docs/json-results.md): one way to read a failure.
    j["failures"].push_back(
        {{"c1", f.c1_path},
         {"sector", f.sector.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(f.sector)},
         {"stage", f.stage},
         {"error", {{"kind", f.kind}, {"exit_code", f.exit_code}, {"message", f.message}}}});
  }
  return j;
}

void emit_yaml(YAML::Emitter& out, const nlohmann::ordered_json& j) {
  if (j.is_object()) {
    out << YAML::BeginMap;
    for (const auto& [key, value] : j.items()) {
      out << YAML::Key << key << YAML::Value;
      emit_yaml(out, value);
    }
    out << YAML::EndMap;
  } else if (j.is_array()) {
    out << YAML::BeginSeq;
    for (const auto& value : j) emit_yaml(out, value);
    out << YAML::EndSeq;
  } else if (j.is_string()) {
    out << j.get<std::string>();
  } else if (j.is_boolean()) {
    out << j.get<bool>();
  } else if (j.is_number_unsigned()) {
    out << j.get<std::uint64_t>();
  } else if (j.is_number_integer()) {
    out << j.get<std::int64_t>();
  } else if (j.is_number_float()) {
    // The shortest text that reads back as the same double (yaml-cpp's default keeps 6 digits).
    out << fmt::format("{}", j.get<double>());
  } else {
    out << YAML::Null;
  }
}

}  // namespace

std::string to_json(const RunReport& report) {
  // Invalid UTF-8 in a name (a C1 path) becomes U+FFFD rather than losing the report to an exception.
  return report_json(report).dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

std::string to_yaml(const RunReport& report) {
  YAML::Emitter out;
  emit_yaml(out, report_json(report));
  return std::string(out.c_str()) + "\n";
}

}  // namespace cuzk::job
