//===- BudgetTest.cpp - one kernel's time and memory budget ---------------===//

#include "kv/Budget.h"

#include "gtest/gtest.h"

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

using namespace kv;

namespace {

TEST(BudgetTest, NoScopeNoBudget) {
  EXPECT_FALSE(budget::exceededNow());
  EXPECT_EQ(budget::remainingMs(), 0u);
  EXPECT_EQ(budget::solverMs(500), 500u);
  EXPECT_EQ(budget::maxModelOps(), 0u);
}

TEST(BudgetTest, DeadlineStopsAndInterrupts) {
  std::atomic<unsigned> calls{0};
  {
    budget::Scope scope({/*timeoutSecs=*/1, /*maxMemoryMB=*/0},
                        /*spentMs=*/900);
    EXPECT_LE(budget::remainingMs(), 100u);
    EXPECT_LE(budget::solverMs(60000), 100u);
    budget::Interrupt hook([&] { ++calls; });
    auto start = std::chrono::steady_clock::now();
    while (!budget::exceeded() &&
           std::chrono::steady_clock::now() - start < std::chrono::seconds(5))
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    EXPECT_EQ(budget::stopped(), budget::Kind::Time);
    EXPECT_EQ(budget::reason().rfind("budget: time (1 s per kernel", 0), 0u);
    // The watchdog calls the hook while the budget is spent.
    start = std::chrono::steady_clock::now();
    while (!calls.load() &&
           std::chrono::steady_clock::now() - start < std::chrono::seconds(5))
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    EXPECT_GT(calls.load(), 0u);
  }
  // The next kernel starts afresh.
  EXPECT_FALSE(budget::exceededNow());
  EXPECT_EQ(budget::stopped(), budget::Kind::None);
}

TEST(BudgetTest, StopIsStickyAndFirstWins) {
  budget::Scope scope({0, 64});
  EXPECT_EQ(budget::maxModelOps(), 64000u);
  budget::stop(budget::Kind::Memory, "the model passed 10 operations");
  budget::stop(budget::Kind::Time, "");
  EXPECT_TRUE(budget::exceeded());
  EXPECT_EQ(budget::shortReason(), "budget: memory");
  EXPECT_EQ(budget::reason().rfind(
                "budget: memory (the model passed 10 operations; the bound is "
                "64 MB per kernel",
                0),
            0u);
  {
    // An inner scope tightens and keeps the stop.
    budget::Scope inner({0, 128});
    EXPECT_EQ(budget::memoryMB(), 64u);
    EXPECT_TRUE(budget::exceeded());
  }
  EXPECT_TRUE(budget::exceeded());
}

TEST(BudgetTest, ResidentMemoryGrowth) {
  EXPECT_GT(budget::residentKB(), 0u);
  budget::Scope scope({0, 16});
  // 64 MB touched: past the 16 MB bound within a few watchdog ticks.
  std::vector<char> big(64 << 20, 1);
  auto start = std::chrono::steady_clock::now();
  while (!budget::exceeded() &&
         std::chrono::steady_clock::now() - start < std::chrono::seconds(5))
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_EQ(budget::stopped(), budget::Kind::Memory);
  EXPECT_NE(budget::reason().find("resident memory grew by"),
            std::string::npos);
  EXPECT_EQ(big[12345], 1);
}

} // namespace
