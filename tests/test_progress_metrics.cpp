// Operators' outputs: progress lines for logs (job/progress.hpp) and the Prometheus
// textfile (job/metrics.hpp), the latter checked against the text exposition format's rules by a small
// parser here (https://prometheus.io/docs/instrumenting/exposition_formats/), not by string equality.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <map>
#include <mutex>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "job/metrics.hpp"
#include "job/progress.hpp"

namespace {

using namespace cuzk;
using job::ProgressReporter;

bool has_control_characters(const std::string& s) {
  for (unsigned char c : s)
    if (c < 0x20 || c == 0x7f) return true;
  return false;
}

struct FakeClock {
  double now = 1000;
  ProgressReporter::Clock clock() {
    return [this] { return now; };
  }
};

TEST(Progress, LogLinesAreRateLimitedAndPlain) {
  FakeClock t;
  std::vector<std::string> lines;
  ProgressReporter p(
      ProgressReporter::Style::kLogLines, nullptr, [&](const std::string& l) { lines.push_back(l); }, 30,
      t.clock());
  p.begin("proving", 100, "partitions");
  EXPECT_TRUE(lines.empty());  // nothing to say before any progress
  // 100 partitions, one every 2 s: at most one line per 30 s.
  for (int done = 1; done <= 100; ++done) {
    t.now += 2;
    p.set_detail("sector 1/1: proving\tpartition " + std::to_string(done) + "\n\x1b[31m");
    p.update(done);
  }
  const std::size_t progress_lines = lines.size();
  // 200 s of progress, one line at the first update and then every 30 s: 1 + floor(198 / 30) = 7.
  EXPECT_EQ(progress_lines, 7u);
  p.finish();
  ASSERT_EQ(lines.size(), progress_lines + 1);  // the step's summary line
  for (const auto& l : lines) EXPECT_FALSE(has_control_characters(l)) << l;
  EXPECT_NE(lines.back().find("100/100"), std::string::npos) << lines.back();
  EXPECT_NE(lines.back().find("elapsed 3m20s"), std::string::npos) << lines.back();
}

TEST(Progress, LogLinesAfterQuietPeriodComeAtOnce) {
  FakeClock t;
  std::vector<std::string> lines;
  ProgressReporter p(
      ProgressReporter::Style::kLogLines, nullptr, [&](const std::string& l) { lines.push_back(l); }, 10,
      t.clock());
  p.begin("", 4, "sectors");
  t.now += 1;
  p.update(1);
  t.now += 5;
  p.update(2);  // 5 s after the last line: held back
  EXPECT_EQ(lines.size(), 1u);
  t.now += 5;
  p.update(3);  // 10 s: written
  EXPECT_EQ(lines.size(), 2u);
}

TEST(Progress, HeartbeatKeepsToTheIntervalWithoutProgress) {
  FakeClock t;
  std::vector<std::string> lines;
  ProgressReporter p(
      ProgressReporter::Style::kLogLines, nullptr, [&](const std::string& l) { lines.push_back(l); }, 30,
      t.clock());
  p.tick();  // no step yet: nothing
  p.begin("proving", 10, "partitions");
  p.set_detail("sector 1/1: proving partition 0");
  for (int second = 1; second <= 95; ++second) {  // one partition that takes minutes
    t.now += 1;
    p.tick();
  }
  ASSERT_EQ(lines.size(), 3u);  // at 30, 60 and 90 s
  EXPECT_NE(lines[0].find("proving 0/10 (0%), elapsed 30s | sector 1/1: proving partition 0"),
            std::string::npos)
      << lines[0];
  t.now += 1;
  p.update(1);  // 6 s after the last line: held back
  EXPECT_EQ(lines.size(), 3u);
}

TEST(Progress, TickerThreadStopsWithTheReporter) {
  std::vector<std::string> lines;
  std::mutex m;
  {
    ProgressReporter p(
        ProgressReporter::Style::kLogLines, nullptr,
        [&](const std::string& l) {
          std::lock_guard lock(m);
          lines.push_back(l);
        },
        0.01);
    p.begin("proving", 1, "partitions");
    p.start_ticker(0.005);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }  // joins the ticker
  std::lock_guard lock(m);
  EXPECT_GE(lines.size(), 2u);  // heartbeats came without any update
  for (const auto& l : lines) EXPECT_FALSE(has_control_characters(l));
}

TEST(Progress, OffWritesNothing) {
  FakeClock t;
  int calls = 0;
  ProgressReporter p(
      ProgressReporter::Style::kOff, nullptr, [&](const std::string&) { ++calls; }, 0, t.clock());
  p.begin("proving", 2, "partitions");
  p.update(1);
  p.finish();
  EXPECT_EQ(calls, 0);
}

TEST(Progress, LineShowsDoneTotalRateElapsedEta) {
  // 3 of 10 in 150 s: 1.2/min, 350 s left.
  const std::string line = ProgressReporter::format_line("proving", 3, 10, "partitions", 150, "sector 1/2");
  EXPECT_EQ(line, "proving 3/10 (30%), 1.20 partitions/min, elapsed 2m30s, ETA 5m50s | sector 1/2");
  EXPECT_EQ(ProgressReporter::format_line("", 0, 0, "sectors", 2, ""), "sectors 0, elapsed 2s");
  EXPECT_EQ(ProgressReporter::format_duration(3 * 3600 + 5 * 60 + 20), "3h05m");
}

TEST(Progress, NonTerminalStreamGetsLogLinesAndQuietGetsNone) {
  std::FILE* file = std::tmpfile();
  ASSERT_NE(file, nullptr);
  EXPECT_EQ(job::progress_style_for(file, false), ProgressReporter::Style::kLogLines);
  EXPECT_EQ(job::progress_style_for(file, true), ProgressReporter::Style::kOff);
  std::fclose(file);
}

TEST(Progress, LiveLineRedrawsInPlaceAndEndsWithNewline) {
  std::FILE* file = std::tmpfile();
  ASSERT_NE(file, nullptr);
  FakeClock t;
  ProgressReporter p(ProgressReporter::Style::kLiveLine, file, {}, 0, t.clock());
  p.begin("proving", 2, "partitions");
  t.now += 1;
  p.update(1);
  t.now += 1;
  p.update(2);
  p.finish();
  std::rewind(file);
  std::string text;
  for (int c; (c = std::fgetc(file)) != EOF;) text += char(c);
  std::fclose(file);
  EXPECT_EQ(text.find('\n'), text.size() - 1) << "one line, finished once";
  EXPECT_NE(text.find("\r\x1b[Kproving 2/2"), std::string::npos);
}

// The live line redraws at most every 0.1 s; a shorter --progress-interval shortens that too, so that a
// step of a few milliseconds shows (tests/scripts/terminal_progress.sh relies on it).
std::size_t live_redraws(double interval_s, bool after_log_line = false) {
  std::FILE* file = std::tmpfile();
  if (!file) throw std::runtime_error("tmpfile");
  FakeClock t;
  ProgressReporter p(ProgressReporter::Style::kLiveLine, file, {}, interval_s, t.clock());
  p.begin("proving", 1, "partitions");
  t.now += 0.01;
  p.set_detail("sector 1/1: parsing");
  t.now += 0.01;
  if (after_log_line) {  // a log line erases the live line and puts it back: not a redraw for the limit
    p.suspend();
    p.resume();
  }
  p.set_detail("sector 1/1: synthesizing");
  std::rewind(file);
  std::string text;
  for (int c; (c = std::fgetc(file)) != EOF;) text += char(c);
  std::fclose(file);
  std::size_t draws = 0;
  for (std::size_t at = 0; (at = text.find("\r\x1b[Kp", at)) != std::string::npos; at += 4) ++draws;
  return draws;
}

TEST(Progress, LiveLineRedrawIntervalIsTheShorterOfItsOwnAndTheOneAskedFor) {
  EXPECT_EQ(live_redraws(30), 1u) << "the default: steps 10 ms apart are not each drawn";
  EXPECT_EQ(live_redraws(0.001), 3u) << "--progress-interval 0.001: every step drawn";
  EXPECT_EQ(live_redraws(0.001, true), 4u) << "a step begun just after a log line is drawn too";
}

// --- The exposition format, parsed -------------------------------------------------------------------

struct Sample {
  std::string name;
  std::map<std::string, std::string> labels;
  double value = 0;
};

struct Exposition {
  std::map<std::string, std::string> type, help;
  std::vector<Sample> samples;
};

// Label values: any UTF-8 with \\, \" and \n escaped; returns the unescaped value and advances `i`.
std::string parse_label_value(const std::string& line, std::size_t& i) {
  std::string v;
  if (line[i] != '"') throw std::runtime_error("label value without opening quote: " + line);
  for (++i; i < line.size(); ++i) {
    if (line[i] == '"') {
      ++i;
      return v;
    }
    if (line[i] == '\\') {
      if (++i == line.size()) break;
      if (line[i] == 'n')
        v += '\n';
      else if (line[i] == '\\' || line[i] == '"')
        v += line[i];
      else
        throw std::runtime_error("bad escape in label value: " + line);
    } else {
      v += line[i];
    }
  }
  throw std::runtime_error("unterminated label value: " + line);
}

Exposition parse_exposition(const std::string& text) {
  static const std::regex metric_name("[a-zA-Z_:][a-zA-Z0-9_:]*");
  static const std::regex label_name("[a-zA-Z_][a-zA-Z0-9_]*");
  static const std::set<std::string> types = {"counter", "gauge", "histogram", "summary", "untyped"};
  Exposition e;
  if (text.empty() || text.back() != '\n') throw std::runtime_error("the last line must end with a newline");
  std::istringstream in(text);
  std::set<std::string> families_with_samples;
  std::string current;
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    if (line.find('\r') != std::string::npos) throw std::runtime_error("carriage return in: " + line);
    if (line.starts_with("# HELP ") || line.starts_with("# TYPE ")) {
      const bool is_type = line[2] == 'T';
      std::size_t sp = line.find(' ', 7);
      std::string name = line.substr(7, sp == std::string::npos ? std::string::npos : sp - 7);
      std::string rest = sp == std::string::npos ? "" : line.substr(sp + 1);
      if (!std::regex_match(name, metric_name)) throw std::runtime_error("bad metric name: " + name);
      auto& seen = is_type ? e.type : e.help;
      if (seen.count(name))
        throw std::runtime_error(std::string(is_type ? "TYPE" : "HELP") + " twice: " + name);
      if (is_type) {
        if (!types.count(rest)) throw std::runtime_error("unknown type: " + rest);
        if (families_with_samples.count(name)) throw std::runtime_error("TYPE after samples: " + name);
      }
      seen[name] = rest;
      current = name;
      continue;
    }
    if (line[0] == '#') continue;  // a comment
    Sample s;
    std::size_t i = 0;
    while (i < line.size() && line[i] != '{' && line[i] != ' ') ++i;
    s.name = line.substr(0, i);
    if (!std::regex_match(s.name, metric_name)) throw std::runtime_error("bad metric name: " + s.name);
    if (i < line.size() && line[i] == '{') {
      ++i;
      while (line.at(i) != '}') {
        std::size_t eq = line.find('=', i);
        if (eq == std::string::npos) throw std::runtime_error("label without '=': " + line);
        std::string key = line.substr(i, eq - i);
        if (!std::regex_match(key, label_name) || key.starts_with("__"))
          throw std::runtime_error("bad label name: " + key);
        i = eq + 1;
        std::string value = parse_label_value(line, i);
        if (s.labels.count(key)) throw std::runtime_error("label twice: " + key);
        s.labels[key] = value;
        if (line.at(i) == ',') ++i;
      }
      ++i;
    }
    if (i >= line.size() || line[i] != ' ') throw std::runtime_error("no value: " + line);
    std::string value = line.substr(i + 1);
    if (auto sp = value.find(' '); sp != std::string::npos) value = value.substr(0, sp);  // a timestamp
    char* end = nullptr;
    s.value = std::strtod(value.c_str(), &end);
    if (value.empty() || *end != '\0') throw std::runtime_error("value is not a float: " + line);
    if (s.name != current) throw std::runtime_error("sample outside its family's block: " + line);
    families_with_samples.insert(s.name);
    e.samples.push_back(std::move(s));
  }
  return e;
}

job::RunReport sample_report() {
  job::RunReport r;
  r.engine = "gpu";
  r.shared_phases["params.load"] = {2.5, 2.5};
  r.shared_phases["gpu.setup"] = {0.75, 0.5};
  for (const char* name : {"a\\b", "c\"d"}) {
    job::SectorReport s;
    s.sector = name;
    s.partitions = 10;
    s.phases["parse"] = {0.5, 0.5};
    s.phases["prove"] = {60, 90};
    r.sectors.push_back(s);
  }
  r.total = {130, 200};
  r.peak_rss_bytes = 123456789;
  return r;
}

double value_of(const Exposition& e, const std::string& name,
                const std::map<std::string, std::string>& want = {}) {
  for (const auto& s : e.samples) {
    if (s.name != name) continue;
    bool match = true;
    for (const auto& [k, v] : want) match = match && s.labels.count(k) && s.labels.at(k) == v;
    if (match) return s.value;
  }
  throw std::runtime_error("no sample " + name);
}

TEST(Metrics, ParserRejectsWhatTheFormatForbids) {
  EXPECT_THROW(parse_exposition("1bad 1\n"), std::runtime_error);
  EXPECT_THROW(parse_exposition("# TYPE a gauge\n# TYPE a gauge\na 1\n"), std::runtime_error);
  EXPECT_THROW(parse_exposition("# TYPE a gauge\na{x=\"1} 1\n"), std::runtime_error);
  EXPECT_THROW(parse_exposition("# TYPE a gauge\na{x=\"\\q\"} 1\n"), std::runtime_error);
  EXPECT_THROW(parse_exposition("# TYPE a gauge\na one\n"), std::runtime_error);
  EXPECT_THROW(parse_exposition("# TYPE a gauge\na 1"), std::runtime_error);
  EXPECT_THROW(parse_exposition("# TYPE a gauge\na 1\n# TYPE b gauge\nb 1\na 2\n"), std::runtime_error);
  EXPECT_NO_THROW(parse_exposition("# HELP a x\n# TYPE a gauge\na{x=\"q\\\"\\\\\\n\"} +Inf\n"));
}

TEST(Metrics, RunMetricsFollowTheExpositionFormat) {
  job::RunOutcome outcome;
  outcome.success = false;
  outcome.sectors_failed = 1;
  outcome.partitions_failed = 10;
  outcome.sectors_skipped = 2;
  outcome.gpu_name = "NVIDIA H200 \"SXM\"\\x\nnext";
  outcome.gpu_memory_used_bytes = 80ull << 30;
  outcome.finished_unix_s = 1764600000;
  job::RunReport report = sample_report();
  report.already_proven.resize(3);  // --skip-existing: proof files that were there and verified
  const std::string text = job::prometheus_metrics(report, outcome);
  Exposition e;
  ASSERT_NO_THROW(e = parse_exposition(text)) << text;

  // Every family has HELP and TYPE, and every sample carries the engine and GPU labels, unescaped back.
  for (const auto& s : e.samples) {
    EXPECT_TRUE(e.type.count(s.name)) << s.name;
    EXPECT_TRUE(e.help.count(s.name)) << s.name;
    EXPECT_TRUE(s.name.starts_with("cuzk_")) << s.name;
    EXPECT_EQ(s.labels.at("engine"), "gpu");
    EXPECT_EQ(s.labels.at("gpu"), outcome.gpu_name);
  }
  EXPECT_DOUBLE_EQ(value_of(e, "cuzk_phase_seconds", {{"phase", "prove"}}), 120);
  EXPECT_DOUBLE_EQ(value_of(e, "cuzk_phase_seconds", {{"phase", "params.load"}}), 2.5);
  EXPECT_DOUBLE_EQ(value_of(e, "cuzk_phase_seconds", {{"phase", "gpu.setup"}}), 0.75);
  EXPECT_DOUBLE_EQ(value_of(e, "cuzk_sectors", {{"result", "proven"}}), 2);
  EXPECT_DOUBLE_EQ(value_of(e, "cuzk_sectors", {{"result", "failed"}}), 1);
  EXPECT_DOUBLE_EQ(value_of(e, "cuzk_sectors", {{"result", "skipped"}}), 2);
  EXPECT_DOUBLE_EQ(value_of(e, "cuzk_sectors", {{"result", "already_proven"}}), 3);
  EXPECT_DOUBLE_EQ(value_of(e, "cuzk_partitions", {{"result", "proven"}}), 20);
  EXPECT_DOUBLE_EQ(value_of(e, "cuzk_partitions", {{"result", "failed"}}), 10);
  EXPECT_DOUBLE_EQ(value_of(e, "cuzk_peak_rss_bytes"), 123456789);
  EXPECT_DOUBLE_EQ(value_of(e, "cuzk_gpu_memory_used_bytes"), double(80ull << 30));
  EXPECT_DOUBLE_EQ(value_of(e, "cuzk_last_run_success"), 0);
  EXPECT_DOUBLE_EQ(value_of(e, "cuzk_last_run_seconds"), 130);
  EXPECT_DOUBLE_EQ(value_of(e, "cuzk_last_run_timestamp_seconds"), 1764600000);
  // Without a device figure, no such family (rather than a made-up 0).
  outcome.gpu_memory_used_bytes.reset();
  Exposition cpu = parse_exposition(job::prometheus_metrics(sample_report(), outcome));
  EXPECT_FALSE(cpu.type.count("cuzk_gpu_memory_used_bytes"));
  // No gpu_uuid label without a device, no operator's labels without --metrics-label.
  for (const auto& s : e.samples) EXPECT_EQ(s.labels.count("gpu_uuid"), 0u) << s.name;
}

// Two processes of one host (one per GPU) write their files into one collector folder: node_exporter keeps
// one series per label set, so every series carries the devices' UUIDs and the operator's labels.
TEST(Metrics, SeriesCarryTheDeviceUuidsAndTheOperatorsLabels) {
  job::RunOutcome outcome;
  outcome.gpu_name = "NVIDIA H200";
  outcome.gpu_uuids = {"GPU-5bd4a1c2-8e3f-4f51-9a0b-0123456789ab"};
  outcome.labels = {{"slot", "gpu0"}, {"host_role", "sealer \"a\"\\b\nc é"}};
  const std::string text = job::prometheus_metrics(sample_report(), outcome);
  Exposition e;
  ASSERT_NO_THROW(e = parse_exposition(text)) << text;
  ASSERT_FALSE(e.samples.empty());
  for (const auto& s : e.samples) {
    EXPECT_EQ(s.labels.at("gpu_uuid"), outcome.gpu_uuids[0]) << s.name;
    EXPECT_EQ(s.labels.at("slot"), "gpu0") << s.name;
    EXPECT_EQ(s.labels.at("host_role"), "sealer \"a\"\\b\nc é") << s.name;  // escaped, read back
  }
  // Another GPU's file: the same series, told apart by the UUID.
  job::RunOutcome other = outcome;
  other.gpu_uuids = {"GPU-00000000-0000-0000-0000-000000000001"};
  Exposition f = parse_exposition(job::prometheus_metrics(sample_report(), other));
  std::set<std::map<std::string, std::string>> first, second;
  for (const auto& s : e.samples) {
    auto key = s.labels;
    key["__name__"] = s.name;
    first.insert(key);
  }
  for (const auto& s : f.samples) {
    auto key = s.labels;
    key["__name__"] = s.name;
    EXPECT_FALSE(first.count(key)) << "a series of both files: " << s.name;
  }
  // Several devices: one label, their UUIDs joined.
  outcome.gpu_uuids.push_back("GPU-00000000-0000-0000-0000-000000000002");
  Exposition two = parse_exposition(job::prometheus_metrics(sample_report(), outcome));
  EXPECT_EQ(two.samples.front().labels.at("gpu_uuid"),
            "GPU-5bd4a1c2-8e3f-4f51-9a0b-0123456789ab,GPU-00000000-0000-0000-0000-000000000002");
}

TEST(Metrics, OperatorsLabelsAreCheckedAsPrometheusReadsThem) {
  EXPECT_EQ(job::metrics_label_problem("slot", "gpu0"), "");
  EXPECT_EQ(job::metrics_label_problem("_x9", "any \" \\ \n é"), "");
  EXPECT_NE(job::metrics_label_problem("", "v"), "");
  EXPECT_NE(job::metrics_label_problem("9slot", "v"), "");
  EXPECT_NE(job::metrics_label_problem("slot-id", "v"), "");
  EXPECT_NE(job::metrics_label_problem("sl.ot", "v"), "");
  EXPECT_NE(job::metrics_label_problem("__name__", "v"), "");  // reserved to Prometheus
  for (const char* own : {"engine", "gpu", "gpu_uuid", "phase", "parent", "result", "kind"})
    EXPECT_NE(job::metrics_label_problem(own, "v"), "") << own;           // cuzk's own
  EXPECT_NE(job::metrics_label_problem("slot", ""), "");                  // an empty value is no label
  EXPECT_NE(job::metrics_label_problem("slot", "\xff"), "");              // not UTF-8
  EXPECT_NE(job::metrics_label_problem("slot", "\xc3"), "");              // cut short
  EXPECT_NE(job::metrics_label_problem("slot", "\xc0\xaf"), "");          // overlong
  EXPECT_NE(job::metrics_label_problem("slot", "\xed\xa0\x80"), "");      // a surrogate
  EXPECT_EQ(job::metrics_label_problem("slot", "\xf0\x9f\x98\x80"), "");  // U+1F600
}

// prove.h, prove.msm_g1 and prove.msm_g2 are measured inside prove: under one metric name with it, a sum over
// the metric would count them twice. They have their own metric, naming their parent.
TEST(Metrics, PartsOfAPhaseAreNotSummedWithIt) {
  job::RunReport report = sample_report();
  for (auto& s : report.sectors) {
    s.phases["prove.h"] = {20, 30};
    s.phases["prove.msm_g1"] = {25, 40};
    s.phases["prove.msm_g2"] = {10, 15};
  }
  const std::string text = job::prometheus_metrics(report, job::RunOutcome{});
  Exposition e;
  ASSERT_NO_THROW(e = parse_exposition(text)) << text;
  double sum = 0;
  for (const auto& s : e.samples)
    if (s.name == "cuzk_phase_seconds") {
      EXPECT_FALSE(s.labels.at("phase").starts_with("prove.")) << s.labels.at("phase");
      sum += s.value;
    }
  EXPECT_DOUBLE_EQ(sum, 2.5 + 0.75 + 2 * (0.5 + 60));  // each phase once
  EXPECT_DOUBLE_EQ(value_of(e, "cuzk_phase_seconds", {{"phase", "prove"}}), 120);
  EXPECT_DOUBLE_EQ(value_of(e, "cuzk_subphase_seconds", {{"phase", "prove.h"}, {"parent", "prove"}}), 40);
  EXPECT_DOUBLE_EQ(value_of(e, "cuzk_subphase_seconds", {{"phase", "prove.msm_g1"}, {"parent", "prove"}}),
                   50);
  EXPECT_DOUBLE_EQ(value_of(e, "cuzk_subphase_seconds", {{"phase", "prove.msm_g2"}, {"parent", "prove"}}),
                   20);
  // A report without parts has no such family.
  EXPECT_FALSE(
      parse_exposition(job::prometheus_metrics(sample_report(), {})).type.count("cuzk_subphase_seconds"));
}

// A failed sector's kind (that of its --json record) is in the metrics: an alert can tell "no-device" (take
// the host out) from "gpu" (a fault worth a retry) or "input".
TEST(Metrics, FailedSectorsCarryTheirKind) {
  job::RunOutcome outcome;
  outcome.success = false;
  outcome.sectors_failed = 3;
  outcome.failed_by_kind = {{"input", 2}, {"no-device", 1}};
  Exposition e = parse_exposition(job::prometheus_metrics(sample_report(), outcome));
  EXPECT_DOUBLE_EQ(value_of(e, "cuzk_failed_sectors", {{"kind", "input"}}), 2);
  EXPECT_DOUBLE_EQ(value_of(e, "cuzk_failed_sectors", {{"kind", "no-device"}}), 1);
  EXPECT_DOUBLE_EQ(value_of(e, "cuzk_sectors", {{"result", "failed"}}), 3);
  // None failed: no such series (an alert on it does not fire on a stale zero).
  EXPECT_FALSE(
      parse_exposition(job::prometheus_metrics(sample_report(), {})).type.count("cuzk_failed_sectors"));
}

}  // namespace
