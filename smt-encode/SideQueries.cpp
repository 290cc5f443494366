//===- SideQueries.cpp - small solver queries of the encoder --------------===//
//
// The encoder's own queries, apart from the main one: checkSmall (a check
// under a deterministic resource limit, with $KV_SUBSTATS), proveUnsat (the
// default solver, then equation solving first), and the deadline of the
// check's time budget that both respect.
//
//===----------------------------------------------------------------------===//
#include "smt-encode/Debug.h"
#include "smt-encode/Encoder.h"
#include "smt-encode/Stats.h"

#include "llvm/ADT/ArrayRef.h"

#include <chrono>
#include <cstdio>
#include <string>

namespace kv {

void Encoder::checkDeadline() const {
  if (deadline && std::chrono::steady_clock::now() >= *deadline)
    throw EncodeTimeout();
}

unsigned Encoder::withinDeadline(unsigned ms) const {
  if (!deadline)
    return ms;
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                  *deadline - std::chrono::steady_clock::now())
                  .count();
  return left < 1 ? 1 : std::min<long long>(ms, left);
}

z3::check_result checkSmall(z3::solver &s, const char *what, unsigned rlimit,
                            unsigned backstopMs) {
  stats::Scoped timer("solver");
  z3::params p(s.ctx());
  p.set("timeout", backstopMs);
  if (rlimit)
    p.set("rlimit", rlimit);
  s.set(p);
  bool log = debugEnabled("substats");
  // The context's resource count is cumulative: the check's share is the
  // difference.
  auto count = [&] {
    z3::stats st = s.statistics();
    for (unsigned i = 0; i < st.size(); ++i)
      if (st.key(i) == "rlimit count")
        return (long)st.uint_value(i);
    return 0l;
  };
  long before = log ? count() : 0;
  auto t0 = std::chrono::steady_clock::now();
  // A limit reached inside a tactic (simplify, solve-eqs) surfaces as an
  // exception ("canceled"), not as unknown.
  z3::check_result r = z3::unknown;
  try {
    r = s.check();
  } catch (z3::exception &) {
    r = z3::unknown;
  }
  if (log) {
    long used = count() - before;
    long ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                  std::chrono::steady_clock::now() - t0)
                  .count();
    llvm::errs() << "substats: " << what << " "
                 << (r == z3::unsat ? "unsat"
                     : r == z3::sat ? "sat"
                                    : "unknown")
                 << " " << ms << " " << used << "\n";
  }
  return r;
}

bool Encoder::proveUnsat(const z3::expr &f, const char *what,
                         unsigned rlimitScale) {
  // Z3's default solver and equation solving first: each fails on queries
  // the other answers at once (the default one on launch assumptions that
  // make two kernels' terms coincide, the other on the bit-level index
  // arithmetic of unrolled sums). The first query of a kind gives both a
  // sixteenth of the budget first, then the whole of it, so that a query
  // one of them refutes in milliseconds does not wait for the other to use
  // up its limit; later queries of the kind start with the strategy that
  // decided the last one.
  auto attempt = [&](bool eqs, unsigned rlimit, z3::solver &s) {
    checkDeadline();
    if (eqs)
      s = (z3::tactic(ctx, "simplify") & z3::tactic(ctx, "solve-eqs") &
           z3::tactic(ctx, "smt"))
              .mk_solver();
    else
      s = z3::solver(ctx);
    s.add(f);
    s.add(loopFacts);
    return checkSmall(s, eqs ? (std::string(what) + "/eqs").c_str() : what,
                      rlimit, withinDeadline(subqueryMs));
  };
  auto budget = [&](bool eqs) {
    return eqs ? subqueryRlimit : subqueryRlimit * rlimitScale;
  };
  struct Step {
    bool eqs;
    unsigned share;
  };
  Step steps[] = {{false, 16}, {true, 16}, {false, 1}, {true, 1}};
  llvm::ArrayRef<Step> plan = steps;
  auto known = sideStrategy.find(what);
  if (known != sideStrategy.end()) {
    steps[0] = {known->second, 1};
    steps[1] = {!known->second, 1};
    plan = plan.take_front(2);
  }
  z3::solver s(ctx);
  z3::check_result r = z3::unknown;
  for (Step st : plan)
    if ((r = attempt(st.eqs, budget(st.eqs) / st.share, s)) != z3::unknown) {
      sideStrategy[what] = st.eqs;
      break;
    }
  if (std::string path = dumpPath("sub"); !path.empty()) {
    dumpTo(path, s.to_smt2());
    llvm::errs() << "subquery " << path << ": "
                 << (r == z3::unsat ? "unsat"
                     : r == z3::sat ? "sat"
                                    : "unknown")
                 << "\n";
  }
  return r == z3::unsat;
}

} // namespace kv
