//===- Budget.h - one kernel's time and memory budget -----------*- C++ -*-===//
//
// A kernel's validation (lowering, unrolling, runs, queries, replay, the
// bounded search) has one deadline and one memory bound. The work checks
// them cooperatively (exceeded(), cheap enough for an inner loop), the
// solver gets at most the time left (solverMs()), and a watchdog thread
// samples the process's resident memory and interrupts running solvers
// (Interrupt) once either bound is passed. A stop is sticky for the rest
// of the kernel: whatever the work returns after it, the verdict is
// `unknown` with reason(), never a proof or a counterexample.
//
// There is one budget per process at a time (a compile validates one
// kernel after another); scopes nest, and an inner scope only tightens.
//
//===----------------------------------------------------------------------===//
#ifndef KV_BUDGET_H
#define KV_BUDGET_H

#include <cstdint>
#include <functional>
#include <string>

namespace kv::budget {

enum class Kind { None, Time, Memory };

struct Limits {
  /// Seconds for the whole kernel (0: none).
  unsigned timeoutSecs = 0;
  /// Resident memory the process may grow by while the kernel is validated,
  /// in MB (0: none).
  unsigned maxMemoryMB = 0;
};

/// The budget of one kernel, from construction to destruction. \p spentMs
/// is work already done for the kernel before the scope (the plugin lowers
/// the source at the start of the pipeline).
class Scope {
public:
  explicit Scope(const Limits &limits, double spentMs = 0);
  ~Scope();
  Scope(const Scope &) = delete;
  Scope &operator=(const Scope &) = delete;

private:
  struct Saved;
  Saved *saved;
};

/// Whether the current kernel's budget has run out. Cheap: a flag, and
/// the clock every few dozen calls.
bool exceeded();
/// As exceeded(), reading the clock now.
bool exceededNow();
/// Record a stop (the first one is kept) with what ran out: "the unrolled
/// model passed 1,000,000 operations".
void stop(Kind kind, const std::string &what);
Kind stopped();
/// "budget: time (...)" or "budget: memory (...)"; empty when not stopped.
std::string reason();
/// The reason a lowering or a query gives up with when exceeded().
std::string shortReason();

/// Milliseconds left (at least 1 while a deadline is set; 0: no deadline).
unsigned remainingMs();
/// \p ms (0: none) capped by the time left.
unsigned solverMs(unsigned ms);
/// The memory bound in MB (0: none): a solver's own limit.
unsigned memoryMB();

/// How many operations an unrolled model or a query may hold while a
/// memory bound is set (0: no cap).
uint64_t maxModelOps();

/// The process's resident memory in KB (0 if unknown).
uint64_t residentKB();

/// While alive, \p fn is called (on the watchdog's thread) once the budget
/// has run out, and again every few milliseconds until destroyed: an
/// interrupt that reaches a solver before its check started is lost.
class Interrupt {
public:
  explicit Interrupt(std::function<void()> fn);
  ~Interrupt();
  Interrupt(const Interrupt &) = delete;
  Interrupt &operator=(const Interrupt &) = delete;

private:
  std::function<void()> fn;
};

} // namespace kv::budget

#endif // KV_BUDGET_H
