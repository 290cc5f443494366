//===- ExecutorInternal.h - the executor's instructions ---------*- C++ -*-===//
//
// Private to smt-encode: the compiled form of a kernel (instructions over
// slots, per barrier interval) and the Executor class, whose members are
// defined in Executor.cpp (launching blocks and threads, memory, results),
// ExecutorCompile.cpp (kv ops to instructions) and ExecutorOps.cpp (what
// each instruction does).
//
//===----------------------------------------------------------------------===//
#ifndef KV_SMTENCODE_EXECUTORINTERNAL_H
#define KV_SMTENCODE_EXECUTORINTERNAL_H

#include "smt-encode/Executor.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/Twine.h"

#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace kv::executor {

enum class Kind : uint8_t {
  SReg,
  NoWrap,
  Read,
  Write,
  Assume,
  Prove,
  Apply,
  AddI,
  SubI,
  MulI,
  DivUI,
  DivSI,
  RemUI,
  RemSI,
  AndI,
  OrI,
  XOrI,
  ShLI,
  ShRUI,
  ShRSI,
  CmpI,
  Select,
  ExtUI,
  ExtSI,
  TruncI,
  MaxSI,
  MinSI,
  MaxUI,
  MinUI,
  /// kv.iter: runs the instructions up to `iterEnd` once per iteration.
  Iter,
  /// kv.sum: adds its term in each iteration of its loop (zeroed on entry).
  Sum,
  Carry,
  Fold,
  /// kv.break: ends its loop after this iteration when its condition holds.
  Break,
  /// kv.last: its value at the loop's last iteration.
  Last,
  /// kv.shuffle: the operand's value in another thread of the warp,
  /// computed by running that thread's interval up to the shuffle.
  Shuffle,
  /// kv.lane: the linear id mod 32.
  Lane,
  /// kv.ballot: the lanes whose predicate holds, by running them.
  Ballot,
};

enum class FloatFn : uint8_t { None, Add, Sub, Mul, Div, Neg, Cmp };

/// LLVM fcmp predicates, as named by CmpInst::getPredicateName.
enum class FPred : uint8_t {
  False,
  OEQ,
  OGT,
  OGE,
  OLT,
  OLE,
  ONE,
  ORD,
  UNO,
  UEQ,
  UGT,
  UGE,
  ULT,
  ULE,
  UNE,
  True,
};

struct Instr {
  Kind kind;
  /// CmpI: the arith::CmpIPredicate; SReg: the kv::SReg; NoWrap: the
  /// kv::NoWrapKind, | 4 when the check is vacuous.
  uint8_t aux = 0;
  /// Apply: how to compute it natively, if at all.
  FloatFn floatFn = FloatFn::None;
  FPred fpred = FPred::False;
  /// Apply: operand width of a natively computed float operation (32/64).
  unsigned floatWidth = 0;
  /// Model width of the result (Write: of the stored value).
  unsigned width = 0;
  unsigned result = 0;
  /// Read/Write: the array's kernel argument number.
  unsigned argNo = 0;
  bool shared = false;
  /// Slots of the scalar operands (Read: index, guard; Write: index, value,
  /// guard).
  llvm::SmallVector<unsigned, 3> ops;
  mlir::Operation *op = nullptr;
  /// Iter: one past the last instruction of the interval that depends on
  /// the iteration number; [this + 1, iterEnd) is the loop's range.
  unsigned iterEnd = 0;
  /// Iter: the (pure) instructions of the range that do not depend on it.
  /// They run with every iteration, and once if there is none: a later
  /// instruction may use their values.
  std::vector<unsigned> independent;
};

struct Interval {
  std::vector<Instr> instrs;
  /// (slot, persistent index): values this interval uses from earlier ones.
  std::vector<std::pair<unsigned, unsigned>> imports;
  /// (slot, persistent index): values later intervals use from this one.
  std::vector<std::pair<unsigned, unsigned>> exports;
  /// A grid barrier (grid.sync()) starts it: every block runs the intervals
  /// before it first.
  bool afterGridBarrier = false;
};

struct PendingWrite {
  unsigned argNo;
  bool shared;
  uint64_t index;
  llvm::APInt value;
  /// The kv.write atomic that made it, combined with the cell at the
  /// barrier (null: a plain write).
  const Instr *atomic = nullptr;
};

class Executor {
public:
  Executor(KernelOp kernel, const LaunchConfig &cfg, const ExecInputs &in,
           ExecResult &res)
      : kernel(kernel), cfg(cfg), in(in), res(res) {}

  bool compile();
  bool run(uint64_t maxThreads);
  /// The printf stream's records into the result (layOutPrinted).
  void finishPrinted();
  /// Instructions left before the run gives up (0: no limit).
  uint64_t stepsLeft = 0;
  uint64_t maxSteps = 0;

private:
  /// Runs intervals [first, last) of the current block.
  bool runPhase(size_t first, size_t last);

  KernelOp kernel;
  const LaunchConfig &cfg;
  const ExecInputs &in;
  ExecResult &res;

  std::vector<Interval> intervals;
  /// Slot contents every thread starts with: scalar arguments, constants.
  std::vector<llvm::APInt> initialSlots;
  unsigned numPersistent = 0;
  /// Model width of the elements of each array argument (0: not an array).
  std::vector<unsigned> elemWidth;
  std::vector<bool> isShared;

  // Execution state.
  std::vector<llvm::APInt> slots;
  /// The kv.iter slots whose loop a kv.break ends after this iteration.
  llvm::DenseSet<unsigned> broke;
  uint64_t bid[3] = {0, 0, 0}, tid[3] = {0, 0, 0};
  /// Per argument number: the cells of a global array read or written so
  /// far in this run, and of a shared array in the current block.
  std::vector<std::unordered_map<uint64_t, llvm::APInt>> global, shared;
  std::vector<PendingWrite> pending;
  /// The printf stream's argument, and its records by (thread, linear in
  /// the launch; record number).
  std::optional<unsigned> printArg;
  std::map<std::pair<uint64_t, uint64_t>, std::vector<uint64_t>> printed;
  /// Values saved across barriers, blockThreads * numPersistent of them
  /// per block that is between grid barriers (one block at a time where
  /// the kernel has none); the current block's start at blockSaved.
  std::vector<llvm::APInt> persistent;
  size_t blockSaved = 0;
  /// The interval the block is running.
  const Interval *curInterval = nullptr;
  /// Running another thread's interval up to a shuffle: no writes.
  bool replaying = false;
  /// (source linear id, shuffle instruction) -> (operand, executes it), for
  /// the current interval of the current block.
  std::map<std::pair<uint64_t, unsigned>, std::pair<llvm::APInt, bool>>
      shuffleMemo;
  /// The thread's linear id in its block.
  uint64_t linearTid() const {
    return tid[0] + cfg.block[0] * (tid[1] + cfg.block[1] * tid[2]);
  }
  bool shuffle(const Instr &i);
  bool ballot(const Instr &i);
  /// Operands \p valueOp and \p guardOp of warp op \p i as the thread of
  /// linear id \p src has them there (its interval run up to \p i).
  bool atLane(const Instr &i, uint64_t src, unsigned valueOp, unsigned guardOp,
              const std::pair<llvm::APInt, bool> *&out);

  bool outOfWork() {
    res.tooMuchWork = true;
    return fail("the run exceeds " + llvm::Twine(maxSteps) +
                " instructions (the replay's work limit)");
  }
  bool fail(const llvm::Twine &msg) {
    res.ok = false;
    res.error = msg.str();
    return false;
  }
  bool compileOp(mlir::Operation &op, unsigned intervalNo,
                 llvm::DenseMap<mlir::Value, unsigned> &slotOf,
                 std::vector<int> &defInterval);
  bool checkWidths(const Instr &i) const;
  void classifyApply(ApplyOp a, Instr &i) const;
  unsigned slotWidth(unsigned s) const { return initialSlots[s].getBitWidth(); }
  bool exec(const Instr &i);
  /// Run instructions [from, to) of \p iv for the current thread.
  bool runRange(const Interval &iv, unsigned from, unsigned to);
  /// Run the range of the kv.iter at \p n of \p iv once per live iteration.
  bool runLoop(const Interval &iv, unsigned n);
  bool compileLoops(Interval &iv, unsigned intervalNo,
                    const std::vector<int> &defInterval,
                    std::vector<llvm::SmallVector<unsigned, 1>> &slotLoops);
  bool arrayIndex(const llvm::APInt &v, uint64_t &index);
  bool load(const Instr &i, uint64_t index, llvm::APInt &out);
  bool apply(const Instr &i);
};

/// "kv.iter at FILE:LINE:COL", for error messages.
std::string describe(mlir::Operation *op);

} // namespace kv::executor

#endif
