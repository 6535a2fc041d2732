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

#include "job/periodic_thread.hpp"

namespace cuzk::job {

struct MemoryPeaks {
  std::uint64_t anon_bytes = 0;    // RssAnon of /proc/self/status
  std::uint64_t file_bytes = 0;    // RssFile: mapped file pages
  std::uint64_t device_bytes = 0;  // from the device_used callback (0 without one)
};

// RssAnon and RssFile of this process now (zeros where /proc is unreadable).
MemoryPeaks current_host_memory();

class MemorySampler {
 public:
  // `device_used`: bytes in use on the device (may be empty); sampled alike.
  explicit MemorySampler(std::chrono::milliseconds interval = std::chrono::milliseconds(100),
                         std::function<std::uint64_t()> device_used = {});
  ~MemorySampler();
  MemorySampler(const MemorySampler&) = delete;
  MemorySampler& operator=(const MemorySampler&) = delete;

  // The peaks so far, with one fresh sample taken now.
  MemoryPeaks peaks();

 private:
  void sample();

  std::chrono::milliseconds interval_;
  std::function<std::uint64_t()> device_used_;
  std::mutex mutex_;  // guards peaks_
  MemoryPeaks peaks_;
  PeriodicThread ticker_;  // last: stopped before what it samples into goes
};

}  // namespace cuzk::job
