#include "job/run_report.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

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

// ordered_json keeps the phases in the order they run (a plain json object sorts its keys).
nlohmann::ordered_json phases_json(const PhaseMap<PhaseTime>& phases) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (const auto& [name, t] : phases) j[name] = {{"wall_s", t.wall_s}, {"cpu_s", t.cpu_s}};
  return j;
}

}  // namespace

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
  j["prover_busy"] = lane_utilization(report.timeline, "prover");
  j["sectors"] = nlohmann::ordered_json::array();
  for (const auto& s : report.sectors) {
    j["sectors"].push_back(
        nlohmann::ordered_json{{"c1", s.c1_path},
                               {"sector", s.sector},
                               {"proof_type", s.proof_type},
                               {"partitions", s.partitions},
                               {"proof_file", s.proof_path},
                               {"verified", s.verified},
                               {"total", {{"wall_s", s.total.wall_s}, {"cpu_s", s.total.cpu_s}}},
                               {"phases", phases_json(s.phases)}});
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
