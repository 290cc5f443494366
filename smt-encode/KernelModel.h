//===- KernelModel.h - what the encoder knows of a kernel -------*- C++ -*-===//
//
// The encoder's view of a kv kernel (its writes by array and interval, its
// loops), a symbolic thread, the obligations of a read, and the caches a
// kernel pair's queries share. Split from Encoder.h, which includes it.
//
//===----------------------------------------------------------------------===//
#ifndef KV_SMTENCODE_KERNELMODEL_H
#define KV_SMTENCODE_KERNELMODEL_H

#include "kv/KVDialect.h"
#include "llvm/ADT/APInt.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>
#include <z3++.h>

namespace kv {

/// Thrown when encoding runs past Encoder::deadline: deep read chains can
/// take longer to build than the whole budget, before any solver runs. Or
/// (\p tooLarge) when the read chains need more symbolic threads than
/// Encoder::maxThreads: a chain per barrier interval, each read of an
/// interval asking for a writer in every earlier one, grows exponentially
/// with the intervals (a reduction unrolled ten times), in memory as well.
struct EncodeTimeout {
  bool tooLarge = false;
};

struct Thread {
  unsigned id;
  std::vector<z3::expr> tid, bid; // x, y, z
  /// Candidate instances are not used to derive further candidates.
  unsigned depth = 0;
  /// The thread's iteration number in each kv.iter loop, made on first use
  /// (0 <= k < 2^31). A write inside a loop is one write per (thread, k).
  mutable std::map<mlir::Operation *, z3::expr> iters;
  /// Running values of accumulators (kv.carry) fixed for this thread: the
  /// symbolic accumulator of a fold alignment proof.
  mutable std::map<mlir::Operation *, z3::expr> carries;
  /// A shuffle's lane thread: its linear id in the block, by construction
  /// (its ids are that taken apart).
  std::optional<z3::expr> linear;
  /// Values fixed for this thread (a write's index operand at the cell it
  /// hits, Encoder::hitValue), kept by the copies that encode a loop's
  /// body for it.
  std::vector<std::pair<void *, z3::expr>> pinned;
  /// Whose launch the thread is of: 0 the before kernel's (and the after
  /// kernel's where the two share one), 1 the after kernel's own
  /// (--launch-after). A thread's ids mean something only in its launch.
  unsigned launch = 0;
};

/// The unit attribute of a kernel (kv.kernel) that runs in the after
/// kernel's own launch (--launch-after): its launch dimensions are the
/// encoder's afterBdim and afterGdim, its threads those of launch 1.
constexpr llvm::StringLiteral kAfterLaunchAttr = "kv.after_launch";

/// What the encoder knows of one kernel: its writes by array and interval.
struct KernelModel {
  KernelOp op;
  std::string label; // "before" / "after"
  unsigned numIntervals = 1;
  llvm::DenseMap<mlir::Operation *, unsigned> intervalOf;
  /// writes[argNo][interval] in program order.
  std::map<unsigned, std::map<unsigned, std::vector<WriteOp>>> writes;
  std::vector<AssumeOp> assumes;
  std::vector<IterOp> iterOps;
  /// The kv.iter ops each op depends on (sorted).
  llvm::DenseMap<mlir::Operation *, std::vector<mlir::Operation *>> iterDeps;
  const std::vector<mlir::Operation *> &itersOf(mlir::Operation *op) {
    return iterDeps[op];
  }
  /// Writes inside a loop's range that do not depend on it: made once per
  /// iteration, which no model of a write counts.
  llvm::DenseSet<mlir::Operation *> repeatedWrites;
  bool hasApply = false;
  /// Whether the kernel makes atomic updates (kv.write atomic): their
  /// cells' values are followed interval by interval only.
  bool hasAtomics = false;
  /// The launch the kernel runs in (Thread::launch): 1 where the driver
  /// gave the kernel a launch of its own (kAfterLaunchAttr).
  unsigned launch = 0;
  explicit KernelModel(KernelOp k, std::string label);
};

/// Whether loop \p it of \p k may be modelled as `uncounted` where the model
/// does not count it: a signed test other than `!=`, and nothing that
/// counts its iterations (a sum or fold over it, a kv.prove inside it).
bool mayLeaveUncounted(KernelModel &k, IterOp it);
/// Whether \p it's loop has kv.break ops (a loop with breaks).
bool hasBreaks(IterOp it);

/// "If `writer` wrote nothing to array[index] in `interval`, no thread of the
/// reader's block (shared) or of the grid (global) did."
struct Obligation {
  KernelModel *kernel;
  unsigned array;
  unsigned interval;
  z3::expr index;
  const Thread *reader;
  const Thread *writer;
  z3::expr writerHit;
  unsigned depth;
  /// Only this write op of the interval (a block's atomic total, one op at
  /// a time), and "no thread of the reader's block" whatever the array.
  mlir::Operation *onlyWrite = nullptr;
};

/// The value an atomic update of \p kind leaves a cell as it is, at \p w
/// bits.
z3::expr rmwIdentityOf(RmwKind kind, z3::context &ctx, unsigned w);
/// \p a updated by an atomic \p kind with \p b.
z3::expr rmwCombine(RmwKind kind, const z3::expr &a, const z3::expr &b);

/// The value of a numeral (or boolean) \p e of a model, at \p width bits.
llvm::APInt numeralOf(const z3::expr &e, unsigned width);

/// Op triples (single, unrolled, remainder or null) already tried, and
/// whether the regrouping was proved (it holds for every thread, so the
/// queries of one kernel pair can share it).
using RegroupCache = std::map<
    std::tuple<mlir::Operation *, mlir::Operation *, mlir::Operation *>, bool>;

/// Fold alignments proved for a kernel pair (after fold, before fold,
/// scale), and the proofs that align loops with breaks (after loop, before
/// loop, a code of breakProofCode and up): they hold for every thread, so
/// the pair's queries share them.
using AlignCache =
    std::map<std::tuple<mlir::Operation *, mlir::Operation *, unsigned>, bool>;
/// AlignCache's first code of a loop-with-breaks proof (fold scales are
/// smaller).
constexpr unsigned breakProofCode = 1u << 16;

} // namespace kv

#endif // KV_SMTENCODE_KERNELMODEL_H
