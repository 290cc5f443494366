//===- Budget.cpp - one kernel's time and memory budget -------------------===//

#include "kv/Budget.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <list>
#include <mutex>
#include <thread>
#include <unistd.h>

namespace kv::budget {

using Clock = std::chrono::steady_clock;

namespace {

/// How often the watchdog samples the resident memory and the clock.
constexpr std::chrono::milliseconds tick{20};

struct State {
  std::mutex mutex;
  std::condition_variable wake;
  unsigned depth = 0;
  bool hasDeadline = false;
  Clock::time_point start, deadline, stoppedAt;
  unsigned timeoutSecs = 0;
  unsigned memoryMB = 0;
  uint64_t baseKB = 0, peakKB = 0;
  std::atomic<int> kind{0};
  std::string what;
  bool stopWatch = false;
  std::thread watchdog;
  std::list<std::function<void()> *> hooks;
};

State &state() {
  // Never destroyed: a scope may end during static destruction.
  static State *s = new State;
  return *s;
}

std::string seconds(double ms) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f s", ms / 1000);
  return buf;
}

/// With the mutex held.
void stopLocked(State &s, Kind k, const std::string &what) {
  if (s.kind.load())
    return;
  s.what = what;
  s.stoppedAt = Clock::now();
  s.kind.store((int)k);
}

void watch() {
  State &s = state();
  std::unique_lock<std::mutex> lock(s.mutex);
  while (!s.stopWatch) {
    s.wake.wait_for(lock, tick);
    if (s.stopWatch)
      break;
    if (!s.kind.load()) {
      if (s.hasDeadline && Clock::now() >= s.deadline) {
        stopLocked(s, Kind::Time, "");
      } else if (s.memoryMB) {
        uint64_t kb = residentKB();
        s.peakKB = std::max(s.peakKB, kb);
        if (kb > s.baseKB && kb - s.baseKB > (uint64_t)s.memoryMB * 1024)
          stopLocked(s, Kind::Memory,
                     "the compile's resident memory grew by " +
                         std::to_string((kb - s.baseKB) / 1024) + " MB");
      }
    }
    if (s.kind.load())
      for (std::function<void()> *fn : s.hooks)
        (*fn)();
  }
}

} // namespace

struct Scope::Saved {
  bool hasDeadline;
  Clock::time_point deadline;
  unsigned timeoutSecs, memoryMB;
};

Scope::Scope(const Limits &limits, double spentMs) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  saved = new Saved{s.hasDeadline, s.deadline, s.timeoutSecs, s.memoryMB};
  Clock::time_point now = Clock::now();
  if (s.depth++ == 0) {
    s.kind.store(0);
    s.what.clear();
    s.hasDeadline = false;
    s.timeoutSecs = 0;
    s.memoryMB = 0;
    s.start = now - std::chrono::microseconds((int64_t)(spentMs * 1000));
    s.baseKB = s.peakKB = residentKB();
  }
  if (limits.timeoutSecs) {
    Clock::time_point d = now + std::chrono::seconds(limits.timeoutSecs) -
                          std::chrono::microseconds((int64_t)(spentMs * 1000));
    if (!s.hasDeadline || d < s.deadline) {
      s.deadline = d;
      s.timeoutSecs = limits.timeoutSecs;
    }
    s.hasDeadline = true;
  }
  if (limits.maxMemoryMB && (!s.memoryMB || limits.maxMemoryMB < s.memoryMB))
    s.memoryMB = limits.maxMemoryMB;
  if (s.depth == 1 && (s.hasDeadline || s.memoryMB)) {
    s.stopWatch = false;
    s.watchdog = std::thread(watch);
  }
}

Scope::~Scope() {
  State &s = state();
  std::thread done;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    s.hasDeadline = saved->hasDeadline;
    s.deadline = saved->deadline;
    s.timeoutSecs = saved->timeoutSecs;
    s.memoryMB = saved->memoryMB;
    delete saved;
    if (--s.depth == 0) {
      // The next kernel starts afresh.
      s.kind.store(0);
      s.stopWatch = true;
      done = std::move(s.watchdog);
    }
  }
  s.wake.notify_all();
  // Joined outside the lock: the watchdog takes it to finish its tick.
  if (done.joinable())
    done.join();
}

bool exceededNow() {
  State &s = state();
  if (s.kind.load())
    return true;
  if (!s.depth)
    return false;
  std::lock_guard<std::mutex> lock(s.mutex);
  if (s.hasDeadline && Clock::now() >= s.deadline)
    stopLocked(s, Kind::Time, "");
  return s.kind.load() != 0;
}

bool exceeded() {
  State &s = state();
  if (s.kind.load())
    return true;
  // The clock every 64 calls; the watchdog catches the rest within a tick.
  thread_local unsigned calls = 0;
  if (++calls % 64)
    return false;
  return exceededNow();
}

void stop(Kind kind, const std::string &what) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  stopLocked(s, kind, what);
}

Kind stopped() { return (Kind)state().kind.load(); }

std::string shortReason() {
  switch (stopped()) {
  case Kind::None:
    return "";
  case Kind::Time:
    return "budget: time";
  case Kind::Memory:
    return "budget: memory";
  }
  return "";
}

std::string reason() {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  Kind k = (Kind)s.kind.load();
  if (k == Kind::None)
    return "";
  double spent =
      std::chrono::duration<double, std::milli>(s.stoppedAt - s.start).count();
  if (k == Kind::Time)
    return "budget: time (" + std::to_string(s.timeoutSecs) +
           " s per kernel, -kvalidate-timeout / --timeout; stopped after " +
           seconds(spent) + ")";
  return "budget: memory (" + s.what + "; the bound is " +
         std::to_string(s.memoryMB) +
         " MB per kernel, -kvalidate-max-memory / --max-memory; stopped "
         "after " +
         seconds(spent) + ")";
}

unsigned remainingMs() {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!s.depth || !s.hasDeadline)
    return 0;
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                  s.deadline - Clock::now())
                  .count();
  return left <= 1 ? 1 : (unsigned)std::min<long long>(left, 1u << 31);
}

unsigned solverMs(unsigned ms) {
  unsigned left = remainingMs();
  if (!left)
    return ms;
  return ms ? std::min(ms, left) : left;
}

unsigned memoryMB() {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.depth ? s.memoryMB : 0;
}

uint64_t maxModelOps() {
  // About a kilobyte per operation, with its solver terms and the copies a
  // lowering keeps: past this many the model cannot fit the bound anyway.
  return (uint64_t)memoryMB() * 1000;
}

uint64_t residentKB() {
  FILE *f = std::fopen("/proc/self/statm", "r");
  if (!f)
    return 0;
  // "size resident shared ..." in pages.
  char line[128];
  bool read = std::fgets(line, sizeof line, f) != nullptr;
  std::fclose(f);
  if (!read)
    return 0;
  char *end = nullptr;
  (void)std::strtoull(line, &end, 10);
  char *rest = end;
  unsigned long long resident = std::strtoull(rest, &end, 10);
  if (end == rest)
    return 0;
  return resident * (uint64_t)sysconf(_SC_PAGESIZE) / 1024;
}

Interrupt::Interrupt(std::function<void()> f) : fn(std::move(f)) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.hooks.push_back(&fn);
}

Interrupt::~Interrupt() {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.hooks.remove(&fn);
}

} // namespace kv::budget
