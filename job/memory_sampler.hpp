// Peak host memory of this process, anonymous and file-backed apart, and peak device memory, sampled on a
// thread of its own while a run lasts. getrusage's peak RSS mixes the two kinds: a run that maps a 44 GiB
// parameter file shows that file's pages as resident although the kernel can drop them at any time, while
// anonymous memory (the witness, a, b, c) is what can run a machine out of memory.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <vector>

#include "job/periodic_thread.hpp"

namespace cuzk::job {

struct MemoryPeaks {
  std::uint64_t anon_bytes = 0;    // RssAnon of /proc/self/status
  std::uint64_t file_bytes = 0;    // RssFile: mapped file pages
  std::uint64_t device_bytes = 0;  // from the device_used callback (0 without one)
};

// The most memory in use over one stretch of the run (MemorySampler::series): the peaks of the samples taken
// in the stretch that ends at t_s (seconds from the series' origin; the last sample's time).
struct MemoryPoint {
  double t_s = 0;
  std::uint64_t anon_bytes = 0;
  std::uint64_t device_bytes = 0;
};

// RssAnon and RssFile of this process now (zeros where /proc is unreadable).
MemoryPeaks current_host_memory();

class MemorySampler {
 public:
  // `device_used`: bytes in use on the device (may be empty); sampled alike.
  // `stretch`: the series keeps one point per stretch (its peaks), so that an hour's run at 100 ms leaves
  // 3,600 points, not 36,000, and no short peak is lost between two points.
  explicit MemorySampler(std::chrono::milliseconds interval = std::chrono::milliseconds(100),
                         std::function<std::uint64_t()> device_used = {},
                         std::chrono::milliseconds stretch = std::chrono::seconds(1));
  ~MemorySampler();
  MemorySampler(const MemorySampler&) = delete;
  MemorySampler& operator=(const MemorySampler&) = delete;

  // The peaks so far, with one fresh sample taken now.
  MemoryPeaks peaks();
  // Anonymous host memory and device memory over the run: one point per stretch so far (the open stretch
  // included), oldest first. Where the peaks fell tells which step of the timeline needs the memory.
  // `origin`: the time that t_s counts from (the run's timeline start; earlier samples have t_s < 0).
  std::vector<MemoryPoint> series(std::chrono::steady_clock::time_point origin);

 private:
  void sample();

  std::chrono::milliseconds interval_;
  std::function<std::uint64_t()> device_used_;
  std::chrono::milliseconds stretch_;
  std::chrono::steady_clock::time_point started_;  // the first stretch's start
  std::mutex mutex_;                               // guards peaks_ and series_
  MemoryPeaks peaks_;
  struct Stretch {
    std::chrono::steady_clock::time_point last;  // its latest sample
    std::uint64_t anon_bytes = 0, device_bytes = 0;
  };
  std::vector<Stretch> series_;  // the last one is open
  PeriodicThread ticker_;        // last: stopped before what it samples into goes
};

}  // namespace cuzk::job
