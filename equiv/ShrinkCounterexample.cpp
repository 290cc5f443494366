//===- ShrinkCounterexample.cpp - smaller launches that still differ ------===//
//
// A counterexample found at a large launch or with large scalars is rerun
// at smaller ones, value by value, on the input cells it lists: the first
// smaller value at which both kernels still differ, confirmed as the
// original was, is kept.
//
//===----------------------------------------------------------------------===//
#include "equiv/IRExecutor.h"
#include "equiv/RandomRuns.h"
#include "equiv/RunsInternal.h"
#include "smt-encode/Debug.h"

#include <chrono>

namespace kv {

using namespace runs;

bool shrinkCounterexample(KernelOp before, KernelOp after,
                          const CheckOptions &opts, Counterexample &cex,
                          unsigned budgetMs, bool irOnly) {
  using Clock = std::chrono::steady_clock;
  Clock::time_point start = Clock::now();
  if (!cex.replayed || opts.bits != 32)
    return false;
  LaunchFacts lf(before, opts);
  if (!lf.facts)
    return false;
  mlir::Block &blk = before.getBlock();
  using Values = LaunchFacts::Values;
  Values vals;
  for (int i = 0; i < 3; ++i) {
    vals.push_back((int64_t)cex.blockDim[i]);
    vals.push_back((int64_t)cex.gridDim[i]);
  }
  for (unsigned a : lf.scalarArg) {
    std::string name = before.getArgName(a).str();
    auto it =
        llvm::find_if(cex.scalars, [&](auto &s) { return s.first == name; });
    if (it == cex.scalars.end())
      return false;
    vals.push_back(it->second);
  }
  // The input cells the counterexample lists, by kv argument; others 0.
  std::map<unsigned, std::map<int64_t, int64_t>> cells;
  for (unsigned a = 0; a < blk.getNumArguments(); ++a) {
    auto it = cex.arrays.find(before.getArgName(a).str());
    if (it != cex.arrays.end())
      cells[a] = it->second;
  }
  const uint64_t maxThreads = uint64_t(1) << 20, maxSteps = uint64_t(1) << 24;
  // Runs both kernels at \p v; a counterexample there, confirmed on the IR,
  // with the cells it read.
  auto differs = [&](const Values &v) -> std::optional<Counterexample> {
    LaunchConfig cfg = LaunchFacts::launchAt(v);
    uint64_t threads = 1;
    for (int i = 0; i < 3; ++i)
      threads *= cfg.block[i] * cfg.grid[i];
    if (threads > maxThreads)
      return std::nullopt;
    std::map<unsigned, llvm::APInt> scalars = lf.scalarsAt(v);
    std::map<std::pair<unsigned, uint64_t>, llvm::APInt> read;
    auto inputsFor = [&](KernelOp k) {
      return recordedInputs(
          k, opts.bits, scalars, read,
          [&](unsigned a, uint64_t idx, unsigned ew) {
            int64_t x = 0;
            if (auto it = cells.find(a); it != cells.end())
              if (auto c = it->second.find((int64_t)idx); c != it->second.end())
                x = c->second;
            return llvm::APInt(ew, (uint64_t)x, /*isSigned=*/true,
                               /*implicitTrunc=*/true);
          });
    };
    ExecInputs inB = inputsFor(before), inA = inputsFor(after);
    ExecResult rb =
        runKernel(before, opts.beforeIR, irOnly, opts.beforeIRIsSource, cfg,
                  inB, maxThreads, maxSteps);
    if (!rb.ok || rb.assumeViolated)
      return std::nullopt;
    ExecResult ra = runKernel(after, opts.afterIR, irOnly, opts.afterIRIsSource,
                              cfg, inA, maxThreads, maxSteps);
    if (!ra.ok || (irOnly && ra.assumeViolated))
      return std::nullopt;
    std::optional<Counterexample> found =
        firstDifference(before, lf.enc, cfg, scalars, read, rb, ra, inB, inA,
                        appliesOperations(before) || appliesOperations(after));
    if (!found)
      return std::nullopt;
    Counterexample &c = *found;
    if (irOnly)
      ranOnIR(c, rb, ra);
    else if (confirmOnIR(opts, before, after, cfg, inB, inA, rb, ra, c,
                         maxThreads, maxSteps))
      return std::nullopt;
    // What the original rested on: the same runs on the IR, and where it
    // stood on clean runs instead of the static checks, clean ones.
    if (c.replayedOn != cex.replayedOn || (cex.runsChecked && !c.runsChecked))
      return std::nullopt;
    return found;
  };
  // Each value in turn towards 1 (launch) or 0 (scalars): the first
  // candidate that still shows a difference is kept, until none does.
  bool shrunk = false;
  for (bool progress = true; progress;) {
    progress = false;
    for (size_t i = 0; i < vals.size(); ++i) {
      int64_t x = vals[i], low = i < 6 ? 1 : 0;
      std::vector<int64_t> tries = {low, x / 2, x - (x > 0 ? 1 : -1)};
      if (x < 0)
        tries = {low, x / 2, x + 1};
      for (int64_t t : tries) {
        if (Clock::now() - start > std::chrono::milliseconds(budgetMs))
          return shrunk;
        if (t == x || (i < 6 && t < 1) ||
            (x >= 0 ? (t < low || t > x) : (t > 0 || t < x)))
          continue;
        Values cand = vals;
        cand[i] = t;
        if (!lf.admits(cand))
          continue;
        std::optional<Counterexample> c = differs(cand);
        KV_DEBUG("shrink", llvm::errs() << "shrink: value " << i << " = " << t
                                        << (c ? ": differs" : ": no") << "\n");
        if (c) {
          cex = std::move(*c);
          vals = std::move(cand);
          shrunk = progress = true;
          break;
        }
      }
    }
  }
  return shrunk;
}

} // namespace kv
