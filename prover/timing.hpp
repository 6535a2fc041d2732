// Wall and CPU time of a phase, and the process's peak resident memory: every phase of cuzk reports
// its own time, so that each change can be measured against the one before (docs/formats.md, "Run reports").
#pragma once

#include <sys/resource.h>
#include <time.h>

#include <chrono>
#include <cstdint>

namespace cuzk {

struct PhaseTime {
  double wall_s = 0;
  double cpu_s = 0;  // all threads of the process
  PhaseTime& operator+=(const PhaseTime& o) {
    wall_s += o.wall_s;
    cpu_s += o.cpu_s;
    return *this;
  }
  friend PhaseTime operator+(PhaseTime a, const PhaseTime& b) { return a += b; }
};

inline double process_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

class PhaseTimer {
 public:
  PhaseTimer() : wall_start_(std::chrono::steady_clock::now()), cpu_start_(process_cpu_seconds()) {}
  PhaseTime elapsed() const {
    return {std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start_).count(),
            process_cpu_seconds() - cpu_start_};
  }

 private:
  std::chrono::steady_clock::time_point wall_start_;
  double cpu_start_;
};

// Peak resident set size of this process so far (getrusage ru_maxrss is in KiB on Linux).
inline std::uint64_t peak_rss_bytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<std::uint64_t>(usage.ru_maxrss) * 1024;
}

}  // namespace cuzk
