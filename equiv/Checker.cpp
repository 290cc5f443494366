//===- Checker.cpp - equivalence of two kv kernels ------------------------===//
//
// One query per global array that either kernel writes: is there a launch,
// an input and a cell k where the two kernels' final values differ? The
// "no other thread wrote here" obligations of the encoding are instantiated
// with candidate threads (the other kernel's writers, their x/y swaps, and
// threads obtained by solving the write index for one coordinate). Dropping
// or instantiating a universally quantified hypothesis only weakens the
// query, so `unsat` is a proof. A `sat` model is replayed on the concrete
// executor and only reported when the two kernels really differ.
//
// checkEquivalence lives here. It lists the assumptions (Assumptions.cpp),
// checks both kernels' safety (Safety.cpp), tries the interval-by-interval
// proof (Lockstep.cpp) and runs the query per array (PairCheck.cpp, with the
// replay of models in ModelReplay.cpp).
//
//===----------------------------------------------------------------------===//
#include "equiv/Checker.h"
#include "equiv/Assumptions.h"
#include "equiv/IRExecutor.h"
#include "equiv/Lockstep.h"
#include "equiv/PairCheck.h"
#include "equiv/Safety.h"
#include "smt-encode/Encoder.h"
#include "smt-encode/Executor.h"
#include "smt-encode/Solver.h"
#include "smt-encode/Stats.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <functional>
#include <memory>
#include <set>

using namespace mlir;

namespace kv {

std::string matchParams(KernelOp a, KernelOp b) {
  auto params = [](KernelOp k) {
    std::vector<BlockArgument> v;
    for (BlockArgument x : k.getBlock().getArguments())
      if (!isa<SharedArrayType>(x.getType()))
        v.push_back(x);
    return v;
  };
  auto pa = params(a), pb = params(b);
  if (pa.size() != pb.size())
    return "the kernels have " + std::to_string(pa.size()) + " and " +
           std::to_string(pb.size()) + " parameters";
  for (size_t i = 0; i < pa.size(); ++i) {
    Type ta = pa[i].getType(), tb = pb[i].getType();
    if (ta == tb)
      continue;
    std::string s;
    llvm::raw_string_ostream os(s);
    os << "parameter #" << i << " ('" << a.getArgName(i) << "') has type " << ta
       << " in the before kernel and " << tb << " in the after kernel";
    return s;
  }
  return "";
}

/// \p k printed without its symbol name: equal for kernels that lower to
/// the same model.
static std::string printedBody(KernelOp k) {
  std::string s;
  llvm::raw_string_ostream os(s);
  k->print(os);
  std::string name = "@" + k.getSymName().str();
  if (size_t at = s.find(name); at != std::string::npos)
    s.replace(at, name.size(), "@kernel");
  return s;
}

/// Whether both kernels write array \p arg only with atomic updates of one
/// kind, at least one of them does, and neither reads it: its cells' final
/// values are then folds of the blocks' totals.
bool atomicOnly(KernelOp before, KernelOp after, unsigned arg) {
  std::optional<RmwKind> kind;
  bool ok = true;
  for (KernelOp k : {before, after})
    k.walk([&](Operation *op) {
      if (auto r = dyn_cast<ReadOp>(op))
        ok &= cast<BlockArgument>(r.getArray()).getArgNumber() != arg;
      auto w = dyn_cast<WriteOp>(op);
      if (!w || cast<BlockArgument>(w.getArray()).getArgNumber() != arg)
        return;
      if (!w.isAtomic() || (kind && *kind != *w.getRmw()))
        ok = false;
      else
        kind = w.getRmw();
    });
  return ok && kind;
}

bool sameModel(KernelOp a, KernelOp b) {
  return printedBody(a) == printedBody(b);
}

CheckResult checkEquivalence(KernelOp before, KernelOp after,
                             const CheckOptions &opts) {
  auto start = std::chrono::steady_clock::now();
  CheckResult result;
  auto finish = [&]() {
    result.timeMs = std::chrono::duration<double, std::milli>(
                        std::chrono::steady_clock::now() - start)
                        .count();
    return result;
  };
  if (std::string m = matchParams(before, after); !m.empty()) {
    // Kernels that cannot be compared are a usage error, not a limitation.
    result.verdict = Verdict::Error;
    result.reason = m;
    return finish();
  }

  // What the verdict rests on.
  bool bounded = false;
  int64_t bound = 0;
  listAssumptions(before, after, opts, result, bounded, bound);

  PairCheck pc{before, after, opts, result, {}, opts.timeoutSecs > 0};
  if (pc.hasDeadline)
    pc.deadline = start + std::chrono::seconds(opts.timeoutSecs);

  // Assumptions that no launch satisfies would make every verdict vacuous.
  if (!admitsLaunch(before, opts, result))
    return finish();

  auto encodingTimeout = [&](const EncodeTimeout &e) {
    if (e.tooLarge)
      return std::string("the query grew too large to encode: its read "
                         "chains need more than ") +
             std::to_string(opts.maxThreads ? opts.maxThreads
                                            : Encoder::defaultMaxThreads) +
             " symbolic threads (barrier intervals chained too deep)";
    return std::string("timeout: the time budget ran out while encoding "
                       "the query, before the solver ran");
  };
  // The encoding is only valid for kernels free of races and divergence.
  FactsFn facts = [&](Encoder &enc,
                      std::string &err) -> std::optional<z3::expr> {
    enc.hugeGrids = opts.hugeGrids;
    std::optional<z3::expr> a = parseAssumptions(enc, opts, err);
    if (!a)
      return std::nullopt;
    // The limits that need multipliers join a query only where a model
    // breaks them (Query::solve): most race and bounds queries are refuted
    // without their bits.
    return enc.launchConstraints(/*products=*/false) && *a;
  };
  if (opts.assumeSafe)
    result.assumptions.push_back(
        "both kernels are free of data races, barrier divergence and "
        "out-of-bounds shared accesses (assumed: the safety checks are off, "
        "as in the plugin by default)");
  // A defect seen only through over-approximated reads is not confirmed:
  // the equivalence check still runs, since a replayed counterexample is a
  // definite answer; "equivalent" is not (it rests on race freedom).
  std::string unconfirmed;
  // Why the interval-by-interval proof did not apply, if it did not.
  std::string notLockstep;
  // Kernels that lower to one model (a kernel compared with itself, a pass
  // that changed nothing the model sees) have one set of safety results.
  // Kernels with launches of their own (--launch-before/--launch-after)
  // are one model only at one launch; nor are their threads one another's.
  bool ownLaunches = after->hasAttr(kAfterLaunchAttr);
  bool oneModel = !ownLaunches && sameModel(before, after);
  try {
    for (auto [k, label] : {std::pair{before, "before"}, {after, "after"}}) {
      if (k == after && oneModel) {
        if (unconfirmed.empty())
          result.assumptions.push_back(
              "checked: the after kernel lowers to the same model as the "
              "before kernel, and has the same checks");
        continue;
      }
      stats::Scoped timer("safety");
      if (checkSafety(
              k, before, label, opts.bits, facts,
              [&] { return pc.remainingMs(); }, result,
              /*loopsOnly=*/opts.assumeSafe || opts.modelConditionsOnly,
              SolverSettings{opts.solver, opts.seed},
              /*quiet=*/opts.modelConditionsOnly,
              /*boundsAssumed=*/opts.assumeSafe))
        continue;
      // A defect fails a build: it must show on the kernel's own run.
      confirmDefect(k, k == before ? opts.beforeIR : opts.afterIR, opts.bits,
                    result, pc.remainingMs());
      if (!result.possibleDefect)
        return finish();
      if (unconfirmed.empty())
        unconfirmed = result.reason;
      result.possibleDefect = false;
      result.verdict = Verdict::Equivalent;
      result.reason.clear();
    }
  } catch (z3::exception &e) {
    result.verdict = Verdict::Unknown;
    result.reason = std::string("solver error: ") + e.msg();
    return finish();
  } catch (EncodeTimeout &e) {
    result.verdict = Verdict::Unknown;
    result.reason = encodingTimeout(e);
    return finish();
  }

  // A loop left uncounted in one kernel is matched with the other's by its
  // bounds: every loop that may be is modelled the same way in both, so
  // that where one kernel's loop is not counted, neither is its twin.
  if (!result.uncountedLoops.empty())
    for (KernelOp k : {before, after}) {
      KernelModel km(k, "");
      for (IterOp it : km.iterOps)
        if (mayLeaveUncounted(km, it))
          it.setUncounted(true);
    }

  // Every global array either kernel writes is an output.
  std::set<unsigned> outputs;
  for (KernelOp k : {before, after}) {
    KernelModel km(k, "");
    for (auto &[arg, byInterval] : km.writes)
      if (isa<GlobalArrayType>(k.getBlock().getArgument(arg).getType()))
        outputs.insert(arg);
  }
  auto finishPossible = [&]() {
    // What the cheaper proof found different, for a verdict left open.
    if ((result.verdict == Verdict::Unknown ||
         result.verdict == Verdict::Unsupported) &&
        !notLockstep.empty())
      result.reason += "; the kernels are not aligned interval by interval (" +
                       notLockstep +
                       "), so reads are followed through the "
                       "intervals before them";
    if (!unconfirmed.empty()) {
      if (result.verdict == Verdict::NotEquivalent)
        result.assumptions.push_back(unconfirmed);
      else if (result.verdict == Verdict::Unknown)
        result.reason = unconfirmed + "; and " + result.reason;
    }
    // A lowering bug the IR showed outranks whatever else left it open.
    if (result.verdict == Verdict::Unknown && !pc.irDisagreement.empty())
      result.reason = pc.irDisagreement;
    return finish();
  };
  if (opts.safetyOnly) {
    result.verdict =
        unconfirmed.empty() ? Verdict::Equivalent : Verdict::Unknown;
    result.reason = unconfirmed;
    result.unconfirmedDefect = !unconfirmed.empty();
    return finish();
  }
  if (opts.modelConditionsOnly) {
    result.verdict =
        unconfirmed.empty() ? Verdict::Equivalent : Verdict::Unknown;
    result.reason =
        unconfirmed.empty() ? "the models' conditions hold" : unconfirmed;
    return finish();
  }
  // Barriers and thread mapping kept (an optimizer's rewrite): proved
  // interval by interval without the read chains.
  std::optional<std::chrono::steady_clock::time_point> deadline;
  if (pc.hasDeadline)
    deadline = pc.deadline;
  bool lockstep = false;
  if (oneModel) {
    // Every execution of one kernel is an execution of the other; free of
    // races (checked above, or assumed), both compute the same outputs.
    outputs.clear();
  } else if (!ownLaunches) {
    stats::Scoped timer("lockstep");
    lockstep = proveLockstep(before, after, opts, deadline, &notLockstep);
  }
  if (lockstep)
    outputs.clear();
  stats::Scoped equivTimer("equivalence");
  try {
    for (unsigned arg : outputs) {
      // Records and block totals are compared thread by thread and block
      // by block: there is no such pairing between two launches.
      if (ownLaunches &&
          (printStreamArg(before) == arg || atomicOnly(before, after, arg))) {
        result.verdict = Verdict::Unsupported;
        result.reason =
            std::string("kernels with launches of their own: ") +
            (printStreamArg(before) == arg
                 ? "what printf prints"
                 : "atomic updates of " + before.getArgName(arg).str()) +
            " are compared only where both kernels share one launch";
        return finishPossible();
      }
      // With the array written in one interval of each kernel, the cells
      // each kernel writes are checked apart: smaller queries in which the
      // other kernel's writer is usually found without a fresh thread.
      if (printStreamArg(before) == arg) {
        if (!pc.checkArray(arg, PairCheck::Mode::PerThread))
          return finishPossible();
        continue;
      }
      if (atomicOnly(before, after, arg)) {
        if (!pc.checkArray(arg, PairCheck::Mode::AtomicTotals))
          return finishPossible();
        ++pc.atomicArrays;
        continue;
      }
      KernelModel kb(before, ""), ka(after, "");
      bool single = kb.writes[arg].size() <= 1 && ka.writes[arg].size() <= 1;
      if (single) {
        bool ok = true;
        if (!ka.writes[arg].empty())
          ok = pc.checkArray(arg, PairCheck::Mode::AfterWrites);
        if (ok && !kb.writes[arg].empty())
          ok = pc.checkArray(arg, PairCheck::Mode::BeforeWrites);
        if (!ok)
          return finishPossible();
        continue;
      }
      if (!pc.checkArray(arg, PairCheck::Mode::AllCells))
        return finishPossible();
    }
  } catch (z3::exception &e) {
    result.verdict = Verdict::Unknown;
    result.reason = std::string("solver error: ") + e.msg();
    return finishPossible();
  } catch (EncodeTimeout &e) {
    result.verdict = Verdict::Unknown;
    result.reason = encodingTimeout(e);
    return finishPossible();
  }
  if (!unconfirmed.empty()) {
    result.verdict = Verdict::Unknown;
    result.reason = unconfirmed + " (the equivalence proof rests on its "
                                  "absence)";
    return finish();
  }
  result.verdict = Verdict::Equivalent;
  result.reason = ownLaunches
                      ? "proved for every input and every value of the scalars "
                        "the assumptions admit, each kernel at its own launch"
                      : "proved for every launch configuration and input";
  if (oneModel)
    result.method = "one model: both kernels lower to the same kv kernel";
  else if (lockstep)
    result.method = "interval by interval: each thread makes the same writes "
                    "in each barrier interval";
  else if (pc.alignedFolds)
    result.method = "loops aligned: " + std::to_string(pc.alignedFolds) +
                    " accumulator loop" + (pc.alignedFolds > 1 ? "s" : "") +
                    " proved iteration by iteration (same start, same "
                    "iterations, same update), for any trip count";
  if (!lockstep && pc.atomicArrays) {
    std::string m =
        "atomic updates totalled: " + std::to_string(pc.atomicArrays) +
        " array" + (pc.atomicArrays > 1 ? "s" : "") +
        " updated only atomically, proved block by block (what one block's "
        "threads add to a cell is the same in both kernels";
    if (pc.atomicClasses)
      m += "; sums over a block's threads related by proving their terms "
           "equal thread by thread";
    m += ")";
    result.method = result.method.empty() ? m : result.method + "; " + m;
  }
  if (!lockstep && pc.alignedBreaks) {
    std::string m = "loops aligned: " + std::to_string(pc.alignedBreaks) +
                    " loop" + (pc.alignedBreaks > 1 ? "s" : "") +
                    " with breaks or data-dependent exits proved iteration "
                    "by iteration (same start, same exits, same update), "
                    "for any trip count";
    if (pc.rotatedBreaks)
      m += " (" + std::to_string(pc.rotatedBreaks) +
           (pc.alignedBreaks > 1 ? " of them" : "") +
           " rotated: its first exit tests run before the loop and at the "
           "end of each iteration, as -O2 rotates a loop)";
    if (pc.mappedBreaks)
      m += " (" + std::to_string(pc.mappedBreaks) +
           (pc.alignedBreaks > 1 ? " of them" : "") +
           " with the source's running value computed by the other loop "
           "from its own, as when -O2 moves a load into the loop)";
    result.method = result.method.empty() ? m : result.method + "; " + m;
  }
  if (!result.uncountedLoops.empty()) {
    bool many = result.uncountedLoops.size() > 1;
    std::string m = std::string("loops aligned: the loop") + (many ? "s" : "") +
                    " at " + llvm::join(result.uncountedLoops, ", ") +
                    (many ? " run" : " runs") +
                    " the same iterations in both kernels where the model "
                    "does not count " +
                    (many ? "them" : "it") +
                    " (the variable may wrap around): those of a loop with "
                    "equal bounds";
    result.method = result.method.empty() ? m : result.method + "; " + m;
  }
  if (bounded) {
    result.verdict = Verdict::EquivalentUpToBound;
    result.reason = "proved for executions whose symbolic loops run at most " +
                    std::to_string(bound) + " iterations (bounded)";
  } else if (opts.realFloats && !lockstep) {
    result.verdict = Verdict::EquivalentOverReals;
    result.reason = "proved with float operations as exact real arithmetic "
                    "(--fp=real), not bit for bit";
  }
  return finish();
}

} // namespace kv
