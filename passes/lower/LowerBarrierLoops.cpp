//===- LowerBarrierLoops.cpp - Barrier loops and staged shared arrays -----===//
//
// A loop with a symbolic trip count whose body has __syncthreads(): its
// barrier intervals are phases, and a shared array written in one phase
// and read in later ones (a tile) is staged: each read is served by the
// writer thread the lowering solves for.
//
//===----------------------------------------------------------------------===//
#include "passes/lower/Lowerer.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/IR/Module.h"

namespace kv {
namespace lowering {

// A loop whose body has barriers runs its phases (the barrier intervals of
// one iteration) in lockstep across the block. The model keeps it as one
// kv.iter loop without barriers, which is exact for what it lets through:
//  - a shared array the body writes in one phase and reads only in later
//    phases of the same iteration (a tile) is staged: a read is the value
//    its writer thread stored in this iteration, with the writer solved
//    from the write index; kv.prove ops make the checker show that the
//    writer is in the block, writes, and hits the cell, and that the
//    accesses are in bounds. The writes go to an expanded array indexed by
//    (iteration, cell), so the race check still sees two writers of one
//    cell in one iteration;
//  - the trip count is the same for the whole block, no global memory is
//    written in the loop, and nothing reads a staged array after it.
// Anything else fails with the reason.

void Lowerer::stageBarrier(State &s) {
  if (symLoops.size() != 1)
    return fail("__syncthreads() in nested loops with symbolic trip counts");
  SymLoop &l = symLoops.back();
  if (s.guard != l.guard)
    return fail("__syncthreads() under a condition inside a loop with a "
                "symbolic trip count");
  if (l.preDirty)
    return fail("__syncthreads() in a loop with a symbolic trip count that "
                "starts after writes in the same barrier interval");
  for (auto &[a, is] : l.written)
    if (!isa<SharedArrayType>(a.getType()))
      return fail("write to global memory in a loop with a symbolic trip "
                  "count and a __syncthreads()");
  for (auto &[a, ws] : l.sharedWrites) {
    if (l.staged.contains(a))
      continue;
    if (l.read.contains(a))
      return fail("shared array read in a barrier loop before the loop "
                  "writes it (the read would see the previous iteration)");
    l.staged[a] = l.phase;
    loopWritten.erase(a);
    l.written.erase(a);
  }
  ++l.phase;
}

int Lowerer::tidAxis(Value v) {
  while (Operation *d = v.getDefiningOp()) {
    if (isa<arith::ExtSIOp, arith::ExtUIOp, arith::TruncIOp>(d)) {
      v = d->getOperand(0);
      continue;
    }
    if (auto r = dyn_cast<SRegOp>(d))
      if (r.getGroup() == SRegGroup::Tid)
        return r.getAxis();
    return -1;
  }
  return -1;
}

bool Lowerer::sliceHas(Value v, llvm::function_ref<bool(Operation *)> pred) {
  // No cache across calls: a rolled-back attempt frees ops whose addresses
  // new ones reuse.
  llvm::SmallPtrSet<Operation *, 16> seen;
  llvm::SmallVector<Value> work{v};
  while (!work.empty()) {
    Operation *d = work.pop_back_val().getDefiningOp();
    if (!d || !seen.insert(d).second)
      continue;
    if (pred(d))
      return true;
    for (Value o : d->getOperands())
      work.push_back(o);
  }
  return false;
}

bool Lowerer::dependsOnTid(Value v) {
  return sliceHas(v, [](Operation *d) {
    auto r = dyn_cast<SRegOp>(d);
    return r && r.getGroup() == SRegGroup::Tid;
  });
}

bool Lowerer::dependsOnRead(Value v) {
  return sliceHas(v, [](Operation *d) { return isa<ReadOp>(d); });
}

IntegerAttr Lowerer::arrayArg(Value a) {
  auto arg = dyn_cast<BlockArgument>(a);
  return b.getI64IntegerAttr(arg ? (int64_t)arg.getArgNumber() : -1);
}

int64_t Lowerer::sharedCells(Value a) {
  for (auto &[base, arr] : argArrays) {
    auto *gv = dyn_cast<llvm::GlobalVariable>(base);
    if (arr != a || !gv || gv->getAddressSpace() != 3)
      continue;
    uint64_t bytes =
        f.getParent()->getDataLayout().getTypeAllocSize(gv->getValueType());
    uint64_t es = arrayElemSize.count(arr) ? arrayElemSize[arr] : 0;
    return es ? (int64_t)(bytes / es) : 0;
  }
  return 0;
}

Value Lowerer::stagedArray(Value a) {
  Block &blk = kernel.getBlock();
  auto sh = cast<SharedArrayType>(a.getType());
  Value ex = blk.addArgument(SharedArrayType::get(ctx, sh.getElementType(), 0),
                             UnknownLoc::get(ctx));
  argNames.push_back(argNames[cast<BlockArgument>(a).getArgNumber()] +
                     ".staged");
  arrayElemSize[ex] = arrayElemSize.lookup(a);
  return ex;
}

Linear Lowerer::decompose(Value v, char sign, int depth) {
  Linear l;
  llvm::APInt c;
  if (matchPattern(v, m_ConstantInt(&c))) {
    l.constant = sign == 'u' ? (int64_t)c.getZExtValue() : c.getSExtValue();
    return l;
  }
  Operation *d = v.getDefiningOp();
  auto constOf = [&](Value x, int64_t &out) {
    if (!matchPattern(x, m_ConstantInt(&c)) || c.getBitWidth() > 64)
      return false;
    out = c.getSExtValue();
    return true;
  };
  if (d && depth < 24) {
    if (isa<arith::ExtSIOp>(d))
      return decompose(d->getOperand(0), 's', depth + 1);
    if (isa<arith::ExtUIOp>(d))
      return decompose(d->getOperand(0), 'u', depth + 1);
    if (isa<arith::TruncIOp>(d))
      return decompose(d->getOperand(0), sign, depth + 1);
    if (isa<arith::AddIOp, arith::SubIOp>(d)) {
      l = decompose(d->getOperand(0), sign, depth + 1);
      l.add(decompose(d->getOperand(1), sign, depth + 1),
            isa<arith::SubIOp>(d) ? -1 : 1);
      return l;
    }
    int64_t k;
    if (isa<arith::MulIOp>(d)) {
      for (int i = 0; i < 2; ++i)
        if (constOf(d->getOperand(i), k)) {
          l.add(decompose(d->getOperand(1 - i), sign, depth + 1), k);
          return l;
        }
    }
    if (isa<arith::ShLIOp>(d) && constOf(d->getOperand(1), k) && k >= 0 &&
        k < 62) {
      l.add(decompose(d->getOperand(0), sign, depth + 1), int64_t(1) << k);
      return l;
    }
  }
  // An atom, at 64 bits (one extension per value and signedness, so that
  // equal atoms are one term).
  Value &w = wideAtoms[{v, sign}];
  if (!w) {
    OpBuilder::InsertionGuard g(b);
    if (Operation *def = v.getDefiningOp())
      b.setInsertionPointAfter(def);
    else
      b.setInsertionPointToStart(&kernel.getBlock());
    w = toI64(v, sign != 'u');
  }
  l.terms.push_back({w, 1});
  return l;
}

std::optional<std::array<Value, 3>> Lowerer::writerOf(Value wIdx, Value rIdx) {
  wideAtoms.clear();
  Linear W = decompose(wIdx), R = decompose(rIdx);
  int64_t coef[3] = {0, 0, 0};
  Linear D = R;
  D.constant -= W.constant;
  for (auto &[v, c] : W.terms) {
    if (int d = tidAxis(v); d >= 0)
      coef[d] += c;
    else if (dependsOnTid(v))
      return std::nullopt;
    else
      D.addTerm(v, -c);
  }
  Type i64 = b.getI64Type();
  std::array<Value, 3> who;
  std::vector<int> open;
  for (int d = 0; d < 3; ++d) {
    who[d] = toI64(sreg(SRegGroup::Tid, d), /*isSigned=*/false);
    if (coef[d] == 0)
      continue;
    if (coef[d] < 0)
      return std::nullopt;
    // The read names the same coordinate with the same weight: the writer
    // shares it with the reader (as[ty][k] read, as[ty][tx] written).
    int64_t rc = 0;
    for (auto &[v, c] : D.terms)
      if (tidAxis(v) == d)
        rc += c;
    if (rc == coef[d]) {
      Linear rest;
      rest.constant = D.constant;
      for (auto &[v, c] : D.terms)
        if (tidAxis(v) != d)
          rest.addTerm(v, c);
      D = rest;
      continue;
    }
    open.push_back(d);
  }
  llvm::sort(open, [&](int x, int y) { return coef[x] < coef[y]; });
  if (open.size() == 1) {
    int64_t c = coef[open[0]];
    bool exact = D.constant % c == 0;
    for (auto &[v, k] : D.terms)
      exact = exact && k % c == 0;
    if (exact) {
      Linear q;
      q.constant = D.constant / c;
      for (auto &[v, k] : D.terms)
        q.addTerm(v, k / c);
      who[open[0]] = materialize(q);
    } else {
      who[open[0]] =
          b.createOrFold<arith::DivUIOp>(loc, materialize(D), cst(i64, c));
    }
  } else if (!open.empty()) {
    // Mixed radix: the weights must divide one another.
    Value x = materialize(D);
    for (size_t i = 0; i < open.size(); ++i) {
      int64_t c = coef[open[i]];
      Value q = b.createOrFold<arith::DivUIOp>(loc, x, cst(i64, c));
      if (i + 1 < open.size()) {
        int64_t next = coef[open[i + 1]];
        if (next % c)
          return std::nullopt;
        q = b.createOrFold<arith::RemUIOp>(loc, q, cst(i64, next / c));
      }
      who[open[i]] = q;
    }
  }
  return who;
}

Value Lowerer::instantiate(Value v, llvm::DenseMap<Value, Value> &map) {
  auto it = map.find(v);
  if (it != map.end())
    return it->second;
  Operation *d = v.getDefiningOp();
  if (!d || !dependsOnTid(v))
    return v;
  if (isa<IterOp, SumOp, CarryOp, FoldOp, WriteOp, AssumeOp, ProveOp>(d) ||
      d->getNumResults() != 1) {
    fail("value stored to a staged shared array computed in an inner loop "
         "from the thread id");
    return v;
  }
  // Operands first: the clone must come after them.
  llvm::SmallVector<Value, 4> ops;
  for (Value o : d->getOperands())
    ops.push_back(instantiate(o, map));
  Operation *c = b.clone(*d);
  c->setOperands(ops);
  return map[v] = c->getResult(0);
}

Value Lowerer::forwardStaged(SymLoop &l, Value array, Value index, Value guard,
                             Type ty) {
  Type i64 = b.getI64Type();
  Value v = cst(ty, 0), any = i1(false);
  bool first = true;
  for (const SymLoop::SharedWrite &rec : l.sharedWrites[array]) {
    // The op's operands, not the record's: placeholders are replaced.
    WriteOp w = rec.op;
    std::optional<std::array<Value, 3>> who = writerOf(w.getIndex(), index);
    if (!who) {
      fail("read of a shared array staged in a barrier loop whose write "
           "index is not linear in the thread ids");
      return v;
    }
    llvm::DenseMap<Value, Value> map;
    Value in = i1(true);
    for (int d = 0; d < 3; ++d) {
      Value tid = sreg(SRegGroup::Tid, d);
      map[tid] = b.createOrFold<arith::TruncIOp>(loc, tid.getType(), (*who)[d]);
      in = andI1(in, b.createOrFold<arith::CmpIOp>(
                         loc, arith::CmpIPredicate::ult, (*who)[d],
                         toI64(sreg(SRegGroup::BDim, d), false)));
    }
    Value wv = instantiate(w.getValue(), map);
    Value hit = andI1(andI1(in, instantiate(w.getGuard(), map)),
                      eq(instantiate(w.getIndex(), map), index));
    if (failed)
      return v;
    if (wv.getType() != ty) {
      std::string msg;
      llvm::raw_string_ostream os(msg);
      os << "staged shared array read as " << ty << " and written as "
         << wv.getType();
      fail(msg);
      return v;
    }
    // Some write hits (kv.prove): the first needs no test.
    v = first ? wv : select(hit, wv, v);
    first = false;
    any = b.createOrFold<arith::OrIOp>(loc, any, hit);
  }
  ProveOp::create(b, loc, b.createOrFold<arith::OrIOp>(loc, notI1(guard), any),
                  b.getStringAttr("a thread of the block wrote the staged "
                                  "shared cell in this iteration"));
  if (int64_t size = sharedCells(array)) {
    auto pr = ProveOp::create(
        b, loc,
        b.createOrFold<arith::OrIOp>(
            loc, notI1(guard),
            b.createOrFold<arith::CmpIOp>(loc, arith::CmpIPredicate::ult, index,
                                          cst(i64, size))),
        b.getStringAttr("staged shared-array read in bounds"));
    pr->setAttr(kProveInBoundsAttr, arrayArg(array));
  }
  return v;
}

bool Lowerer::checkBarrierPhases(LoopModel &lm) {
  SymLoop &m = lm.m;
  for (auto &[a, is] : m.written)
    if (!isa<SharedArrayType>(a.getType()))
      return giveUp(lm, "write to global memory in a loop with a symbolic trip "
                        "count and a __syncthreads()");
    else
      return giveUp(lm,
                    "shared array written after the last __syncthreads() of "
                    "a loop iteration (the next iteration reads it)");
  // A tile read in the last phase and written in the first would be
  // overwritten by the next iteration's first phase with no barrier
  // between.
  for (auto &[a, phase] : m.stagedReads)
    if (m.staged.lookup(a) == 0 && phase == m.phase)
      return giveUp(lm, "shared array read after the last __syncthreads() of a "
                        "loop iteration and written before the first");
  return true;
}

bool Lowerer::resolveStagedReads(LoopModel &lm) {
  SymLoop &m = lm.m;
  // Staged reads, now that the unchanged variables are known.
  for (auto &[ph, array] : m.pending) {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPoint(ph);
    Location outer = loc;
    loc = ph.getLoc();
    llvm::scope_exit restore([&] { loc = outer; });
    Value v = forwardStaged(m, array, ph.getOperand(0), ph.getOperand(1),
                            ph.getResult(0).getType());
    if (failed)
      return false;
    ph.getResult(0).replaceAllUsesWith(v);
    ph.erase();
  }
  return true;
}

bool Lowerer::checkUniformTripCount(LoopModel &lm) {
  // Barriers inside: every thread of the block runs the same iterations.
  if (lm.m.phase)
    for (Value v : {lm.iterLb, lm.iterStep, lm.iterBound, lm.entryGuard})
      if (dependsOnTid(v) || dependsOnRead(v))
        return giveUp(lm, "loop with a __syncthreads() whose trip count may "
                          "differ between the threads of a block");
  return true;
}

void Lowerer::expandStagedWrites(LoopModel &lm) {
  Type i64 = b.getI64Type();
  SymLoop &m = lm.m;
  // The staged writes go to an expanded array, one slice per iteration
  // (the race check then compares writers within an iteration), with
  // their bounds proved on the array's own size.
  for (auto &[a, phase] : m.staged) {
    stagedDone.insert(a);
    Value ex = stagedArray(a);
    int64_t cells = sharedCells(a);
    for (SymLoop::SharedWrite &sw : m.sharedWrites[a]) {
      // The placeholders the record saw are replaced: read the op.
      WriteOp w = sw.op;
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPoint(w);
      Value at = b.createOrFold<arith::AddIOp>(
          loc,
          b.createOrFold<arith::MulIOp>(loc, lm.k, cst(i64, int64_t(1) << 32)),
          w.getIndex());
      int64_t size = cells > 0 ? cells : int64_t(1) << 32;
      auto pr = ProveOp::create(
          b, w.getLoc(),
          b.createOrFold<arith::OrIOp>(
              loc, notI1(w.getGuard()),
              b.createOrFold<arith::CmpIOp>(loc, arith::CmpIPredicate::ult,
                                            w.getIndex(), cst(i64, size))),
          b.getStringAttr("staged shared-array write in bounds"));
      if (cells > 0)
        pr->setAttr(kProveInBoundsAttr, arrayArg(a));
      w.getArrayMutable().assign(ex);
      w.getIndexMutable().assign(at);
    }
  }
}

} // namespace lowering
} // namespace kv
