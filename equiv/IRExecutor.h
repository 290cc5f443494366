//===- IRExecutor.h - concrete execution of a kernel's LLVM IR --*- C++ -*-===//
//
// Runs an nvptx kernel's LLVM IR itself on one launch, with no help from
// the kv lowering: the second, independent execution that confirms a
// counterexample the kv models produced. A lowering bug then shows as a
// disagreement between the two executions instead of a false
// counterexample.
//
// Every block runs alone, its threads one after the other up to the next
// barrier (the kernels are race free, so the order does not matter).
// Memory is byte-addressed: global arrays and __shared__/__device__
// variables are the kv model's arrays (cells of the model's element size,
// initialized by the same callbacks as the kv executor), private memory
// and constant globals are bytes. Integer results follow the kv executor
// where LLVM leaves them undefined (division by zero, over-wide shifts), so
// that the two executions agree on every run the model admits.
//
//===----------------------------------------------------------------------===//
#ifndef KV_EQUIV_IREXECUTOR_H
#define KV_EQUIV_IREXECUTOR_H

#include "equiv/Checker.h"
#include "smt-encode/Executor.h"

#include "llvm/ADT/APInt.h"

#include <functional>
#include <optional>
#include <set>
#include <string>

namespace llvm {
class Function;
class GlobalVariable;
} // namespace llvm

namespace kv {

struct IRInputs {
  /// A source kernel: an executed add, sub or mul marked `nsw` that
  /// overflows is undefined behaviour, an input the kernel is not defined
  /// on (assumeViolated), as its kv model assumes.
  bool noSignedOverflow = false;
  /// Value of the kernel's scalar parameter #argNo.
  std::function<llvm::APInt(unsigned argNo)> scalar;
  /// Initial content of array #arr (kv argument number) at element index.
  std::function<llvm::APInt(unsigned arr, uint64_t index)> initial;
  /// Initial content of shared array #arr in block bid.
  std::function<llvm::APInt(unsigned arr, const uint64_t bid[3],
                            uint64_t index)>
      sharedInitial;
  /// Element size in bytes of each kv array, by kv argument number (0 for
  /// scalars). Pointer parameter #i is kv array #i.
  std::vector<unsigned> elemBytes;
  /// The kv array of a global variable (__shared__, __device__), if the
  /// model has one; other globals are read from their initializers.
  std::function<std::optional<unsigned>(const llvm::GlobalVariable &)>
      globalArray;
  /// The kv array of the printf stream (kPrintStream), if the model has
  /// one: a run lays out there what the launch printed (layOutPrinted).
  std::optional<unsigned> printStream;
  /// The kv array kNullParams, if the model has one: pointer parameter #i
  /// is null where its cell i is not 0.
  std::optional<unsigned> nullParams;
  /// Stop the run at the first defect this accepts (a run made to confirm
  /// one: the rest of a long launch would not change the answer).
  std::function<bool(const RunDefect &)> stopAt;
};

/// Execute \p kernel on \p cfg. `written` holds, per kv array, the final
/// value of every cell a store touched. Fails (ok=false, `error` says why)
/// on an instruction it does not execute, more than \p maxThreads threads,
/// or more than \p maxSteps instructions (0: no limit; `tooMuchWork`).
ExecResult executeIR(const llvm::Function &kernel, const LaunchConfig &cfg,
                     const IRInputs &in, uint64_t maxThreads,
                     uint64_t maxSteps = 0);

/// The input cells (kv argument, index) the final value of cell \p idx of
/// global array \p arg depends on, when \p kernel runs on \p cfg and
/// \p in: followed thread by thread through the run, the input cells read
/// by the thread that wrote it last, and by every thread whose writes or
/// warp values that thread read, transitively. A thread stands for all it
/// did, so the set may hold more than the value needs, never less. The
/// cell itself when no thread wrote it; nothing when the run fails.
std::set<std::pair<unsigned, uint64_t>>
inputSources(const llvm::Function &kernel, const LaunchConfig &cfg,
             const IRInputs &in, unsigned arg, uint64_t idx,
             uint64_t maxThreads, uint64_t maxSteps = 0);

/// The IR executor's inputs for kernel \p ir, whose kv model is \p op:
/// \p from's values, the model's element sizes and __shared__/__device__
/// arrays.
IRInputs irInputsFor(KernelOp op, const llvm::Function &ir,
                     const ExecInputs &from);

/// Runs the kernel whose defect \p result reports (a race, divergence or
/// out-of-bounds verdict of the static checks, on kernel \p k with LLVM IR
/// \p ir) at the defect's launch and scalars, with zero and with
/// pseudo-random inputs. The verdict stands where a run shows a defect of
/// its kind (on the same array, for races and bounds): the defect then
/// names the cell and threads of the run, and `confirmed` says how it was
/// seen. Otherwise it becomes `unknown`, a possible defect, with the
/// reason. \p remainingMs bounds the runs (0: no limit).
void confirmDefect(KernelOp k, const llvm::Function *ir, unsigned bits,
                   CheckResult &result, unsigned remainingMs);

/// The defect verdict (race, divergence, out-of-bounds shared access) that
/// run defect \p r of the \p kernel ("before", "after") kernel \p k shows,
/// confirmed by that run (launch \p cfg, \p scalars, \p inputs in words);
/// nothing for what the static checks tolerate (equal values written
/// twice).
std::optional<CheckResult>
defectOfRun(KernelOp k, const std::string &kernel, const LaunchConfig &cfg,
            const std::vector<std::pair<std::string, int64_t>> &scalars,
            const RunDefect &r, const std::string &inputs);
/// Runs the LLVM IR of \p before and \p after (opts.beforeIR/afterIR, where
/// set) on the launch \p cfg and the inputs the kv runs \p rb and \p ra
/// read (\p inB, \p inA), and compares every cell. Sets cex.replayedOn.
/// Returns the disagreement, if the IR computes another value than the kv
/// model of the same kernel anywhere (then the counterexample is not one).
/// The after kernel runs on \p afterCfg where it has a launch of its own.
std::optional<std::string>
confirmOnIR(const CheckOptions &opts, KernelOp before, KernelOp after,
            const LaunchConfig &cfg, const ExecInputs &inB,
            const ExecInputs &inA, ExecResult &rb, ExecResult &ra,
            Counterexample &cex, uint64_t maxThreads, uint64_t maxSteps = 0,
            const LaunchConfig *afterCfg = nullptr);

} // namespace kv

#endif
