// Progress of long work for the people and scripts watching a run: done/total, rate, elapsed time and
// the estimated time left of one step (e.g. the partitions of a `cuzk prove` run).
//
// Two styles. On a terminal, one live status line, redrawn in place ("\r", then erase-line) and ended
// with a newline when the step finishes; other output goes through suspend()/resume() so that it does
// not land in the middle of the line. Anywhere else (a sealing script's log file), plain lines through
// a callback, at most one per interval and never a control character, so that logs stay greppable.
// Thread-safe: the proving job reports from its two stages' threads.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace cuzk::job {

class ProgressReporter {
 public:
  enum class Style { kOff, kLiveLine, kLogLines };
  using Clock = std::function<double()>;  // monotonic seconds; tests pass their own
  using LogLine = std::function<void(const std::string&)>;

  // kLiveLine writes to `terminal`; kLogLines hands each line (without a newline) to `log`.
  ProgressReporter(Style style, std::FILE* terminal, LogLine log, double interval_s, Clock clock = {});

  // Starts a step: `total` units (0: unknown) called `unit` ("partitions").
  void begin(const std::string& step, std::uint64_t total, const std::string& unit);
  // A better estimate of the total (e.g. once every input's size is known).
  void set_total(std::uint64_t total);
  // `done` units so far, and what is happening now (shown on the live line; logged with the next line).
  void update(std::uint64_t done);
  void set_detail(const std::string& detail);
  // Ends the step: the live line is finished with a newline; in log style one last line is written,
  // rate limit or not (it is the step's summary, not a repeat).
  void finish();

  // A heartbeat: draws the line if the interval has passed since the last one, progress or not, so that
  // a partition that takes minutes still shows its elapsed time (and a log shows the run is alive).
  void tick();
  // Calls tick() every `period_s` from a thread of its own until destruction.
  void start_ticker(double period_s);

  // Around other output to the same terminal: erase the live line, then draw it again.
  void suspend();
  void resume();

  Style style() const { return style_; }

  // "partitions 3/10 (30%), 1.20/min, elapsed 2m30s, ETA 5m50s": the line for the given state.
  static std::string format_line(const std::string& step, std::uint64_t done, std::uint64_t total,
                                 const std::string& unit, double elapsed_s, const std::string& detail);
  // "45s", "2m30s", "1h05m": short durations for status lines.
  static std::string format_duration(double seconds);

 private:
  std::string line_locked(double now) const;
  void draw_locked(double now);

  Style style_;
  std::FILE* terminal_;
  LogLine log_;
  double interval_s_;
  Clock clock_;
  std::mutex mutex_;
  bool active_ = false, drawn_ = false;
  std::string step_, unit_, detail_;
  std::uint64_t done_ = 0, total_ = 0;
  double started_ = 0, last_output_ = -1e300;
  std::condition_variable_any stop_cv_;
  std::jthread ticker_;  // last: stopped and joined before the members it uses go
};

// The style for a stream: a live line when it is a terminal (and TERM is not "dumb"), else log lines;
// off when `quiet`.
ProgressReporter::Style progress_style_for(std::FILE* stream, bool quiet);

}  // namespace cuzk::job
