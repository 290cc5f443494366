//===- Solver.cpp - the solver layer: Z3 strategies in parallel -----------===//

#include "smt-encode/Solver.h"
#include "kv/Budget.h"
#include "smt-encode/Debug.h"
#include "smt-encode/Stats.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

namespace kv {

/// printf-style debug line on stderr.
template <typename... Ts> static void kvDebugf(const char *fmt, Ts... args) {
  llvm::errs() << llvm::format(fmt, args...);
}

namespace {
/// Fresh contexts made ahead of time on a thread of their own, and spent
/// ones deleted there. Never a reused one: the solvers' search follows the
/// ids of terms, which a used context numbers differently than a fresh
/// one, and a query that takes 6 s in a fresh context took over 60 s in a
/// reused one (test/plugin/remark-matvec.cu); with fresh contexts a
/// verdict does not depend on what ran before it in the process.
class ContextFactory {
public:
  static ContextFactory &get() {
    // Never destroyed: a worker left deleting a context at exit (below)
    // still uses it. A static guard stops the worker on the way out.
    static ContextFactory *factory = new ContextFactory;
    static Finish finish{factory};
    return *factory;
  }

  void start() {
    std::lock_guard<std::mutex> lock(mutex);
    startLocked();
  }

  std::unique_ptr<z3::context> take() {
    std::unique_lock<std::mutex> lock(mutex);
    startLocked();
    // One on the way is nearer than a new one.
    if (ready.empty() && making)
      made.wait(lock, [this] { return !ready.empty() || !making; });
    if (!ready.empty()) {
      std::unique_ptr<z3::context> c = std::move(ready.back());
      ready.pop_back();
      wake.notify_one();
      return c;
    }
    // A miss: keep one more ready from now on.
    target = std::min(target + 1, maxReady);
    wake.notify_one();
    lock.unlock();
    return std::make_unique<z3::context>();
  }

  void give(std::unique_ptr<z3::context> c) {
    if (disabled())
      return; // deleted here
    std::lock_guard<std::mutex> lock(mutex);
    spent.push_back(std::move(c));
    wake.notify_one();
  }

  /// Stops the worker at exit.
  struct Finish {
    ContextFactory *factory;
    ~Finish() { factory->finish(); }
  };

  void finish() {
    std::unique_lock<std::mutex> lock(mutex);
    stop = true;
    wake.notify_one();
    if (!worker.joinable())
      return;
    // A context being made is waited for (15 ms; more under load): static
    // destructors run next, and Z3 making a context on another thread
    // meanwhile can crash the process. Deleting the context of a long
    // proof takes seconds (6 s after a 0.6 s proof through 2000 barrier
    // intervals), which no kernel's budget covers: the process is ending,
    // so a worker still deleting is left to it rather than waited for.
    idle.wait(lock, [this] { return !making; });
    if (!idle.wait_for(lock, std::chrono::milliseconds(50),
                       [this] { return !busy; })) {
      worker.detach();
      return;
    }
    lock.unlock();
    worker.join();
    // The process is ending: deleting a context costs about 4 ms, on the
    // way out of every compile.
    for (std::unique_ptr<z3::context> &c : ready)
      (void)c.release();
    for (std::unique_ptr<z3::context> &c : spent)
      (void)c.release();
  }

private:
  /// KV_NO_CONTEXT_FACTORY=1 (a debugging aid): every context made and
  /// deleted where it is used, as before the factory.
  static bool disabled() {
    static bool off = [] {
      const char *e = std::getenv("KV_NO_CONTEXT_FACTORY");
      return e && *e && std::string(e) != "0";
    }();
    return off;
  }

  void startLocked() {
    if (!worker.joinable() && !disabled())
      worker = std::thread([this] { run(); });
  }

  void run() {
    std::unique_lock<std::mutex> lock(mutex);
    while (true) {
      wake.wait(lock, [this] {
        return stop || !spent.empty() || ready.size() < target;
      });
      if (stop)
        return;
      // Making first: a validation may be waiting for it.
      if (ready.size() >= target) {
        std::unique_ptr<z3::context> c = std::move(spent.back());
        spent.pop_back();
        busy = true;
        lock.unlock();
        c.reset();
        lock.lock();
        busy = false;
        idle.notify_all();
        continue;
      }
      making = busy = true;
      lock.unlock();
      auto c = std::make_unique<z3::context>();
      lock.lock();
      making = busy = false;
      idle.notify_all();
      ready.push_back(std::move(c));
      made.notify_all();
    }
  }

  /// A validation holds an encoder's context and a check's two at once: up
  /// to three are kept ready, one to start with (a small pair needs one;
  /// each context made and never used is 17 MB to fault in and free).
  static constexpr size_t maxReady = 3;
  size_t target = 1;
  bool making = false;
  /// The worker is making or deleting a context (outside the lock).
  bool busy = false;
  std::mutex mutex;
  std::condition_variable wake, made, idle;
  std::vector<std::unique_ptr<z3::context>> ready, spent;
  bool stop = false;
  std::thread worker;
};
} // namespace

ContextLease::ContextLease() : ctx(ContextFactory::get().take()) {}

void ContextLease::prepare() { ContextFactory::get().start(); }

ContextLease::~ContextLease() { ContextFactory::get().give(std::move(ctx)); }

/// How long Z3's default solver waits for the second strategy's answer
/// before it starts too (Portfolio::check).
static constexpr std::chrono::milliseconds defaultDelay{200};

z3::context &evaluationContext() {
  thread_local z3::context *ctx = ContextFactory::get().take().release();
  return *ctx;
}

/// The portfolio's strategies: Z3's default solver, or equation solving
/// first (simplify, solve-eqs, then the SMT core).
static z3::solver makeStrategy(z3::context &c, bool eqs) {
  if (!eqs)
    return z3::solver(c);
  return (z3::tactic(c, "simplify") & z3::tactic(c, "solve-eqs") &
          z3::tactic(c, "smt"))
      .mk_solver();
}

/// --kv-debug=strategies: the query once more with each of four
/// strategies alone, one after the other (at most 60 s each), and one line
/// of their times on stderr: what utils/solver-configs.py tabulates to
/// choose the portfolio's strategies.
void Portfolio::compareStrategies() {
  std::string line = "strategies:";
  for (int cfg = 0; cfg < 4; ++cfg) {
    ContextLease lease;
    z3::context &c = lease;
    z3::solver s = makeStrategy(c, /*eqs=*/cfg % 2 == 1);
    z3::params p(c);
    p.set("timeout", 60000u);
    if (cfg >= 2)
      p.set("smt.relevancy", 0u);
    s.set(p);
    for (unsigned i = 0; i < asserts.size(); ++i)
      s.add(z3::expr(c, Z3_translate(ctx, asserts[i], c)));
    auto t0 = std::chrono::steady_clock::now();
    z3::check_result r = z3::unknown;
    try {
      r = s.check();
    } catch (z3::exception &) {
      r = z3::unknown;
    }
    long ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                  std::chrono::steady_clock::now() - t0)
                  .count();
    static const char *const names[] = {"default", "eqs", "default-r0",
                                        "eqs-r0"};
    line += std::string(" ") + names[cfg] + "=" + std::to_string(ms) +
            (r == z3::sat     ? "s"
             : r == z3::unsat ? "u"
                              : "?");
  }
  llvm::errs() << line << "\n";
}

z3::check_result Portfolio::check() {
  stats::Scoped timer("solver");
  // The kernel's budget: what its deadline leaves, and nothing once spent.
  if (budget::exceeded()) {
    reason = budget::shortReason();
    return z3::unknown;
  }
  unsigned left = budget::solverMs(remainingMs()); // 0: no deadline
  // Z3's own memory bound, relative to what it holds already. (Not the
  // global memory_max_size: with Z3 4.8.12 reaching that crashed the
  // process.) The tactic-built strategy ignores it; the watchdog's
  // interrupt (below) covers both.
  unsigned maxMemory = 0;
  if (unsigned mb = budget::memoryMB())
    maxMemory = mb + (unsigned)(Z3_get_estimated_alloc_size() >> 20);
  // --solver=default or =eqs runs one strategy alone (to reproduce what
  // the race can return).
  bool run1 = settings.only != "eqs";
  bool run2 = settings.only != "default";
  // Both solvers get contexts of their own, not the encoder's: an interrupt
  // that lands just after a check returned stays pending in its context
  // until the next check there, and would cancel the encoder's simplifying
  // in between. Fresh ones: see ContextFactory. The second strategy's
  // context is taken here; the default's only when it runs (below).
  ContextLease lease2;
  std::optional<ContextLease> lease1;
  z3::context &ctx2 = lease2;
  z3::solver s2 = makeStrategy(ctx2, /*eqs=*/true);
  unsigned seed = settings.seed;
  auto configure = [&](z3::context &c, z3::solver &s, bool relevancy0) {
    z3::params p(c);
    // The second strategy also gives every atom to the theories at once
    // (relevancy 0) instead of only those the Boolean search makes
    // relevant: on the checker's queries (bit-vector sums and index terms,
    // arrays read at few indices) that is 2.6 times faster in all over 193
    // queries of the long lane, and up to 50 times on one, while Z3's
    // default stays in the race for the queries where it loses
    // (utils/solver-configs.py).
    if (relevancy0)
      p.set("smt.relevancy", 0u);
    if (seed)
      p.set("random_seed", seed);
    if (left)
      p.set("timeout", left);
    if (rlimit)
      p.set("rlimit", rlimit);
    if (maxMemory && !relevancy0)
      p.set("max_memory", maxMemory);
    s.set(p);
    for (unsigned i = 0; i < asserts.size(); ++i)
      s.add(z3::expr(c, Z3_translate(ctx, asserts[i], c)));
  };
  configure(ctx2, s2, /*relevancy0=*/true);
  // An interrupt that arrives before the other check starts is lost, so
  // the winner keeps interrupting until the loser has returned.
  std::atomic<bool> mainDone{false}, otherDone{false};
  std::atomic<z3::context *> ctx1{nullptr};
  std::mutex doneMutex;
  std::condition_variable doneCv;
  z3::check_result r2 = z3::unknown;
  // Past the kernel's time or memory bound, the watchdog stops both.
  budget::Interrupt stopBoth([&] {
    ctx2.interrupt();
    if (z3::context *c = ctx1.load())
      c->interrupt();
  });
  std::thread other([&] {
    try {
      if (run2)
        r2 = s2.check();
    } catch (z3::exception &) {
      r2 = z3::unknown;
    }
    {
      std::lock_guard<std::mutex> lock(doneMutex);
      otherDone = true;
    }
    doneCv.notify_all();
    if (r2 != z3::unknown)
      while (!mainDone.load()) {
        if (z3::context *c = ctx1.load())
          c->interrupt();
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
  });
  // The default solver starts a moment later: the second strategy answers
  // most queries within it (a few ms to 200 ms; 171 of the 193 slow ones
  // first), and a solver that is not started costs no CPU and no context.
  // Under a parallel test run or build every core is busy, and the race's
  // second thread took CPU from the other jobs; when the query is hard the
  // delay is small against its time.
  if (run1 && run2) {
    std::unique_lock<std::mutex> lock(doneMutex);
    doneCv.wait_for(lock, defaultDelay, [&] { return otherDone.load(); });
  }
  z3::check_result r1 = z3::unknown;
  std::optional<z3::solver> s1;
  if (run1 && !(otherDone.load() && r2 != z3::unknown)) {
    lease1.emplace();
    z3::context &c1 = *lease1;
    s1.emplace(makeStrategy(c1, /*eqs=*/false));
    configure(c1, *s1, /*relevancy0=*/false);
    ctx1 = &c1;
    try {
      r1 = s1->check();
    } catch (z3::exception &) {
      r1 = z3::unknown;
    }
  }
  mainDone = true;
  if (r1 != z3::unknown)
    while (!otherDone.load()) {
      ctx2.interrupt();
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  other.join();
  KV_DEBUG("rlimit", {
    auto count = [](z3::solver &s) {
      z3::stats st = s.statistics();
      for (unsigned i = 0; i < st.size(); ++i)
        if (st.key(i) == "rlimit count")
          return st.uint_value(i);
      return 0u;
    };
    llvm::errs() << "rlimit count: " << (s1 ? count(*s1) : 0u) << " / "
                 << count(s2) << "\n";
  });
  KV_DEBUG("strategies", compareStrategies());
  model.reset();
  // The winner's interrupt can land in the other context just after its
  // check returned `sat`; it then cancels taking the model, on loaded
  // machines. The check once more (no race now) takes it.
  auto take = [&](z3::solver &s, z3::context &c) {
    for (int attempt = 0; attempt < 2; ++attempt) {
      try {
        if (attempt && s.check() != z3::sat)
          return false;
        z3::model m = s.get_model();
        Z3_model t = Z3_model_translate(c, m, ctx);
        c.check_error();
        model = std::make_unique<z3::model>(ctx, t);
        return true;
      } catch (z3::exception &) {
        continue; // once more, as said above
      }
    }
    return false;
  };
  if (r1 != z3::unknown) {
    if (r1 == z3::sat && !take(*s1, *lease1) &&
        !(r2 == z3::sat && take(s2, ctx2))) {
      reason = "canceled";
      return z3::unknown;
    }
    return r1;
  }
  if (r2 != z3::unknown) {
    if (r2 == z3::sat && !take(s2, ctx2)) {
      reason = "canceled";
      return z3::unknown;
    }
    return r2;
  }
  reason = budget::exceeded() ? budget::shortReason()
           : s1               ? s1->reason_unknown()
                              : s2.reason_unknown();
  return z3::unknown;
}
z3::check_result Portfolio::checkRefined(
    const std::vector<std::pair<z3::expr, z3::expr>> &abstracted,
    const std::function<bool(const z3::model &)> &accept) {
  bool debug = debugEnabled("checker");
  auto t0 = std::chrono::steady_clock::now();
  auto ms = [&] {
    return (long)std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::steady_clock::now() - t0)
        .count();
  };
  z3::check_result r = check();
  if (debug)
    kvDebugf("check: %s after %ld ms\n",
             r == z3::sat     ? "sat"
             : r == z3::unsat ? "unsat"
                              : "unknown",
             ms());
  std::vector<bool> exact(abstracted.size());
  // Lazy facts asserted in this call (a pop may have dropped earlier ones).
  std::vector<bool> asserted(lazy.size());
  unsigned productRounds = 0, factRounds = 0;
  for (unsigned round = 0; r == z3::sat; ++round) {
    if (accept && accept(*model)) {
      if (debug)
        kvDebugf("refinement round %u: model accepted unrefined\n", round);
      return r;
    }
    // The facts a model breaks first, alone: they are cheap to add, and
    // often enough to refute the query without a multiplier's bits.
    unsigned added = 0, facts = 0, ahead = 0;
    for (size_t i = 0; i < lazy.size(); ++i) {
      if (asserted[i] ||
          (factRounds < 3 && !model->eval(lazy[i], true).is_false()))
        continue;
      add(lazy[i]);
      asserted[i] = true;
      ++facts;
    }
    // No fact broken, and the products would get exact: the facts not
    // asserted yet go first, where they are few. A multiplier's bits make
    // every later round slow; the facts alone refute many queries (the
    // row/column lemma of a tiled transpose's race query: 1 s instead of
    // 4 s), and where they do not, the next round makes products exact.
    if (!facts && !productRounds && llvm::count(asserted, false) <= 256) {
      for (size_t i = 0; i < lazy.size(); ++i) {
        if (asserted[i])
          continue;
        add(lazy[i]);
        asserted[i] = true;
        ++ahead;
      }
    }
    if (facts)
      ++factRounds;
    for (size_t i = 0; i < abstracted.size() && !facts && !ahead; ++i) {
      auto &[app, precise] = abstracted[i];
      // After a few rounds, every application is made exact: models that
      // get one new product wrong per round would otherwise take as many
      // rounds as there are products.
      if (exact[i] || (productRounds < 3 && z3::eq(model->eval(app, true),
                                                   model->eval(precise, true))))
        continue;
      add(app == precise);
      exact[i] = true;
      ++added;
      if (debugEnabled("products"))
        kvDebugf("  exact: %s\n", app.to_string().substr(0, 300).c_str());
    }
    if (added)
      ++productRounds;
    if (debug)
      kvDebugf("refinement round %u: %u precise products, %u lemmas%s\n", round,
               added, facts + ahead, ahead ? " (all left)" : "");
    added += facts + ahead;
    if (!added)
      break;
    if (round == 50) {
      reason = "too many refinement rounds";
      return z3::unknown;
    }
    r = check();
    if (debug)
      kvDebugf("check: %s after %ld ms\n",
               r == z3::sat     ? "sat"
               : r == z3::unsat ? "unsat"
                                : "unknown",
               ms());
  }
  return r;
}
} // namespace kv
