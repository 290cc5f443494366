//===- Portfolio.h - two Z3 strategies in turns ------------------*- C++ -*-===//
#ifndef KV_EQUIV_PORTFOLIO_H
#define KV_EQUIV_PORTFOLIO_H

#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>
#include <z3++.h>

namespace kv {

/// Two strategies that fail on different queries: Z3's default solver for
/// bit-vectors, and equation solving first (launch assumptions such as
/// blockDim.x == blockDim.y then make the two kernels' terms coincide).
/// They are run in turns with growing budgets, so that neither one's bad
/// case decides the running time.
class Portfolio {
public:
  Portfolio(z3::context &ctx, std::function<unsigned()> remainingMs)
      : ctx(ctx), asserts(ctx), remainingMs(std::move(remainingMs)) {}

  void add(const z3::expr &e) { asserts.push_back(e); }
  void add(const z3::expr_vector &v) {
    for (unsigned i = 0; i < v.size(); ++i)
      asserts.push_back(v[i]);
  }
  void push() { frames.push_back(asserts.size()); }
  void pop() {
    z3::expr_vector kept(ctx);
    for (unsigned i = 0; i < frames.back(); ++i)
      kept.push_back(asserts[i]);
    asserts = kept;
    frames.pop_back();
  }

  z3::check_result check() {
    unsigned budget = 1000;
    for (unsigned turn = 0;; ++turn) {
      unsigned left = remainingMs(); // 0: no deadline
      bool last = left && left <= budget;
      z3::solver s = turn % 2 == 0 ? z3::solver(ctx)
                                   : (z3::tactic(ctx, "simplify") &
                                      z3::tactic(ctx, "solve-eqs") &
                                      z3::tactic(ctx, "smt"))
                                         .mk_solver();
      z3::params p(ctx);
      p.set("timeout", last ? left : budget);
      s.set(p);
      s.add(asserts);
      z3::check_result r = s.check();
      if (r != z3::unknown) {
        model.reset();
        if (r == z3::sat)
          model = std::make_unique<z3::model>(s.get_model());
        return r;
      }
      reason = s.reason_unknown();
      if (last || (reason != "timeout" && reason != "canceled"))
        return r;
      if (turn % 2 == 1)
        budget *= 4;
    }
  }
  /// check() with lazy refinement of abstracted terms (application, precise
  /// term): the precise definition of every application the model gets
  /// wrong is put back, so a `sat` model is right for all of them.
  z3::check_result
  checkRefined(const std::vector<std::pair<z3::expr, z3::expr>> &abstracted,
               bool debug = false) {
    z3::check_result r = check();
    for (unsigned round = 0; r == z3::sat; ++round) {
      unsigned added = 0;
      for (auto &[app, precise] : abstracted) {
        if (z3::eq(model->eval(app, true), model->eval(precise, true)))
          continue;
        add(app == precise);
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
