// Two pipeline stages, optionally overlapped: produce() makes items (synthesized partitions) and
// consume() uses them (proves them). With overlap, produce() runs on its own thread one item ahead, so
// that the CPU synthesizes partition k + 1 while the GPU proves partition k.
#pragma once

#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>

namespace cuzk::job {

// Calls consume(item) for every item of produce() (until it returns nothing), in order.
// overlap = false: one after the other on this thread.
// overlap = true: produce() runs on a second thread; it starts an item only once the consumer has taken
// the previous one, so at most two items are alive (the one consumed and the next, made or being made).
// Errors keep the sequential order: an exception from produce() is rethrown here after every item made
// before it was consumed; one from consume() stops the producer (after the item it is making) and is
// rethrown. Neither thread outlives the call.
template <class T>
void run_two_stage(const std::function<std::optional<T>()>& produce, const std::function<void(T&&)>& consume,
                   bool overlap) {
  if (!overlap) {
    while (std::optional<T> item = produce()) consume(std::move(*item));
    return;
  }
  std::mutex mutex;
  std::condition_variable changed;
  std::optional<T> ready;      // made, not yet taken
  std::exception_ptr failure;  // what produce() threw
  bool produced_all = false;   // produce() returned nothing or threw
  bool may_produce = true;     // the consumer took the last item made
  bool stop = false;           // the consumer failed

  std::thread producer([&] {
    for (;;) {
      {
        std::unique_lock lock(mutex);
        changed.wait(lock, [&] { return may_produce || stop; });
        if (stop) return;
        may_produce = false;
      }
      std::optional<T> item;
      std::exception_ptr error;
      try {
        item = produce();
      } catch (...) {
        error = std::current_exception();
      }
      std::lock_guard lock(mutex);
      if (error || !item) {
        failure = error;
        produced_all = true;
      } else {
        ready = std::move(item);
      }
      changed.notify_all();
      if (produced_all) return;
    }
  });
  auto join = [&] {
    {
      std::lock_guard lock(mutex);
      stop = true;
    }
    changed.notify_all();
    producer.join();
  };

  try {
    for (;;) {
      std::optional<T> item;
      {
        std::unique_lock lock(mutex);
        changed.wait(lock, [&] { return ready.has_value() || produced_all; });
        if (!ready) break;  // all made and consumed (a ready item always precedes the end)
        item = std::move(ready);
        ready.reset();
        may_produce = true;
      }
      changed.notify_all();
      consume(std::move(*item));
    }
  } catch (...) {
    join();
    throw;
  }
  join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace cuzk::job
