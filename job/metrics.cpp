#include "job/metrics.hpp"

#include <fmt/format.h>

#include <cmath>
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

// Values as Go's strconv.ParseFloat reads them (what Prometheus parses): shortest round-trip decimal.
std::string number(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  return fmt::format("{}", v);
}

class Exposition {
 public:
  Exposition(const std::string& engine, const std::string& gpu)
      : common_(fmt::format("engine=\"{}\",gpu=\"{}\"", prometheus_label_escape(engine),
                            prometheus_label_escape(gpu))) {}

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

std::string prometheus_metrics(const RunReport& report, const RunOutcome& outcome) {
  Exposition out(report.engine, outcome.gpu_name);
  unsigned partitions = 0;
  for (const auto& s : report.sectors) partitions += s.partitions;

  out.family("cuzk_last_run_success", "1 if the last cuzk prove run proved every input, else 0.");
  out.sample(outcome.success ? 1 : 0);
  out.family("cuzk_last_run_timestamp_seconds",
             "When the last cuzk prove run ended, seconds since the epoch.");
  out.sample(outcome.finished_unix_s);
  out.family("cuzk_last_run_seconds", "Wall-clock seconds of the last cuzk prove run.");
  out.sample(report.total.wall_s);
  out.family("cuzk_phase_seconds",
             "Wall-clock seconds per phase in the last run, summed over its sectors (phases in run order).");
  for (const auto& [phase, wall] : phase_walls(report))
    if (phase != "total") out.sample(wall, {{"phase", phase}});
  out.family("cuzk_sectors", "Sectors (proof files) of the last run by result: proven, failed, skipped.");
  out.sample(double(report.sectors.size()), {{"result", "proven"}});
  out.sample(outcome.sectors_failed, {{"result", "failed"}});
  out.sample(outcome.sectors_skipped, {{"result", "skipped"}});
  out.family("cuzk_partitions",
             "Partition proofs of the last run by result: proven (in written proofs), failed.");
  out.sample(partitions, {{"result", "proven"}});
  out.sample(outcome.partitions_failed, {{"result", "failed"}});
  out.family("cuzk_peak_rss_bytes", "Peak resident host memory of the last run, bytes.");
  out.sample(double(report.peak_rss_bytes));
  if (outcome.gpu_memory_used_bytes) {
    out.family("cuzk_gpu_memory_used_bytes",
               "Most device memory seen in use during the last run (sampled after each partition), bytes.");
    out.sample(double(*outcome.gpu_memory_used_bytes));
  }
  return out.text();
}

}  // namespace cuzk::job
