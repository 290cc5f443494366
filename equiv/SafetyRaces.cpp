//===- SafetyRaces.cpp - data races ---------------------------------------===//
//
// The last safety check: two accesses of two threads to one cell, at least
// one a write, that no barrier orders (writes of equal values tolerated).
//
//===----------------------------------------------------------------------===//
#include "equiv/SafetyCheck.h"
#include "smt-encode/Encoder.h"

#include "llvm/ADT/STLExtras.h"

#include <set>

using namespace mlir;

namespace kv {
namespace safety {

std::vector<SafetyCheck::Pair> SafetyCheck::conflicts(Query &q) {
  z3::expr sameBlock = q.enc.sameBlock(*q.t1, *q.t2);
  std::vector<Pair> pairs;
  for (size_t i = 0; i < accesses.size(); ++i)
    for (size_t j = i; j < accesses.size(); ++j) {
      const Access &a = accesses[i], &b = accesses[j];
      if (a.arg != b.arg || (!a.write && !b.write))
        continue;
      // One thread at one iteration of the loops both accesses are in
      // is ordered by program order; iterations of a loop are not (a
      // loop that writes a cell twice is reported like a race).
      std::vector<Operation *> common;
      for (Operation *l : q.km.itersOf(a.op))
        if (llvm::is_contained(q.km.itersOf(b.op), l))
          common.push_back(l);
      z3::expr same = q.enc.sameInstance(*q.t1, *q.t2, common);
      z3::expr order = q.ctx.bool_val(true);
      if (isShared(a.arg)) {
        if (a.interval != b.interval)
          continue;
        order = sameBlock && !same;
      } else {
        order = a.interval == b.interval ? !same : !sameBlock;
      }
      z3::expr i1 = q.index(a.index, *q.t1), i2 = q.index(b.index, *q.t2);
      z3::expr c = order && q.access(a.op, *q.t1) &&
                   q.access(b.op, *q.t2) && i1 == i2;
      pairs.push_back({&a, &b, c});
    }
  return pairs;
}

z3::expr SafetyCheck::harmful(Query &q, std::vector<Pair> &pairs) {
  z3::expr any = q.ctx.bool_val(false);
  for (Pair &p : pairs) {
    if (p.a->write && p.b->write)
      p.cond =
          p.cond &&
          q.enc.value(q.km, cast<WriteOp>(p.a->op).getValue(), *q.t1) !=
              q.enc.value(q.km, cast<WriteOp>(p.b->op).getValue(), *q.t2);
    any = any || p.cond;
  }
  return any;
}

bool SafetyCheck::checkRaces() {
  Query q(k, paramSource, label, bits);
  if (!start(q))
    return false;
  std::vector<Pair> pairs = conflicts(q);
  if (!pairs.empty()) {
    // First without the written values: most kernels have no conflicting
    // accesses at all, and the values pull in every read behind them.
    // Threads that differ only in ids the kernel never reads (a 1-D
    // kernel's blocks along y) do the same from the same memory: by
    // induction over the intervals their writes carry equal values.
    // Outside loops only (elsewhere their iterations may differ). Such
    // pairs are left out from the start: one query instead of two.
    z3::check_result r;
    {
      std::set<SReg> used;
      k.walk([&](SRegOp op) { used.insert(op.getName()); });
      z3::expr symmetric = q.ctx.bool_val(true);
      for (int i = 0; i < 3; ++i) {
        if (used.count(makeSReg(SRegGroup::Tid, i)))
          symmetric = symmetric && q.t1->tid[i] == q.t2->tid[i];
        if (used.count(makeSReg(SRegGroup::Bid, i)))
          symmetric = symmetric && q.t1->bid[i] == q.t2->bid[i];
      }
      z3::expr asym = q.ctx.bool_val(false);
      for (Pair &p : pairs) {
        bool plain = p.a->write && p.b->write &&
                     q.km.itersOf(p.a->op).empty() &&
                     q.km.itersOf(p.b->op).empty();
        asym = asym || (plain ? p.cond && !symmetric : p.cond);
      }
      r = q.solve(asym, budget());
    }
    if (r == z3::sat) {
      // The values with the memory each interval starts from one
      // uninterpreted function (the threads read the same memory): equal
      // for every content is equal for the real one, and no read chain
      // is built. Otherwise the exact values decide.
      Query u(k, paramSource, label, bits);
      if (!start(u))
        return false;
      // Per kernel: the before kernel's preconditions read its own
      // memory, not the after kernel's.
      u.enc.readHook = [&u](KernelModel &km, unsigned arg, int interval,
                            const z3::expr &index, const Thread &t) {
        return u.enc.intervalState("state." + km.label, km, arg, interval,
                                   index, t);
      };
      std::vector<Pair> upairs = conflicts(u);
      if (u.solve(harmful(u, upairs), budget()) == z3::unsat) {
        r = z3::unsat;
      } else {
        r = q.solve(harmful(q, pairs), budget());
      }
    }
    if (r == z3::unknown && !undecided(q, "no data race"))
      return false;
    if (r == z3::unsat)
      proved.push_back("no data race (writes of equal values tolerated)");
    if (r == z3::sat)
      for (Pair &p : pairs) {
        if (!q.model->eval(p.cond, true).is_true())
          continue;
        Defect d;
        d.kind = p.a->write && p.b->write
                     ? "write-write race (different values)"
                     : "read-write race";
        d.array = k.getArgName(p.a->arg).str();
        d.index = evalS(*q.model, q.index(p.a->index, *q.t1));
        d.sites.push_back(
            q.site(*q.t1, p.a->op, p.a->write ? "writes" : "reads"));
        d.sites.push_back(
            q.site(*q.t2, p.b->op, p.b->write ? "writes" : "reads"));
        bool dep = false;
        for (const Access *x : {p.a, p.b}) {
          dep |= overApprox(x->index, "") ||
                 overApprox(x->guard, "");
          if (p.a->write && p.b->write)
            dep |= overApprox(cast<WriteOp>(x->op).getValue(), "");
        }
        return report(q, Verdict::Race, std::move(d), dep);
      }
  }
  return true;
}

} // namespace safety
} // namespace kv
