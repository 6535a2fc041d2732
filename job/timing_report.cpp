#include "job/timing_report.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "io/io_error.hpp"
#include "io/mapped_file.hpp"
#include "job/bench_report.hpp"

namespace cuzk::job {

PhaseWalls phase_walls(const RunReport& report) {
  PhaseWalls walls;
  for (const auto& [name, t] : report.shared_phases) walls[name] += t.wall_s;
  for (const auto& sector : report.sectors)
    for (const auto& [name, t] : sector.phases) walls[name] += t.wall_s;
  walls["total"] = report.total.wall_s;
  return walls;
}

std::optional<double> energy_joules_per_sector(const RunReport& report) {
  if (!report.gpu.energy_joules || report.sectors.empty()) return std::nullopt;
  return *report.gpu.energy_joules / double(report.sectors.size());
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

// A string member of a report, "" when it is absent or not a string (a report written by something else).
std::string string_member(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

double wall_of(const nlohmann::json& phase, const std::string& path, const std::string& name) {
  if (!phase.is_object() || !phase.contains("wall_s") || !phase["wall_s"].is_number())
    throw io::IoError(path, "phase \"" + name + "\" has no numeric wall_s");
  return phase["wall_s"].get<double>();
}

}  // namespace

TimingReport read_timing_report(const std::string& path) {
  // A FIFO would block the open until a writer comes (forever); a directory opens and reads as nothing.
  io::require_regular_file(path);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw io::IoError(path, "cannot open the timing report");
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::json j = nlohmann::json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object())
    throw io::IoError(path, "not a JSON object (a cuzk report is JSON)");
  if (string_member(j, "tool") != "cuzk")
    throw io::IoError(path, "not a cuzk report (no \"tool\": \"cuzk\")");
  TimingReport r;
  r.path = path;
  if (j.contains("peak_rss_bytes") && j["peak_rss_bytes"].is_number_unsigned())
    r.peak_rss_bytes = j["peak_rss_bytes"].get<std::uint64_t>();
  if (string_member(j, "format") == kBenchFormat) {
    r.kind = "bench";
    if (!j.contains("phases") || !j["phases"].is_object())
      throw io::IoError(path, "bench report without phases");
    for (const auto& [name, stats] : j["phases"].items()) {
      if (!stats.is_object() || !stats.contains("median_s") || !stats["median_s"].is_number())
        throw io::IoError(path, "phase \"" + name + "\" has no numeric median_s");
      r.wall_s[name] = stats["median_s"].get<double>();
      if (stats.contains("samples_s") && stats["samples_s"].is_array()) {
        for (const auto& x : stats["samples_s"]) {
          if (!x.is_number()) throw io::IoError(path, "phase \"" + name + "\" has a non-numeric sample");
          r.samples_s[name].push_back(x.get<double>());
        }
        r.runs = std::max(r.runs, unsigned(std::min<std::size_t>(r.samples_s[name].size(), 1u << 20)));
      }
    }
    if (const auto reps = j.find("repetitions"); reps != j.end() && reps->is_number_unsigned())
      r.runs = unsigned(std::clamp<std::uint64_t>(reps->get<std::uint64_t>(), 1, 1u << 20));
    if (const auto energy = j.find("energy_joules_per_sector"); energy != j.end() && energy->is_object()) {
      if (!energy->contains("median") || !(*energy)["median"].is_number())
        throw io::IoError(path, "energy_joules_per_sector has no numeric median");
      r.energy_joules_per_sector = (*energy)["median"].get<double>();
      if (energy->contains("samples") && (*energy)["samples"].is_array())
        for (const auto& x : (*energy)["samples"])
          if (x.is_number()) r.energy_samples_j.push_back(x.get<double>());
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
  // Absent when the run did not measure it (docs/formats.md): then there is nothing to compare.
  if (const auto energy = j.find("energy_joules");
      energy != j.end() && energy->is_number() && !j["sectors"].empty())
    r.energy_joules_per_sector = energy->get<double>() / double(j["sectors"].size());
  return r;
}

double mann_whitney_p(const std::vector<double>& a, const std::vector<double>& b) {
  const std::size_t n1 = a.size(), n2 = b.size(), n = n1 + n2;
  if (n1 == 0 || n2 == 0) return 1;
  // Midranks of the pooled values, and the tie groups' sizes.
  std::vector<std::pair<double, int>> pooled;
  for (double x : a) pooled.emplace_back(x, 0);
  for (double x : b) pooled.emplace_back(x, 1);
  std::sort(pooled.begin(), pooled.end());
  double rank_sum_a = 0, tie_term = 0;  // tie_term = sum of (t^3 - t) over tie groups
  for (std::size_t i = 0; i < n;) {
    std::size_t j = i;
    while (j < n && pooled[j].first == pooled[i].first) ++j;
    const double midrank = 0.5 * double(i + 1 + j);  // ranks i+1 .. j
    for (std::size_t k = i; k < j; ++k)
      if (pooled[k].second == 0) rank_sum_a += midrank;
    const double t = double(j - i);
    tie_term += t * t * t - t;
    i = j;
  }
  const double u = rank_sum_a - double(n1 * (n1 + 1)) / 2;  // pairs (x in a, y in b) with x > y, ties 1/2
  const double mean = double(n1 * n2) / 2;
  if (tie_term == 0 && n1 <= 30 && n2 <= 30) {
    // counts[j][v]: orderings of i values of a and j of b with U = v, built up over i (the largest value
    // is from a: it beats all j of b, U grows by j; from b: U unchanged).
    const std::size_t max_u = n1 * n2;
    std::vector<std::vector<double>> counts(n2 + 1, std::vector<double>(max_u + 1, 0));
    for (std::size_t j = 0; j <= n2; ++j) counts[j][0] = 1;  // i = 0
    for (std::size_t i = 1; i <= n1; ++i) {
      for (std::size_t j = 0; j <= n2; ++j) {  // counts[j] becomes row i; counts[j - 1] is row i already
        std::vector<double> next(max_u + 1, 0);
        for (std::size_t v = 0; v <= max_u; ++v) {
          if (v >= j) next[v] += counts[j][v - j];
          if (j > 0) next[v] += counts[j - 1][v];
        }
        counts[j] = std::move(next);
      }
    }
    const std::vector<double>& dist = counts[n2];
    double total = 0, below = 0, above = 0;
    const auto u_int = static_cast<std::size_t>(u);
    for (std::size_t v = 0; v <= max_u; ++v) {
      total += dist[v];
      if (v <= u_int) below += dist[v];
      if (v >= u_int) above += dist[v];
    }
    return std::min(1.0, 2 * std::min(below, above) / total);
  }
  const double variance = double(n1 * n2) / 12 * ((double(n) + 1) - tie_term / (double(n) * (double(n) - 1)));
  if (variance <= 0) return 1;  // every value the same
  const double z = std::max(0.0, std::abs(u - mean) - 0.5) / std::sqrt(variance);
  return std::min(1.0, std::erfc(z / std::sqrt(2.0)));
}

std::vector<PhaseComparison> compare_reports(const TimingReport& baseline, const TimingReport& contender,
                                             double threshold, double min_seconds, double alpha) {
  PhaseMap<PhaseComparison> rows;
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
      const auto runs_a = baseline.samples_s.find(name), runs_b = contender.samples_s.find(name);
      if (runs_a != baseline.samples_s.end() && runs_b != contender.samples_s.end() &&
          runs_a->second.size() >= kMinRunsForUTest && runs_b->second.size() >= kMinRunsForUTest)
        row.p_value = mann_whitney_p(runs_a->second, runs_b->second);
      row.regression = row.change > threshold && (!row.p_value || *row.p_value < alpha);
    }
    out.push_back(row);
  }
  std::stable_partition(out.begin(), out.end(), [](const PhaseComparison& c) { return c.phase != "total"; });
  if (baseline.energy_joules_per_sector || contender.energy_joules_per_sector) {
    PhaseComparison row;
    row.phase = kEnergyPerSectorRow;
    row.unit = "J";
    row.in_baseline = baseline.energy_joules_per_sector.has_value();
    row.in_contender = contender.energy_joules_per_sector.has_value();
    row.baseline_s = baseline.energy_joules_per_sector.value_or(0);
    row.contender_s = contender.energy_joules_per_sector.value_or(0);
    row.compared = row.in_baseline && row.in_contender && row.baseline_s > 0;
    if (row.compared) {
      row.change = row.contender_s / row.baseline_s - 1;
      if (baseline.energy_samples_j.size() >= kMinRunsForUTest &&
          contender.energy_samples_j.size() >= kMinRunsForUTest)
        row.p_value = mann_whitney_p(baseline.energy_samples_j, contender.energy_samples_j);
      row.regression = row.change > threshold && (!row.p_value || *row.p_value < alpha);
    }
    out.push_back(row);
  }
  return out;
}

}  // namespace cuzk::job
