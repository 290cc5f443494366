//===- Checker.h - equivalence of two kv kernels ----------------*- C++ -*-===//
//
// The verdicts kvalidate gives, and the entry point that checks a pair of
// kv.kernel ops with the single-parameterized-thread encoding.
//
//===----------------------------------------------------------------------===//
#ifndef KV_EQUIV_CHECKER_H
#define KV_EQUIV_CHECKER_H

#include "kv/KVDialect.h"
#include "smt-encode/Executor.h"
#include "llvm/ADT/APInt.h"
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace llvm {
class Function;
} // namespace llvm

namespace kv {

enum class Verdict {
  Equivalent, // proved for every launch and input under the assumptions
  EquivalentForLaunch, // bounded: no difference for one concrete launch
  EquivalentUpToBound, // bounded: loops unrolled --unroll times
  EquivalentOverReals, // --fp=real: float operations as real arithmetic
  NotEquivalent,       // with a counterexample that replays
  Unknown,     // timeout, or an obligation the encoding could not discharge
  Unsupported, // a construct the model cannot express
  Error,       // bad input or usage
  Race,        // a kernel has a data race (the encoding assumes none)
  Divergence,  // a barrier some threads of a block reach and others not
  OutOfBounds, // an access outside a fixed-size shared array
};
const char *verdictName(Verdict v);
/// The verdict verdictName gives \p name, if any.
std::optional<Verdict> verdictFromName(llvm::StringRef name);
/// Documented exit status: 0 equivalent, 1 not-equivalent, 2 unknown or
/// unsupported, 3 error, 4 a kernel is defective (race, divergence,
/// out-of-bounds shared access).
int exitCode(Verdict v);

struct Counterexample {
  uint64_t gridDim[3] = {1, 1, 1}, blockDim[3] = {1, 1, 1};
  /// The after kernel's own launch (--launch-after), where it has one:
  /// gridDim and blockDim are then the before kernel's.
  bool ownAfterLaunch = false;
  uint64_t afterGridDim[3] = {1, 1, 1}, afterBlockDim[3] = {1, 1, 1};
  /// Set by confirmOnIR where a kernel's LLVM IR did not run: the
  /// difference is only the models', no counterexample.
  bool onlyModels = false;
  /// Scalar parameters by source name (as signed values of their width;
  /// the bits of an unsigned one, named in unsignedScalars).
  std::vector<std::pair<std::string, int64_t>> scalars;
  std::set<std::string> unsignedScalars;
  /// Records scalar \p name with value \p v (its bits, for an unsigned one).
  void addScalar(const std::string &name, const llvm::APInt &v,
                 bool isUnsigned);
  /// Input cells, per global array (element index -> value): every cell
  /// the kernels read that is not 0, and the sources; a cell not listed is
  /// 0 (as `kvalidate replay` has it).
  std::map<std::string, std::map<int64_t, int64_t>> arrays;
  /// The input cells the difference depends on, per array, followed
  /// through both kernels' LLVM IR (Driver::completeCounterexample).
  std::map<std::string, std::set<int64_t>> sources;
  std::string mismatchArray;
  int64_t mismatchIndex = 0;
  int64_t before = 0, after = 0;
  /// Where a kernel's cell comes from approximate operations: the bounds
  /// its value is known within ("before in [lo, hi]"), which the other's
  /// is outside; empty where both are exact.
  std::string approximate;
  /// Both kernels were run concretely on this input and differ.
  bool replayed = false;
  /// What ran: the kernels' LLVM IR (the kv models' runs confirmed by it),
  /// or the kv models alone and why.
  std::string replayedOn;
  /// Both kernels' LLVM IR ran, and neither run had a data race, a barrier
  /// some threads missed or a shared access out of bounds: each kernel's
  /// result on this input is its only one, so the difference stands
  /// without the static safety checks.
  bool runsChecked = false;
  /// Where not runsChecked: only because two threads (or blocks) accessed
  /// one cell, which the static race check rules out or reports.
  bool uncheckedForRacesOnly = false;
  /// The after kernel reaches a trap, a failed assertion or undefined
  /// behaviour on this input, where the before kernel does not.
  bool afterFails = false;
};

/// A scalar of a counterexample as text: an unsigned parameter's bits as
/// an unsigned number (a size_t past 2^63 is not negative).
std::string scalarText(int64_t v, bool isUnsigned);

/// A defect of one kernel, found before any equivalence query: the launch
/// and the one or two threads that show it.
struct Defect {
  std::string kernel; // "before" or "after"
  std::string kind;   // "write-write race", "read-write race", ...
  std::string array;  // empty for divergence
  int64_t index = 0;
  uint64_t gridDim[3] = {1, 1, 1}, blockDim[3] = {1, 1, 1};
  std::vector<std::pair<std::string, int64_t>> scalars;
  std::set<std::string> unsignedScalars;
  struct Site {
    uint64_t block[3] = {0, 0, 0}, thread[3] = {0, 0, 0};
    std::string location; // file:line:col of the access or barrier
    std::string access;   // "write", "read", "reaches the barrier", ...
  };
  std::vector<Site> sites;
  /// How a run of the kernel's own code showed the defect (empty: not
  /// confirmed, which a reported defect always is).
  std::string confirmed;
};

struct CheckOptions {
  unsigned bits = 32;
  unsigned timeoutSecs = 0; // 0: no limit
  /// Drop the default assumption gridDim.d * blockDim.d <= 2^31-1.
  bool hugeGrids = false;
  /// Skip the race, divergence and bounds checks and state them as
  /// assumptions (the plugin: a compiler may assume its input has no
  /// undefined behaviour, and a source kernel's defect for some launch is
  /// not the optimizer's).
  bool assumeSafe = false;
  /// --assume expressions (C syntax over blockDim/gridDim and scalars).
  std::vector<std::string> assumptions;
  /// Where an assumption comes from, if not from --assume.
  std::map<std::string, std::string> assumptionSources;
  /// How a verdict lists assumption \p a: with where it comes from.
  std::string describeAssumption(const std::string &a) const {
    auto it = assumptionSources.find(a);
    return a + " (" +
           (it != assumptionSources.end() ? it->second : "--assume") + ")";
  }
  /// Internal knobs (hidden options): try the interval-by-interval proof
  /// first; products exact from the start; one solver strategy alone
  /// ("default" or "eqs"; empty: both in parallel); the solvers' random
  /// seed (0: Z3's default).
  bool lockstep = true;
  /// --fp=real: float operations are exact real arithmetic.
  bool realFloats = false;
  bool preciseProducts = false;
  /// Stop after the conditions under which the kv models are the kernels
  /// (kv.iter counts and kv.prove, as where safety is assumed): `equivalent`
  /// then only says that the models are exact.
  bool modelConditionsOnly = false;
  /// Stop after the safety checks (races, divergence, bounds): `equivalent`
  /// then only says that neither kernel has a defect. For a counterexample
  /// found by running the kernels, which stands only for kernels without.
  bool safetyOnly = false;
  /// The symbolic threads the equivalence query may chain through (0: the
  /// encoder's default).
  unsigned maxThreads = 0;
  std::string solver;
  unsigned seed = 0;
  /// The kernels' LLVM IR, where the front door has it: a counterexample
  /// the kv models produce is run on it too, and a disagreement between
  /// the two runs is reported as an internal error, not a counterexample.
  const llvm::Function *beforeIR = nullptr, *afterIR = nullptr;
  /// Which of them are source kernels, on which signed overflow of an
  /// `nsw` operation is undefined behaviour (LowerOptions::
  /// assumeNoSignedOverflow): runs of their IR alone take it as an input
  /// the kernel is not defined on.
  bool beforeIRIsSource = false, afterIRIsSource = false;
};

struct CheckResult {
  Verdict verdict = Verdict::Unknown;
  /// Why (for unknown/unsupported/error), or a one-line summary.
  std::string reason;
  /// Everything the verdict rests on, in words.
  std::vector<std::string> assumptions;
  std::optional<Counterexample> counterexample;
  std::optional<Defect> defect;
  /// Set with `unknown` when a safety check saw a defect only through
  /// over-approximated reads (not confirmed).
  bool possibleDefect = false;
  /// With safetyOnly: `unknown` only because of such a defect (the reason
  /// says which), which a replayed counterexample is reported beside.
  bool unconfirmedDefect = false;
  /// How `equivalent` was proved when not by the per-array query.
  std::string method;
  /// Loops the model does not count for every launch (kv.iter uncounted),
  /// each with a launch that shows it: aligned between the kernels.
  std::vector<std::string> uncountedLoops;
  /// How a counterexample was found, when not by the solver.
  std::string foundBy;
  /// The before kernel's safety checks (races, barrier divergence,
  /// out-of-bounds shared accesses) all proved, for every launch: what the
  /// relational proof assumes of it.
  bool beforeSafetyProved = false;
  double timeMs = 0;
};

/// Whether \p a and \p b are one model (printed alike but for their names):
/// a kernel against itself, or a pass that changed nothing the model sees.
bool sameModel(KernelOp a, KernelOp b);

/// Why the parameter lists of \p a and \p b cannot be matched ("" when
/// they can).
std::string matchParams(KernelOp a, KernelOp b);

/// Check that \p before and \p after write the same values to every global
/// array cell for every launch configuration and input. The kernels' scalar
/// and array parameters are matched by position.
CheckResult checkEquivalence(KernelOp before, KernelOp after,
                             const CheckOptions &opts);

/// The non-parameterized baseline (PUG_para section III): every thread of
/// the one launch \p cfg modelled. `equivalent-for-launch` or
/// `not-equivalent` (replayed) for that launch only.
CheckResult checkFixedLaunch(KernelOp before, KernelOp after,
                             const CheckOptions &opts, const LaunchConfig &cfg);

} // namespace kv

#endif
