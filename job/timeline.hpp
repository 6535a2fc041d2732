// A run's timeline: per partition, when each step ran and on which lane (a synthesis worker, the prover,
// the writer), so that a picture shows whether synthesis and proving overlap instead of a reader inferring
// it from sums. Kept in the JSON report ("timeline") and drawn by `cuzk report timeline`.
#pragma once

#include <chrono>
#include <mutex>
#include <string>
#include <vector>

namespace cuzk::job {

struct TimelineEvent {
  std::string lane;    // "synthesis 0", "synthesis 1", ..., "prover", "writer", "parameters"
  std::string step;    // synthesize, satisfied, prove.h, prove.msm_h, prove.msm_g1, ..., verify, write, params.load ...
  std::string sector;  // empty for run-wide steps
  int partition = -1;  // -1 for per-sector and run-wide steps
  double start_s = 0;  // seconds since the run started
  double end_s = 0;
};

// Thread-safe recorder; times are seconds since its construction (the run's start).
class Timeline {
 public:
  using Clock = std::chrono::steady_clock;
  Timeline() : start_(Clock::now()) {}
  double now() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }
  Clock::time_point start() const { return start_; }
  void add(TimelineEvent event) {
    std::lock_guard lock(mutex_);
    events_.push_back(std::move(event));
  }
  std::vector<TimelineEvent> events() const {
    std::lock_guard lock(mutex_);
    return events_;
  }

 private:
  Clock::time_point start_;
  mutable std::mutex mutex_;
  std::vector<TimelineEvent> events_;
};

// Busy time of `lane` divided by the span from its first start to its last end (0 without events): the
// share of the steady state that lane was working.
double lane_utilization(const std::vector<TimelineEvent>& events, const std::string& lane);

// The "timeline" array of a `cuzk prove --report` JSON file. Throws io::IoError naming the file when it
// cannot be read, is not a cuzk report, or has no timeline (a report of a version before timelines).
std::vector<TimelineEvent> read_report_timeline(const std::string& path);

// The timeline as an SVG waterfall: the prover lane's utilization under the title, a labelled bar per sector
// over its span ("sector NAME"), one row per lane (in order of first appearance), one box per step coloured
// by step (its sector/partition written in it where it fits), a time axis in seconds, and a legend.
// Self-contained (no scripts, no external fonts).
std::string render_timeline_svg(const std::vector<TimelineEvent>& events, const std::string& title);

}  // namespace cuzk::job
