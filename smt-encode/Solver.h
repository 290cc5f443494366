//===- Solver.h - the solver layer: Z3 strategies in parallel ---*- C++ -*-===//
//
// The checker's queries go to a Portfolio: two Z3 strategies run at once,
// under a time budget and a deterministic resource limit.
//
//===----------------------------------------------------------------------===//
#ifndef KV_SMT_SOLVER_H
#define KV_SMT_SOLVER_H

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>
#include <z3++.h>

namespace kv {

/// Internal knobs of the solvers (hidden options --solver and --seed):
/// one strategy alone ("default" or "eqs"; empty: both), and the random
/// seed (0: Z3's default). For debugging and reproducing what the race
/// between the strategies can return.
struct SolverSettings {
  std::string only;
  unsigned seed = 0;
};

/// A fresh Z3 context, made ahead of time on a thread of its own, and
/// deleted there when the lease ends. Making one costs about as much as a
/// small query (15 ms on these machines: its plugins and tactics), and one
/// validation uses a dozen: this keeps that off the critical path without
/// ever reusing a context (see ContextFactory in Solver.cpp).
class ContextLease {
public:
  ContextLease();
  ~ContextLease();
  ContextLease(const ContextLease &) = delete;
  ContextLease &operator=(const ContextLease &) = delete;
  z3::context &get() { return *ctx; }
  operator z3::context &() { return *ctx; }

  /// Starts making contexts now, so that the first leases, taken after the
  /// inputs are loaded and lowered, find them ready.
  static void prepare();

private:
  std::unique_ptr<z3::context> ctx;
};

/// The calling thread's context for evaluating ground terms (assumptions at
/// concrete launches and scalars), in which nothing is ever solved: whether
/// a ground term simplifies to true does not depend on what the context
/// held before. Taken from the contexts made ahead, kept for the thread's
/// life, and never deleted (that would cost every compile's exit 4 ms).
z3::context &evaluationContext();

/// Two strategies that fail on different queries: Z3's default solver for
/// bit-vectors, and equation solving first (launch assumptions such as
/// blockDim.x == blockDim.y then make the two kernels' terms coincide).
/// They run in parallel, so that neither one's bad case decides the time.
/// The default one starts a moment later: most queries are answered before,
/// and a solver that never starts costs no CPU.
class Portfolio {
public:
  /// A budget of \p ms from now, within \p global's (0 from global: none).
  static std::function<unsigned()>
  capped(const std::function<unsigned()> &global,
         std::chrono::milliseconds ms) {
    auto until = std::chrono::steady_clock::now() + ms;
    return [until, global]() -> unsigned {
      long left = std::chrono::duration_cast<std::chrono::milliseconds>(
                      until - std::chrono::steady_clock::now())
                      .count();
      unsigned mine = left <= 1 ? 1 : (unsigned)left;
      unsigned g = global();
      return g ? std::min(g, mine) : mine;
    };
  }

  Portfolio(z3::context &ctx, std::function<unsigned()> remainingMs,
            SolverSettings settings = {})
      : ctx(ctx), asserts(ctx), remainingMs(std::move(remainingMs)),
        settings(std::move(settings)) {}

  void add(const z3::expr &e) { asserts.push_back(e); }
  void add(const z3::expr_vector &v) {
    for (unsigned i = 0; i < v.size(); ++i)
      asserts.push_back(v[i]);
  }
  /// Valid facts that checkRefined asserts only where a model breaks them
  /// (index lemmas: quadratic in the index terms, most never needed; with
  /// them all, a query the solver refutes in seconds can take a minute).
  void addLazy(const z3::expr_vector &v) {
    for (unsigned i = 0; i < v.size(); ++i)
      lazy.push_back(v[i]);
  }
  void setRemaining(std::function<unsigned()> f) { remainingMs = std::move(f); }
  const z3::expr_vector &assertions() const { return asserts; }
  /// Z3's deterministic resource limit per check (0: none): unlike a
  /// timeout, the answer does not depend on the machine's load.
  unsigned rlimit = 0;
  void push() { frames.push_back(asserts.size()); }
  void pop() {
    z3::expr_vector kept(ctx);
    for (unsigned i = 0; i < frames.back(); ++i)
      kept.push_back(asserts[i]);
    asserts = kept;
    frames.pop_back();
  }

  /// Both strategies (simplify, solve-eqs and the SMT core with relevancy
  /// 0; Z3's default solver, started 200 ms later unless the first has
  /// answered by then), each in its own context and thread; the first
  /// decisive answer wins and interrupts the other.
  z3::check_result check();
  /// check() with lazy refinement of abstracted terms (application, precise
  /// term): the precise definition of every application the model gets
  /// wrong is put back, so a `sat` model is right for all of them.
  /// The lazy facts are refined the same way: those a model breaks are
  /// asserted, and after a few rounds all of them.
  /// \p accept, when given, sees each model before it is refined: a model
  /// it accepts (a counterexample that replays with exact arithmetic, say)
  /// ends the search as `sat` unrefined, without the exact products that
  /// can make the next round minutes long.
  z3::check_result
  checkRefined(const std::vector<std::pair<z3::expr, z3::expr>> &abstracted,
               const std::function<bool(const z3::model &)> &accept = {});
  z3::model get_model() { return *model; }
  std::string reason_unknown() { return reason; }
  std::string to_smt2() {
    z3::solver s(ctx);
    s.add(asserts);
    for (const z3::expr &e : lazy)
      s.add(e);
    return s.to_smt2();
  }

private:
  void compareStrategies();

  z3::context &ctx;
  z3::expr_vector asserts;
  std::vector<z3::expr> lazy;
  std::vector<unsigned> frames;
  std::function<unsigned()> remainingMs;
  SolverSettings settings;
  std::unique_ptr<z3::model> model;
  std::string reason;
};

} // namespace kv

#endif // KV_SMT_SOLVER_H
