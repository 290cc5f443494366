//===- SafetyCheck.h - the checks of checkSafety ----------------*- C++ -*-===//
//
// Internal to equiv/: the two-thread query of the safety checks and the state
// checkSafety shares between them. Safety.cpp holds the query and the setup,
// SafetyBounds.cpp, SafetyDivergence.cpp, SafetyModel.cpp and SafetyRaces.cpp
// one check each.
//
//===----------------------------------------------------------------------===//
#ifndef KV_EQUIV_SAFETYCHECK_H
#define KV_EQUIV_SAFETYCHECK_H

#include "equiv/Checker.h"
#include "equiv/Safety.h"
#include "smt-encode/Encoder.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include "smt-encode/Solver.h"
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace kv {
namespace safety {

struct Access {
  mlir::Operation *op;
  unsigned arg;
  bool write;
  unsigned interval;
  mlir::Value index, guard;
  /// The interval counting __syncthreads() only (warp barriers, which
  /// order the threads of one warp, not counted).
  unsigned blockInterval = 0;
  /// The interval counting grid barriers only (grid.sync()), which order
  /// the accesses of any two threads they separate.
  unsigned gridInterval = 0;
  /// An atomic update (kv.write atomic): its kind, or none.
  std::optional<RmwKind> rmw() const {
    auto w = llvm::dyn_cast<WriteOp>(op);
    return w ? w.getRmw() : std::nullopt;
  }
};

/// Whether warp member mask \p mask holds lane \p lane (taken mod 32).
inline z3::expr laneInMask(const z3::expr &mask, const z3::expr &lane) {
  unsigned w = mask.get_sort().bv_size();
  z3::context &ctx = mask.ctx();
  return (z3::lshr(mask, lane & ctx.bv_val(31, w)) & ctx.bv_val(1, w)) ==
         ctx.bv_val(1, w);
}

std::string locationOf(mlir::Operation *op);
/// " at FILE:LINE:COL" where \p op has a source line, else "".
inline std::string atLocation(mlir::Operation *op) {
  std::string l = locationOf(op);
  return l.empty() ? l : " at " + l;
}
uint64_t evalU(const z3::model &m, const z3::expr &e);
int64_t evalS(const z3::model &m, const z3::expr &e);

/// One check: its own context and encoder, two threads t1 and t2.
struct Query {
  ContextLease lease;
  z3::context &ctx = lease;
  Encoder enc;
  KernelModel km;
  Thread *t1 = nullptr, *t2 = nullptr;
  std::optional<z3::model> model;
  SolverSettings solver;

  KernelModel before;

  Query(KernelOp k, KernelOp paramSource, const char *label, unsigned bits)
      : enc(ctx, bits, paramSource), km(k, label),
        before(paramSource, "before") {
    // As in the equivalence query, the before kernel's preconditions and
    // absence of undefined behaviour hold for every thread: facts about the
    // launch, valid for the after kernel's threads too.
    enc.trusted = &before;
    enc.bounded = &km;
    // The kernel's threads are of its launch (its own, with --launch-after).
    enc.threadLaunch = km.launch;
    // Products as uninterpreted functions with index lemmas, refined where
    // a model needs them: `unsat` stays a proof, a model is exact.
    enc.abstractNonlinear = true;
  }

  z3::expr asBool(const z3::expr &e) {
    return e.is_bool() ? e : e == ctx.bv_val(1, e.get_sort().bv_size());
  }
  z3::expr guard(mlir::Value g, const Thread &t) {
    return asBool(enc.value(km, g, t));
  }
  /// The guard of access \p op, with the loops it is in.
  z3::expr access(mlir::Operation *op, const Thread &t) {
    return enc.accessGuard(km, op, t);
  }
  z3::expr index(mlir::Value i, const Thread &t) {
    return enc.toIndex(enc.value(km, i, t));
  }

  /// Whether \p cond holds for some launch and input; a model found is
  /// then made \p readable (a small launch) when it may be reported.
  z3::check_result solve(const z3::expr &cond,
                         const std::function<unsigned()> &remainingMs,
                         bool readable = true);
  /// The last model found by solve, if not made readable yet, replaced by
  /// one of a small launch where \p focus holds too (a query whose model
  /// is reported only sometimes pays for this only then).
  void makeReadable(const z3::expr &focus);
  /// Try the sample launch (Encoder::samplePoint) before the whole query:
  /// for a condition that usually holds at any launch for some scalars.
  bool sampleLaunchFirst = false;
  /// The solver of the last `sat` answer, for makeReadable.
  std::unique_ptr<Portfolio> last;
  bool madeReadable = false;

  void fillLaunch(Defect &d);
  Defect::Site site(const Thread &t, mlir::Operation *op, std::string access);
};

/// Which values' encodings may over-approximate: those that depend on a
/// read of an array the kernel writes (a read of an input array is its
/// exact initial content). Memoized, since a kernel unrolled into thousands
/// of accesses asks for each of them.
class OverApprox {
public:
  explicit OverApprox(KernelOp k);
  bool operator()(mlir::Value v);

private:
  std::set<unsigned> written;
  llvm::DenseMap<mlir::Value, bool> memo;
};

/// A defect in words: kernel, kind, cell, threads, launch and scalars.
std::string describe(const Defect &d);
/// The launch and scalars of \p d: "gridDim (..), blockDim (..), n = ..".
std::string describeLaunch(const Defect &d);

/// checkSafety on one kernel: its arguments, the properties proved or
/// assumed so far, and the kernel's accesses and guarded barriers. Each
/// check returns false when checkSafety stops there (\p result set).
struct SafetyCheck {
  KernelOp k, paramSource;
  const char *label;
  unsigned bits;
  const FactsFn &facts;
  const std::function<unsigned()> &remainingMs;
  CheckResult &result;
  bool loopsOnly;
  const SolverSettings &solver;
  OverApprox overApproxOf{k};
  /// Only whether the kernel passes matters (the driver's bound probes): a
  /// condition that fails is not located and no launch made readable.
  bool quiet = false;
  /// The kernels are assumed free of out-of-bounds shared accesses: a
  /// model condition that says no more (kProveInBoundsAttr) is assumed.
  bool boundsAssumed = false;
  /// A shorter budget for each query, where undecided costs little.
  unsigned capMs = 0;
  // A check the solver cannot decide within its budget leaves its property
  // as a stated assumption; a construct without an encoding stops.
  std::vector<std::string> proved, assumed;
  /// Model conditions that the assumed absence of out-of-bounds shared
  /// accesses implies (boundsAssumed).
  std::vector<std::string> impliedByBounds;
  std::vector<Access> accesses;
  std::vector<BarrierOp> guardedBarriers;
  /// The warp barriers (__syncwarp) in program order.
  std::vector<BarrierOp> warpBarriers;
  /// Grid barriers (grid.sync()), guarded or not.
  std::vector<BarrierOp> gridBarriers;
  /// Whether \p a and \p b (\p a first) of threads \p t1 and \p t2 are
  /// ordered by the warp barriers between them: the two threads are of one
  /// warp and both reach each of them, within its mask.
  z3::expr warpOrdered(Query &q, const Access &a, const Access &b);

  /// Sets up query \p q: launch facts, deadline, threads t1 and t2.
  bool start(Query &q);
  bool undecided(Query &q, const std::string &what);
  // A defect seen only through values read from arrays may be an artefact
  // of the over-approximated reads.
  bool report(Query &q, Verdict v, Defect d, bool dataDependent);
  // Each query gets a few seconds (within the overall deadline).
  std::function<unsigned()> budget();
  /// The kernel's reads and writes, and its barriers under a condition.
  void collectAccesses();
  bool overApprox(mlir::Value v, llvm::StringRef);
  /// Whether an access's guard or index reads an array (a write under
  /// `if (m[t + s] > m[t])`).
  bool dataDependentAccess();
  /// Reads in \p q become the memory each interval starts from, one
  /// uninterpreted function per kernel (the threads read the same memory):
  /// no read chains, and an over-approximation, so `unsat` is a proof.
  void abstractReads(Query &q);
  bool isShared(unsigned arg);
  /// Adds what was proved and what assumed to the result's assumptions.
  void listProperties();

  /// Out-of-bounds accesses to fixed-size shared arrays (SafetyBounds.cpp).
  bool checkBounds();
  /// Barrier divergence (SafetyDivergence.cpp).
  bool checkDivergence();
  bool checkGridDivergence();
  /// Whether two threads (of one block, or of the grid) disagree on
  /// reaching \p b: reported as divergence (false), or undecided and
  /// assumed, or \p agreed.
  bool askDisagreement(BarrierOp b, bool grid, bool &agreed);
  /// Where every thread may skip \p b, that an adjacent interval is idle;
  /// else unsupported with \p what (false).
  bool askWholeSkip(BarrierOp b, const char *what);
  bool idleWhenSkipped(BarrierOp b, bool after);
  /// Warp shuffles: the mask holds the lane and its source, and the source
  /// is in the block and executes the shuffle (SafetyDivergence.cpp).
  bool checkShuffles();
  /// Warp votes: the mask holds the lane that executes it.
  bool checkVotes();
  /// Loops with a symbolic trip count that the kv.iter model counts
  /// (SafetyModel.cpp).
  z3::check_result
  allHold(const std::function<z3::expr(Query &, mlir::Operation *)> &build,
          llvm::ArrayRef<mlir::Operation *> ops,
          const std::function<void(Query &)> &onSat = nullptr);
  /// Stops a quiet check at a condition of \p what that fails.
  bool failsQuietly(const char *what);
  bool checkLoops();
  /// The kv.prove conditions of the lowering's model (SafetyModel.cpp).
  bool checkModelConditions();

  /// Data races (SafetyRaces.cpp).
  bool checkRaces();
  struct Pair {
    const Access *a, *b;
    z3::expr cond;
  };
  // Two accesses of threads t1 and t2 that conflict: same cell, one a
  // write, not ordered by a barrier or program order.
  std::vector<Pair> conflicts(Query &q);
  /// The thread and block ids the kernel reads ("tid.x" ... "bid.z").
  std::set<std::string> idsUsed;
  /// How many access pairs toldApart has settled.
  unsigned pairsToldApart = 0;
  /// Whether writes \p a and \p b cannot race by the shape of their index
  /// alone (no query).
  bool toldApart(Query &q, const Access &a, const Access &b);
  /// Reports the race of \p p that \p q's model shows (possible where it
  /// rests on over-approximated reads: any read, with \p viaStates).
  bool reportRace(Query &q, const Pair &p, bool viaStates = false);

  // The conflicts that remain when two writes of the same value are
  // tolerated (GPUVerify's benign races: a 1-D kernel launched with
  // y > 1 is no defect).
  static z3::expr harmful(Query &q, std::vector<Pair> &pairs);
};

} // namespace safety
} // namespace kv

#endif
