//===- Executor.h - concrete execution of kv kernels ------------*- C++ -*-===//
//
// Runs a kv.kernel concretely on one launch configuration: every block, and
// in each barrier interval every thread, reads the arrays as they stood at
// the start of the interval; writes take effect at its end. Integers are
// N-bit words exactly as the SMT encoding models them (same results for
// division by zero and over-wide shifts as SMT-LIB bit-vectors). The ops
// that depend on a kv.iter run once per iteration, in order, with exact
// liveness arithmetic; a loop that does not stop or runs more than 2^20
// iterations is an error.
//
//===----------------------------------------------------------------------===//
#ifndef KV_SMTENCODE_EXECUTOR_H
#define KV_SMTENCODE_EXECUTOR_H

#include "kv/KVDialect.h"
#include "llvm/ADT/APInt.h"
#include "llvm/IR/InstrTypes.h"
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kv {

/// Width used to model an integer type of \p width bits under --bits=N:
/// min(width, N); i1 and 64-bit values (addresses) keep their width.
unsigned modelWidth(unsigned width, unsigned bits);

struct LaunchConfig {
  uint64_t grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
};

struct ExecInputs {
  unsigned bits = 32;
  /// Value of scalar kernel argument #argNo (at its model width).
  std::function<llvm::APInt(unsigned argNo)> scalar;
  /// Initial content of global array argument #argNo at element \p index
  /// (index at model width N, value at the element's model width).
  std::function<llvm::APInt(unsigned argNo, uint64_t index)> initial;
  /// Initial (uninitialized) content of shared array #argNo in block bid.
  std::function<llvm::APInt(unsigned argNo, const uint64_t bid[3],
                            uint64_t index)>
      sharedInitial;
  /// Result of an uninterpreted kv.apply the executor cannot compute itself;
  /// may be empty.
  std::function<std::optional<llvm::APInt>(llvm::StringRef fn,
                                           llvm::ArrayRef<llvm::APInt> args,
                                           unsigned resultWidth)>
      apply;
};

/// Inputs of a run of \p k under --bits=\p bits: scalar argument #a is
/// \p scalar(a) and global cell \p idx of array #a is \p cell(a, idx, w),
/// each at its model width w (a scalar sign-extended or truncated to it);
/// shared memory starts 0. The runs, their replays and the search for a
/// counterexample's input sources all give inputs this way.
ExecInputs kernelInputs(
    KernelOp k, unsigned bits, std::function<int64_t(unsigned a)> scalar,
    std::function<llvm::APInt(unsigned a, uint64_t idx, unsigned w)> cell);

/// Makes the cells of \p k's printf stream start 0, apart from the
/// inputs (\p in's own initial contents are not asked for them): a run lays
/// out what it printed there, a kernel that prints less leaves zeros.
void quietPrintStream(KernelOp k, ExecInputs &in);

/// A defect one run showed: two threads on one cell of an array with a write
/// among them in one barrier interval (or in two blocks), a barrier some
/// threads of a block reach and others not, a warp operation whose mask or
/// source lane is wrong, or a __shared__ index out of bounds.
struct RunDefect {
  enum Kind { Race, Divergence, OutOfBounds } kind = Race;
  /// The kv array and cell (Race, OutOfBounds); -1 for none.
  int arg = -1;
  int64_t cell = 0;
  /// The two accesses of a race, the earlier first; a divergence's thread
  /// at the barrier first. Only the first is set for OutOfBounds.
  struct Site {
    uint64_t block[3] = {0, 0, 0}, thread[3] = {0, 0, 0};
    bool write = false, atomic = false;
    std::string location; // file:line:col, or empty
  };
  Site first, second;
  /// A write-write race where both threads wrote the same value (a race
  /// the static check tolerates).
  bool sameValue = false;
  /// In words, without the sites: "a barrier not every thread reaches".
  std::string what;
};

struct ExecResult {
  bool ok = false;
  /// Why execution failed (unknown operation, too many threads, ...).
  std::string error;
  /// A kv.assume was false for some thread: the input is not a valid launch.
  bool assumeViolated = false;
  /// The run stopped at its instruction limit.
  bool tooMuchWork = false;
  /// LLVM IR runs (executeIR) only: why this run is not known to be free of
  /// data races, barrier divergence and out-of-bounds shared accesses;
  /// empty when it is (no two threads of a barrier interval, and no two
  /// blocks, accessed one cell with a write among the accesses; every
  /// thread of a block waited at each barrier; shared indices in bounds).
  /// Such a run is the kernel's only result on its launch and inputs,
  /// whatever the schedule.
  std::string unchecked = "not checked for races";
  /// LLVM IR runs only: some reason for `unchecked` is not two threads or
  /// blocks accessing one cell (what the static race check decides).
  bool uncheckedOtherThanRaces = true;
  /// LLVM IR runs only: the defects the run showed (the first few, one per
  /// kind and array), whether the run then completed or not.
  std::vector<RunDefect> defects;
  /// Final content of every global array cell written, per argument number.
  std::map<unsigned, std::map<uint64_t, llvm::APInt>> written;
  /// LLVM IR runs only: a private variable was read before any write to
  /// it; the run took 0 where the GPU has any value.
  bool readUnset = false;
  /// LLVM IR runs only: the written cells whose floats come from
  /// approximate operations (PTX .approx, the CUDA math library), known to
  /// lie in [lo, hi] (`written` holds the middle).
  std::map<unsigned, std::map<uint64_t, std::pair<double, double>>> ranges;
};

/// Execute \p kernel. Fails (ok=false) when the grid has more than
/// \p maxThreads threads in total, or when it would execute more than
/// \p maxSteps instructions (0: no limit).
ExecResult execute(KernelOp kernel, const LaunchConfig &cfg,
                   const ExecInputs &in, uint64_t maxThreads = 1u << 20,
                   uint64_t maxSteps = 0);

namespace executor {
/// IEEE fadd/fsub/fmul/fdiv (an llvm::Instruction opcode) on float (\p width
/// 32) or double (64) bit patterns, as the GPU computes them: a NaN result
/// is the canonical NaN.
uint64_t floatArith(unsigned opcode, uint64_t a, uint64_t b, unsigned width);
/// The fcmp predicate \p pred on float or double bit patterns.
bool floatCompare(llvm::CmpInst::Predicate pred, uint64_t a, uint64_t b,
                  unsigned width);
/// Whether two kernels' final cells \p a and \p b are one output: equal,
/// or, where the kernels compute with floats (\p floats), two NaNs of the
/// cell's width (a NaN's sign and payload are LLVM's to choose: -O2 turns
/// `x * (c ? -1.0 : 1.0)` into a negation that keeps them, the GPU's
/// multiplication makes them canonical).
bool sameOutput(const llvm::APInt &a, const llvm::APInt &b, bool floats);
/// Whether cell \p idx of array \p arg, \p a after run \p ra and \p b
/// after \p rb, differs on every GPU: not sameOutput, and where a cell's
/// float is only known within bounds (ExecResult::ranges), outside the
/// other's.
bool certainlyDiffer(const ExecResult &ra, const ExecResult &rb, unsigned arg,
                     uint64_t idx, const llvm::APInt &a, const llvm::APInt &b,
                     bool floats);
/// What a launch printed (\p lines: each record of each thread, its cells
/// kPrintRecordCells wide), as the cells of the printf stream in a run's
/// result: sorted, since the order between threads is the schedule's, so
/// that two runs differ there exactly where they print different lines.
void layOutPrinted(std::vector<std::vector<uint64_t>> lines,
                   std::map<uint64_t, llvm::APInt> &cells);
/// The pseudo-random input cell \p idx of array \p arg for seed \p seed
/// that replays use where a solver's cells do not show a difference: a
/// float or double of magnitude 2^-8 .. 2^12 (with \p floats, for 32- and
/// 64-bit cells; sums of them round differently in different orders), else
/// a small integer in -1000..1000.
llvm::APInt pseudoRandomCell(unsigned width, unsigned arg, uint64_t idx,
                             unsigned seed, bool floats);
/// kv.apply \p fn on \p args as the GPU computes it, where the host can:
/// IEEE conversions between integers, floats and doubles, the exact math
/// intrinsics (fabs, sqrt, fma, rounding, minnum/maxnum, copysign) and frem.
/// None for other operations (approximate math, libdevice calls, narrow
/// floats) and for patterns a model width cut; \p why is set when the
/// operation has no value (an out-of-range fptosi is poison).
std::optional<llvm::APInt> nativeApply(llvm::StringRef fn,
                                       llvm::ArrayRef<llvm::APInt> args,
                                       unsigned width, std::string &why);
} // namespace executor

} // namespace kv

#endif
