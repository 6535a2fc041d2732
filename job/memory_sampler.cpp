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

MemorySampler::MemorySampler(std::chrono::milliseconds interval, std::function<std::uint64_t()> device_used,
                             std::chrono::milliseconds stretch)
    : interval_(interval),
      device_used_(std::move(device_used)),
      stretch_(std::max(stretch, interval)),
      started_(std::chrono::steady_clock::now()) {
  sample();
  ticker_.start(interval_, [this] { sample(); });
}

MemorySampler::~MemorySampler() {
  ticker_.stop();
}

void MemorySampler::sample() {
  MemoryPeaks now = current_host_memory();
  if (device_used_) now.device_bytes = device_used_();
  const auto at = std::chrono::steady_clock::now();
  std::lock_guard lock(mutex_);
  // A new point once the open one's stretch is over; else the open one keeps the peaks and the latest time.
  if (series_.empty() || at - started_ >= stretch_ * series_.size()) series_.push_back({at, 0, 0});
  Stretch& point = series_.back();
  point.last = at;
  point.anon_bytes = std::max(point.anon_bytes, now.anon_bytes);
  point.device_bytes = std::max(point.device_bytes, now.device_bytes);
  peaks_.anon_bytes = std::max(peaks_.anon_bytes, now.anon_bytes);
  peaks_.file_bytes = std::max(peaks_.file_bytes, now.file_bytes);
  peaks_.device_bytes = std::max(peaks_.device_bytes, now.device_bytes);
}

MemoryPeaks MemorySampler::peaks() {
  sample();
  std::lock_guard lock(mutex_);
  return peaks_;
}

std::vector<MemoryPoint> MemorySampler::series(std::chrono::steady_clock::time_point origin) {
  sample();
  std::lock_guard lock(mutex_);
  std::vector<MemoryPoint> out;
  out.reserve(series_.size());
  for (const Stretch& s : series_)
    out.push_back({std::chrono::duration<double>(s.last - origin).count(), s.anon_bytes, s.device_bytes});
  return out;
}

}  // namespace cuzk::job
