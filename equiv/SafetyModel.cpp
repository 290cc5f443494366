//===- SafetyModel.cpp - conditions of the model --------------------------===//
//
// The conditions under which the kv model is the kernel, checked even where
// safety is assumed: loops with a symbolic trip count (kv.iter) that the
// model counts, and the lowering's kv.prove conditions.
//
//===----------------------------------------------------------------------===//
#include "equiv/SafetyCheck.h"
#include "passes/lower/LowerToKV.h"
#include "smt-encode/Encoder.h"

#include "llvm/ADT/APInt.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;

namespace kv {
namespace safety {

/// The budget of a query on a loop that may be left uncounted.
static constexpr unsigned uncountedBudgetMs = 3000;

/// What the model of loop \p it needs.
static std::string loopNeeds(IterOp it) {
  std::string what = "positive step, fewer than 2^31 iterations";
  if (it.getFromNe())
    what += ", reaching its bound exactly (x != bound)";
  if (it.getWidth())
    what += ", no wraparound";
  return what;
}

/// The condition under which loop \p it breaks its model (loopNeeds), for
/// thread t1 of \p q entering it.
static z3::expr loopBreaks(Query &q, IterOp it) {
  const Thread &t = *q.t1;
  z3::expr g = q.enc.value(q.km, it.getGuard(), t);
  return (g.is_bool() ? g : g == q.ctx.bv_val(1, 1)) &&
         q.enc.uncountable(q.km, it, t);
}

/// The conditions built by \p build for \p ops in one query: unsat when
/// all hold. A kernel's loops and kv.prove conditions (an unrolled loop has
/// dozens) usually all hold, and then cost one query instead of one each.
/// Otherwise each is asked alone, to locate the one that fails (unknown
/// here when not tried: fewer than two).
z3::check_result
SafetyCheck::allHold(const std::function<z3::expr(Query &, Operation *)> &build,
                     llvm::ArrayRef<Operation *> ops,
                     const std::function<void(Query &)> &onSat) {
  if (ops.size() < 2 && !quiet && !onSat)
    return z3::unknown;
  if (ops.empty())
    return z3::unsat;
  Query q(k, paramSource, label, bits);
  if (!start(q))
    return z3::unknown;
  q.sampleLaunchFirst = capMs > 0;
  z3::expr any = q.ctx.bool_val(false);
  for (Operation *op : ops)
    any = any || build(q, op);
  if (!q.enc.unsupported.empty())
    return z3::unknown;
  z3::check_result r = q.solve(any, budget(), /*readable=*/bool(onSat));
  if (r == z3::sat && onSat)
    onSat(q);
  return r;
}

bool SafetyCheck::failsQuietly(const char *what) {
  result.verdict = Verdict::Unsupported;
  result.reason = std::string(label) + " kernel: a " + what +
                  " fails (a bound probe: not located)";
  return false;
}

bool SafetyCheck::checkLoops() {
  std::vector<Operation *> loops;
  std::vector<IterOp> uncounted;
  for (Operation &o : k.getBlock())
    if (auto it = dyn_cast<IterOp>(o))
      // A loop with breaks counts from 0 to 2^31: nothing to prove.
      if (!hasBreaks(it))
        (it.getUncounted() ? uncounted.push_back(it) : loops.push_back(&o));
  // Loops that may be left uncounted are modelled soundly either way: a
  // condition not decided in a few seconds leaves them so, and one query
  // decides for all of them.
  KernelModel km(k, label);
  // One entry per source loop: the plugin's two kernels share them.
  auto noteUncounted = [&](IterOp it, const std::string &why) {
    it.setUncounted(true);
    std::string loc = locationOf(it);
    if (llvm::none_of(result.uncountedLoops, [&](const std::string &e) {
          return StringRef(e).starts_with(loc + " (");
        }))
      result.uncountedLoops.push_back(loc + " (" + why + ")");
  };
  // A launch of the model that shows it.
  auto example = [&](Query &q) {
    Defect d;
    q.fillLaunch(d);
    return "e.g. " + describeLaunch(d);
  };
  const char *undecidedWhy = "not proved countable within the solver's budget";
  // A loop already left uncounted (by an earlier check of this kernel, or
  // written so) is modelled for every launch.
  for (IterOp it : uncounted)
    noteUncounted(it, "uncounted in the model");
  bool allAlignable = !loops.empty() && llvm::all_of(loops, [&](Operation *op) {
    return mayLeaveUncounted(km, cast<IterOp>(op));
  });
  capMs = allAlignable ? uncountedBudgetMs : 0;
  llvm::scope_exit uncap([&] { capMs = 0; });
  auto breaks = [&](Query &q, Operation *op) {
    return loopBreaks(q, cast<IterOp>(op));
  };
  if (allAlignable && !quiet) {
    std::vector<std::string> why(loops.size(), undecidedWhy);
    z3::check_result r = allHold(breaks, loops, [&](Query &q) {
      for (size_t i = 0; i < loops.size(); ++i)
        if (q.model->eval(breaks(q, loops[i]), true).is_true())
          why[i] = example(q);
    });
    for (size_t i = 0; i < loops.size(); ++i) {
      auto it = cast<IterOp>(loops[i]);
      if (r == z3::unsat)
        proved.push_back("a countable loop" + atLocation(it) + " (" +
                         loopNeeds(it) + ")");
      else
        noteUncounted(it, why[i]);
    }
    return true;
  }
  z3::check_result r0 = allHold(breaks, loops);
  if (quiet && r0 == z3::sat)
    return failsQuietly("loop model's condition");
  bool all = r0 == z3::unsat;
  for (Operation *op : loops) {
    auto it = cast<IterOp>(op);
    std::string what = loopNeeds(it);
    if (all) {
      proved.push_back("a countable loop" + atLocation(it) + " (" + what + ")");
      continue;
    }
    // Modelled where it is counted, and elsewhere as the iterations that
    // loops with the same bounds share: aligned, not counted.
    bool alignable = mayLeaveUncounted(km, it);
    capMs = alignable ? uncountedBudgetMs : 0;
    Query q(k, paramSource, label, bits);
    if (!start(q))
      return false;
    q.sampleLaunchFirst = alignable;
    const Thread &t = *q.t1;
    z3::check_result r = q.solve(loopBreaks(q, it), budget());
    std::string site = "a countable loop" + atLocation(it) + " (" + what + ")";
    alignable = alignable && q.enc.unsupported.empty();
    if (r == z3::unknown && alignable) {
      noteUncounted(it, undecidedWhy);
      continue;
    }
    if (r == z3::unknown && !undecided(q, site))
      return false;
    if (r == z3::unsat)
      proved.push_back(site);
    if (r == z3::sat) {
      Defect d;
      d.kernel = label;
      q.fillLaunch(d);
      d.kind = "loop that the model cannot count";
      d.sites.push_back(q.site(t, it, "enters it"));
      if (alignable) {
        noteUncounted(it, example(q));
        continue;
      }
      result.verdict = Verdict::Unsupported;
      result.reason = describe(d) + "; the model needs a " + what +
                      " (an --assume that bounds the loop helps)";
      return false;
    }
  }
  return true;
}

bool SafetyCheck::checkModelConditions() {
  // One entry per condition, with its distinct source locations.
  using Sites = std::vector<std::pair<std::string, std::vector<std::string>>>;
  Sites provedAt, assumedAt, boundedAt;
  auto note = [](Sites &to, std::string what, const std::string &where) {
    auto it = llvm::find_if(to, [&](auto &e) { return e.first == what; });
    if (it == to.end())
      it = to.insert(to.end(), {what, {}});
    if (!llvm::is_contained(it->second, where))
      it->second.push_back(where);
  };
  auto broken = [](Query &q, ProveOp pr) {
    z3::expr c = q.enc.value(q.km, pr.getCond(), *q.t1);
    return !(c.is_bool() ? c : c == q.ctx.bv_val(1, 1));
  };
  std::vector<Operation *> proves;
  for (Operation &o : k.getBlock()) {
    if (!isa<ProveOp>(o))
      continue;
    // A shared access within its array: the assumption that neither
    // kernel accesses shared memory out of bounds covers it.
    if (boundsAssumed && o.hasAttr(kProveInBoundsAttr)) {
      note(boundedAt, cast<ProveOp>(o).getWhat().str(),
           locationOf(cast<ProveOp>(o)));
      continue;
    }
    proves.push_back(&o);
  }
  z3::check_result r0 = allHold(
      [&](Query &q, Operation *op) { return broken(q, cast<ProveOp>(op)); },
      proves);
  if (quiet && r0 == z3::sat)
    return failsQuietly("model condition");
  bool all = r0 == z3::unsat;
  for (Operation *op : proves) {
    auto pr = cast<ProveOp>(op);
    if (all) {
      note(provedAt, pr.getWhat().str(), locationOf(pr));
      continue;
    }
    Query q(k, paramSource, label, bits);
    if (!start(q))
      return false;
    const Thread &t = *q.t1;
    z3::check_result r = q.solve(broken(q, pr), budget());
    if (r == z3::unknown) {
      if (!q.enc.unsupported.empty())
        return undecided(q, pr.getWhat().str());
      note(assumedAt, pr.getWhat().str(), locationOf(pr));
    }
    if (r == z3::unsat)
      note(provedAt, pr.getWhat().str(), locationOf(pr));
    if (r == z3::sat) {
      // A shared access outside its array: a defect of the kernel, which a
      // run of its code is to confirm, not a limit of the model.
      if (auto arg = pr->getAttrOfType<IntegerAttr>(kProveInBoundsAttr);
          arg && arg.getInt() >= 0) {
        Defect d;
        d.kind = "out-of-bounds access of a staged shared array";
        d.array = k.getArgName(arg.getInt()).str();
        // The index: the condition is `!guard || index < cells`.
        if (auto any = pr.getCond().getDefiningOp<arith::OrIOp>())
          for (Value v : any->getOperands())
            if (auto lt = v.getDefiningOp<arith::CmpIOp>())
              d.index = evalS(*q.model, q.index(lt.getLhs(), t));
        d.sites.push_back(q.site(t, pr, "accesses it"));
        return report(q, Verdict::OutOfBounds, std::move(d),
                      /*dataDependent=*/false);
      }
      Defect d;
      d.kernel = label;
      q.fillLaunch(d);
      d.kind = "model condition that fails";
      d.sites.push_back(q.site(t, pr, "breaks it"));
      result.verdict = Verdict::Unsupported;
      result.reason = describe(d) + ": " + pr.getWhat().str();
      return false;
    }
  }
  for (auto [from, to] : {std::pair{&provedAt, &proved},
                          {&assumedAt, &assumed},
                          {&boundedAt, &impliedByBounds}})
    for (auto &[what, locs] : *from) {
      llvm::erase_if(locs, [](const std::string &l) { return l.empty(); });
      to->push_back(locs.empty() ? what
                                 : what + " at " + llvm::join(locs, ", "));
    }
  return true;
}

} // namespace safety
} // namespace kv
