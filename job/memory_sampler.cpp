#include "job/memory_sampler.hpp"

#include <algorithm>
#include <fstream>
#include <string>

namespace cuzk::job {

MemoryPeaks current_host_memory() {
  MemoryPeaks now;
  std::ifstream status("/proc/self/status");
  std::string key;
  std::uint64_t kib = 0;
  std::string unit;
  while (status >> key) {
    if (key == "RssAnon:" || key == "RssFile:") {
      status >> kib >> unit;
      (key == "RssAnon:" ? now.anon_bytes : now.file_bytes) = kib * 1024;
    } else {
      status.ignore(1 << 20, '\n');
    }
  }
  return now;
}

MemorySampler::MemorySampler(std::chrono::milliseconds interval, std::function<std::uint64_t()> device_used)
    : interval_(interval), device_used_(std::move(device_used)) {
  sample();
  ticker_.start(interval_, [this] { sample(); });
}

MemorySampler::~MemorySampler() {
  ticker_.stop();
}

void MemorySampler::sample() {
  MemoryPeaks now = current_host_memory();
  if (device_used_) now.device_bytes = device_used_();
  std::lock_guard lock(mutex_);
  peaks_.anon_bytes = std::max(peaks_.anon_bytes, now.anon_bytes);
  peaks_.file_bytes = std::max(peaks_.file_bytes, now.file_bytes);
  peaks_.device_bytes = std::max(peaks_.device_bytes, now.device_bytes);
}

MemoryPeaks MemorySampler::peaks() {
  sample();
  std::lock_guard lock(mutex_);
  return peaks_;
}

}  // namespace cuzk::job
