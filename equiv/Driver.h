//===- Driver.h - one validation pipeline for every front door --*- C++ -*-===//
//
// The command line and the pass plugin hand the driver two kernels and the
// options of the one option table; it lowers them into kv (again for each
// case of a proof by cases and for the bounded search), verifies the models,
// splits cases, runs the safety checks and the proofs through the checker,
// searches for a counterexample when the proof is undecided, and returns one
// Validation, which the report layer (Report.h) renders.
//
//===----------------------------------------------------------------------===//
#ifndef KV_EQUIV_DRIVER_H
#define KV_EQUIV_DRIVER_H

#include "equiv/CaseSplit.h"
#include "equiv/Checker.h"
#include "equiv/Options.h"
#include "passes/lower/LowerToKV.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class Function;
} // namespace llvm

namespace kv {

/// One kernel of a pair, as a front door found it.
struct KernelInput {
  /// LLVM IR to lower into kv, lowered again for each case of a split and
  /// for the bounded search. May be null when `kernel` is given.
  llvm::Function *function = nullptr;
  /// A kv kernel, used (cloned) when there is no function, or for the first
  /// lowering when it was lowered with `kernelUnroll` and no case values
  /// (the plugin's snapshot).
  KernelOp kernel;
  unsigned kernelUnroll = 0;
  /// How messages name this side: "before kernel", "after optimization".
  std::string label;
  /// The reference side: its `nsw` flags state C's signed-overflow rule.
  /// Not for optimized IR, where a flag may sit on speculated code.
  bool isSource = false;
  /// Milliseconds already spent on this side for the kernel (the plugin
  /// lowers the source at the start of the pipeline): part of its budget.
  double spentMs = 0;
};

/// Lower \p function into \p into: the lowering's MLIR diagnostics are
/// collected rather than printed, and a model that does not verify never
/// reaches the checker. On failure \p why holds the construct and its
/// location (or the first diagnostic); a loop the lowering wants split on
/// is left in \p split when \p reportSplit.
mlir::FailureOr<KernelOp>
lowerFunction(llvm::Function &function, mlir::ModuleOp into, bool isSource,
              unsigned unroll, const Case &pins, bool reportSplit,
              Unsupported &split, std::string &why, bool exactUnroll = false,
              const std::map<std::string, unsigned> &elemBytes = {},
              const std::string &brokenRule = {}, bool breakLoops = true,
              bool modelConstantLoops = false);

/// Whether \p reason (of a failed lowering or an unsupported verdict) is a
/// loop that the model could not count and no case split fixed: the driver
/// then tries to unroll it exactly (--unroll-exact).
bool loopNotCounted(llvm::StringRef reason);

/// The checker's options from the front door's: the one place where a
/// CheckOptions is filled.
CheckOptions checkOptionsFor(const Options &opts);

/// The outcome of one validation.
struct Validation {
  CheckResult result;
  /// Set when the bounded search (--hunt) found the counterexample.
  std::string foundBy;
  /// The --unroll bound the verdict's kernels were lowered with (--unroll,
  /// --unroll-exact's proved bound, or --hunt's when the search found the
  /// verdict); `kvalidate replay` lowers them the same way.
  unsigned loweredUnroll = 0;
  /// The counterexample comes from runs of the kernels' LLVM IR alone (no
  /// model): it is shrunk the same way.
  bool irRuns = false;
};

class Driver {
public:
  /// \p scratch receives the lowered kernels (erased again after each
  /// check).
  Driver(KernelInput before, KernelInput after, mlir::ModuleOp scratch,
         const Options &opts);

  /// Validate the pair for every launch the assumptions allow, or for the
  /// one \p launch (the non-parameterized baseline).
  /// All of it within the kernel's budget (--timeout, --max-memory): past
  /// either bound the verdict is `unknown` with the budget as its reason.
  Validation validate(const std::optional<LaunchConfig> &launch = {});

  /// One lowered pair, for printing (--emit-kv) and replaying: the first
  /// case of a split, whose values the assumptions fix. The kernels stay in
  /// the scratch module.
  std::optional<LoweredPair> lowerOnce(unsigned unroll, CheckResult &failure);
  /// Kernels lowered into the scratch module for a while, erased with this.
  struct ScratchKernels {
    KernelOp k[2];
    ScratchKernels() = default;
    ScratchKernels(const ScratchKernels &) = delete;
    ScratchKernels &operator=(const ScratchKernels &) = delete;
    ~ScratchKernels() {
      for (KernelOp &x : k)
        if (x)
          x.erase();
    }
  };
  /// Both kernels' signatures (LowerOptions::signatureOnly) in the scratch
  /// module, when both have LLVM IR and their parameters match.
  bool irSignatures(ScratchKernels &sig);

private:
  /// validate() without the budget's scope.
  Validation validateUnbounded(const std::optional<LaunchConfig> &launch);
  std::optional<LoweredPair>
  lowerPair(const Case &pins, unsigned unroll, bool reportSplit,
            std::vector<std::string> &splitOn, KernelOp &signature,
            CheckResult &failure, bool exact = false);
  using CaseCheckFn =
      std::function<CheckResult(KernelOp, KernelOp, const CheckOptions &)>;
  /// Run both kernels on \p tiers of launches (--run-first): a
  /// not-equivalent verdict when they differ and the safety checks pass (or
  /// a defect they find), nothing otherwise. \p when ends its "found by".
  std::optional<Validation>
  runFirst(const CheckOptions &co, const LowerPairFn &lower,
           const CaseCheckFn &check, unsigned tiers,
           const std::string &when = "before any solver query");
  /// The first part of runFirst: the kernels' LLVM IR alone, on the same
  /// launches; a difference both runs checked free of defects. \p searched,
  /// if given, is set when the IR ran and showed no difference at all.
  std::optional<Validation>
  runIRFirst(const CheckOptions &co, unsigned tiers, const std::string &when,
             const std::optional<LaunchConfig> &fixed = std::nullopt,
             bool *searched = nullptr);
  /// A difference runIRFirst found on runs not known to be free of races
  /// (threads writing one cell): runFirst reports it where the static
  /// safety checks pass and the models' runs, which cannot compute every
  /// operation the IR can (approximate math), found none.
  std::optional<Counterexample> uncheckedIRDifference;
  unsigned uncheckedIRRuns = 0;
  /// Adds to \p cex the input cells its difference depends on
  /// (CounterexampleInputs.cpp).
  void completeCounterexample(Counterexample &cex);
  std::optional<std::vector<std::string>> planHunt(unsigned bound);
  std::optional<unsigned> exactBound(const CheckOptions &co);
  /// Shrinks \p v's counterexample (shrinkCounterexample) on the pair
  /// lowered as its verdict's kernels were.
  void shrink(Validation &v);
  static constexpr unsigned shrinkBudgetMs = 1000;
  Validation mergeHunt(CheckResult proof, CheckResult hunt, unsigned bound,
                       const std::vector<std::string> &domains);
  std::string translateName(const std::string &name, bool toAfter) const;
  Case pinsOf(const Case &pins, bool isBefore) const;
  /// Whether each kernel has a launch of its own (--launch-before and
  /// --launch-after): the after kernel's dimensions are then
  /// after.blockDim.x, ... (kAfterLaunchAttr).
  bool ownLaunches() const { return !opts.launchAfter.empty(); }
  static bool isLaunchDimension(llvm::StringRef name) {
    return name.starts_with("blockDim.") || name.starts_with("gridDim.");
  }
  /// Parses --launch-before/--launch-after into assumptions on each
  /// kernel's dimensions; false with \p err set if one is malformed.
  bool addLaunchAssumptions(std::string &err);
  /// A malformed --launch-before/--launch-after.
  std::string launchError;
  /// The MLIR front door's marks on either kernel (HostLaunches.cpp): an
  /// unsupported kernel, a host function's launches with a defect.
  std::optional<Validation> checkFrontDoorMarks();
  std::optional<Validation> checkHostLaunches(const KernelInput &side);

  KernelInput before, after;
  mlir::ModuleOp scratch;
  Options opts;
  std::vector<std::string> beforeNames, afterNames;
  /// Loops with breaks (passes/lower/LowerBreakLoops.cpp): whether a lowering
  /// made one, and whether they are turned off for a second attempt.
  bool sawBreakLoops = false, noBreakLoops = false;
  /// Loops with constant trip counts modelled as loops rather than unrolled
  /// (LowerOptions::modelConstantLoops), for a second attempt.
  bool modelConstantLoops = false;
  /// Whether the pair's lowering with modelConstantLoops has more stores
  /// in loops than without (a constant-trip-count loop that stores).
  bool constantLoopsModelled();
  /// Why the relational proof did not prove the pair (for reports).
  std::string relationalWhy;
  /// The relational proof over the kernels' own IR (DriverRelational.cpp),
  /// where it applies: an `equivalent` verdict, or nothing (relationalWhy
  /// says why). \p proofLeftMs is what is left of the proof's share of the
  /// budget (negative: no budget). \p beforeSafe: the model's safety
  /// checks proved the before kernel free of races, barrier divergence and
  /// out-of-bounds shared accesses, which the relational proof otherwise
  /// assumes (as the plugin does).
  std::optional<Validation> proveRelationally(const CheckOptions &co,
                                              long long proofLeftMs,
                                              bool beforeSafe);
  /// Whether proveRelationally would try the pair.
  bool relationalApplies(const CheckOptions &co, bool beforeSafe) const;
};

} // namespace kv

#endif
