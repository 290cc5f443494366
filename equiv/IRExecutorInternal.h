//===- IRExecutorInternal.h - the LLVM IR interpreter's state --*- C++ -*-===//
//
// Internal to equiv/IRExecutor*.cpp: values, memory objects, frames and the
// interpreter class. IRExecutorMemory.cpp holds constants and memory,
// IRExecutorOps.cpp the operations, IRExecutor.cpp control and the launch.
//
//===----------------------------------------------------------------------===//
#ifndef KV_EQUIV_IREXECUTORINTERNAL_H
#define KV_EQUIV_IREXECUTORINTERNAL_H

#include "equiv/IRExecutor.h"
#include "passes/lower/LowerToKV.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/bit.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Operator.h"

#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <unordered_map>

namespace kv {
namespace irexec {

using namespace llvm;

/// A value: an integer or float's bits (zero-extended), a pointer (object
/// and byte offset) or an aggregate (an entry of the thread's pool).
/// Opaque: what the run cannot know (the result of inline assembly without
/// effects): it may be moved, computed with, kept in private memory and
/// passed around; a branch, an address or a shared/global store that needs
/// it ends the run. Approx: a float or double known only within bounds
/// (`bits` indexes the run's ranges; see IRExecutorApprox.cpp).
struct Val {
  uint64_t bits = 0;
  int32_t obj = Scalar;
  /// Fn: a pointer to the function whose address `bits` holds.
  static constexpr int32_t Scalar = -1, Null = -2, Agg = -3, Opaque = -4,
                           Fn = -5, Approx = -6;
  bool isPtr() const { return obj >= 0 || obj == Null; }
};

/// A memory object. Dense: private memory, constant globals and __shared__
/// variables the model has no array for (bytes, plus the pointers stored in
/// them). Sparse: an array of the kv model, cells of its element size,
/// initialized on first touch by the caller's callbacks.
struct Obj {
  bool sparse = false, readOnly = false;
  SmallVector<uint8_t, 16> bytes;
  /// A private variable's bytes not yet written (empty: all are set). Read,
  /// they hold whatever the GPU has there, not the run's zeros.
  std::vector<bool> unset;
  std::map<int64_t, Val> ptrs;
  unsigned arr = 0, elem = 0;
  bool shared = false;
  uint64_t bid[3] = {0, 0, 0};
  struct Cell {
    uint64_t v = 0;
    bool written = false;
    /// Who accessed the cell in barrier interval `epoch` (a thread of the
    /// block, Many or None), and which blocks did in the whole launch:
    /// the run's own race check.
    uint64_t epoch = 0;
    /// The grid barrier interval of blockWriter and blockReader.
    uint64_t gridEpoch = 0;
    int64_t writer = None, reader = None, blockWriter = None,
            blockReader = None;
    /// Where the first of them did, and the thread of the first block:
    /// the sites of a race the run shows.
    const Instruction *writerAt = nullptr, *readerAt = nullptr,
                      *blockWriterAt = nullptr, *blockReaderAt = nullptr;
    int64_t writerTid = 0, readerTid = 0, blockWriterTid = 0,
            blockReaderTid = 0, blockWriterBlk = 0, blockReaderBlk = 0;
    /// The atomic operation of each first access (-1: a plain access).
    int8_t writerRmw = -1, readerRmw = -1, blockWriterRmw = -1,
           blockReaderRmw = -1;
    /// The thread (linear in the launch) that wrote the cell last, for
    /// inputSources (None: the cell holds its input).
    int64_t lastWriter = None;
    /// The run's range the cell's float lies in (-1: `v` is exact).
    int32_t range = -1;
    static constexpr int64_t None = -1, Many = -2;
  };
  /// Cells of a sparse __shared__ array (0: not known).
  uint64_t length = 0;
  /// A dense object every thread of a block (or launch) sees.
  bool common = false;
  std::unordered_map<int64_t, Cell> cells;
};

/// A float (f32) or double known to lie in [lo, hi] (neither NaN): the
/// result of an approximate operation, within the error bound PTX or the
/// CUDA math library documents for it, and what is computed from it.
/// A float's (\p f32) or double's value from its bits, and back.
inline double floatValue(uint64_t bits, bool f32) {
  return f32 ? (double)bit_cast<float>((uint32_t)bits) : bit_cast<double>(bits);
}
inline uint64_t floatBits(double v, bool f32) {
  return f32 ? (uint64_t)bit_cast<uint32_t>((float)v) : bit_cast<uint64_t>(v);
}

/// Whether operand \p i of \p inst is moved rather than computed with: a
/// stored value, a select's arm, a returned, frozen, merged or aggregated
/// value (a call's argument is the caller's to judge).
inline bool movesOperand(const Instruction &inst, unsigned i) {
  return (isa<StoreInst>(inst) && i == 0) || (isa<SelectInst>(inst) && i) ||
         isa<ReturnInst, FreezeInst, PHINode, InsertValueInst,
             ExtractValueInst>(inst);
}

struct Range {
  double lo = 0, hi = 0;
  bool f32 = true;
  /// What computed it, on what (hashed): one operation of one operand's
  /// value is one value on a GPU, so two writes of one key are equal.
  uint64_t key = 0;
};

struct FnInfo {
  DenseMap<const Value *, unsigned> slots;
  unsigned n = 0;
};

struct Frame {
  const Function *fn;
  const FnInfo *info;
  const BasicBlock *bb;
  BasicBlock::const_iterator pc;
  /// Where the frame's values start in the thread's register file.
  size_t base;
  const CallBase *site = nullptr;
};

struct ThreadState {
  uint64_t tid[3] = {0, 0, 0};
  std::vector<Frame> stack;
  std::vector<Val> regs;
  std::vector<std::vector<Val>> aggs;
  bool done = false;
  /// Stopped at a grid barrier (grid.sync()), not a block's.
  bool atGridSync = false;
  /// Stopped at a warp shuffle (shfl.sync), waiting for its warp: the
  /// call, its operand, the source lane and mask, where its result goes.
  struct Shuffle {
    const CallBase *call = nullptr;
    Val value;
    uint64_t srcLane = 0, mask = 0;
    size_t resultReg = 0;
    /// A vote (ballot, any, all, uni, activemask): its intrinsic;
    /// not_intrinsic for a shuffle.
    Intrinsic::ID vote = Intrinsic::not_intrinsic;
  } shuffle;
};

inline uint64_t maskOf(unsigned w) {
  return w >= 64 ? ~0ull : ((1ull << w) - 1);
}

inline int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

/// IR type names as the kv lowering spells them in kv.apply names.
inline std::string typeName(Type *t) {
  if (t->isFloatTy())
    return "float";
  if (t->isDoubleTy())
    return "double";
  if (t->isIntegerTy())
    return "i" + std::to_string(t->getIntegerBitWidth());
  return "?";
}

class IRRunner {
public:
  IRRunner(const Function &kernel, const LaunchConfig &cfg, const IRInputs &in,
           uint64_t maxSteps)
      : kernel(kernel), cfg(cfg), in(in), maxSteps(maxSteps),
        dl(kernel.getParent()->getDataLayout()) {}

  ExecResult run(uint64_t maxThreads);
  /// The defects the run showed, whether it completed or not.
  const std::vector<RunDefect> &runDefects() const { return defects; }
  /// Follow where values come from during run() (inputSources).
  void traceSources() { trace = std::make_unique<SourceTrace>(); }
  /// After a traced run: inputSources' answer.
  std::set<std::pair<unsigned, uint64_t>> sourcesOf(unsigned arg,
                                                    uint64_t idx) const;

private:
  enum class Stop { Go, Barrier, Shuffle, Done, Error };

  bool fail(const Twine &why) {
    if (!failed) {
      failed = true;
      error = why.str();
      if (cur)
        if (const DebugLoc &loc = cur->getDebugLoc())
          error += " (" + loc->getFilename().str() + ":" +
                   std::to_string(loc.getLine()) + ")";
    }
    return false;
  }

  const FnInfo &infoFor(const Function &f);
  Val get(ThreadState &t, const Value *v);
  Val constant(ThreadState &t, const Constant *c);
  Val zeroOf(ThreadState &t, Type *ty);
  Val aggregate(ThreadState &t, std::vector<Val> parts) {
    t.aggs.push_back(std::move(parts));
    return Val{t.aggs.size() - 1, Val::Agg};
  }
  int32_t objectOf(const GlobalVariable &gv);
  int32_t newDense(uint64_t size, bool readOnly = false) {
    objs.emplace_back();
    objs.back().bytes.assign(size, 0);
    objs.back().readOnly = readOnly;
    return (int32_t)objs.size() - 1;
  }
  bool constantBytes(const Constant *c, int32_t obj, uint64_t off);

  Obj::Cell &cell(Obj &o, int64_t e);
  bool readBytes(Val p, uint64_t n, uint8_t *out);
  bool writeBytes(Val p, uint64_t n, const uint8_t *src);
  bool load(ThreadState &t, Type *ty, Val p, Val &out);
  bool store(ThreadState &t, Type *ty, Val p, Val v);
  bool memIntrinsic(ThreadState &t, const MemIntrinsic &mi);

  bool binary(unsigned opc, Type *ty, Val a, Val b, Val &out);
  bool convert(unsigned opc, Type *from, Type *to, Val a, Val &out);
  bool gep(ThreadState &t, const GEPOperator &g, Val &out);
  bool evalOp(ThreadState &t, const Operator &op, Val &out);
  bool apply(StringRef fn, ArrayRef<Val> args, ArrayRef<Type *> types,
             Type *ret, Val &out);

  void enter(ThreadState &t, const Function &f, ArrayRef<Val> args,
             const CallBase *site);
  void jump(ThreadState &t, const BasicBlock *to);
  Stop step(ThreadState &t);
  Stop runThread(ThreadState &t);
  bool call(ThreadState &t, const CallBase &c, bool &barrier, bool &entered);
  /// printf: the record of thread \p t's call \p c joins `printed`.
  bool print(ThreadState &t, const CallBase &c);
  /// What the launch printed, each record kPrintRecordCells wide.
  std::vector<std::vector<uint64_t>> printed;
  /// Records the shuffle \p c of \p t (which then waits for its warp).
  bool parkShuffle(ThreadState &t, const CallBase &c, Intrinsic::ID id);
  bool parkVote(ThreadState &t, const CallBase &c, Intrinsic::ID id);
  /// A warp operation of thread \p lane (linear, at `cur`) the run cannot
  /// complete: a divergence defect \p what, and the run fails with \p why.
  bool warpDefect(uint64_t lane, const char *what, const Twine &why) {
    RunDefect d;
    d.kind = RunDefect::Divergence;
    d.first = siteOf(curBlock, (int64_t)lane, cur, false);
    d.what = what;
    noteDefect(std::move(d));
    return fail(why);
  }
  /// Completes the shuffles the threads of a block wait at, warp by warp.
  bool completeShuffles(std::vector<ThreadState> &ts);

  const Function &kernel;
  const LaunchConfig &cfg;
  const IRInputs &in;
  uint64_t maxSteps, steps = 0;
  const DataLayout &dl;
  uint64_t bid[3] = {0, 0, 0};
  std::deque<Obj> objs;
  std::map<const Function *, FnInfo> infos;
  std::map<const GlobalVariable *, int32_t> globals, sharedGlobals;
  /// Block barriers and whether each starts an inlined grid.sync(); those
  /// met, their blocks, and the barriers that end them.
  DenseMap<const CallBase *, bool> gridSyncAt;
  std::deque<InlinedGridSync> gridSyncs;
  DenseMap<const BasicBlock *, const InlinedGridSync *> gridSyncOf;
  DenseSet<const Instruction *> gridSyncEnds;
  std::vector<int32_t> paramObjs;
  const Instruction *cur = nullptr;
  bool failed = false, assumeViolated = false, tooMuchWork = false;
  /// A private variable was read where it was never written.
  bool readUnset = false;
  /// An Opaque value exists: step() checks each instruction's operands.
  bool opaqueSeen = false;
  Val opaque() {
    opaqueSeen = true;
    return Val{0, Val::Opaque};
  }
  /// Fails where \p inst uses an Opaque value for more than moving it.
  bool usesOpaque(ThreadState &t, const Instruction &inst);
  /// \p t's lane: its linear id in the block, mod 32.
  uint32_t laneOf(const ThreadState &t) const {
    return (t.tid[0] + cfg.block[0] * (t.tid[1] + cfg.block[1] * t.tid[2])) &
           31;
  }
  /// Whether \p n bytes at \p p hold part of an Opaque value.
  bool overlapsOpaque(Val p, uint64_t n);

  /// Approximate results (IRExecutorApprox.cpp). An Approx value exists:
  /// step() checks each instruction's operands.
  std::vector<Range> ranges;
  bool approxSeen = false;
  /// \p r as a value: exact where it is one number. Its key is rangeKey.
  Val rangeVal(Range r);
  uint64_t rangeKey = 0;
  /// The key of \p what computed from \p ops of thread \p t.
  uint64_t keyOf(ThreadState &t, StringRef what, ArrayRef<const Value *> ops);
  /// Thread \p t's \p v as a range (a point for an exact value); none for
  /// a NaN.
  std::optional<Range> rangeOf(ThreadState &t, Val v, Type *ty);
  /// \p c, where it is an approximate operation (a PTX `.approx`
  /// intrinsic or instruction, a libdevice function the module has no
  /// body for): its result's range. \p handled: \p c is one.
  bool approxCall(ThreadState &t, const CallBase &c, Val &out, bool &handled);
  /// \p inst where an operand is an Approx value and \p inst computes
  /// with it (\p handled; \p out its result), rather than moving it.
  bool approxStep(ThreadState &t, const Instruction &inst, Val &out,
                  bool &handled);
  /// A load of \p n bytes at \p p as \p ty where they hold an approximate
  /// result (\p found): the result where it is read whole as its type,
  /// else a value the run does not know (Opaque).
  bool loadRange(Val p, uint64_t n, Type *ty, Val &out, bool &found);
  /// Whether cell \p c (of \p elem bytes) may hold a value of \p r.
  bool cellMayHold(const Obj::Cell &c, unsigned elem, Range r);
  /// Stores the approximate \p v of \p n bytes at \p p.
  bool storeRange(Val p, uint64_t n, Val v);
  std::string error;
  /// The run's race check: the barrier interval (numbered across blocks),
  /// the running thread (linear, in its block) and block, and the first
  /// reason the run is not known to be free of races ("" while it is).
  uint64_t epoch = 1;
  /// The grid barrier interval (grid.sync() orders blocks' accesses).
  uint64_t gridEpoch = 1;
  int64_t curThread = 0, curBlock = 0;
  std::string unchecked;
  /// Some reason is not two threads (or blocks) touching one cell.
  bool uncheckedOtherThanRaces = false;
  /// \p race: the reason is two accesses of one cell, which the static
  /// race check rules out or reports.
  void notClean(const Twine &why, bool race = false) {
    uncheckedOtherThanRaces |= !race;
    if (unchecked.empty()) {
      unchecked = why.str();
      if (cur)
        if (const DebugLoc &loc = cur->getDebugLoc())
          unchecked += " (" + loc->getFilename().str() + ":" +
                       std::to_string(loc.getLine()) + ")";
    }
  }
  /// The running thread, for userSite.
  const ThreadState *curState = nullptr;
  /// The instruction running, or where the innermost call that leads to it
  /// from code outside the system's headers was made (an atomicAdd's
  /// atomicrmw is clang's header's; the line that matters is the call).
  const Instruction *userSite() const;
  /// The atomicrmw operation running (-1: none).
  int curRmw = -1;
  /// Per thread (linear in the launch): the input cells it read, and the
  /// threads whose writes or warp values it read.
  struct SourceTrace {
    std::vector<std::vector<std::pair<unsigned, int64_t>>> inputs;
    std::vector<std::vector<int64_t>> from;
    void readFrom(int64_t me, int64_t other) {
      if (other != me && (from[me].empty() || from[me].back() != other))
        from[me].push_back(other);
    }
  };
  std::unique_ptr<SourceTrace> trace;
  int64_t launchThread() const {
    return curBlock * (int64_t)(cfg.block[0] * cfg.block[1] * cfg.block[2]) +
           curThread;
  }
  /// Records an access of thread curThread to \p c of \p o; \p same: a
  /// write of the value the cell holds.
  void access(Obj &o, int64_t e, Obj::Cell &c, bool write, bool same = false);
  /// The run's defects (ExecResult::defects), one per kind and array.
  std::vector<RunDefect> defects;
  void noteDefect(RunDefect d);
  /// Thread \p tid (linear in its block) of block \p blk (linear), at
  /// \p at.
  RunDefect::Site siteOf(int64_t blk, int64_t tid, const Instruction *at,
                         bool write) const;
};

} // namespace irexec
} // namespace kv

#endif
