//===- RandomRuns.h - counterexamples by running the kernels ----*- C++ -*-===//
//
// Both kernels run on launches the assumptions admit and on pseudo-random
// inputs: a difference is a counterexample found without a solver model,
// confirmed on the LLVM IR like every other.
//
//===----------------------------------------------------------------------===//
#ifndef KV_EQUIV_RANDOMRUNS_H
#define KV_EQUIV_RANDOMRUNS_H

#include "equiv/Checker.h"
#include "smt-encode/Executor.h"

#include <optional>
#include <string>

namespace kv {

/// A defect a run of a kernel's LLVM IR showed (RunLimits::irOnly), with
/// the run's launch and scalars.
struct SeenDefect {
  bool inAfter = false;
  RunDefect defect;
  LaunchConfig cfg;
  std::vector<std::pair<std::string, int64_t>> scalars;
  /// The inputs in words ("pseudo-random").
  std::string inputs;
};

/// How far findByRunning goes.
struct RunLimits {
  /// Tiers of launches: 1, small ones (at most 2 blocks per dimension and
  /// 64 threads along x), or 2, larger ones and real sizes too.
  unsigned tiers = 2;
  /// No run starts after this many milliseconds (0: no limit).
  unsigned budgetMs = 0;
  uint64_t maxThreads = uint64_t(1) << 16;
  uint64_t maxSteps = uint64_t(1) << 22;
  /// Run the LLVM IR of both kernels (opts.beforeIR/afterIR) only: \p
  /// before and \p after are then their signatures (lowered with
  /// LowerOptions::signatureOnly), for kernels whose models are out of
  /// reach. Only the cells of the parameters' arrays are compared.
  bool irOnly = false;
  /// With irOnly: where a run shows a race, a divergent barrier or an
  /// out-of-bounds shared access, the search stops and this receives it.
  std::optional<SeenDefect> *defect = nullptr;
  /// Every run on this launch (the baseline's, --threads): only the scalars
  /// are drawn.
  std::optional<LaunchConfig> fixed;
};

/// A counterexample from running \p before and \p after (kv models, then
/// the LLVM IR of opts.beforeIR/afterIR) on a few small launches and
/// scalars the assumptions admit, then on the sizes at each launch's edges
/// (one past a block's, two blocks' or the grid's worth of elements), and
/// with tier 2 on the largest block along x the assumptions admit with a
/// few dozen blocks; each with two kinds of pseudo-random inputs (floats,
/// small integers). \p runs counts the runs made; a run the
/// before kernel's assumptions reject does not count. \p disagreement is
/// set, and nothing returned, when a kernel's model and IR disagree.
std::optional<Counterexample>
findByRunning(KernelOp before, KernelOp after, const CheckOptions &opts,
              unsigned &runs, std::string &disagreement, RunLimits limits = {});

/// Shrinks counterexample \p cex: each launch dimension towards 1 and each
/// scalar towards 0, one value at a time, keeping the first smaller value
/// the assumptions admit at which both kernels, run on \p cex's input cells
/// (others 0), still differ and the LLVM IR confirms it as it confirmed
/// \p cex. Returns whether \p cex changed; stops after \p budgetMs. With
/// \p irOnly the kernels' IR runs alone (RunLimits::irOnly).
bool shrinkCounterexample(KernelOp before, KernelOp after,
                          const CheckOptions &opts, Counterexample &cex,
                          unsigned budgetMs, bool irOnly = false);

/// Whether running \p k on a few large launches and scalars that the
/// assumptions admit (blockDim 1024, scalars 1024 ...) breaks one of its
/// model conditions (kv.prove): a bound probe's quick "no", where the
/// solver takes seconds to find such a launch. Stops after \p budgetMs.
/// A launch that breaks an in-kernel assumption only later in the run may
/// answer "yes" wrongly: a bound probe that takes it costs a looser bound
/// (the bound kept is still the solver's proof), never a wrong one.
bool modelConditionFailsByRunning(KernelOp k, const CheckOptions &opts,
                                  unsigned budgetMs = 300);

} // namespace kv

#endif
