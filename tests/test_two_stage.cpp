// job::run_two_stage: order, the bound of two live items, real overlap, and errors from either
// stage surfacing in the sequential order, for both modes.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <vector>

#include "job/two_stage.hpp"

using cuzk::job::run_two_stage;

namespace {

// Counts live instances (made and not destroyed, moved-from ones excluded), and the most at once.
struct Tracked {
  static inline std::atomic<int> live{0}, most{0};
  int value = -1;
  explicit Tracked(int v) : value(v) { enter(); }
  Tracked(Tracked&& o) noexcept : value(o.value) { o.value = -1; }
  Tracked& operator=(Tracked&& o) noexcept {
    if (value >= 0) --live;
    value = o.value;
    o.value = -1;
    return *this;
  }
  ~Tracked() {
    if (value >= 0) --live;
  }
  static void enter() {
    int now = ++live;
    int seen = most.load();
    while (now > seen && !most.compare_exchange_weak(seen, now)) {
    }
  }
  static void reset() { live = 0, most = 0; }
};

struct Outcome {
  std::vector<int> consumed;
  std::string error;
  int produced = 0;
};

// Items 0 .. count - 1; produce() throws at `produce_fails_at`, consume() at `consume_fails_at` (-1: never).
Outcome run(bool overlap, int count, int produce_fails_at = -1, int consume_fails_at = -1) {
  Outcome out;
  int next = 0;
  try {
    run_two_stage<Tracked>(
        [&]() -> std::optional<Tracked> {
          if (next == produce_fails_at) throw std::runtime_error("produce " + std::to_string(next));
          if (next == count) return std::nullopt;
          ++out.produced;
          return Tracked(next++);
        },
        [&](Tracked&& item) {
          if (item.value == consume_fails_at)
            throw std::runtime_error("consume " + std::to_string(item.value));
          out.consumed.push_back(item.value);
        },
        overlap);
  } catch (const std::runtime_error& e) {
    out.error = e.what();
  }
  return out;
}

TEST(TwoStage, SameOrderAndResultsInBothModes) {
  for (bool overlap : {false, true}) {
    Tracked::reset();
    Outcome o = run(overlap, 50);
    std::vector<int> expected(50);
    for (int i = 0; i < 50; ++i) expected[i] = i;
    EXPECT_EQ(o.consumed, expected) << "overlap " << overlap;
    EXPECT_EQ(o.error, "");
    EXPECT_EQ(Tracked::live.load(), 0) << "every item destroyed";
    EXPECT_LE(Tracked::most.load(), overlap ? 2 : 1) << "live items at once";
    EXPECT_TRUE(run(overlap, 0).consumed.empty());
  }
}

TEST(TwoStage, ProducerErrorComesAfterTheItemsBeforeIt) {
  for (bool overlap : {false, true}) {
    Outcome o = run(overlap, 10, /*produce_fails_at=*/4);
    EXPECT_EQ(o.consumed, (std::vector<int>{0, 1, 2, 3})) << "overlap " << overlap;
    EXPECT_EQ(o.error, "produce 4");
    Outcome first = run(overlap, 10, 0);
    EXPECT_TRUE(first.consumed.empty());
    EXPECT_EQ(first.error, "produce 0");
  }
}

TEST(TwoStage, ConsumerErrorStopsTheProducer) {
  for (bool overlap : {false, true}) {
    Tracked::reset();
    Outcome o = run(overlap, 100, -1, /*consume_fails_at=*/3);
    EXPECT_EQ(o.consumed, (std::vector<int>{0, 1, 2})) << "overlap " << overlap;
    EXPECT_EQ(o.error, "consume 3");
    // Sequential: exactly the failing item; overlapped: at most one more, made while 3 was consumed.
    EXPECT_GE(o.produced, 4);
    EXPECT_LE(o.produced, overlap ? 5 : 4);
    EXPECT_EQ(Tracked::live.load(), 0);
  }
}

// With overlap, item 1 is made while item 0 is consumed: the consumer of item 0 waits (bounded) for
// the producer to start item 1. Sequentially that cannot happen, and the wait times out.
TEST(TwoStage, OverlapRunsTheStagesAtOnce) {
  for (bool overlap : {false, true}) {
    std::mutex m;
    std::condition_variable cv;
    bool making_1 = false, saw_overlap = false;
    int next = 0;
    run_two_stage<int>(
        [&]() -> std::optional<int> {
          if (next == 3) return std::nullopt;
          if (next == 1) {
            std::lock_guard lock(m);
            making_1 = true;
            cv.notify_all();
          }
          return next++;
        },
        [&](int&& item) {
          if (item != 0) return;
          std::unique_lock lock(m);
          saw_overlap =
              cv.wait_for(lock, std::chrono::milliseconds(overlap ? 10000 : 50), [&] { return making_1; });
        },
        overlap);
    EXPECT_EQ(saw_overlap, overlap);
  }
}

}  // namespace
