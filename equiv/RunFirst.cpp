//===- RunFirst.cpp - both kernels run before (or after) the proof --------===//
//
// Driver::runFirst: the kernels' kv models run on launches the assumptions
// admit (RandomRuns.cpp), a difference is confirmed on the LLVM IR, and it
// is reported once nothing can make it the schedule's or the model's: the
// IR runs checked themselves, or else the static safety checks passed.
//
//===----------------------------------------------------------------------===//
#include "equiv/Assumptions.h"
#include "equiv/Driver.h"
#include "equiv/IRExecutor.h"
#include "equiv/RandomRuns.h"
#include "smt-encode/Debug.h"
#include "smt-encode/Stats.h"

#include "passes/lower/LowerToKV.h"

#include "llvm/Support/raw_ostream.h"

namespace kv {

/// The assumption a difference between two runs that checked themselves
/// rests on.
static const char *const checkedOnRun =
    "checked on the run: neither kernel has a data race, a barrier not "
    "every thread of a block reaches, or an out-of-bounds shared access on "
    "this launch and input";

std::optional<Validation>
Driver::runIRFirst(const CheckOptions &co, unsigned tiers,
                   const std::string &when,
                   const std::optional<LaunchConfig> &fixed, bool *searched) {
  // The kernels' own LLVM IR, before either is lowered: a lowering that
  // unrolls a loop thousands of times, or stops at a construct the model
  // lacks, must not keep a difference on a small launch from showing. A
  // difference counts only where both runs checked themselves (no race, no
  // divergent barrier, no shared access out of bounds); else the runs of
  // the models and the static checks decide, as without this.
  if (!co.beforeIR || !co.afterIR || co.bits != 32 || co.assumeSafe)
    return std::nullopt;
  ScratchKernels sig;
  if (!irSignatures(sig))
    return std::nullopt;
  unsigned runs = 0;
  std::string disagreement;
  RunLimits limits;
  limits.budgetMs = opts.runFirst;
  limits.maxSteps = uint64_t(1) << 22;
  limits.tiers = tiers;
  limits.irOnly = true;
  limits.fixed = fixed;
  std::optional<SeenDefect> defect;
  limits.defect = &defect;
  std::optional<Counterexample> cex =
      findByRunning(sig.k[0], sig.k[1], co, runs, disagreement, limits);
  Validation v;
  v.loweredUnroll = opts.unroll;
  bool bounded = false;
  int64_t bound = 0;
  if (defect) {
    KernelOp k = sig.k[defect->inAfter ? 1 : 0];
    std::optional<CheckResult> found =
        defectOfRun(k, defect->inAfter ? "after" : "before", defect->cfg,
                    defect->scalars, defect->defect, defect->inputs);
    if (!found)
      return std::nullopt;
    v.result = std::move(*found);
    listAssumptions(sig.k[0], sig.k[1], co, v.result, bounded, bound);
    return v;
  }
  if (!cex && disagreement.empty() && searched)
    *searched = true;
  if (cex && !cex->runsChecked && cex->uncheckedForRacesOnly) {
    uncheckedIRDifference = std::move(cex);
    uncheckedIRRuns = runs;
  }
  if (!cex || !cex->runsChecked)
    return std::nullopt;
  listAssumptions(sig.k[0], sig.k[1], co, v.result, bounded, bound);
  v.result.assumptions.push_back(checkedOnRun);
  v.result.verdict = Verdict::NotEquivalent;
  v.result.reason =
      "the kernels write different values to '" + cex->mismatchArray + "'";
  v.result.counterexample = std::move(cex);
  v.irRuns = true;
  v.foundBy = "running both kernels' LLVM IR on pseudo-random inputs (" +
              std::to_string(runs) + (runs == 1 ? " run" : " runs") +
              (fixed ? " on the launch given"
                     : " on small launches the assumptions admit") +
              "), " + when;
  return v;
}

std::optional<Validation> Driver::runFirst(const CheckOptions &co,
                                           const LowerPairFn &lower,
                                           const CaseCheckFn &check,
                                           unsigned tiers,
                                           const std::string &when) {
  stats::Scoped timer("run-first");
  bool irSearched = false;
  if (opts.runIRFirst)
    if (std::optional<Validation> v =
            runIRFirst(co, tiers, when, std::nullopt, &irSearched))
      return v;
  std::vector<std::string> splitOn;
  KernelOp signature;
  CheckResult failure;
  std::optional<LoweredPair> pair = lowerPair(
      {}, opts.unroll, /*reportSplit=*/false, splitOn, signature, failure);
  if (!pair) {
    if (signature)
      signature.erase();
    return std::nullopt;
  }
  // One model twice (a kernel against itself, a pass the model does not
  // see): no run can tell them apart.
  if (sameModel(pair->before, pair->after)) {
    pair->before.erase();
    pair->after.erase();
    return std::nullopt;
  }
  unsigned runs = 0;
  std::string disagreement;
  RunLimits limits;
  limits.budgetMs = opts.runFirst;
  // Per run: an unrolled model runs every op of every copy, guards false
  // or not (matmul with --unroll=16 and one tile: about 1M kv ops on 256
  // threads, some 50 ms).
  limits.maxSteps = uint64_t(1) << 22;
  limits.tiers = tiers;
  // The kernels' own code ran on these launches and inputs and agreed:
  // the models run the first launches only (their forced runs), a check
  // of the lowering; the proof decides the rest. Running them all again
  // doubled what a correct pair pays.
  if (irSearched) {
    limits.tiers = 1;
    limits.budgetMs = 1;
  }
  std::optional<Counterexample> cex =
      findByRunning(pair->before, pair->after, co, runs, disagreement, limits);
  if (!cex && disagreement.empty() && uncheckedIRDifference) {
    cex = std::move(uncheckedIRDifference);
    runs = uncheckedIRRuns;
  }
  uncheckedIRDifference.reset();
  Validation v;
  v.loweredUnroll = opts.unroll;
  // Both kernels' own IR ran on the launch and neither run raced, missed a
  // barrier or left a shared array: the difference is the kernels' on that
  // input whatever the schedule, and the static safety checks (seconds,
  // for a difference found in milliseconds) would not change it. Their
  // defects on other launches are not looked for then. (Parameters that do
  // not match are a usage error, which the checker reports.)
  bool clean = cex && cex->runsChecked && !co.assumeSafe &&
               matchParams(pair->before, pair->after).empty();
  if (clean) {
    bool bounded = false;
    int64_t bound = 0;
    listAssumptions(pair->before, pair->after, co, v.result, bounded, bound);
    v.result.assumptions.push_back(checkedOnRun);
  }
  pair->before.erase();
  pair->after.erase();
  if (!disagreement.empty() && co.assumeSafe) {
    v.result.verdict = Verdict::Unknown;
    v.result.reason = disagreement + " (or a data race, which the safety "
                                     "checks, off here, would report)";
    return v;
  }
  if (!cex && disagreement.empty())
    return std::nullopt;
  auto differ = [&] {
    v.result.verdict = Verdict::NotEquivalent;
    v.result.reason =
        "the kernels write different values to '" + cex->mismatchArray + "'";
    v.result.counterexample = std::move(cex);
    v.foundBy = "running both kernels on pseudo-random inputs (" +
                std::to_string(runs) + (runs == 1 ? " run" : " runs") +
                " on small launches the assumptions admit), " + when;
    return v;
  };
  if (clean) {
    if (debugEnabled("runs"))
      llvm::errs() << "runs: both runs checked free of races: no static "
                      "safety checks\n";
    return differ();
  }
  // The runs pick one schedule of the threads: their difference is the
  // code's only if neither kernel has a race or a divergent barrier (a
  // race also makes the model, whose reads see their interval's start,
  // and the IR's run disagree). And they ran the kv models, which are the
  // kernels only where the models' conditions hold (a loop the model
  // counts), checked here too: the plugin has no source IR to confirm the
  // before kernel's run on.
  CheckOptions so = co;
  so.safetyOnly = true;
  CheckResult safety = checkByCases(lower, so, opts.maxCases, check);
  if (debugEnabled("runs"))
    llvm::errs() << "runs: safety of the kernels that differ: "
                 << verdictName(safety.verdict) << " " << safety.reason << "\n";
  if (!disagreement.empty()) {
    if (safety.verdict != Verdict::Equivalent &&
        safety.verdict != Verdict::Unknown &&
        safety.verdict != Verdict::Unsupported) {
      v.result = std::move(safety);
      return v;
    }
    v.result.verdict = Verdict::Unknown;
    v.result.reason = disagreement;
    return v;
  }
  std::string unconfirmed;
  switch (safety.verdict) {
  case Verdict::Equivalent:
    break;
  case Verdict::Unknown:
    // A defect seen only through over-approximated reads: the replayed
    // difference is reported with it among the assumptions, as the proof
    // reports its counterexample (which would take the safety checks
    // again to find).
    if (safety.unconfirmedDefect) {
      unconfirmed = safety.reason;
      break;
    }
    [[fallthrough]];
  case Verdict::Unsupported:
    // Not established: the proof decides, as without the runs.
    return std::nullopt;
  default:
    // A defect, or an error the proof would report too.
    v.result = std::move(safety);
    return v;
  }
  v.result = std::move(safety);
  if (!unconfirmed.empty())
    v.result.assumptions.push_back(unconfirmed);
  return differ();
}

void Driver::shrink(Validation &v) {
  std::vector<std::string> splitOn;
  KernelOp signature;
  CheckResult failure;
  CheckOptions co = checkOptionsFor(opts);
  co.beforeIR = before.function;
  co.afterIR = after.function;
  co.beforeIRIsSource = before.isSource;
  co.afterIRIsSource = after.isSource;
  if (v.irRuns) {
    ScratchKernels sig;
    if (irSignatures(sig))
      shrinkCounterexample(sig.k[0], sig.k[1], co, *v.result.counterexample,
                           shrinkBudgetMs, /*irOnly=*/true);
    return;
  }
  std::optional<LoweredPair> pair =
      lowerPair({}, v.loweredUnroll, /*reportSplit=*/false, splitOn, signature,
                failure, /*exact=*/v.loweredUnroll != opts.unroll);
  if (!pair) {
    if (signature)
      signature.erase();
    return;
  }
  Counterexample &cex = *v.result.counterexample;
  auto launch = [&] {
    std::string s;
    for (const uint64_t *d : {cex.gridDim, cex.blockDim})
      s += "(" + std::to_string(d[0]) + "," + std::to_string(d[1]) + "," +
           std::to_string(d[2]) + ") ";
    for (auto &[n, x] : cex.scalars)
      s += n + "=" + std::to_string(x) + " ";
    return s;
  };
  std::string was = debugEnabled("shrink") ? launch() : "";
  bool shrunk =
      shrinkCounterexample(pair->before, pair->after, co, cex, shrinkBudgetMs);
  if (debugEnabled("shrink"))
    llvm::errs() << "shrink: " << was << (shrunk ? "-> " + launch() : "kept")
                 << "\n";
  pair->before.erase();
  pair->after.erase();
}

} // namespace kv
