//===- RunsInternal.h - what the runs of two kernels share -----*- C++ -*-===//
//
// The pieces the search for a counterexample by running (RandomRuns.cpp),
// its shrinking (ShrinkCounterexample.cpp) and the bound probes' runs
// (Runs.cpp) share: the launch facts to evaluate or solve, running a kernel's
// model or IR, and the first difference of two runs.
//
//===----------------------------------------------------------------------===//
#ifndef KV_EQUIV_RUNSINTERNAL_H
#define KV_EQUIV_RUNSINTERNAL_H

#include "equiv/Checker.h"
#include "smt-encode/Encoder.h"
#include "smt-encode/Executor.h"
#include "smt-encode/Solver.h"

#include <functional>
#include <map>
#include <memory>
#include <optional>

namespace llvm {
class Function;
} // namespace llvm

namespace kv::runs {

/// \p k's launch values and scalars with the facts every launch run must
/// satisfy (the launch limits and the assumptions), to be evaluated at
/// concrete values (in the thread's evaluation context), or solved (in a
/// fresh context of their own, with \p forSolving: a search's result
/// depends on the context's history); no facts when the assumptions do not
/// parse.
struct LaunchFacts {
  KernelOp kernel;
  std::unique_ptr<ContextLease> lease;
  z3::context &ctx;
  Encoder enc;
  std::optional<z3::expr> facts;
  /// The values of a launch run: the launch dimensions (blockDim.x,
  /// gridDim.x, ..., z), then the scalars, of arguments scalarArg.
  std::vector<z3::expr> vars;
  std::vector<unsigned> scalarArg;
  using Values = std::vector<int64_t>;

  LaunchFacts(KernelOp k, const CheckOptions &opts, bool forSolving = false);
  /// Whether the facts hold at \p vals, by evaluation (no solver).
  bool admits(const Values &vals);
  /// The scalars of \p vals by argument, at their model widths.
  std::map<unsigned, llvm::APInt> scalarsAt(const Values &vals);
  /// The launch of \p vals.
  static LaunchConfig launchAt(const Values &vals);

private:
  z3::expr_vector from;
};

/// A run's inputs for kernel \p k: \p scalars by argument (0 where absent)
/// and the cells \p cell gives, each cell read recorded in \p read.
ExecInputs recordedInputs(
    KernelOp k, unsigned bits, const std::map<unsigned, llvm::APInt> &scalars,
    std::map<std::pair<unsigned, uint64_t>, llvm::APInt> &read,
    std::function<llvm::APInt(unsigned a, uint64_t idx, unsigned w)> cell);

/// Whether \p k applies an uninterpreted operation (float arithmetic,
/// comparisons, conversions, libdevice): kv arrays are typed by width
/// only, so their cells may hold floats.
bool appliesOperations(KernelOp k);
/// The same for LLVM IR: float arithmetic or a call to a declaration
/// (libdevice, an intrinsic that is not a special register).
bool appliesOperations(const llvm::Function *f);

/// Runs \p k on \p cfg: its kv model, or with \p irOnly its LLVM IR \p ir
/// (\p k its signature), whose __shared__ arrays are left out of `written`:
/// global memory is what the kernels leave behind, and the two may lay out
/// their shared arrays differently.
ExecResult runKernel(KernelOp k, const llvm::Function *ir, bool irOnly,
                     bool isSource, const LaunchConfig &cfg, ExecInputs &in,
                     uint64_t maxThreads, uint64_t maxSteps);

/// A difference of two IR runs: replayed on the IR, clean where both runs
/// checked themselves.
void ranOnIR(Counterexample &cex, const ExecResult &rb, const ExecResult &ra);

/// The first cell either run wrote that the two leave different, as a
/// counterexample of launch \p cfg, \p scalars and the input cells \p read
/// (not confirmed on the IR yet).
std::optional<Counterexample> firstDifference(
    KernelOp before, Encoder &enc, const LaunchConfig &cfg,
    const std::map<unsigned, llvm::APInt> &scalars,
    const std::map<std::pair<unsigned, uint64_t>, llvm::APInt> &read,
    ExecResult &rb, ExecResult &ra, ExecInputs &inB, ExecInputs &inA,
    bool floats);

} // namespace kv::runs

#endif
