//===- Lowerer.h - The lowering's symbolic executor -------------*- C++ -*-===//
//
// Internal to the lowering (not installed): the symbolic state of one
// parameterized thread (values, private memory, path guards) and the class
// Lowerer, whose member functions are defined in the Lower*.cpp files of
// this directory, one stage of the LLVM IR to kv import each.
//
// Symbolic execution of one parameterized thread. Each path through the CFG
// carries a guard; at a branch on a symbolic condition both sides run to the
// branch's immediate post-dominator and their states are merged with selects.
// Branches on conditions that fold to constants are followed, which unrolls
// loops with constant trip counts. Writes to shared/global memory become
// kv.write ops guarded by the path condition; reads become kv.read ops, with
// the thread's own earlier writes in the same barrier interval forwarded.
//
//===----------------------------------------------------------------------===//
#ifndef KV_PASSES_LOWERER_H
#define KV_PASSES_LOWERER_H

#include "kv/Budget.h"
#include "passes/lower/ImportGPU.h"
#include "passes/lower/LowerState.h"
#include "passes/lower/LowerToKV.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/PostDominators.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"

#include <array>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>

namespace kv {
namespace lowering {

using namespace mlir;
using llvm::cast;
using llvm::dyn_cast;
using llvm::isa;

/// The name of a variable: `tile` for the local static
/// `_ZZ15transpose_tiledPiPKiiiE4tile`.
std::string variableName(llvm::StringRef mangled);

/// Which of \p f's parameters have an unsigned C type: from the debug
/// info's subroutine type, else from the mangled name's parameter list
/// (`unsigned int`, `unsigned long`, ...). Unknown ones count as signed.
std::vector<bool> unsignedParameters(const llvm::Function &f);

struct OwnWrite {
  Value array, index, value, guard;
  /// An atomic update: a later read cannot see what it leaves (the other
  /// threads' updates of the cell count too).
  bool atomic = false;
};

struct Failure {};

class Lowerer {
public:
  Lowerer(llvm::Function &f, ModuleOp module, Unsupported &why,
          const LowerOptions &opts)
      : f(f), module(module), why(why), opts(opts), ctx(module.getContext()),
        b(ctx) {}

  FailureOr<KernelOp> run();

private:
  llvm::Function &f;
  ModuleOp module;
  Unsupported &why;
  const LowerOptions &opts;
  MLIRContext *ctx;
  OpBuilder b;
  KernelOp kernel;
  Location loc = UnknownLoc::get(ctx);
  const llvm::Instruction *curInst = nullptr;
  bool failed = false;
  /// Set while the lowering reads private memory for itself (a loop's
  /// carried values at its entry and exits), not where the kernel reads:
  /// no obligation that the location was stored.
  bool internalRead = false;

  llvm::DenseMap<const llvm::Value *, Value> argArrays; // ptr params/globals
  llvm::DenseMap<const llvm::Value *, SymVal> paramVals;
  std::map<SReg, Value> sregs;
  std::vector<OwnWrite> ownWrites; // current barrier interval
  llvm::DenseMap<const llvm::Function *,
                 std::unique_ptr<llvm::PostDominatorTree>>
      pdts;
  llvm::DenseMap<const llvm::BasicBlock *, unsigned> visits;
  /// Instructions lowered so far, against the kernel budget's cap on the
  /// size of a model (0: none): unrolling can grow a model past memory.
  uint64_t lowered = 0, maxLowered = budget::maxModelOps();
  unsigned nextObj = 1;
  /// Each array's key in LowerOptions::elemBytes.
  llvm::DenseMap<Value, std::string> arrayKeys;
  /// The element size of \p array for an access of \p size bytes, fixing
  /// it at the first access; 0 (and a failure) when the access is narrower
  /// or misaligned, with a restart requested.
  uint64_t elemSizeFor(Value array, uint64_t size);
  /// The allocated type of each private object (memset and memcpy split
  /// their bytes into its scalars).
  llvm::DenseMap<unsigned, llvm::Type *> objTypes;
  /// Read-only tables with a known initializer (a switch's lookup table, a
  /// const local array's initializer, a string): private objects holding
  /// their contents, not input arrays.
  llvm::DenseMap<const llvm::GlobalVariable *, unsigned> constTables;
  /// Finds the tables \p f and its callees read and stores their contents
  /// into the entry state \p s.
  void initConstantTables(const llvm::Function &f, State &s);
  unsigned depth = 0, undefs = 0;
  llvm::SmallVector<std::string> argNames;
  llvm::DenseMap<Value, uint64_t> arrayElemSize;

  // --- loops with a symbolic trip count ------------------------------------
  /// A loop entered from outside, at its first iteration: where to roll
  /// back to when its exit test turns out symbolic.
  struct LoopEntry {
    const llvm::Loop *loop;
    unsigned headerVisits;
  };
  std::vector<LoopEntry> loopEntries;
  /// visits[header] when the innermost current execution of each loop was
  /// entered (LowerOptions::exactUnroll counts iterations per entry).
  llvm::DenseMap<const llvm::BasicBlock *, unsigned> entryVisits;
  /// Set (with `failed`) to unwind to the entry of this loop.
  const llvm::Loop *restartLoop = nullptr;
  /// Unwind to \p l's entry and model it, and the loops in it, even where
  /// their exit tests are constants (modelConstant).
  void restartAsModel(const llvm::Loop *l);
  /// Loops being modelled as one symbolic iteration (kv.iter), innermost
  /// last.
  struct SymLoop {
    const llvm::Loop *loop = nullptr;
    const llvm::BasicBlock *exiting = nullptr;
    Value guard; // placeholder for "this iteration runs"
    Value cond;  // the exit test, once seen
    bool stayOnTrue = false;
    Operation *startMark = nullptr; // last op before the iteration
    /// Array -> indices read / written in the iteration.
    llvm::DenseMap<Value, llvm::SmallVector<Value, 2>> read, written;
    // A barrier loop: the barrier intervals of one iteration are its
    // phases. A shared array written in one phase and read in later ones
    // (a tile) is staged: each read is served by the writer the lowering
    // solves for, in the same iteration (kv.prove makes the checker show
    // that one exists), so no read sees the array through memory.
    unsigned phase = 0;
    /// Writes earlier in the barrier interval the loop starts in.
    bool preDirty = false;
    bool globalWrite = false;
    struct SharedWrite {
      Value index, value, guard;
      WriteOp op;
      unsigned phase;
    };
    llvm::MapVector<Value, llvm::SmallVector<SharedWrite, 1>> sharedWrites;
    /// Staged array -> the phase that writes it.
    llvm::MapVector<Value, unsigned> staged;
    /// Staged reads: array, phase.
    llvm::SmallVector<std::pair<Value, unsigned>, 4> stagedReads;
    /// Staged reads to resolve: (index, guard) -> value, and the array.
    llvm::SmallVector<std::pair<UnrealizedConversionCastOp, Value>, 4> pending;
    /// A loop with breaks (modelBreakLoop): every exit edge is recorded,
    /// with the condition under which the iteration takes it and the state
    /// on it; the iteration goes on under the negation. `top` is the guard
    /// of the iteration's straight-line part, where an exit may be.
    bool breaks = false;
    Value top;
    /// Every value `top` took: a store under one of them happens in any
    /// iteration that goes on to the next.
    llvm::SmallVector<Value, 4> tops;
    struct Exit {
      const llvm::BasicBlock *from, *to;
      Value cond;
      State state;
      /// From the loop's header; before any write or private store of the
      /// iteration (what -O2's loop rotation may move to the latch).
      bool header, first;
    };
    size_t storeBase = 0;
    std::vector<Exit> exits;
  };
  std::vector<SymLoop> symLoops;
  /// Loops that fell back to unrolling (their model failed).
  llvm::DenseSet<const llvm::Loop *> noModel;
  /// Loops modelled even when their exit test is a constant: those of a
  /// nest that ran out of unrolling (maxBlockVisits).
  llvm::DenseSet<const llvm::Loop *> modelConstant;
  /// With LowerOptions::modelConstantLoops: loops that option put into
  /// modelConstant, and those whose model failed once (unrolled from then
  /// on, so that a nest is not re-modelled on every outer iteration).
  llvm::DenseSet<const llvm::Loop *> modelledByOption, optionModelFailed;
  /// Lowering a host function's kernel (ImportGPU.h, kHostLaunchesAttr).
  bool hostKernel = f.hasFnAttribute(kHostLaunchesAttr);
  /// Arrays a symbolic loop wrote in the current barrier interval: the
  /// model cannot forward those writes to later reads.
  llvm::DenseSet<Value> loopWritten;
  /// Inlined grid.sync()s met so far, the blocks of each, and the block
  /// barriers that end them (part of the grid barrier, not another).
  std::deque<InlinedGridSync> gridSyncs;
  llvm::DenseMap<const llvm::BasicBlock *, const InlinedGridSync *> gridSyncOf;
  llvm::DenseSet<const llvm::Instruction *> gridSyncEnds;
  /// Shared arrays a barrier loop staged: their contents after the loop
  /// are not modelled.
  llvm::DenseSet<Value> stagedDone;
  /// decompose()'s atoms at 64 bits, for one writerOf() call.
  llvm::DenseMap<std::pair<Value, char>, Value> wideAtoms;

  // --- the model of one loop (modelLoop) -----------------------------------
  /// A value carried around the loop: a header phi or a private variable.
  struct Carried {
    const llvm::PHINode *phi = nullptr; // else a private variable
    unsigned obj = 0;
    int64_t off = 0;
    uint64_t size = 0;
    Value init, holder, next;
    Value step64; // an induction variable's step, 64 bits
  };
  /// An accumulator: a sum (`s += term`) with its term and the ops that
  /// add it, or else a fold (any other update, `h = h * 31 + c`), whose
  /// running value is a kv.carry.
  struct Acc {
    Carried *c;
    Value term;
    llvm::SmallVector<Operation *, 2> chain;
    unsigned addends = 0;
    bool fold = false;
    Value carry;
  };
  /// What modelLoop learns about one loop, step by step.
  struct LoopModel {
    const llvm::Loop *l = nullptr;
    const llvm::BasicBlock *header = nullptr, *latch = nullptr,
                           *exiting = nullptr, *exit = nullptr;
    /// The state before the loop, and its guard.
    State pre;
    Value entryGuard;
    /// Placeholders for the values carried around the loop (header phis
    /// and private variables), and for "this iteration runs" (guard).
    llvm::DenseSet<Operation *> holders;
    std::vector<Carried> carried;
    Value guard;
    /// Where the model's values are computed: before the first holder.
    Operation *anchor = nullptr;
    /// The private stores before the iteration's own.
    size_t storeBase = 0;
    /// The symbolic iteration, as run.
    SymLoop m;
    /// The accumulators' holders, and the accumulators.
    llvm::DenseSet<Operation *> accHolders;
    std::vector<Acc> accs;
    /// The exit test: stay while (iv + offset) pred rhs.
    arith::CmpIPredicate pred = arith::CmpIPredicate::eq;
    Value lhs, rhs;
    bool fromNe = false, down = false, isSigned = false, doWhile = false;
    const Carried *iv = nullptr;
    Value offset, step;
    unsigned w = 0;
    /// The model: kv.iter's operands and its iteration k, k * step per
    /// step, the sums' totals, and values known after an exact exit.
    Value step64, init64, iterLb, iterStep, iterBound, k;
    llvm::DenseMap<Value, Value> mulByStep;
    std::vector<Value> totals;
    std::vector<std::pair<const llvm::Value *, Value>> finals;
    /// The iterations a thread runs (exactExitValues), for the values of
    /// induction variables after the loop.
    Value trips;
    /// A loop with breaks (modelBreakLoop).
    bool breaks = false;
  };

  // --- failure reporting -------------------------------------------------
  void fail(const llvm::Twine &what) {
    if (failed)
      return;
    failed = true;
    why.construct = what.str();
    if (!curInst) {
      // Before the body (a parameter): the kernel's definition line.
      why.location = sourceName(f.getName());
      if (const llvm::DISubprogram *sp = f.getSubprogram())
        why.location = sp->getFilename().str() + ":" +
                       std::to_string(sp->getLine()) + ": kernel " +
                       why.location;
      return;
    }
    // Name the line of the kernel itself (the outermost call site, through
    // calls and inlined frames), and the callee's own line after it.
    const llvm::Instruction *outer =
        callStack.empty() ? curInst : callStack.front();
    why.location = describeLocation(outer, /*outermost=*/true);
    std::string inner = describeLocation(curInst, false);
    if (inner != why.location)
      why.construct += " (in " + sourceName(curInst->getFunction()->getName()) +
                       " at " + inner + ")";
  }
  llvm::SmallVector<const llvm::CallBase *> callStack;

  // --- expression helpers ------------------------------------------------
  Value cst(Type t, int64_t v) {
    return arith::ConstantOp::create(b, loc, t, IntegerAttr::get(t, v));
  }
  Value i1(bool v) { return cst(b.getI1Type(), v); }
  static bool constBool(Value v, bool &out) {
    llvm::APInt ap;
    if (!matchPattern(v, m_ConstantInt(&ap)))
      return false;
    out = !ap.isZero();
    return true;
  }
  bool isTrue(Value v) {
    bool c;
    return constBool(v, c) && c;
  }
  bool isFalse(Value v) {
    bool c;
    return constBool(v, c) && !c;
  }
  Value andI1(Value a, Value c) {
    if (isTrue(a))
      return c;
    if (isTrue(c))
      return a;
    if (isFalse(a) || isFalse(c))
      return i1(false);
    return b.createOrFold<arith::AndIOp>(loc, a, c);
  }
  /// Whether \p c is \p g or one of its conjuncts (so g implies c).
  bool conjunctOf(Value c, Value g, unsigned budget = 256) {
    llvm::SmallVector<Value> work{g};
    while (!work.empty() && budget--) {
      Value x = work.pop_back_val();
      if (x == c)
        return true;
      if (auto a = x.getDefiningOp<arith::AndIOp>())
        work.append({a.getLhs(), a.getRhs()});
    }
    return false;
  }
  /// An undefined value of type \p ty (undef, poison, a private location
  /// no store initialized): in the before kernel 0, one choice a refinement
  /// may make; in the after kernel the GPU's, per thread, which no proof
  /// may fix (opaque in a loop kept symbolic, which would reuse it).
  SymVal undefinedValue(llvm::Type *ty);
  /// Whether a private read that no store on every path covers (not
  /// \p complete) gets the GPU's value rather than a store's.
  bool uninitializedIsGPUs(bool complete) const {
    return !complete && !internalRead && opts.target && symLoops.empty();
  }
  Value notI1(Value a) {
    return b.createOrFold<arith::XOrIOp>(loc, a, i1(true));
  }
  Value select(Value c, Value t, Value e) {
    if (t == e)
      return t;
    return b.createOrFold<arith::SelectOp>(loc, c, t, e);
  }
  Value eq(Value a, Value c) {
    return b.createOrFold<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, a, c);
  }
  Value toI64(Value v, bool isSigned = true) {
    unsigned w = v.getType().getIntOrFloatBitWidth();
    if (w == 64)
      return v;
    if (w > 64) {
      fail("integer wider than 64 bits");
      return cst(b.getI64Type(), 0);
    }
    if (isSigned && w > 1)
      return b.createOrFold<arith::ExtSIOp>(loc, b.getI64Type(), v);
    return b.createOrFold<arith::ExtUIOp>(loc, b.getI64Type(), v);
  }
  Value materialize(const Linear &l) {
    Type i64 = b.getI64Type();
    Value acc = cst(i64, l.constant);
    for (auto &[v, c] : l.terms) {
      Value t = c == 1 ? v : b.createOrFold<arith::MulIOp>(loc, v, cst(i64, c));
      acc = b.createOrFold<arith::AddIOp>(loc, acc, t);
    }
    return acc;
  }
  static Linear linearOf(Value v) {
    Linear l;
    llvm::APInt ap;
    if (matchPattern(v, m_ConstantInt(&ap)))
      l.constant = ap.getSExtValue();
    else
      l.terms.push_back({v, 1});
    return l;
  }

  Type typeFor(llvm::Type *t) {
    if (t->isIntegerTy())
      return b.getIntegerType(t->getIntegerBitWidth());
    if (t->isFloatingPointTy())
      return b.getIntegerType(t->getPrimitiveSizeInBits());
    fail("value of type " + typeName(t));
    return b.getI32Type();
  }
  static std::string typeName(llvm::Type *t) {
    std::string s;
    llvm::raw_string_ostream os(s);
    t->print(os);
    return s;
  }

  /// The source name of launch dimension \p sreg (bdim.x -> "blockDim.x"),
  /// or "" for thread and block ids.
  static std::string dimName(SReg sreg) {
    std::string axis(1, char('x' + sregAxis(sreg)));
    switch (sregGroup(sreg)) {
    case SRegGroup::BDim:
      return "blockDim." + axis;
    case SRegGroup::GDim:
      return "gridDim." + axis;
    default:
      return "";
    }
  }

  Value sreg(SReg name) {
    auto it = sregs.find(name);
    if (it != sregs.end())
      return it->second;
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&kernel.getBlock());
    Value v;
    auto pin = opts.pins.find(dimName(name));
    if (pin != opts.pins.end())
      v = arith::ConstantOp::create(b, UnknownLoc::get(ctx), b.getI32Type(),
                                    b.getI32IntegerAttr(pin->second));
    else
      v = SRegOp::create(b, UnknownLoc::get(ctx), b.getI32Type(), name);
    sregs[name] = v;
    return v;
  }
  Value sreg(SRegGroup group, unsigned axis) {
    return sreg(makeSReg(group, axis));
  }

  /// The names a case split on \p c would fix: launch dimensions and scalar
  /// parameters. False if \p c also depends on anything else (thread ids,
  /// memory, uninterpreted operations), where splitting cannot help.
  bool splitNames(Value c, std::set<std::string> &names) {
    llvm::SmallPtrSet<Value, 16> seen;
    llvm::SmallVector<Value> work{c};
    while (!work.empty()) {
      Value v = work.pop_back_val();
      if (!seen.insert(v).second)
        continue;
      if (auto a = dyn_cast<BlockArgument>(v)) {
        if (a.getOwner() != &kernel.getBlock() || !a.getType().isIntOrIndex() ||
            a.getArgNumber() >= argNames.size())
          return false;
        names.insert(argNames[a.getArgNumber()]);
        continue;
      }
      Operation *op = v.getDefiningOp();
      if (auto r = dyn_cast<SRegOp>(op)) {
        std::string n = dimName(r.getName());
        if (n.empty())
          return false;
        names.insert(n);
        continue;
      }
      if (isa<ReadOp, ApplyOp>(op) || op->getNumRegions())
        return false;
      for (Value o : op->getOperands())
        work.push_back(o);
    }
    return !names.empty();
  }

  // --- values --------------------------------------------------------------
  SymVal scalar(Value v) {
    SymVal s;
    s.kind = SymVal::Scalar;
    s.scalar = v;
    return s;
  }
  SymVal eval(const llvm::Value *v, State &s);
  Value evalScalar(const llvm::Value *v, State &s);
  /// Fails where a LoopResult or Opaque value is \p how ("used", "stored").
  bool failUnknown(const SymVal &v, llvm::StringRef how);
  SymVal evalConstant(const llvm::Constant *c, State &s);
  Value arrayFor(const llvm::Value *base);
  /// A new global array argument \p name of element type \p elem (a
  /// placeholder until the first access where null), before the shared
  /// arrays.
  Value newGlobalArray(const std::string &name, Type elem = {});
  /// The __shared__ variables \p f and the functions it calls use.
  static std::vector<const llvm::GlobalVariable *>
  sharedVariablesOf(const llvm::Function &f);

  // --- execution -------------------------------------------------------
  void runBlocks(const llvm::BasicBlock *bb, State &s,
                 const llvm::BasicBlock *stopAt,
                 const llvm::BasicBlock *from = nullptr, bool entered = false);
  /// \p header of loop \p l is entered from outside: run the loop (and the
  /// rest up to \p stopAt), as a kv.iter model if its exit test is
  /// symbolic, else unrolled.
  void enterLoop(const llvm::Loop *l, const llvm::BasicBlock *header, State &s,
                 const llvm::BasicBlock *stopAt, const llvm::BasicBlock *from);
  /// One symbolic iteration of \p l from state \p s; on success \p s is
  /// the state after the loop on its exit edge to \p exit.
  bool modelLoop(const llvm::Loop *l, State &s, const llvm::BasicBlock *&exit);
  /// The model of a loop with several exits, or whose exit tests read
  /// values carried around it (`while (x < n) x = next[x]`, a search with
  /// `break`): kv.iter counting from 0, a kv.break per exit, folds for the
  /// carried values that are not induction variables, and kv.last for what
  /// leaves it. On success \p s is the state on entering \p cont, the block
  /// every exit leads to.
  bool modelBreakLoop(const llvm::Loop *l, State &s,
                      const llvm::BasicBlock *&cont,
                      const llvm::BasicBlock *&contFrom);

  // The steps of modelLoop, in order. Those that return a bool return false
  // when the loop has no model (with the reason given to fail()).
  /// A placeholder value of type \p t, recorded in \p lm's holders.
  Value placeholder(LoopModel &lm, Type t);
  /// Fail (unless failed already) at the loop's exit test; false.
  bool giveUp(const LoopModel &lm, const llvm::Twine &what);
  /// Placeholders for the header phis and private variables in \p s.
  bool carryValues(LoopModel &lm, State &s);
  /// Run the body once from the header, under a placeholder guard.
  void runIteration(LoopModel &lm, State &s);
  /// Whether the iteration can be a model: it returns to the header, has
  /// its exit test, and iterations do not see each other's writes.
  bool checkIteration(LoopModel &lm, State &s);
  /// What each carried value became after the iteration.
  bool nextValues(LoopModel &lm, State &s);
  /// Replace the holders of the values the loop does not change.
  void dropUnchanged(LoopModel &lm);
  /// The step of induction variable \p c, or null.
  Value stepOf(const LoopModel &lm, const Carried &c);
  /// The accumulators among the carried values (LowerSums.cpp).
  bool findSums(LoopModel &lm);
  Value accTerm(LoopModel &lm, Carried &c,
                llvm::SmallVectorImpl<Operation *> &chain, unsigned &addends);
  /// Remove the running sums' updates from the body.
  bool dropRunningSums(LoopModel &lm);
  /// The exit test as (lhs pred rhs), lhs depending on the holders.
  bool readExitTest(LoopModel &lm);
  /// The induction variable that the exit test tests, and its step.
  bool findInductionVariable(LoopModel &lm);
  /// kv.iter, before the loop body.
  void emitIterOp(LoopModel &lm);
  /// k * \p s64, once per step.
  Value kTimes(LoopModel &lm, Value s64);
  /// The guard and the induction variables at iteration k for the holders.
  void replacePlaceholders(LoopModel &lm);
  /// kv.sum for each accumulator, and the totals (LowerSums.cpp).
  void emitSums(LoopModel &lm);
  /// The induction variables' values after the loop, from its trip count.
  void exactExitValues(LoopModel &lm);
  Value tripCount(LoopModel &lm);
  /// Whether code of \p bb runs once more than the loop's iterations: \p bb
  /// is a header that tests the exit, apart from the latch.
  bool updatesBeforeHeaderTest(const LoopModel &lm, const llvm::BasicBlock *bb);
  /// c's value after n updates from init64, as a value of type t.
  Value valueAfter(const Carried &c, Value init64, Value n, Type t);
  /// \p s after the loop: the state before it, with the loop's results.
  void stateAfterLoop(LoopModel &lm, State &s);
  // The steps of modelLoop for barrier loops (LowerBarrierLoops.cpp).
  /// The phases of a barrier loop's iteration keep staged arrays apart.
  bool checkBarrierPhases(LoopModel &lm);
  /// Resolve the staged reads of the iteration (forwardStaged).
  bool resolveStagedReads(LoopModel &lm);
  /// A barrier loop's trip count is the same for the whole block.
  bool checkUniformTripCount(LoopModel &lm);
  /// Move the staged writes to the expanded arrays.
  void expandStagedWrites(LoopModel &lm);
  /// A __syncthreads() inside the loop being modelled: the next phase.
  void stageBarrier(State &s);
  /// Cooperative groups' grid.sync(), called or inlined: a grid barrier.
  void gridBarrier(State &s);
  /// The value a staged read of \p array at \p index sees in loop \p l.
  Value forwardStaged(SymLoop &l, Value array, Value index, Value guard,
                      Type ty);
  /// The thread of the reader's block whose write at \p wIdx (an index
  /// computed by the executing thread) hits \p rIdx: 64-bit thread ids, or
  /// nothing when \p wIdx is not linear in the thread ids.
  std::optional<std::array<Value, 3>> writerOf(Value wIdx, Value rIdx);
  /// \p v computed by another thread: its slice with tid.* replaced.
  Value instantiate(Value v, llvm::DenseMap<Value, Value> &map);
  /// Whether an op in the backward slice of \p v satisfies \p pred.
  bool sliceHas(Value v, llvm::function_ref<bool(Operation *)> pred);
  bool dependsOnTid(Value v);
  bool dependsOnRead(Value v);
  /// The expanded copy of staged shared array \p a: one slice of 2^32
  /// cells per iteration.
  Value stagedArray(Value a);
  /// The cells of shared array \p a (0: extern, or not known yet).
  int64_t sharedCells(Value a);
  /// \p a's argument number (-1: not an argument), as an attribute.
  IntegerAttr arrayArg(Value a);
  /// \p v as constant + sum of coefficient * 64-bit atom, through adds,
  /// subtractions, multiplications and shifts by constants, extensions and
  /// truncations (a guide only: what it yields is checked by kv.prove).
  Linear decompose(Value v, char sign = 's', int depth = 0);
  /// The thread-id axis that \p v is (through extensions), or -1.
  static int tidAxis(Value v);
  /// Move the ops that compute \p v (and are after \p before) before it.
  void hoist(Value v, Operation *before);
  bool dependsOnAny(Value v, const llvm::DenseSet<Operation *> &ops);
  /// The same pure expression (same ops over the same leaves).
  static bool sameExpr(Value a, Value b, unsigned depth = 0) {
    if (a == b)
      return true;
    Operation *x = a.getDefiningOp(), *y = b.getDefiningOp();
    if (!x || !y || depth > 32 || x->getName() != y->getName() ||
        x->getAttrDictionary() != y->getAttrDictionary() ||
        x->getNumOperands() != y->getNumOperands() ||
        a.getType() != b.getType() || !isPure(x) ||
        cast<OpResult>(a).getResultNumber() !=
            cast<OpResult>(b).getResultNumber())
      return false;
    for (unsigned i = 0; i < x->getNumOperands(); ++i)
      if (!sameExpr(x->getOperand(i), y->getOperand(i), depth + 1))
        return false;
    return true;
  }
  void takeEdge(const llvm::BasicBlock *from, const llvm::BasicBlock *to,
                State &s);
  State merge(State &t, State &e, Value c, Value guard, size_t forkStores);
  SymVal mergeVal(const SymVal &t, const SymVal &e, Value c);
  void exec(const llvm::Instruction &inst, State &s);
  /// Where \p inst is in the kernel's own file: the innermost call site
  /// there when it comes from a header (atomicAdd in the CUDA headers).
  const llvm::DILocation *userLocation(const llvm::Instruction &inst);
  // exec's cases for arithmetic (LowerValues.cpp) and memory accesses
  // (LowerMemory.cpp).
  void execBinary(const llvm::BinaryOperator *bo, State &s);
  void execICmp(const llvm::ICmpInst *cmp, State &s);
  void execCast(const llvm::CastInst *cast, State &s);
  void execGEP(const llvm::GetElementPtrInst *gep, State &s);
  void execLoad(const llvm::LoadInst *ld, State &s);
  void execStore(const llvm::StoreInst *st, State &s);
  /// atomicrmw whose old value is unused, of a kind that commutes with
  /// itself: a kv.write atomic.
  void execAtomicRMW(const llvm::AtomicRMWInst *rmw, State &s);
  /// The old value of \p rmw: a placeholder checkAtomicOlds fails on use.
  void oldValuePlaceholder(const llvm::AtomicRMWInst *rmw, State &s);
  // Warps (LowerWarp.cpp).
  enum class ShuffleMode { Up, Down, Xor, Index };
  /// The thread's lane: its linear id in the block mod 32.
  Value laneId();
  /// llvm.nvvm.shfl.sync.MODE.{i32,f32}: a kv.shuffle.
  void execShuffle(const llvm::CallBase &call, ShuffleMode mode, State &s);
  /// llvm.nvvm.vote.{ballot,any,all,uni}.sync and activemask: kv.ballot.
  void execVote(const llvm::CallBase &call, llvm::Intrinsic::ID id, State &s);
  void execRedux(const llvm::CallBase &call, llvm::Intrinsic::ID id, State &s);
  Value laneRegister(LaneRegister r);
  Value exactPtx(llvm::StringRef op, Value a);
  /// The placeholders for atomics' old values, with their instructions.
  struct AtomicOld {
    const llvm::AtomicRMWInst *inst;
    llvm::SmallVector<const llvm::CallBase *> callStack;
  };
  std::vector<AtomicOld> atomicOlds;
  /// Fails if an old value in \p body reaches an op with an effect.
  void checkAtomicOlds(Block &body);
  /// memset and memcpy/memmove of a constant length: one store (and load)
  /// per scalar the bytes cover.
  void execMemIntrinsic(const llvm::MemIntrinsic &mi, State &s);
  Value bitIntrinsic(llvm::Intrinsic::ID id, llvm::ArrayRef<Value> ops);
  /// libdevice's integer functions (__nv_max, __nv_popc, __nv_mulhi, ...)
  /// by their definition; null for the others.
  Value libdeviceInteger(llvm::StringRef name, llvm::ArrayRef<Value> ops);
  /// A path ended at a trap or failed assert since the innermost call began.
  bool trapped = false;
  SymVal loadFrom(const SymVal &p, llvm::Type *ty, State &s);
  /// The scalars of aggregate type \p t with their byte offsets.
  llvm::SmallVector<std::pair<uint64_t, llvm::Type *>>
  aggregateLeaves(llvm::Type *t);
  SymVal constantAggregate(const llvm::Constant *c, State &s);
  void execAggregateOp(const llvm::Instruction &inst, State &s);
  void storeTo(const SymVal &p, const SymVal &v, llvm::Type *ty, State &s);
  void execCall(const llvm::CallBase &call, State &s);
  // printf (LowerPrintf.cpp).
  /// Whether \p fn or a function it calls prints.
  static bool callsPrintf(const llvm::Function &fn,
                          llvm::SmallPtrSetImpl<const llvm::Function *> &seen);
  /// A printf call: its record, at the thread's next record of the printf
  /// stream.
  void execPrintf(const llvm::CallBase &call, State &s);
  /// The text of a constant C string \p p points to (a table's).
  std::optional<llvm::StringRef> constantString(const SymVal &p);
  /// The printf stream (kPrintStream), once made; and the private counter
  /// of the records the thread has made (0 at entry where it prints).
  Value printArray;
  SymVal printCounter;
  /// The kNullParams array, once a pointer parameter is compared with null.
  Value nullArray;
  /// With --unroll=N, the exit successor of a loop-exiting branch once the
  /// loop's header has been entered more than N times; else null.
  /// With reportSplit: stop at a loop exit whose symbolic condition \p c
  /// depends only on launch dimensions and scalars, naming them.
  bool splitLoopExit(const llvm::BasicBlock *bb, const llvm::BasicBlock *succ0,
                     const llvm::BasicBlock *succ1, Value c);
  const llvm::BasicBlock *boundedExit(const llvm::BasicBlock *bb,
                                      const llvm::BasicBlock *succ0,
                                      const llvm::BasicBlock *succ1);
  /// A call through a pointer to one of a few known functions (FnPtr).
  void execIndirectCall(const llvm::CallBase &call, State &s);
  SymVal callFunction(const llvm::Function &callee, const llvm::CallBase &call,
                      State &s);
  Value loadArray(Value array, const Linear &off, llvm::Type *ty, Value guard);
  void storeArray(Value array, const Linear &off, Value val, llvm::Type *ty,
                  State &s);
  Value elementIndex(Value array, const Linear &off, llvm::Type *ty);
  SymVal loadPrivate(const SymVal &p, llvm::Type *ty, State &s);
  SymVal loadPrivateBytes(const SymVal &p, llvm::Type *ty, State &s);
  bool storeOnPath(Value guard, const State &s);
  /// An IEEE operation as one kv.apply in the form -O2 gives it: constants
  /// folded, `x - c` as `x + -c`, `-0.0 - x` as `-x`, ... (LowerFloats.cpp).
  Value floatOp(llvm::StringRef fn, llvm::ArrayRef<Value> ops, Type result);
  /// Whether libdevice's \p fn has a straight-line body to follow.
  bool followLibdevice(const llvm::Function &fn);
  /// An inline PTX instruction that is a function of its scalar operands.
  bool pureInlineAsm(const llvm::CallBase &call);
  llvm::DenseMap<const llvm::Function *, bool> libdeviceFollowed;
  llvm::PostDominatorTree &pdt(const llvm::Function &fn) {
    auto &p = pdts[&fn];
    if (!p)
      p = std::make_unique<llvm::PostDominatorTree>(
          const_cast<llvm::Function &>(fn));
    return *p;
  }
  struct Loops {
    llvm::DominatorTree dt;
    llvm::LoopInfo li;
    explicit Loops(llvm::Function &fn) : dt(fn), li(dt) {}
  };
  llvm::DenseMap<const llvm::Function *, std::unique_ptr<Loops>> loopInfos;
  llvm::LoopInfo &loops(const llvm::Function &fn) {
    auto &l = loopInfos[&fn];
    if (!l)
      l = std::make_unique<Loops>(const_cast<llvm::Function &>(fn));
    return l->li;
  }
};

} // namespace lowering
} // namespace kv

#endif
