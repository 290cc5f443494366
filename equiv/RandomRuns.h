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

#include <optional>
#include <string>

namespace kv {

/// How far findByRunning goes.
struct RunLimits {
  /// Tiers of launches: 1, small ones (at most 2 blocks per dimension and
  /// 64 threads along x), or 2, larger ones too.
  unsigned tiers = 2;
  /// No run starts after this many milliseconds (0: no limit).
  unsigned budgetMs = 0;
  uint64_t maxThreads = uint64_t(1) << 16;
  uint64_t maxSteps = uint64_t(1) << 22;
};

/// A counterexample from running \p before and \p after (kv models, then
/// the LLVM IR of opts.beforeIR/afterIR) on a few small launches and
/// scalars the assumptions admit, each with two kinds of pseudo-random
/// inputs (floats, small integers). \p runs counts the runs made; a run the
/// before kernel's assumptions reject does not count. \p disagreement is
/// set, and nothing returned, when a kernel's model and IR disagree.
std::optional<Counterexample>
findByRunning(KernelOp before, KernelOp after, const CheckOptions &opts,
              unsigned &runs, std::string &disagreement, RunLimits limits = {});

} // namespace kv

#endif
