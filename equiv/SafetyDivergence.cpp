//===- SafetyDivergence.cpp - barrier divergence --------------------------===//
//
// The second safety check: two threads of a block that disagree on a
// barrier's condition, and a condition a whole block may skip.
//
//===----------------------------------------------------------------------===//
#include "equiv/SafetyCheck.h"
#include "smt-encode/Encoder.h"

using namespace mlir;

namespace kv {
namespace safety {

/// Whether a block that skips barrier \p b (its condition is the same for
/// the whole block) makes no access in the interval before it (\p after:
/// after it). The model keeps the two intervals apart; for such a block
/// they are one, and the model is exact when one of them is idle: the
/// iterations of a loop unrolled past where it stopped.
bool SafetyCheck::idleWhenSkipped(BarrierOp b, bool after) {
  unsigned interval = KernelModel(k, label).intervalOf.lookup(b) + after;
  Query q(k, paramSource, label, bits);
  if (!start(q))
    return false;
  // Whether an access happens, not what it reads: interval states suffice.
  abstractReads(q);
  z3::expr any = q.ctx.bool_val(false);
  for (const Access &a : accesses)
    if (a.interval == interval)
      any = any || q.access(a.op, *q.t1);
  return q.solve(!q.guard(b.getGuard(), *q.t1) && any, budget(),
                 /*readable=*/false) == z3::unsat;
}

bool SafetyCheck::checkDivergence() {
  for (BarrierOp b : loopsOnly ? std::vector<BarrierOp>() : guardedBarriers) {
    Query q(k, paramSource, label, bits);
    if (!start(q))
      return false;
    z3::expr c = q.enc.sameBlock(*q.t1, *q.t2) &&
                 q.guard(b.getGuard(), *q.t1) && !q.guard(b.getGuard(), *q.t2);
    z3::check_result r = q.solve(c, budget());
    if (r == z3::unknown) {
      if (!undecided(q, "no barrier divergence"))
        return false;
      continue;
    }
    if (r == z3::sat) {
      Defect d;
      d.kind = "barrier divergence";
      d.sites.push_back(q.site(*q.t1, b, "reaches the barrier"));
      d.sites.push_back(q.site(*q.t2, b, "does not reach the barrier"));
      return report(q, Verdict::Divergence, std::move(d),
                    overApprox(b.getGuard(), ""));
    }
    Query all(k, paramSource, label, bits);
    if (!start(all))
      return false;
    r = all.solve(!all.guard(b.getGuard(), *all.t1), budget(),
                  /*readable=*/false);
    if (r == z3::sat && (idleWhenSkipped(b, false) || idleWhenSkipped(b, true)))
      continue;
    if (r != z3::unsat) {
      result.verdict = Verdict::Unsupported;
      result.reason = std::string(label) + " kernel: " + locationOf(b) +
                      ": __syncthreads() under a condition that a whole block "
                      "may skip";
      return false;
    }
  }
  return true;
}

} // namespace safety
} // namespace kv
