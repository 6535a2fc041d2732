// A thread that calls `tick` every `interval` until stop() or destruction: the run's samplers of host memory
// (job/memory_sampler.hpp) and of the GPU (job/gpu_meter.hpp). stop() waits for a tick in progress.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace cuzk::job {

class PeriodicThread {
 public:
  PeriodicThread() = default;
  ~PeriodicThread() { stop(); }
  PeriodicThread(const PeriodicThread&) = delete;
  PeriodicThread& operator=(const PeriodicThread&) = delete;

  // Once; the first tick comes one interval from now.
  void start(std::chrono::milliseconds interval, std::function<void()> tick) {
    thread_ = std::thread([this, interval, tick = std::move(tick)] {
      std::unique_lock lock(mutex_);
      while (!wake_.wait_for(lock, interval, [this] { return stop_; })) {
        lock.unlock();
        tick();
        lock.lock();
      }
    });
  }
  void stop() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
  }

 private:
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace cuzk::job
