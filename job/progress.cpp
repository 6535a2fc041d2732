#include "job/progress.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>

namespace cuzk::job {

namespace {

// A live line redrawn more often than this looks no smoother and costs terminal writes. A shorter
// interval asked for (--progress-interval) still applies: then a step of a few milliseconds shows too.
constexpr double kLiveRedrawInterval_s = 0.1;

double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Log lines carry no control characters (a path or message with a newline or an escape would break a
// log file's one-event-per-line shape): each one becomes '?'.
std::string printable(std::string s) {
  for (char& c : s)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  return s;
}

}  // namespace

ProgressReporter::ProgressReporter(Style style, std::FILE* terminal, LogLine log, double interval_s,
                                   Clock clock)
    : style_(style),
      terminal_(terminal),
      log_(std::move(log)),
      interval_s_(style == Style::kLiveLine ? std::min(interval_s, kLiveRedrawInterval_s) : interval_s),
      clock_(clock ? std::move(clock) : Clock(steady_seconds)) {
  if (style_ == Style::kLiveLine && !terminal_) style_ = Style::kOff;
  if (style_ == Style::kLogLines && !log_) style_ = Style::kOff;
}

std::string ProgressReporter::format_duration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "?";
  const auto s = static_cast<std::uint64_t>(std::llround(seconds));
  if (s < 60) return fmt::format("{}s", s);
  if (s < 3600) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}h{:02}m", s / 3600, (s % 3600) / 60);
}

std::string ProgressReporter::format_line(const std::string& step, std::uint64_t done, std::uint64_t total,
                                          const std::string& unit, double elapsed_s,
                                          const std::string& detail) {
  std::string line = step.empty() ? unit : step;
  line += total ? fmt::format(" {}/{}", done, total) : fmt::format(" {}", done);
  if (total) line += fmt::format(" ({:.0f}%)", 100.0 * double(std::min(done, total)) / double(total));
  if (done > 0 && elapsed_s > 0) {
    const double per_s = double(done) / elapsed_s;
    line += per_s >= 1 ? fmt::format(", {:.2f} {}/s", per_s, unit)
                       : fmt::format(", {:.2f} {}/min", 60 * per_s, unit);
  }
  line += ", elapsed " + format_duration(elapsed_s);
  if (total && done > 0 && done < total)
    line += ", ETA " + format_duration(elapsed_s / double(done) * double(total - done));
  if (!detail.empty()) line += " | " + detail;
  return printable(line);
}

std::string ProgressReporter::line_locked(double now) const {
  return format_line(step_, done_, total_, unit_, now - started_, detail_);
}

void ProgressReporter::draw_locked(double now) {
  last_output_ = now;
  if (style_ == Style::kLiveLine) {
    // Carriage return and "erase to end of line" (ECMA-48 EL), then the line without a newline.
    std::fprintf(terminal_, "\r\033[K%s", line_locked(now).c_str());
    std::fflush(terminal_);
    drawn_ = true;
  } else if (style_ == Style::kLogLines) {
    log_(line_locked(now));
  }
}

void ProgressReporter::begin(const std::string& step, std::uint64_t total, const std::string& unit) {
  if (style_ == Style::kOff) return;
  std::lock_guard lock(mutex_);
  active_ = true;
  step_ = step;
  unit_ = unit;
  total_ = total;
  done_ = 0;
  detail_.clear();
  started_ = clock_();
  last_output_ = -1e300;
  if (style_ == Style::kLiveLine) draw_locked(started_);  // a log line only once there is progress
}

void ProgressReporter::set_total(std::uint64_t total) {
  std::lock_guard lock(mutex_);
  total_ = total;
}

void ProgressReporter::update(std::uint64_t done) {
  if (style_ == Style::kOff) return;
  std::lock_guard lock(mutex_);
  if (!active_) return;
  done_ = done;
  const double now = clock_();
  if (now - last_output_ >= interval_s_) draw_locked(now);
}

void ProgressReporter::set_detail(const std::string& detail) {
  if (style_ == Style::kOff) return;
  std::lock_guard lock(mutex_);
  if (!active_) return;
  detail_ = detail;
  const double now = clock_();
  // Under the default redraw interval (asked for with --progress-interval), every step is drawn.
  if (style_ == Style::kLiveLine &&
      (interval_s_ < kLiveRedrawInterval_s || now - last_output_ >= interval_s_))
    draw_locked(now);
}

void ProgressReporter::finish() {
  if (style_ == Style::kOff) return;
  std::lock_guard lock(mutex_);
  if (!active_) return;
  detail_.clear();
  draw_locked(clock_());
  if (style_ == Style::kLiveLine) {
    std::fputc('\n', terminal_);
    std::fflush(terminal_);
    drawn_ = false;
  }
  active_ = false;
}

void ProgressReporter::tick() {
  if (style_ == Style::kOff) return;
  std::lock_guard lock(mutex_);
  if (!active_) return;
  const double now = clock_();
  // The live line shows seconds ticking by; log lines keep to their interval.
  const double due = style_ == Style::kLiveLine ? 1.0 : interval_s_;
  if (now - std::max(last_output_, started_) >= due) draw_locked(now);  // the first, an interval in
}

void ProgressReporter::start_ticker(double period_s) {
  if (style_ == Style::kOff || ticker_.joinable()) return;
  ticker_ = std::jthread([this, period_s](std::stop_token stop) {
    std::mutex m;
    std::unique_lock lock(m);
    const auto period = std::chrono::duration<double>(period_s);
    while (!stop_cv_.wait_for(lock, stop, period, [&stop] { return stop.stop_requested(); })) tick();
  });
}

void ProgressReporter::suspend() {
  if (style_ != Style::kLiveLine) return;
  mutex_.lock();  // held until resume(): no redraw between the erase and the other output
  if (drawn_) {
    std::fputs("\r\033[K", terminal_);
    std::fflush(terminal_);
  }
}

void ProgressReporter::resume() {
  if (style_ != Style::kLiveLine) return;
  if (active_) {
    // Not counted as a redraw for the rate limit: it puts back the line the other output erased, and a
    // step begun just after a log line must still show.
    const double now = clock_();
    std::fprintf(terminal_, "\r\033[K%s", line_locked(now).c_str());
    std::fflush(terminal_);
    drawn_ = true;
  }
  mutex_.unlock();
}

ProgressReporter::Style progress_style_for(std::FILE* stream, bool quiet) {
  if (quiet) return ProgressReporter::Style::kOff;
  const char* term = std::getenv("TERM");
  if (::isatty(::fileno(stream)) && !(term && std::strcmp(term, "dumb") == 0))
    return ProgressReporter::Style::kLiveLine;
  return ProgressReporter::Style::kLogLines;
}

}  // namespace cuzk::job
