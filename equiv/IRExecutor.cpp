//===- IRExecutor.cpp - concrete execution of a kernel's LLVM IR ----------===//
//
// An interpreter for the LLVM IR of nvptx kernels, as clang emits them
// before and after optimization: integers up to 64 bits, float and double,
// pointers into objects, structs and arrays as values, calls, the PTX
// special registers, barriers and the intrinsics the kv lowering accepts.
// Floating-point results are computed as the kv executor computes them
// (executor::floatArith, floatCompare, nativeApply: canonical NaN), since
// the point is to check the lowering, not the host's float unit.
//
//===----------------------------------------------------------------------===//
#include "equiv/IRExecutorInternal.h"
#include "equiv/Intrinsics.h"
#include "kv/Budget.h"
#include "passes/lower/LowerToKV.h"

#include "llvm/ADT/ScopeExit.h"

#include "llvm/IR/GetElementPtrTypeIterator.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/IntrinsicsNVPTX.h"

namespace kv {
namespace irexec {

//===----------------------------------------------------------------------===//
// Control
//===----------------------------------------------------------------------===//

void IRRunner::enter(ThreadState &t, const Function &f, ArrayRef<Val> args,
                     const CallBase *site) {
  const FnInfo &info = infoFor(f);
  size_t base = t.regs.size();
  t.regs.resize(base + info.n);
  for (unsigned i = 0; i < args.size(); ++i)
    t.regs[base + info.slots.lookup(f.getArg(i))] = args[i];
  t.stack.push_back(Frame{&f, &info, &f.getEntryBlock(),
                          f.getEntryBlock().begin(), base, site});
}

void IRRunner::jump(ThreadState &t, const BasicBlock *to) {
  Frame &f = t.stack.back();
  const BasicBlock *from = f.bb;
  // All phis read their incoming values before any is set.
  SmallVector<std::pair<unsigned, Val>, 8> phis;
  for (const PHINode &phi : to->phis())
    phis.push_back({f.info->slots.lookup(&phi),
                    get(t, phi.getIncomingValueForBlock(from))});
  for (auto &[slot, v] : phis)
    t.regs[f.base + slot] = v;
  f.bb = to;
  f.pc = to->getFirstNonPHIIt();
}

IRRunner::Stop IRRunner::step(ThreadState &t) {
  Frame &f = t.stack.back();
  const Instruction &inst = *f.pc;
  cur = &inst;
  if (maxSteps && ++steps > maxSteps) {
    tooMuchWork = true;
    fail("the run exceeds the replay's work limit");
    return Stop::Error;
  }
  // The kernel's budget, every thousand instructions (see kv/Budget.h).
  static thread_local unsigned tick = 0;
  if (!(++tick & 1023) && budget::exceeded()) {
    fail(budget::shortReason());
    return Stop::Error;
  }
  auto set = [&](Val v) { t.regs[f.base + f.info->slots.lookup(&inst)] = v; };
  auto next = [&] {
    ++f.pc;
    return failed ? Stop::Error : Stop::Go;
  };
  if (inst.getType()->isVectorTy()) {
    fail("vector operation");
    return Stop::Error;
  }
  // Inlined grid.sync(): its check of the workspace, which a cooperative
  // launch has (the workspace's address is unknown here), passes, and a
  // branch on the arrival's result leaves the wait.
  if (const auto *br = dyn_cast<BranchInst>(&inst);
      br && opaqueSeen && br->isConditional() &&
      get(t, br->getCondition()).obj == Val::Opaque) {
    const BasicBlock *to = nullptr;
    if (const InlinedGridSync *g = gridSyncOf.lookup(br->getParent()))
      to = g->exitTo(*br);
    else
      to = gridWorkspaceCheck(*br);
    if (to) {
      jump(t, to);
      return failed ? Stop::Error : Stop::Go;
    }
  }
  if (opaqueSeen && usesOpaque(t, inst)) {
    if (failed)
      return Stop::Error;
    set(Val{0, Val::Opaque}); // computed from an Opaque value
    return next();
  }
  if (approxSeen) {
    // Computed from an approximate result: its range.
    bool handled = false;
    Val v;
    if (!approxStep(t, inst, v, handled))
      return Stop::Error;
    if (handled) {
      set(v);
      return next();
    }
  }
  switch (inst.getOpcode()) {
  case Instruction::Br: {
    auto &br = cast<BranchInst>(inst);
    const BasicBlock *to = br.getSuccessor(0);
    if (br.isConditional() && !(get(t, br.getCondition()).bits & 1))
      to = br.getSuccessor(1);
    jump(t, to);
    return failed ? Stop::Error : Stop::Go;
  }
  case Instruction::Switch: {
    auto &sw = cast<SwitchInst>(inst);
    uint64_t v = get(t, sw.getCondition()).bits;
    const BasicBlock *to = sw.getDefaultDest();
    for (auto &cs : sw.cases())
      if (cs.getCaseValue()->getZExtValue() == v)
        to = cs.getCaseSuccessor();
    jump(t, to);
    return failed ? Stop::Error : Stop::Go;
  }
  case Instruction::Ret: {
    auto &ret = cast<ReturnInst>(inst);
    Val rv = ret.getReturnValue() ? get(t, ret.getReturnValue()) : Val{};
    const CallBase *site = f.site;
    t.regs.resize(f.base);
    t.stack.pop_back();
    if (t.stack.empty()) {
      t.done = true;
      return Stop::Done;
    }
    Frame &caller = t.stack.back();
    if (site && !site->getType()->isVoidTy())
      t.regs[caller.base + caller.info->slots.lookup(site)] = rv;
    ++caller.pc;
    return failed ? Stop::Error : Stop::Go;
  }
  case Instruction::Unreachable:
    // Undefined behaviour, as a false llvm.assume: the input is not one the
    // kernel is defined on (the lowering assumes the path is not taken).
    assumeViolated = true;
    t.done = true;
    return Stop::Done;
  case Instruction::ICmp: {
    auto &cmp = cast<ICmpInst>(inst);
    Val a = get(t, cmp.getOperand(0)), b = get(t, cmp.getOperand(1));
    Type *ty = cmp.getOperand(0)->getType();
    if (ty->isPointerTy()) {
      if (a.obj != b.obj && !cmp.isEquality()) {
        fail("comparison of pointers into different objects");
        return Stop::Error;
      }
      set(Val{(uint64_t)(cmp.isEquality()
                             ? ((a.obj == b.obj && a.bits == b.bits) ==
                                (cmp.getPredicate() == CmpInst::ICMP_EQ))
                             : ICmpInst::compare(APInt(64, a.bits),
                                                 APInt(64, b.bits),
                                                 cmp.getPredicate()))});
      return next();
    }
    unsigned w = ty->getIntegerBitWidth();
    set(Val{(uint64_t)ICmpInst::compare(APInt(w, a.bits), APInt(w, b.bits),
                                        cmp.getPredicate())});
    return next();
  }
  case Instruction::FCmp: {
    auto &cmp = cast<FCmpInst>(inst);
    Val a = get(t, cmp.getOperand(0)), b = get(t, cmp.getOperand(1));
    bool r = executor::floatCompare(
        cmp.getPredicate(), a.bits, b.bits,
        cmp.getOperand(0)->getType()->getPrimitiveSizeInBits());
    set(Val{(uint64_t)r});
    return next();
  }
  case Instruction::FNeg: {
    Val a = get(t, inst.getOperand(0));
    unsigned w = inst.getType()->getPrimitiveSizeInBits();
    set(Val{a.bits ^ (1ull << (w - 1))});
    return next();
  }
  case Instruction::Select: {
    auto &sel = cast<SelectInst>(inst);
    set(get(t, sel.getCondition()).bits & 1 ? get(t, sel.getTrueValue())
                                            : get(t, sel.getFalseValue()));
    return next();
  }
  case Instruction::Freeze:
    set(get(t, inst.getOperand(0)));
    return next();
  case Instruction::Alloca: {
    auto &al = cast<AllocaInst>(inst);
    uint64_t n = 1;
    if (al.isArrayAllocation())
      n = get(t, al.getArraySize()).bits;
    uint64_t size = dl.getTypeAllocSize(al.getAllocatedType()) * n;
    if (size > (uint64_t(1) << 24)) {
      fail("private array of " + Twine(size) + " bytes");
      return Stop::Error;
    }
    int32_t obj = newDense(size);
    objs[obj].unset.assign(size, true);
    set(Val{0, obj});
    return next();
  }
  case Instruction::Load: {
    Val p = get(t, inst.getOperand(0)), v;
    if (!failed && load(t, inst.getType(), p, v))
      set(v);
    return next();
  }
  case Instruction::Store: {
    auto &st = cast<StoreInst>(inst);
    Val v = get(t, st.getValueOperand()), p = get(t, st.getPointerOperand());
    if (!failed)
      store(t, st.getValueOperand()->getType(), p, v);
    return next();
  }
  case Instruction::AtomicRMW: {
    // Threads run one at a time between barriers: the update happens at
    // once, which is one order the hardware may choose.
    auto &rmw = cast<AtomicRMWInst>(inst);
    Type *ty = rmw.getValOperand()->getType();
    Val p = get(t, rmw.getPointerOperand()), v = get(t, rmw.getValOperand());
    Val old;
    if (!ty->isIntegerTy() || ty->getIntegerBitWidth() > 64) {
      fail("atomicrmw of type '" + typeName(ty) + "'");
      return Stop::Error;
    }
    // Atomics order their own updates only: the run's race check does not
    // tell them from plain accesses, and leaves such runs to the static one.
    notClean("an atomic update");
    // Its load and store are one update: two updates of one kind do not
    // race (RunDefect), an update and a plain access do.
    curRmw = (int)rmw.getOperation();
    scope_exit plain([&] { curRmw = -1; });
    if (failed || !load(t, ty, p, old))
      return next();
    if (old.obj == Val::Opaque) {
      fail("an atomic update of a value the run does not know");
      return Stop::Error;
    }
    unsigned w = ty->getIntegerBitWidth();
    APInt a(w, old.bits), b(w, v.bits), r;
    using Bin = AtomicRMWInst::BinOp;
    switch (rmw.getOperation()) {
    case Bin::Xchg:
      r = b;
      break;
    case Bin::Add:
      r = a + b;
      break;
    case Bin::Sub:
      r = a - b;
      break;
    case Bin::And:
      r = a & b;
      break;
    case Bin::Or:
      r = a | b;
      break;
    case Bin::Xor:
      r = a ^ b;
      break;
    case Bin::Max:
      r = APIntOps::smax(a, b);
      break;
    case Bin::Min:
      r = APIntOps::smin(a, b);
      break;
    case Bin::UMax:
      r = APIntOps::umax(a, b);
      break;
    case Bin::UMin:
      r = APIntOps::umin(a, b);
      break;
    case Bin::UIncWrap:
      r = a.uge(b) ? APInt(w, 0) : a + 1;
      break;
    case Bin::UDecWrap:
      r = (a.isZero() || a.ugt(b)) ? b : a - 1;
      break;
    default:
      fail("atomicrmw " + AtomicRMWInst::getOperationName(rmw.getOperation()));
      return Stop::Error;
    }
    if (store(t, ty, p, Val{r.getZExtValue()}))
      set(old);
    return next();
  }
  case Instruction::ExtractValue: {
    auto &ev = cast<ExtractValueInst>(inst);
    Val a = get(t, ev.getAggregateOperand());
    for (unsigned i : ev.indices()) {
      if (a.obj != Val::Agg) {
        fail("extractvalue of a non-aggregate");
        return Stop::Error;
      }
      a = t.aggs[a.bits][i];
    }
    set(a);
    return next();
  }
  case Instruction::InsertValue: {
    auto &iv = cast<InsertValueInst>(inst);
    Val a = get(t, iv.getAggregateOperand());
    Val v = get(t, iv.getInsertedValueOperand());
    // Copy on write, level by level.
    std::function<Val(Val, ArrayRef<unsigned>)> ins =
        [&](Val agg, ArrayRef<unsigned> idx) -> Val {
      if (idx.empty())
        return v;
      std::vector<Val> parts = t.aggs[agg.bits];
      parts[idx[0]] = ins(parts[idx[0]], idx.drop_front());
      return aggregate(t, std::move(parts));
    };
    if (a.obj != Val::Agg) {
      fail("insertvalue into a non-aggregate");
      return Stop::Error;
    }
    set(ins(a, iv.getIndices()));
    return next();
  }
  case Instruction::Call: {
    bool barrier = false, entered = false;
    if (!call(t, cast<CallBase>(inst), barrier, entered))
      return Stop::Error;
    if (entered)
      return Stop::Go; // on in the callee
    ++f.pc;
    if (t.shuffle.call)
      return Stop::Shuffle;
    return barrier ? Stop::Barrier : Stop::Go;
  }
  case Instruction::PHI:
    ++f.pc;
    return Stop::Go;
  case Instruction::Fence:
    return next();
  default: {
    Val v;
    if (auto *op = dyn_cast<Operator>(&inst); op && evalOp(t, *op, v))
      set(v);
    else
      fail(Twine("instruction '") + inst.getOpcodeName() + "'");
    return next();
  }
  }
}

bool IRRunner::usesOpaque(ThreadState &t, const Instruction &inst) {
  const auto *call = dyn_cast<CallBase>(&inst);
  for (const Use &u : inst.operands()) {
    if (!isa<Instruction, Argument>(u.get()) ||
        get(t, u.get()).obj != Val::Opaque)
      continue;
    unsigned i = u.getOperandNo();
    // Moving it: as a stored value (store() refuses non-pointer types), a
    // select's arm, a call's argument, a return value, part of an
    // aggregate.
    if (movesOperand(inst, i) ||
        (call && call->isArgOperand(&u) && call->getCalledFunction() &&
         !call->getCalledFunction()->isIntrinsic()) ||
        (call && gridSyncOf.count(inst.getParent())))
      continue;
    // An address within an unknown pointer too (grid.sync()'s workspace):
    // loads and stores through it stop the run.
    if (isa<CastInst, BinaryOperator, UnaryOperator, CmpInst, SelectInst,
            GetElementPtrInst>(inst))
      return true; // so is what is computed from it
    fail("the result of inline assembly or a pointer made from integer "
         "bytes, used");
    return true;
  }
  return false;
}

/// Runs \p t to its next barrier (Barrier) or to its end (Done).
IRRunner::Stop IRRunner::runThread(ThreadState &t) {
  Stop s;
  while ((s = step(t)) == Stop::Go)
    ;
  return s;
}

ExecResult IRRunner::run(uint64_t maxThreads) {
  ExecResult r;
  uint64_t threads = 1;
  for (const uint64_t *d : {cfg.grid, cfg.block})
    for (int i = 0; i < 3; ++i)
      if (__builtin_mul_overflow(threads, d[i], &threads))
        threads = ~0ull;
  if (threads > maxThreads) {
    r.error = "launch of " + std::to_string(threads) +
              " threads exceeds the limit of " + std::to_string(maxThreads);
    return r;
  }
  // Pointer parameter #i is kv array #i, one object for the whole launch
  // (kv parameters count a by-value struct's scalars one by one).
  std::vector<Val> params;
  unsigned i = 0;
  auto param = [&](Type *ty) -> std::optional<Val> {
    if (ty->isPointerTy() && in.nullParams &&
        !in.initial(*in.nullParams, i).isZero())
      return Val{0, Val::Null};
    if (ty->isPointerTy()) {
      if (i >= in.elemBytes.size() || !in.elemBytes[i] || in.elemBytes[i] > 8) {
        r.error = "parameter #" + std::to_string(i) + " is not a kv array";
        return std::nullopt;
      }
      objs.emplace_back();
      objs.back().sparse = true;
      objs.back().arr = i;
      objs.back().elem = in.elemBytes[i];
      return Val{0, (int32_t)objs.size() - 1};
    }
    if (ty->isIntegerTy() && ty->getIntegerBitWidth() <= 64)
      return Val{in.scalar(i).getZExtValue() &
                 maskOf(ty->getIntegerBitWidth())};
    if (ty->isFloatTy() || ty->isDoubleTy())
      return Val{in.scalar(i).getZExtValue()};
    r.error = "parameter #" + std::to_string(i) + " of type " + typeName(ty);
    return std::nullopt;
  };
  for (const Argument &a : kernel.args()) {
    std::optional<std::vector<ByValLeaf>> leaves = byValLeaves(a);
    if (!leaves) {
      std::optional<Val> v = param(a.getType());
      if (!v)
        return r;
      params.push_back(*v);
      ++i;
      continue;
    }
    if (leaves->empty()) {
      r.error = "by-value parameter #" + std::to_string(a.getArgNo()) +
                " of type " + typeName(a.getParamByValType());
      return r;
    }
    // The struct's bytes, read only (a store to it, which would go to the
    // thread's own copy, stops the run).
    objs.emplace_back();
    int32_t copy = (int32_t)objs.size() - 1;
    objs.back().bytes.assign(dl.getTypeAllocSize(a.getParamByValType()), 0);
    objs.back().readOnly = true;
    for (const ByValLeaf &leaf : *leaves) {
      std::optional<Val> v = param(leaf.type);
      if (!v)
        return r;
      ++i;
      Obj &o = objs[copy];
      if (leaf.type->isPointerTy()) {
        o.ptrs[(int64_t)leaf.offset] = *v;
        continue;
      }
      for (uint64_t b = 0; b < dl.getTypeStoreSize(leaf.type); ++b)
        o.bytes[leaf.offset + b] = (v->bits >> (8 * b)) & 0xff;
    }
    params.push_back(Val{0, copy});
  }
  uint64_t bdim[3] = {cfg.block[0], cfg.block[1], cfg.block[2]};
  uint64_t perBlock = bdim[0] * bdim[1] * bdim[2];
  if (trace) {
    uint64_t all = perBlock * cfg.grid[0] * cfg.grid[1] * cfg.grid[2];
    trace->inputs.resize(all);
    trace->from.resize(all);
  }
  // One set of threads, reused by every block, unless blocks wait at a grid
  // barrier (grid.sync()): each waiting block keeps its threads and shared
  // objects until every block has run up to the barrier.
  struct Waiting {
    uint64_t bid[3];
    int64_t block;
    std::vector<ThreadState> ts;
    std::map<const GlobalVariable *, int32_t> sharedGlobals;
  };
  std::vector<Waiting> waiting;
  std::vector<ThreadState> ts(perBlock);
  bool ended = false; // a block of this phase ended without the barrier
  // Runs the current block's threads (ts) to their end or to a grid
  // barrier: Done, Barrier (all at a grid barrier) or Error.
  auto runBlock = [&]() -> Stop {
    // Each thread runs to its next barrier, shuffle or end; shuffles
    // complete once every thread of the block has stopped, and a barrier
    // is passed once no thread waits at a shuffle.
    std::vector<Stop> at(perBlock, Stop::Go);
    for (;;) {
      bool barrier = false, shuffle = false;
      for (uint64_t l = 0; l < perBlock; ++l) {
        ThreadState &t = ts[l];
        if (t.done || at[l] == Stop::Barrier)
          continue;
        curThread = (int64_t)l;
        curState = &t;
        at[l] = runThread(t);
        if (at[l] == Stop::Error)
          return Stop::Error;
      }
      for (uint64_t l = 0; l < perBlock; ++l) {
        barrier |= at[l] == Stop::Barrier;
        shuffle |= at[l] == Stop::Shuffle;
      }
      if (shuffle) {
        if (!completeShuffles(ts))
          return Stop::Error;
        for (Stop &s : at)
          if (s == Stop::Shuffle)
            s = Stop::Go;
        continue;
      }
      if (!barrier)
        return Stop::Done;
      // Every thread at one barrier, else the run is not clean (the
      // hardware may hang or go on; the static check decides).
      auto where = [&](const ThreadState &t) {
        const Frame &f = t.stack.back();
        return std::make_tuple(t.stack.size(), f.bb,
                               f.pc == f.bb->end() ? nullptr : &*f.pc);
      };
      bool together =
          llvm::all_of(at, [](Stop s) { return s == Stop::Barrier; }) &&
          llvm::none_of(ts,
                        [](const ThreadState &t) { return t.stack.empty(); });
      for (uint64_t l = 1; together && l < perBlock; ++l)
        together = where(ts[l]) == where(ts[0]);
      if (!together) {
        notClean("a barrier that not every thread of the block "
                 "reaches at once");
        // A thread at a barrier, and one elsewhere (at another barrier, or
        // done).
        uint64_t at0 = 0;
        while (at0 < perBlock && at[at0] != Stop::Barrier)
          ++at0;
        uint64_t off = 0;
        while (off < perBlock &&
               (at[off] == Stop::Barrier && !ts[off].stack.empty() &&
                where(ts[off]) == where(ts[at0])))
          ++off;
        auto instAt = [&](const ThreadState &t) -> const Instruction * {
          if (t.stack.empty())
            return nullptr;
          const Frame &f = t.stack.back();
          return f.pc == f.bb->end() ? nullptr : &*f.pc;
        };
        if (at0 < perBlock && off < perBlock) {
          RunDefect d;
          d.kind = RunDefect::Divergence;
          d.first = siteOf(curBlock, (int64_t)at0, instAt(ts[at0]), false);
          d.second = siteOf(curBlock, (int64_t)off, instAt(ts[off]), false);
          d.what = ts[off].stack.empty() || ts[off].done
                       ? "a barrier some threads of the block reach and "
                         "others, which end, do not"
                       : "threads of one block wait at different barriers";
          noteDefect(std::move(d));
        }
      } else if (ts[0].atGridSync) {
        for (ThreadState &t : ts)
          t.atGridSync = false;
        return Stop::Barrier;
      }
      ++epoch;
      for (uint64_t l = 0; l < perBlock; ++l) {
        ts[l].atGridSync = false;
        if (at[l] == Stop::Barrier)
          at[l] = Stop::Go;
      }
    }
  };
  // Where blocks wait at a grid barrier and another block ended without
  // it, the hardware waits forever: the run is not clean.
  auto endPhase = [&] {
    if (waiting.empty() || !ended)
      return;
    notClean("a grid barrier (grid.sync()) that some blocks reach and "
             "others, which end, do not");
    RunDefect d;
    d.kind = RunDefect::Divergence;
    const ThreadState &t0 = waiting.front().ts.front();
    const Frame &f = t0.stack.back();
    d.first = siteOf(waiting.front().block, 0,
                     f.pc == f.bb->end() ? nullptr : &*f.pc, false);
    d.what = "a grid barrier some blocks reach and others, which end, do not";
    noteDefect(std::move(d));
  };
  auto failed = [&] {
    r.error = error;
    r.tooMuchWork = tooMuchWork;
    return r;
  };
  for (bid[2] = 0; bid[2] < cfg.grid[2]; ++bid[2])
    for (bid[1] = 0; bid[1] < cfg.grid[1]; ++bid[1])
      for (bid[0] = 0; bid[0] < cfg.grid[0]; ++bid[0]) {
        size_t mark = objs.size();
        sharedGlobals.clear();
        ++epoch;
        curBlock =
            (int64_t)((bid[2] * cfg.grid[1] + bid[1]) * cfg.grid[0] + bid[0]);
        for (uint64_t l = 0; l < perBlock; ++l) {
          ts[l].stack.clear();
          ts[l].regs.clear();
          ts[l].aggs.clear();
          ts[l].done = false;
          ts[l].atGridSync = false;
          ts[l].tid[0] = l % bdim[0];
          ts[l].tid[1] = (l / bdim[0]) % bdim[1];
          ts[l].tid[2] = l / (bdim[0] * bdim[1]);
          enter(ts[l], kernel, params, nullptr);
        }
        Stop end = runBlock();
        if (end == Stop::Error)
          return failed();
        if (end == Stop::Barrier) {
          waiting.push_back({{bid[0], bid[1], bid[2]},
                             curBlock,
                             std::move(ts),
                             sharedGlobals});
          ts.assign(perBlock, ThreadState());
          continue;
        }
        ended = true;
        // The block's private and shared objects end with it; global
        // objects it made first stay (they sit below later blocks' ones
        // only if made in block 0, so keep everything that is global).
        // Blocks waiting at a grid barrier keep theirs.
        if (waiting.empty() &&
            (globals.empty() ||
             std::all_of(globals.begin(), globals.end(),
                         [&](auto &g) { return g.second < (int32_t)mark; })))
          objs.resize(mark);
      }
  // Each grid barrier: every block that waits at it goes on, in order.
  while (!waiting.empty()) {
    endPhase();
    ++gridEpoch;
    ended = false;
    std::vector<Waiting> phase = std::move(waiting);
    waiting.clear();
    for (Waiting &w : phase) {
      std::copy(std::begin(w.bid), std::end(w.bid), bid);
      curBlock = w.block;
      sharedGlobals = std::move(w.sharedGlobals);
      ts = std::move(w.ts);
      ++epoch;
      Stop end = runBlock();
      if (end == Stop::Error)
        return failed();
      if (end == Stop::Barrier)
        waiting.push_back(
            {{bid[0], bid[1], bid[2]}, curBlock, std::move(ts), sharedGlobals});
      else
        ended = true;
    }
  }
  for (Obj &o : objs)
    if (o.sparse && !o.shared)
      for (auto &[e, c] : o.cells)
        if (c.written) {
          r.written[o.arr].insert_or_assign(
              (uint64_t)e, APInt(8 * o.elem, c.v & maskOf(8 * o.elem)));
          if (c.range >= 0)
            r.ranges[o.arr][(uint64_t)e] = {ranges[c.range].lo,
                                            ranges[c.range].hi};
        }
  if (in.printStream)
    executor::layOutPrinted(std::move(printed), r.written[*in.printStream]);
  r.ok = true;
  r.assumeViolated = assumeViolated;
  r.unchecked = unchecked;
  r.uncheckedOtherThanRaces = uncheckedOtherThanRaces;
  r.readUnset = readUnset;
  return r;
}

std::set<std::pair<unsigned, uint64_t>>
IRRunner::sourcesOf(unsigned arg, uint64_t idx) const {
  std::set<std::pair<unsigned, uint64_t>> out;
  int64_t last = Obj::Cell::None;
  for (const Obj &o : objs)
    if (o.sparse && !o.shared && o.arr == arg) {
      auto it = o.cells.find((int64_t)idx);
      if (it != o.cells.end())
        last = it->second.lastWriter;
      break;
    }
  if (last == Obj::Cell::None || !trace) {
    out.insert({arg, idx});
    return out;
  }
  std::vector<bool> seen(trace->from.size());
  std::vector<int64_t> todo = {last};
  seen[last] = true;
  while (!todo.empty()) {
    int64_t t = todo.back();
    todo.pop_back();
    for (auto [a, e] : trace->inputs[t])
      out.insert({a, (uint64_t)e});
    for (int64_t u : trace->from[t])
      if (!seen[u]) {
        seen[u] = true;
        todo.push_back(u);
      }
  }
  return out;
}

} // namespace irexec

using irexec::IRRunner;

ExecResult executeIR(const llvm::Function &kernel, const LaunchConfig &cfg,
                     const IRInputs &in, uint64_t maxThreads,
                     uint64_t maxSteps) {
  IRRunner runner(kernel, cfg, in, maxSteps);
  ExecResult r = runner.run(maxThreads);
  r.defects = runner.runDefects();
  return r;
}

std::set<std::pair<unsigned, uint64_t>>
inputSources(const llvm::Function &kernel, const LaunchConfig &cfg,
             const IRInputs &in, unsigned arg, uint64_t idx,
             uint64_t maxThreads, uint64_t maxSteps) {
  IRRunner runner(kernel, cfg, in, maxSteps);
  runner.traceSources();
  if (!runner.run(maxThreads).ok)
    return {};
  return runner.sourcesOf(arg, idx);
}

} // namespace kv
