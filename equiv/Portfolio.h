//===- Portfolio.h - two Z3 strategies in turns ------------------*- C++ -*-===//
#ifndef KV_EQUIV_PORTFOLIO_H
#define KV_EQUIV_PORTFOLIO_H

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <functional>
#include <memory>
#include <string>
#include <vector>
#include <z3++.h>

namespace kv {

/// Two strategies that fail on different queries: Z3's default solver for
/// bit-vectors, and equation solving first (launch assumptions such as
/// blockDim.x == blockDim.y then make the two kernels' terms coincide).
/// They run in parallel, so that neither one's bad case decides the time.
class Portfolio {
public:
  /// A budget of \p ms from now, within \p global's (0 from global: none).
  static std::function<unsigned()> capped(std::function<unsigned()> global,
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

  Portfolio(z3::context &ctx, std::function<unsigned()> remainingMs)
      : ctx(ctx), asserts(ctx), remainingMs(std::move(remainingMs)) {}

  void add(const z3::expr &e) { asserts.push_back(e); }
  void add(const z3::expr_vector &v) {
    for (unsigned i = 0; i < v.size(); ++i)
      asserts.push_back(v[i]);
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

  /// Both strategies at once, each in its own context and thread; the first
  /// decisive answer wins and interrupts the other.
  z3::check_result check() {
    unsigned left = remainingMs(); // 0: no deadline
    // Both solvers get contexts of their own: an interrupt that lands just
    // after a check returned stays pending in its context, and would cancel
    // whatever runs next there (the encoder's own context included).
    z3::context ctx1, ctx2;
    z3::solver s1(ctx1);
    z3::solver s2 = (z3::tactic(ctx2, "simplify") &
                     z3::tactic(ctx2, "solve-eqs") & z3::tactic(ctx2, "smt"))
                        .mk_solver();
    const char *seed = getenv("KV_SEED");
    if (left || rlimit || seed) {
      z3::params p1(ctx1), p2(ctx2);
      if (seed) {
        p1.set("random_seed", (unsigned)atoi(seed));
        p2.set("random_seed", (unsigned)atoi(seed));
      }
      if (left) {
        p1.set("timeout", left);
        p2.set("timeout", left);
      }
      if (rlimit) {
        p1.set("rlimit", rlimit);
        p2.set("rlimit", rlimit);
      }
      s1.set(p1);
      s2.set(p2);
    }
    for (unsigned i = 0; i < asserts.size(); ++i) {
      s1.add(z3::expr(ctx1, Z3_translate(ctx, asserts[i], ctx1)));
      s2.add(z3::expr(ctx2, Z3_translate(ctx, asserts[i], ctx2)));
    }
    // An interrupt that arrives before the other check starts is lost, so
    // the winner keeps interrupting until the loser has returned.
    std::atomic<bool> mainDone{false}, otherDone{false};
    auto stop = [](z3::context &c, std::atomic<bool> &until) {
      while (!until.load()) {
        c.interrupt();
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
    };
    // KV_SOLVER=default or =eqs runs one strategy alone (to reproduce what
    // the race can return).
    const char *only = getenv("KV_SOLVER");
    bool run1 = !only || std::string(only) != "eqs";
    bool run2 = !only || std::string(only) != "default";
    z3::check_result r2 = z3::unknown;
    std::thread other([&] {
      try {
        if (run2)
          r2 = s2.check();
      } catch (z3::exception &) {
        r2 = z3::unknown;
      }
      otherDone = true;
      if (r2 != z3::unknown)
        stop(ctx1, mainDone);
    });
    z3::check_result r1 = z3::unknown;
    try {
      if (run1)
        r1 = s1.check();
    } catch (z3::exception &) {
      r1 = z3::unknown;
    }
    mainDone = true;
    if (r1 != z3::unknown)
      stop(ctx2, otherDone);
    other.join();
    if (getenv("KV_DEBUG_RLIMIT")) {
      auto count = [](z3::solver &s) {
        z3::stats st = s.statistics();
        for (unsigned i = 0; i < st.size(); ++i)
          if (st.key(i) == "rlimit count")
            return st.uint_value(i);
        return 0u;
      };
      fprintf(stderr, "rlimit count: %u / %u\n", count(s1), count(s2));
    }
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
        }
      }
      return false;
    };
    if (r1 != z3::unknown) {
      if (r1 == z3::sat && !take(s1, ctx1) &&
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
    reason = s1.reason_unknown();
    return z3::unknown;
  }
  /// check() with lazy refinement of abstracted terms (application, precise
  /// term): the precise definition of every application the model gets
  /// wrong is put back, so a `sat` model is right for all of them.
  /// \p accept, when given, sees each model before it is refined: a model
  /// it accepts (a counterexample that replays with exact arithmetic, say)
  /// ends the search as `sat` unrefined, without the exact products that
  /// can make the next round minutes long.
  z3::check_result
  checkRefined(const std::vector<std::pair<z3::expr, z3::expr>> &abstracted,
               bool debug = false,
               const std::function<bool(const z3::model &)> &accept = {}) {
    auto t0 = std::chrono::steady_clock::now();
    auto ms = [&] {
      return (long)std::chrono::duration_cast<std::chrono::milliseconds>(
                 std::chrono::steady_clock::now() - t0)
          .count();
    };
    z3::check_result r = check();
    if (debug)
      fprintf(stderr, "check: %s after %ld ms\n",
              r == z3::sat ? "sat" : r == z3::unsat ? "unsat" : "unknown",
              ms());
    std::vector<bool> exact(abstracted.size());
    for (unsigned round = 0; r == z3::sat; ++round) {
      if (accept && accept(*model)) {
        if (debug)
          fprintf(stderr, "refinement round %u: model accepted unrefined\n",
                  round);
        return r;
      }
      unsigned added = 0;
      for (size_t i = 0; i < abstracted.size(); ++i) {
        auto &[app, precise] = abstracted[i];
        // After a few rounds, every application is made exact: models that
        // get one new product wrong per round would otherwise take as many
        // rounds as there are products.
        if (exact[i] || (round < 3 && z3::eq(model->eval(app, true),
                                             model->eval(precise, true))))
          continue;
        add(app == precise);
        exact[i] = true;
        ++added;
      }
      if (debug)
        fprintf(stderr, "refinement round %u: %u precise products\n", round,
                added);
      if (!added)
        break;
      if (round == 50) {
        reason = "too many refinement rounds";
        return z3::unknown;
      }
      r = check();
      if (debug)
        fprintf(stderr, "check: %s after %ld ms\n",
                r == z3::sat ? "sat" : r == z3::unsat ? "unsat" : "unknown",
                ms());
    }
    return r;
  }
  z3::model get_model() { return *model; }
  std::string reason_unknown() { return reason; }
  std::string to_smt2() {
    z3::solver s(ctx);
    s.add(asserts);
    return s.to_smt2();
  }

private:
  z3::context &ctx;
  z3::expr_vector asserts;
  std::vector<unsigned> frames;
  std::function<unsigned()> remainingMs;
  std::unique_ptr<z3::model> model;
  std::string reason;
};

} // namespace kv

#endif
