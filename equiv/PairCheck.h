//===- PairCheck.h - the query per output array ----------------*- C++ -*-===//
//
// Internal to equiv/: what checkEquivalence keeps for one pair of kernels,
// and its query per output array. The query is in PairCheck.cpp, the replay
// of the solver's models on the executor in ModelReplay.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef KV_EQUIV_PAIRCHECK_H
#define KV_EQUIV_PAIRCHECK_H

#include "equiv/Checker.h"
#include "equiv/IRExecutor.h"
#include "smt-encode/Debug.h"
#include "smt-encode/Encoder.h"
#include "smt-encode/Solver.h"

#include "smt-encode/Solver.h"
#include <chrono>
#include <cstdlib>
#include <functional>
#include <string>

namespace kv {

/// One pair of kernels under check: the options, the result being built and
/// the time budget, shared by the queries for its output arrays.
struct PairCheck {
  KernelOp before, after;
  const CheckOptions &opts;
  CheckResult &result;
  std::chrono::steady_clock::time_point deadline;
  bool hasDeadline;
  /// Regroupings of sums proved for this pair, shared by its queries.
  RegroupCache regrouped = {};
  /// Fold alignments proved for this pair, shared by its queries.
  AlignCache alignedCache = {};
  /// The most pairs of folds (kv.fold) one query aligned.
  unsigned alignedFolds = 0;
  /// Pairs of loops with breaks aligned.
  unsigned alignedBreaks = 0, rotatedBreaks = 0, mappedBreaks = 0;
  /// Arrays proved by their atomic totals (Mode::AtomicTotals), and how
  /// many totals were classes of equal summands.
  unsigned atomicArrays = 0, atomicClasses = 0;

  unsigned remainingMs() {
    if (!hasDeadline)
      return 0;
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    deadline - std::chrono::steady_clock::now())
                    .count();
    return left <= 1 ? 1 : (unsigned)left;
  }

  z3::check_result
  checkRefined(Encoder &enc, Portfolio &s,
               const std::function<bool(const z3::model &)> &accept = {}) {
    if (!enc.abstractNonlinear)
      return s.check();
    return s.checkRefined(enc.abstracted, accept);
  }

  /// In a block of fixed shape, \p all (the negated equivalence of a cell
  /// that thread \p w writes) is refuted once per thread id of w, each
  /// instance simplified first: sums built in different orders (a scan's
  /// tree against its steps) become equal terms, where one query over all
  /// ids bit-blasts adders. False if an instance is not refuted (the full
  /// query then decides).
  /// The query is \p all and \p lemmas (index lemmas, which join a
  /// thread's instance only where it is not refuted without them).
  bool proveByThread(Encoder &enc, const z3::expr_vector &all,
                     const z3::expr_vector &lemmas, const Thread &w);

  /// AtomicTotals: an array that both kernels update only atomically, of
  /// one kind: what one block adds to a cell, compared (equal for every
  /// block, the grid's totals are equal).
  /// PerThread: the printf stream (kPrintStream), each cell as the host
  /// thread's own records leave it.
  enum class Mode {
    AllCells,
    AfterWrites,
    BeforeWrites,
    AtomicTotals,
    PerThread
  };
  /// Check one output array; returns false when the verdict is settled
  /// (not-equivalent, unknown, error).
  bool checkArray(unsigned arg, Mode mode);
  /// The values \p vs and \p vt of cell \p k of array \p arg after the
  /// before and the after kernel, as thread \p host sees them (in \p mode,
  /// for the cells one kernel writes).
  void encodeValues(Encoder &enc, KernelModel &ks, KernelModel &kt,
                    unsigned arg, Mode mode, const z3::expr &k, Thread &host,
                    z3::expr &vs, z3::expr &vt);
  /// Adds to \p s a bound \p lim on the launch; 0: at most
  /// maxReplayThreads threads in all, however they are shaped (a launch the
  /// assumptions make large is still replayed).
  void limitLaunch(Encoder &enc, Portfolio &s, uint64_t lim);
  /// The number of threads of the launch in \p m (saturating).
  static uint64_t launchThreads(Encoder &enc, const z3::model &m);
  /// The largest launch a replay runs: the executor's steps limit bounds
  /// its time, this its memory.
  static constexpr uint64_t maxReplayThreads = uint64_t(1) << 22;
  /// The launch a replay runs: small unless no small launch shows the
  /// difference (the assumptions pin a large grid), as a replay of a model
  /// that then fails would cost seconds.
  static constexpr uint64_t smallReplayThreads = uint64_t(1) << 16;
  uint64_t replayThreads = smallReplayThreads;
  /// Sets the not-equivalent verdict with \p early, the counterexample of a
  /// model that replayed, or a smaller one \p replaysEarly finds.
  void
  reportReplayed(Encoder &enc, Portfolio &s, Counterexample &early,
                 const std::function<bool(const z3::model &)> &replaysEarly);
  /// Looks for a model of \p s that replays (\p why: why none did).
  bool findReplaying(Encoder &enc, Portfolio &s, KernelModel &ks,
                     KernelModel &kt, unsigned arg, const z3::expr &k,
                     const z3::expr &vs, const z3::expr &vt, std::string &why,
                     std::string &unrunnable);
  bool replay(Encoder &enc, KernelModel &ks, KernelModel &kt,
              const z3::model &m, unsigned arg, const z3::expr &k,
              Counterexample &cex, std::string &why, bool zeroUnread,
              bool smallInputs = false, unsigned seed = 0);
  /// The model's scalars (ending the line) and sums (KV_DEBUG).
  static void dumpModel(Encoder &enc, const z3::model &m);
  /// No model within maxReplayThreads threads was found (in its budget).
  bool noReplayableLaunch = false;
  /// The launch and scalars of the last replay that hit the work limit.
  std::string tooMuchWork;
  /// Set when the kv models and the LLVM IR computed different values on a
  /// counterexample: a lowering bug, reported instead of an open reason.
  std::string irDisagreement;
};

} // namespace kv

#endif
