//===- SafetyDivergence.cpp - barrier divergence --------------------------===//
//
// The second safety check: two threads of a block that disagree on a
// barrier's condition, and a condition a whole block may skip; and warp
// shuffles whose lanes do not take part.
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

bool SafetyCheck::askDisagreement(BarrierOp b, bool grid, bool &agreed) {
  agreed = false;
  Query q(k, paramSource, label, bits);
  if (!start(q))
    return false;
  z3::expr c = q.guard(b.getGuard(), *q.t1) && !q.guard(b.getGuard(), *q.t2);
  if (!grid)
    c = c && q.enc.sameBlock(*q.t1, *q.t2);
  z3::check_result r = q.solve(c, budget());
  if (r == z3::unknown)
    return undecided(q, "no barrier divergence");
  if (r == z3::sat) {
    Defect d;
    const char *which = grid ? "grid barrier" : "barrier";
    d.kind = std::string(which) + " divergence";
    d.sites.push_back(q.site(*q.t1, b, std::string("reaches the ") + which));
    d.sites.push_back(
        q.site(*q.t2, b, std::string("does not reach the ") + which));
    return report(q, Verdict::Divergence, std::move(d),
                  overApprox(b.getGuard(), ""));
  }
  agreed = true;
  return true;
}

bool SafetyCheck::askWholeSkip(BarrierOp b, const char *what) {
  Query all(k, paramSource, label, bits);
  if (!start(all))
    return false;
  z3::check_result r = all.solve(!all.guard(b.getGuard(), *all.t1), budget(),
                                 /*readable=*/false);
  if (r == z3::unsat ||
      (r == z3::sat && (idleWhenSkipped(b, false) || idleWhenSkipped(b, true))))
    return true;
  result.verdict = Verdict::Unsupported;
  std::string at = locationOf(b);
  result.reason =
      std::string(label) + " kernel: " + (at.empty() ? "" : at + ": ") + what;
  return false;
}

bool SafetyCheck::checkDivergence() {
  for (BarrierOp b : loopsOnly ? std::vector<BarrierOp>() : guardedBarriers) {
    bool agreed;
    if (!askDisagreement(b, /*grid=*/false, agreed))
      return false;
    if (agreed && !askWholeSkip(b, "__syncthreads() under a condition that "
                                   "a whole block may skip"))
      return false;
  }
  return loopsOnly || checkGridDivergence();
}

bool SafetyCheck::checkGridDivergence() {
  // A grid barrier orders every thread of the launch: any two threads, of
  // any blocks, must agree on reaching it. All barriers are asked first: a
  // kernel whose paths each have their copy of a barrier (an early return
  // of some blocks) diverges at one copy and is skipped whole at another.
  bool agreed;
  for (BarrierOp b : gridBarriers)
    if (b.getGuard() && !askDisagreement(b, /*grid=*/true, agreed))
      return false;
  // A barrier the whole grid skips at some launch: the model keeps the
  // intervals it separates apart, which is exact where one of them is idle.
  for (BarrierOp b : gridBarriers)
    if (b.getGuard() &&
        !askWholeSkip(b, "grid.sync() under a condition that the whole grid "
                         "may skip"))
      return false;
  return true;
}

bool SafetyCheck::checkShuffles() {
  std::vector<ShuffleOp> shuffles;
  k.walk([&](ShuffleOp op) { shuffles.push_back(op); });
  if (loopsOnly || shuffles.empty())
    return true;
  for (ShuffleOp sh : shuffles) {
    Query q(k, paramSource, label, bits);
    if (!start(q))
      return false;
    Encoder &enc = q.enc;
    Thread &t = *q.t1;
    z3::expr lane = enc.value(q.km, sh.getLane(), t);
    unsigned w = lane.get_sort().bv_size();
    z3::expr self = enc.linearId(t) & q.ctx.bv_val(31, w);
    Thread &src = enc.laneThread(t, lane);
    z3::expr srcLinear = enc.laneSource(t, lane);
    const std::vector<z3::expr> &bdim = enc.bdimOf(q.km.launch);
    z3::expr size = bdim[0] * bdim[1] * bdim[2];
    z3::expr runs = q.guard(sh.getGuard(), t);
    // What can go wrong, in the order it is reported.
    std::vector<std::pair<std::string, z3::expr>> bad;
    z3::expr mask = enc.value(q.km, sh.getMask(), t);
    if (mask.get_sort().bv_size() >= 32) {
      bad.push_back({"shuffle whose mask leaves out the lane that executes it",
                     !laneInMask(mask, self)});
      bad.push_back(
          {"shuffle from a lane outside its mask", !laneInMask(mask, lane)});
    }
    bad.push_back(
        {"shuffle from a lane beyond the block", z3::uge(srcLinear, size)});
    bad.push_back({"shuffle from a lane that does not execute it",
                   z3::ult(srcLinear, size) && !q.guard(sh.getGuard(), src)});
    z3::expr any = q.ctx.bool_val(false);
    for (auto &[what, c] : bad)
      any = any || c;
    z3::check_result r = q.solve(runs && any, budget());
    if (r == z3::unknown) {
      if (!undecided(q, "warp shuffles that read lanes taking part"))
        return false;
      continue;
    }
    if (r == z3::unsat)
      continue;
    Defect d;
    for (auto &[what, c] : bad)
      if (q.model->eval(c, true).is_true()) {
        d.kind = what;
        break;
      }
    d.sites.push_back(q.site(t, sh, "executes the shuffle"));
    if (d.kind.find("does not execute") != std::string::npos)
      d.sites.push_back(q.site(src, sh, "is its source and does not"));
    return report(q, Verdict::Divergence, std::move(d),
                  overApprox(sh.getGuard(), "") ||
                      overApprox(sh.getLane(), ""));
  }
  proved.push_back("warp shuffles read lanes that take part");
  return true;
}

bool SafetyCheck::checkVotes() {
  std::vector<BallotOp> votes;
  k.walk([&](BallotOp op) { votes.push_back(op); });
  if (loopsOnly || votes.empty())
    return true;
  for (BallotOp v : votes) {
    Query q(k, paramSource, label, bits);
    if (!start(q))
      return false;
    z3::expr mask = q.enc.value(q.km, v.getMask(), *q.t1);
    if (mask.get_sort().bv_size() < 32)
      continue;
    z3::expr out = !laneInMask(mask, q.enc.linearId(*q.t1));
    z3::check_result r = q.solve(q.guard(v.getGuard(), *q.t1) && out, budget());
    if (r == z3::unknown) {
      if (!undecided(q, "warp votes whose masks hold their lanes"))
        return false;
      continue;
    }
    if (r == z3::unsat)
      continue;
    Defect d;
    d.kind = "vote whose mask leaves out the lane that executes it";
    d.sites.push_back(q.site(*q.t1, v, "executes the vote"));
    return report(q, Verdict::Divergence, std::move(d),
                  overApprox(v.getGuard(), ""));
  }
  proved.push_back("warp votes' masks hold their lanes");
  return true;
}

} // namespace safety
} // namespace kv
