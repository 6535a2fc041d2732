#include "prover/pipeline/timing_report.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "io/io_error.hpp"

namespace cuzk::pipeline {

PhaseWalls phase_walls(const RunReport& report) {
  PhaseWalls walls;
  for (const auto& [name, t] : report.shared_phases) walls[name] += t.wall_s;
  for (const auto& sector : report.sectors)
    for (const auto& [name, t] : sector.phases) walls[name] += t.wall_s;
  walls["total"] = report.total.wall_s;
  return walls;
}

PhaseStats phase_stats(std::vector<double> samples) {
  PhaseStats s;
  s.samples_s = samples;
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  const std::size_t n = samples.size();
  s.median_s = n % 2 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
  s.min_s = samples.front();
  s.max_s = samples.back();
  double sum = 0;
  for (double x : samples) sum += x;
  s.mean_s = sum / double(n);
  if (n > 1) {
    double squares = 0;
    for (double x : samples) squares += (x - s.mean_s) * (x - s.mean_s);
    s.stddev_s = std::sqrt(squares / double(n - 1));
  }
  return s;
}

namespace {

double wall_of(const nlohmann::json& phase, const std::string& path, const std::string& name) {
  if (!phase.is_object() || !phase.contains("wall_s") || !phase["wall_s"].is_number())
    throw io::IoError(path, "phase \"" + name + "\" has no numeric wall_s");
  return phase["wall_s"].get<double>();
}

}  // namespace

TimingReport read_timing_report(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw io::IoError(path, "cannot open the timing report");
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::json j = nlohmann::json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object())
    throw io::IoError(path, "not a JSON object (a cuzk report is JSON)");
  if (j.value("tool", "") != "cuzk") throw io::IoError(path, "not a cuzk report (no \"tool\": \"cuzk\")");
  TimingReport r;
  r.path = path;
  if (j.contains("peak_rss_bytes") && j["peak_rss_bytes"].is_number_unsigned())
    r.peak_rss_bytes = j["peak_rss_bytes"].get<std::uint64_t>();
  if (j.value("format", "") == "cuzk-bench-1") {
    r.kind = "bench";
    if (!j.contains("phases") || !j["phases"].is_object())
      throw io::IoError(path, "bench report without phases");
    for (const auto& [name, stats] : j["phases"].items()) {
      if (!stats.is_object() || !stats.contains("median_s") || !stats["median_s"].is_number())
        throw io::IoError(path, "phase \"" + name + "\" has no numeric median_s");
      r.wall_s[name] = stats["median_s"].get<double>();
    }
    return r;
  }
  r.kind = "prove";
  if (!j.contains("sectors") || !j["sectors"].is_array() || !j.contains("total"))
    throw io::IoError(path, "prove report without sectors or total");
  if (j.contains("shared_phases") && j["shared_phases"].is_object())
    for (const auto& [name, t] : j["shared_phases"].items()) r.wall_s[name] += wall_of(t, path, name);
  for (const auto& sector : j["sectors"]) {
    if (!sector.is_object() || !sector.contains("phases") || !sector["phases"].is_object())
      throw io::IoError(path, "a sector entry without phases");
    for (const auto& [name, t] : sector["phases"].items()) r.wall_s[name] += wall_of(t, path, name);
  }
  r.wall_s["total"] = wall_of(j["total"], path, "total");
  return r;
}

std::vector<PhaseComparison> compare_reports(const TimingReport& baseline, const TimingReport& contender,
                                             double threshold, double min_seconds) {
  std::map<std::string, PhaseComparison> rows;
  for (const auto& [name, s] : baseline.wall_s) {
    rows[name].baseline_s = s;
    rows[name].in_baseline = true;
  }
  for (const auto& [name, s] : contender.wall_s) {
    rows[name].contender_s = s;
    rows[name].in_contender = true;
  }
  std::vector<PhaseComparison> out;
  for (auto& [name, row] : rows) {
    row.phase = name;
    row.compared = row.in_baseline && row.in_contender && row.baseline_s >= min_seconds && row.baseline_s > 0;
    if (row.compared) {
      row.change = row.contender_s / row.baseline_s - 1;
      row.regression = row.change > threshold;
    }
    out.push_back(row);
  }
  std::stable_partition(out.begin(), out.end(), [](const PhaseComparison& c) { return c.phase != "total"; });
  return out;
}

}  // namespace cuzk::pipeline
