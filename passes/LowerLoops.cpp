//===- LowerLoops.cpp - Loops with a symbolic trip count ------------------===//
//
// A loop whose exit test does not fold is modelled as one symbolic
// iteration: kv.iter, its induction variables at iteration k, and kv.sum
// for what it accumulates; else unrolled as far as its trip count allows.
//
//===----------------------------------------------------------------------===//
#include "passes/Lowerer.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SetVector.h"

namespace kv {
namespace lowering {

void Lowerer::enterLoop(const llvm::Loop *l, const llvm::BasicBlock *header,
                        State &s, const llvm::BasicBlock *stopAt,
                        const llvm::BasicBlock *from) {
  Block &blk = kernel.getBlock();
  // sreg() adds ops at the block's start: mark the end, not a count.
  Operation *mark = blk.empty() ? nullptr : &blk.back();
  State saved = s;
  std::vector<OwnWrite> ownSaved = ownWrites;
  llvm::DenseSet<Value> loopWrittenSaved = loopWritten;
  Unsupported whyBefore = why;
  // The visits of an attempt that is rolled back are undone too: --unroll's
  // bound counts header visits, and a model attempt's iteration would
  // otherwise use up part of it (the bounded verdict would claim more
  // iterations than were unrolled).
  auto visitsSaved = visits;
  auto rollBack = [&]() {
    visits = visitsSaved;
    while (!blk.empty() && &blk.back() != mark) {
      Operation &op = blk.back();
      op.dropAllUses();
      op.erase();
    }
    s = saved;
    ownWrites = ownSaved;
    loopWritten = loopWrittenSaved;
    failed = false;
    why = whyBefore;
  };
  loopEntries.push_back({l, visits[header]});
  runBlocks(header, s, stopAt, from, /*entered=*/true);
  loopEntries.pop_back();
  if (!failed || restartLoop != l)
    return;
  restartLoop = nullptr;
  rollBack();
  const llvm::BasicBlock *exit = nullptr;
  if (modelLoop(l, s, exit)) {
    if (exit != stopAt)
      runBlocks(exit, s, stopAt, l->getExitingBlock());
    return;
  }
  // No model: unroll as far as the trip count allows, and say why the model
  // did not apply if that fails too.
  std::string reason = why.construct;
  rollBack();
  noModel.insert(l);
  runBlocks(header, s, stopAt, from, /*entered=*/true);
  noModel.erase(l);
  if (failed && why.splitOn.empty() &&
      llvm::StringRef(why.construct).starts_with("loop whose trip count"))
    why.construct += "; as a loop model: " + reason;
}

void Lowerer::hoist(Value v, Operation *before) {
  Operation *d = v.getDefiningOp();
  if (!d || d->getBlock() != before->getBlock() || d == before ||
      d->isBeforeInBlock(before))
    return;
  for (Value o : d->getOperands())
    hoist(o, before);
  d->moveBefore(before);
}

bool Lowerer::dependsOnAny(Value v, const llvm::DenseSet<Operation *> &ops) {
  return sliceHas(v, [&](Operation *d) { return ops.contains(d); });
}

bool Lowerer::modelLoop(const llvm::Loop *l, State &s,
                        const llvm::BasicBlock *&exit) {
  const llvm::BasicBlock *header = l->getHeader();
  const llvm::BasicBlock *latch = l->getLoopLatch();
  const llvm::BasicBlock *exiting = l->getExitingBlock();
  exit = l->getExitBlock();
  curInst = header->getTerminator();
  if (!latch || !exiting || !exit || (exiting != header && exiting != latch)) {
    fail("loop with several exits or back edges");
    return false;
  }
  Block &blk = kernel.getBlock();
  State pre = s;
  Value entryGuard = s.guard;
  // Placeholders for the values carried around the loop (header phis and
  // private variables), and for "this iteration runs".
  llvm::DenseSet<Operation *> holders;
  auto placeholder = [&](Type t) {
    auto op = UnrealizedConversionCastOp::create(b, loc, TypeRange{t},
                                                 ValueRange{});
    holders.insert(op);
    return op.getResult(0);
  };
  struct Carried {
    const llvm::PHINode *phi = nullptr; // else a private variable
    unsigned obj = 0;
    int64_t off = 0;
    uint64_t size = 0;
    Value init, holder, next;
    Value step64; // an induction variable's step, 64 bits
  };
  std::vector<Carried> carried;
  for (const llvm::PHINode &phi : header->phis()) {
    SymVal v = s.vals.lookup(&phi);
    if (v.kind != SymVal::Scalar) {
      curInst = &phi;
      fail("pointer carried around a loop with a symbolic trip count");
      return false;
    }
    Carried c;
    c.phi = &phi;
    c.init = v.scalar;
    c.holder = placeholder(v.scalar.getType());
    s.vals[&phi] = scalar(c.holder);
    carried.push_back(c);
  }
  {
    std::set<std::tuple<unsigned, int64_t, uint64_t>> seen;
    std::vector<PrivStore> stores = s.stores;
    for (const PrivStore &st : stores) {
      if (!st.off.terms.empty() || st.val.kind != SymVal::Scalar ||
          !seen.insert({st.obj, st.off.constant, st.size}).second)
        continue;
      SymVal p;
      p.kind = SymVal::PrivPtr;
      p.obj = st.obj;
      p.off = st.off;
      SymVal cur = loadPrivate(
          p, llvm::IntegerType::get(f.getContext(), st.size * 8), s);
      if (failed)
        return false;
      if (cur.kind != SymVal::Scalar)
        continue;
      Carried c;
      c.obj = st.obj;
      c.off = st.off.constant;
      c.size = st.size;
      c.init = cur.scalar;
      c.holder = placeholder(cur.scalar.getType());
      s.stores.push_back({st.obj, st.off, st.size, scalar(c.holder), i1(true)});
      carried.push_back(c);
    }
  }
  Value guard = placeholder(b.getI1Type());
  Operation *anchor = guard.getDefiningOp();
  if (!carried.empty())
    anchor = carried.front().holder.getDefiningOp();
  s.guard = guard;
  size_t storeBase = s.stores.size();
  symLoops.emplace_back();
  symLoops.back().loop = l;
  symLoops.back().exiting = exiting;
  symLoops.back().guard = guard;
  symLoops.back().startMark = &blk.back();
  symLoops.back().preDirty = !ownWrites.empty() || !loopWritten.empty();
  runBlocks(header, s, /*stopAt=*/header, nullptr, /*entered=*/true);
  SymLoop m = std::move(symLoops.back());
  symLoops.pop_back();
  for (SymLoop &outer : symLoops) {
    for (auto &[a, is] : m.read)
      outer.read[a].append(is.begin(), is.end());
    for (auto &[a, is] : m.written)
      outer.written[a].append(is.begin(), is.end());
  }
  auto give = [&](const llvm::Twine &why) {
    if (!failed) {
      curInst = exiting->getTerminator();
      fail(why);
    }
    return false;
  };
  if (failed)
    return false;
  if (s.dead)
    return give("loop body that does not return to its header");
  if (!m.cond)
    return give("loop without an exit test");
  if (m.phase) {
    for (auto &[a, is] : m.written)
      if (!isa<SharedArrayType>(a.getType()))
        return give("write to global memory in a loop with a symbolic trip "
                    "count and a __syncthreads()");
      else
        return give("shared array written after the last __syncthreads() of "
                    "a loop iteration (the next iteration reads it)");
    // A tile read in the last phase and written in the first would be
    // overwritten by the next iteration's first phase with no barrier
    // between.
    for (auto &[a, phase] : m.stagedReads)
      if (m.staged.lookup(a) == 0 && phase == m.phase)
        return give("shared array read after the last __syncthreads() of a "
                    "loop iteration and written before the first");
  }
  // A cell read before the loop writes it, at the same index, is one no
  // other iteration wrote (the race check shows two iterations never write
  // one cell): `y[i] = a * x[i] + y[i]`. Anything else would have to see
  // other iterations' writes.
  for (auto &[a, reads] : m.read) {
    auto w = m.written.find(a);
    if (w == m.written.end())
      continue;
    for (Value i : llvm::concat<Value>(reads, w->second))
      if (!sameExpr(i, reads.front()))
        return give("loop that reads an array it writes at another index "
                    "(iterations would see each other's writes)");
  }

  // A pointer the loop stores into a private variable that lives on.
  for (size_t i = storeBase; i < s.stores.size(); ++i)
    if (s.stores[i].val.kind != SymVal::Scalar)
      for (size_t j = 0; j < storeBase; ++j)
        if (pre.stores.size() > j && s.stores[j].obj == s.stores[i].obj)
          return give("pointer stored to a private variable in a loop with "
                      "a symbolic trip count");
  // What each carried value became after one iteration.
  for (Carried &c : carried) {
    if (c.phi) {
      SymVal v = s.vals.lookup(c.phi);
      if (v.kind != SymVal::Scalar)
        return give("pointer carried around a loop with a symbolic trip "
                    "count");
      c.next = v.scalar;
      continue;
    }
    c.next = c.holder;
    for (size_t i = s.stores.size(); i-- > storeBase;) {
      const PrivStore &st = s.stores[i];
      if (st.obj != c.obj)
        continue;
      bool exact = st.off.terms.empty() && st.off.constant == c.off &&
                   st.size == c.size;
      bool disjoint = st.off.terms.empty() &&
                      (st.off.constant >= c.off + (int64_t)c.size ||
                       c.off >= st.off.constant + (int64_t)st.size);
      if (disjoint)
        continue;
      if (!exact || (!isTrue(st.guard) && st.guard != guard) ||
          st.val.kind != SymVal::Scalar)
        return give("private variable updated conditionally or through a "
                    "pointer in a loop with a symbolic trip count");
      c.next = st.val.scalar;
      break;
    }
  }
  // Values the loop does not change are their initial values.
  {
    std::vector<Carried> changed;
    for (Carried &c : carried) {
      if (c.next != c.holder) {
        changed.push_back(c);
        continue;
      }
      Operation *h = c.holder.getDefiningOp();
      if (h == anchor)
        anchor = h->getNextNode();
      c.holder.replaceAllUsesWith(c.init);
      holders.erase(h);
      h->erase();
    }
    carried = std::move(changed);
  }
  // Staged reads, now that the unchanged variables are known.
  for (auto &[ph, array] : m.pending) {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPoint(ph);
    Location outer = loc;
    loc = ph.getLoc();
    auto restore = llvm::make_scope_exit([&] { loc = outer; });
    Value v = forwardStaged(m, array, ph.getOperand(0), ph.getOperand(1),
                            ph.getResult(0).getType());
    if (failed)
      return false;
    ph.getResult(0).replaceAllUsesWith(v);
    ph.erase();
  }
  // Induction variables: next = holder + step, the step loop-invariant.
  auto stepOf = [&](const Carried &c) -> Value {
    auto add = c.next.getDefiningOp<arith::AddIOp>();
    if (!add)
      return {};
    Value step = add.getLhs() == c.holder   ? add.getRhs()
                 : add.getRhs() == c.holder ? add.getLhs()
                                            : Value();
    if (!step || dependsOnAny(step, holders))
      return {};
    return step;
  };
  // Accumulators: next = holder + term, or select(c, holder + term, holder)
  // (a conditional `s += term`), where the term does not depend on any
  // accumulator. The loop's result is init + kv.sum(term).
  llvm::DenseSet<Operation *> accHolders;
  for (Carried &c : carried)
    if (c.next != c.holder && !stepOf(c))
      accHolders.insert(c.holder.getDefiningOp());
  if (m.cond && dependsOnAny(m.cond, accHolders))
    return give("loop exit test that depends on a value carried around the "
                "loop other than an induction variable");
  // The ops that compute next from the holder; the term.
  auto accTerm = [&](Carried &c, llvm::SmallVectorImpl<Operation *> &chain,
                     unsigned &addends) -> Value {
    Value n = c.next, cond;
    bool negate = false;
    if (auto sel = n.getDefiningOp<arith::SelectOp>()) {
      chain.push_back(sel);
      cond = sel.getCondition();
      if (sel.getFalseValue() == c.holder) {
        n = sel.getTrueValue();
      } else if (sel.getTrueValue() == c.holder) {
        n = sel.getFalseValue();
        negate = true;
      } else {
        return {};
      }
    }
    // holder + t0 + t1 + ... in any association (`s += a; s += b;`, or an
    // unrolled body): the term is the sum of the addends.
    llvm::DenseSet<Operation *> self{c.holder.getDefiningOp()};
    Value term;
    addends = 0;
    while (n != c.holder) {
      auto add = n.getDefiningOp<arith::AddIOp>();
      if (!add)
        return {};
      chain.push_back(add);
      bool inL = dependsOnAny(add.getLhs(), self);
      bool inR = dependsOnAny(add.getRhs(), self);
      if (inL == inR)
        return {};
      Value t = inL ? add.getRhs() : add.getLhs();
      term = term ? b.createOrFold<arith::AddIOp>(loc, t, term) : t;
      ++addends;
      n = inL ? add.getLhs() : add.getRhs();
    }
    if (!term || dependsOnAny(term, accHolders) ||
        (cond && dependsOnAny(cond, accHolders)))
      return {};
    if (cond) {
      Value zero = cst(term.getType(), 0);
      term = negate ? select(cond, zero, term) : select(cond, term, zero);
    }
    return term;
  };
  struct Acc {
    Carried *c;
    Value term;
    llvm::SmallVector<Operation *, 2> chain;
    unsigned addends = 0;
  };
  // A bounded check (--unroll) unrolls sums: a sum in one kernel and its
  // unrolled terms in the other could not be compared.
  if (!accHolders.empty() && opts.unrollBound)
    return give("value carried around a loop with a symbolic trip count "
                "that is not an induction variable, with --unroll");
  std::vector<Acc> accs;
  for (Carried &c : carried) {
    if (!accHolders.contains(c.holder.getDefiningOp()))
      continue;
    Acc a{&c, {}, {}};
    a.term = accTerm(c, a.chain, a.addends);
    if (!a.term)
      return give("value carried around a loop with a symbolic trip count "
                  "that is neither an induction variable nor a sum "
                  "(s += term)");
    accs.push_back(std::move(a));
  }
  // The running sum has no value inside the loop: only the source kernel's
  // "no signed overflow" assumptions may use it, and they are dropped (an
  // assumption fewer keeps a proof sound).
  for (Acc &a : accs) {
    llvm::SetVector<Operation *> slice;
    llvm::SmallVector<Value> work{a.c->holder};
    for (Operation *op : a.chain)
      work.push_back(op->getResult(0));
    while (!work.empty()) {
      Value v = work.pop_back_val();
      for (Operation *u : v.getUsers()) {
        if (llvm::is_contained(a.chain, u) || !slice.insert(u))
          continue;
        if (auto as = dyn_cast<AssumeOp>(u)) {
          if (!as->hasAttr("ub"))
            return give("running value of a sum used inside its loop");
          continue;
        }
        if (u->getNumResults() != 1 || isa<ReadOp>(u))
          return give("running value of a sum used inside its loop");
        work.push_back(u->getResult(0));
      }
    }
    // Users come after their operands in the block: erase from the last.
    llvm::SmallVector<Operation *> dead(slice.begin(), slice.end());
    dead.append(a.chain.begin(), a.chain.end());
    llvm::sort(dead, [](Operation *x, Operation *y) {
      return y->isBeforeInBlock(x);
    });
    for (Operation *op : dead)
      op->erase();
  }

  // The exit test: stay while (holder + offset) pred bound.
  auto cmp = m.cond.getDefiningOp<arith::CmpIOp>();
  if (!cmp)
    return give("loop exit test that is not a comparison");
  using P = arith::CmpIPredicate;
  P pred = m.stayOnTrue ? cmp.getPredicate()
                        : arith::invertPredicate(cmp.getPredicate());
  Value lhs = cmp.getLhs(), rhs = cmp.getRhs();
  if (dependsOnAny(lhs, holders) == dependsOnAny(rhs, holders))
    return give("loop exit test that does not compare an induction variable "
                "with a loop-invariant bound");
  if (dependsOnAny(rhs, holders)) {
    std::swap(lhs, rhs);
    switch (pred) {
    case P::slt: pred = P::sgt; break;
    case P::sle: pred = P::sge; break;
    case P::sgt: pred = P::slt; break;
    case P::sge: pred = P::sle; break;
    case P::ult: pred = P::ugt; break;
    case P::ule: pred = P::uge; break;
    case P::ugt: pred = P::ult; break;
    case P::uge: pred = P::ule; break;
    default: break;
    }
  }
  // `x != bound` (how -O2 writes a rotated loop's test): ult, with the
  // checker proving that x starts at most at bound and reaches it exactly.
  bool fromNe = pred == P::ne;
  if (fromNe)
    pred = P::ult;
  // A decreasing loop (x > bound, x >= bound) is counted on ~x, which
  // increases: ~ reverses the order of the w-bit values, signed and
  // unsigned alike, so the model's test and its no-wraparound check carry
  // over to it.
  bool down = false;
  switch (pred) {
  case P::sgt: pred = P::slt; down = true; break;
  case P::sge: pred = P::sle; down = true; break;
  case P::ugt: pred = P::ult; down = true; break;
  case P::uge: pred = P::ule; down = true; break;
  default: break;
  }
  bool isSigned = pred == P::slt || pred == P::sle;
  if (!isSigned && pred != P::ult && pred != P::ule)
    return give("loop exit test other than <, <=, >, >=, != on an induction "
                "variable");
  // Comparing extended values is comparing the values.
  if (auto e = lhs.getDefiningOp<arith::ExtSIOp>(); e && isSigned)
    lhs = e.getIn();
  else if (auto e = lhs.getDefiningOp<arith::ExtUIOp>(); e && !isSigned)
    lhs = e.getIn();
  if (auto e = rhs.getDefiningOp<arith::ExtSIOp>(); e && isSigned &&
      e.getIn().getType() == lhs.getType())
    rhs = e.getIn();
  else if (auto e = rhs.getDefiningOp<arith::ExtUIOp>(); e && !isSigned &&
           e.getIn().getType() == lhs.getType())
    rhs = e.getIn();
  const Carried *iv = nullptr;
  Value offset;
  for (const Carried &c : carried) {
    if (c.next == c.holder)
      continue;
    if (lhs == c.holder) {
      iv = &c;
    } else if (auto add = lhs.getDefiningOp<arith::AddIOp>()) {
      Value o = add.getLhs() == c.holder   ? add.getRhs()
                : add.getRhs() == c.holder ? add.getLhs()
                                           : Value();
      if (o && !dependsOnAny(o, holders)) {
        iv = &c;
        offset = o;
      }
    }
    if (iv)
      break;
  }
  if (!iv)
    return give("loop exit test on something other than an induction "
                "variable plus a loop-invariant offset");
  Value step = stepOf(*iv);
  // `x != bound` stepping down by a constant.
  if (llvm::APInt c; fromNe && matchPattern(step, m_ConstantInt(&c)) &&
                     c.isNegative())
    down = true;
  // The model counts without wraparound; kv.iter's width makes the checker
  // prove that the variable does not wrap before the loop ends (C's
  // `i += blockDim.x * gridDim.x` is an unsigned add that may).
  unsigned w = lhs.getType().getIntOrFloatBitWidth();
  if (w > 32)
    return give("loop whose induction variable is wider than 32 bits");
  bool doWhile = exiting == latch;
  // `x != bound` tested on the value before the step (the old value, at the
  // latch): the model starts one step below the first value, -1 from 0, so
  // it counts signed.
  if (fromNe && doWhile && offset != step) {
    pred = P::slt;
    isSigned = true;
  }

  // Build the model right before the loop body: kv.iter, the induction
  // variables at iteration k, and the iteration's guard.
  Type i64 = b.getI64Type();
  auto ext = [&](Value v, bool sgn) { return toI64(v, sgn); };
  // A decreasing unsigned variable steps by a negative number too.
  Value step64 = ext(step, isSigned || down);
  Value init64 = ext(iv->init, isSigned);
  // The value tested in iteration j is init + offset + j * step. A header
  // test runs iteration k when its own test passes; a latch test (a
  // rotated loop) when iteration k - 1's did: lb = init + offset - step,
  // which is init when the latch tests the incremented value.
  Value lb = init64;
  if (!(doWhile && offset == step)) {
    if (offset)
      lb = b.createOrFold<arith::AddIOp>(loc, lb, ext(offset, isSigned));
    if (doWhile)
      lb = b.createOrFold<arith::SubIOp>(loc, lb, step64);
  }
  Value bound = ext(rhs, isSigned);
  // The model's variable for a decreasing loop: ~x as a 64-bit value, C - x
  // with C = -1 (signed) or 2^w - 1 (unsigned), with the opposite step.
  Value iterLb = lb, iterStep = step64, iterBound = bound;
  if (down) {
    Value c = cst(i64, isSigned ? -1 : int64_t((uint64_t(1) << w) - 1));
    iterLb = b.createOrFold<arith::SubIOp>(loc, c, lb);
    iterBound = b.createOrFold<arith::SubIOp>(loc, c, bound);
    iterStep = b.createOrFold<arith::SubIOp>(loc, cst(i64, 0), step64);
  }
  auto iter = IterOp::create(b, loc, i64, iterLb, iterStep, iterBound,
                             entryGuard,
                             b.getStringAttr(isSigned
                                                 ? (pred == P::slt ? "slt"
                                                                   : "sle")
                                                 : (pred == P::ult ? "ult"
                                                                   : "ule")),
                             doWhile ? b.getUnitAttr() : UnitAttr(),
                             b.getI64IntegerAttr(w),
                             fromNe ? b.getUnitAttr() : UnitAttr());
  Value k = iter.getResult();
  llvm::DenseMap<Value, Value> mulByStep;
  auto times = [&](Value s64) {
    Value &m = mulByStep[s64];
    if (!m)
      m = b.createOrFold<arith::MulIOp>(loc, k, s64);
    return m;
  };
  Value tested = b.createOrFold<arith::AddIOp>(loc, iterLb, times(iterStep));
  Value live = b.createOrFold<arith::CmpIOp>(loc, pred, tested, iterBound);
  if (doWhile)
    live = b.createOrFold<arith::OrIOp>(loc, eq(k, cst(i64, 0)), live);
  live = andI1(entryGuard, live);
  std::vector<std::pair<Value, Value>> repl{{guard, live}};
  for (Carried &c : carried) {
    if (accHolders.contains(c.holder.getDefiningOp()))
      continue;
    Value v = c.init;
    if (c.next != c.holder) {
      bool sgn = &c != iv || isSigned;
      unsigned cw = c.holder.getType().getIntOrFloatBitWidth();
      Value s64 = &c == iv ? step64 : ext(stepOf(c), sgn);
      c.step64 = s64;
      Value at = b.createOrFold<arith::AddIOp>(
          loc, &c == iv ? init64 : ext(c.init, sgn), times(s64));
      v = cw == 64 ? at
                   : b.createOrFold<arith::TruncIOp>(loc, c.holder.getType(),
                                                     at);
    }
    repl.push_back({c.holder, v});
  }
  for (auto &[h, v] : repl) {
    hoist(v, anchor);
    h.replaceAllUsesWith(v);
  }
  // Barriers inside: every thread of the block runs the same iterations.
  if (m.phase)
    for (Value v : {iterLb, iterStep, iterBound, entryGuard})
      if (dependsOnTid(v) || dependsOnRead(v))
        return give("loop with a __syncthreads() whose trip count may "
                    "differ between the threads of a block");
  // Each sum, after the loop body.
  // A loop unrolled U times (the step of its induction variable is U, and
  // its sums add U terms per iteration) is marked: the checker then tries to
  // regroup its sums with a remainder loop's.
  std::optional<unsigned> unrolled;
  if (llvm::APInt c; matchPattern(step, m_ConstantInt(&c))) {
    if (down)
      c.negate();
    if (c.sgt(1) && c.slt(64))
      unrolled = c.getZExtValue();
  }
  std::vector<Value> totals;
  for (Acc &a : accs) {
    auto sum = SumOp::create(b, loc, a.term.getType(), a.term, k,
                             IntegerAttr());
    if (unrolled && a.addends == *unrolled)
      sum.setGroupAttr(b.getI64IntegerAttr(*unrolled));
    // A barrier loop over tiles adds a tile's terms per iteration: the
    // checker tries to regroup them with a loop over single terms.
    else if (m.phase && a.addends >= 2)
      sum.setGroupAttr(b.getI64IntegerAttr(a.addends));
    totals.push_back(
        b.createOrFold<arith::AddIOp>(loc, a.c->init, sum.getResult()));
  }
  // A loop that reaches its bound exactly (x != bound) runs
  // (bound - lb) / step iterations: its induction variables' values after
  // it are known (a runtime-unrolled loop's remainder starts there).
  std::vector<std::pair<const llvm::Value *, Value>> finals;
  if (fromNe) {
    Value trips = b.createOrFold<arith::DivUIOp>(
        loc, b.createOrFold<arith::SubIOp>(loc, iterBound, iterLb), iterStep);
    for (Carried &c : carried) {
      if (!c.phi || !c.step64)
        continue;
      bool sgn = &c != iv || isSigned;
      Type ct = c.phi->getType()->isIntegerTy()
                    ? b.getIntegerType(c.phi->getType()->getIntegerBitWidth())
                    : Type();
      if (!ct)
        continue;
      Value s64 = c.step64;
      Value init = &c == iv ? init64 : ext(c.init, sgn);
      auto at = [&](Value n) {
        Value v = b.createOrFold<arith::AddIOp>(
            loc, init, b.createOrFold<arith::MulIOp>(loc, n, s64));
        return ct.getIntOrFloatBitWidth() == 64
                   ? v
                   : b.createOrFold<arith::TruncIOp>(loc, ct, v);
      };
      // The update's last value is the one of iteration `trips`; the
      // phi's, seen by the exit, that of the iteration that tested it.
      Value after = at(trips);
      if (auto *upd = dyn_cast<llvm::Instruction>(
              c.phi->getIncomingValueForBlock(latch));
          upd && l->contains(upd))
        finals.push_back({upd, after});
      finals.push_back(
          {c.phi, exiting == header
                      ? after
                      : at(b.createOrFold<arith::SubIOp>(loc, trips,
                                                          cst(i64, 1)))});
    }
  }
  for (Operation *h : holders) {
    if (!h->use_empty())
      return give("running value of a sum used inside its loop");
    h->erase();
  }

  // After the loop: the state before it (the loop ends for every thread
  // that enters it); what the loop computed is not kept, but for its sums.
  s = std::move(pre);
  SymVal gone;
  gone.kind = SymVal::LoopResult;
  for (const llvm::BasicBlock *bb : l->blocks())
    for (const llvm::Instruction &i : *bb)
      if (!i.getType()->isVoidTy())
        s.vals[&i] = gone;
  for (auto &[v, val] : finals)
    s.vals[v] = scalar(val);
  for (Carried &c : carried)
    if (!c.phi && c.next != c.holder) {
      Linear off;
      off.constant = c.off;
      s.stores.push_back({c.obj, off, c.size, gone, i1(true)});
    }
  for (size_t i = 0; i < accs.size(); ++i) {
    const Carried &c = *accs[i].c;
    if (!c.phi) {
      Linear off;
      off.constant = c.off;
      s.stores.push_back({c.obj, off, c.size, scalar(totals[i]), i1(true)});
      continue;
    }
    // The value of the last iteration's update is the total; so is the
    // header's phi when the header tests the exit (it saw every update).
    if (auto *upd = dyn_cast<llvm::Instruction>(
            c.phi->getIncomingValueForBlock(latch)))
      if (l->contains(upd))
        s.vals[upd] = scalar(totals[i]);
    if (exiting == header)
      s.vals[c.phi] = scalar(totals[i]);
  }
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
          loc, b.createOrFold<arith::MulIOp>(loc, k, cst(i64, int64_t(1) << 32)),
          w.getIndex());
      int64_t size = cells > 0 ? cells : int64_t(1) << 32;
      ProveOp::create(
          b, w.getLoc(),
          b.createOrFold<arith::OrIOp>(
              loc, notI1(w.getGuard()),
              b.createOrFold<arith::CmpIOp>(loc, arith::CmpIPredicate::ult,
                                            w.getIndex(), cst(i64, size))),
          b.getStringAttr("staged shared-array write in bounds"));
      w.getArrayMutable().assign(ex);
      w.getIndexMutable().assign(at);
    }
  }
  takeEdge(exiting, exit, s);
  return !failed;
}


} // namespace lowering
} // namespace kv
