//===- LowerLoops.cpp - Loops with a symbolic trip count ------------------===//
//
// A loop whose exit test does not fold is modelled as one symbolic
// iteration: kv.iter and its induction variables at iteration k (and kv.sum
// for what it accumulates, LowerSums.cpp); else unrolled as far as its trip
// count allows. modelLoop runs the steps of the model in order; what the
// loop leaves behind (trip count, exit values, state) is LowerLoopExit.cpp.
//
//===----------------------------------------------------------------------===//
#include "passes/lower/Lowerer.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/SaveAndRestore.h"

#include <optional>

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
  // The enclosing modelled loops record this loop's reads and writes (and
  // staged reads to resolve): an attempt rolled back erases their ops.
  std::vector<SymLoop> symSaved = symLoops;
  Unsupported whyBefore = why;
  // The visits of an attempt that is rolled back are undone too: --unroll's
  // bound counts header visits, and a model attempt's iteration would
  // otherwise use up part of it (the bounded verdict would claim more
  // iterations than were unrolled).
  auto visitsSaved = visits;
  // This execution of the loop counts its iterations from here.
  std::optional<unsigned> outerEntry;
  if (auto it = entryVisits.find(header); it != entryVisits.end())
    outerEntry = it->second;
  entryVisits[header] = visits[header];
  llvm::scope_exit restoreEntry([&] {
    if (outerEntry)
      entryVisits[header] = *outerEntry;
    else
      entryVisits.erase(header);
  });
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
    assert(symLoops.size() == symSaved.size() && "unbalanced loop models");
    // Element by element: references to the enclosing loops stay valid.
    for (size_t i = 0; i < symLoops.size(); ++i)
      symLoops[i] = symSaved[i];
    failed = false;
    why = whyBefore;
  };
  // Outermost loops only: a constant loop inside a modelled one would make
  // a nested model where the enclosing loop's model takes an unrolled body.
  if (opts.modelConstantLoops && loopEntries.empty() && !noModel.contains(l))
    for (const llvm::Loop *inner : l->getLoopsInPreorder())
      if (!optionModelFailed.contains(inner) &&
          modelConstant.insert(inner).second)
        modelledByOption.insert(inner);
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
  // Loops of the nest modelled only by LowerOptions::modelConstantLoops:
  // the nest starts over as without the option.
  bool byOption = false;
  for (const llvm::Loop *inner : l->getLoopsInPreorder())
    if (modelledByOption.erase(inner)) {
      modelConstant.erase(inner);
      optionModelFailed.insert(inner);
      byOption = true;
    }
  if (byOption)
    return enterLoop(l, header, s, stopAt, from);
  // Exits the counted model cannot take: a loop with breaks.
  if (opts.breakLoops && !opts.unrollBound &&
      llvm::StringRef(reason).contains("exit")) {
    const llvm::BasicBlock *cont = nullptr, *contFrom = nullptr;
    if (modelBreakLoop(l, s, cont, contFrom)) {
      if (cont != stopAt)
        runBlocks(cont, s, stopAt, contFrom);
      return;
    }
    if (!why.construct.empty())
      reason += "; as a loop with breaks: " + why.construct;
    rollBack();
  }
  noModel.insert(l);
  runBlocks(header, s, stopAt, from, /*entered=*/true);
  noModel.erase(l);
  if (failed && why.splitOn.empty() &&
      llvm::StringRef(why.construct).starts_with("loop whose trip count"))
    why.construct += "; as a loop model: " + reason;
}

void Lowerer::hoist(Value v, Operation *before) {
  // The ops after `before` (a loop's anchor: the ops lowered since), listed
  // by walking them rather than by isBeforeInBlock: every move into the
  // anchor's gap invalidates the block's numbering, and the next question
  // renumbers the whole block (quadratic in a kernel whose unrolled loop
  // holds loop models).
  llvm::SmallPtrSet<Operation *, 32> after;
  for (Operation *d = before->getNextNode(); d; d = d->getNextNode())
    after.insert(d);
  // Operands first, so that each moved op still follows its operands.
  llvm::SetVector<Operation *> moving;
  std::function<void(Value)> visit = [&](Value x) {
    Operation *d = x.getDefiningOp();
    if (!d || !after.contains(d) || moving.contains(d))
      return;
    for (Value o : d->getOperands())
      visit(o);
    moving.insert(d);
  };
  visit(v);
  for (Operation *d : moving)
    d->moveBefore(before);
}

bool Lowerer::dependsOnAny(Value v, const llvm::DenseSet<Operation *> &ops) {
  return sliceHas(v, [&](Operation *d) { return ops.contains(d); });
}

Value Lowerer::placeholder(LoopModel &lm, Type t) {
  auto op =
      UnrealizedConversionCastOp::create(b, loc, TypeRange{t}, ValueRange{});
  lm.holders.insert(op);
  return op.getResult(0);
}

bool Lowerer::giveUp(const LoopModel &lm, const llvm::Twine &what) {
  if (!failed) {
    curInst = lm.exiting->getTerminator();
    fail(what);
  }
  return false;
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
  LoopModel lm;
  lm.l = l;
  lm.header = header;
  lm.latch = latch;
  lm.exiting = exiting;
  lm.exit = exit;
  lm.pre = s;
  lm.entryGuard = s.guard;
  if (!carryValues(lm, s))
    return false;
  runIteration(lm, s);
  if (!checkIteration(lm, s) || !nextValues(lm, s))
    return false;
  dropUnchanged(lm);
  if (!resolveStagedReads(lm) || !findSums(lm) || !dropRunningSums(lm) ||
      !readExitTest(lm) || !findInductionVariable(lm))
    return false;
  emitIterOp(lm);
  replacePlaceholders(lm);
  if (!checkUniformTripCount(lm))
    return false;
  emitSums(lm);
  exactExitValues(lm);
  for (Operation *h : lm.holders) {
    if (!h->use_empty())
      return giveUp(lm, "running value of a sum used inside its loop");
    h->erase();
  }

  stateAfterLoop(lm, s);
  expandStagedWrites(lm);
  takeEdge(exiting, exit, s);
  return !failed;
}

bool Lowerer::carryValues(LoopModel &lm, State &s) {
  std::vector<Carried> &carried = lm.carried;
  // Placeholders for the values carried around the loop (header phis and
  // private variables), and for "this iteration runs".
  for (const llvm::PHINode &phi : lm.header->phis()) {
    SymVal v = s.vals.lookup(&phi);
    if (v.kind != SymVal::Scalar) {
      curInst = &phi;
      fail("pointer carried around a loop with a symbolic trip count");
      return false;
    }
    Carried c;
    c.phi = &phi;
    c.init = v.scalar;
    c.holder = placeholder(lm, v.scalar.getType());
    s.vals[&phi] = scalar(c.holder);
    carried.push_back(c);
  }
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
    llvm::SaveAndRestore internal(internalRead, true);
    SymVal cur =
        loadPrivate(p, llvm::IntegerType::get(f.getContext(), st.size * 8), s);
    if (failed)
      return false;
    if (cur.kind != SymVal::Scalar)
      continue;
    Carried c;
    c.obj = st.obj;
    c.off = st.off.constant;
    c.size = st.size;
    c.init = cur.scalar;
    c.holder = placeholder(lm, cur.scalar.getType());
    s.stores.push_back({st.obj, st.off, st.size, scalar(c.holder), i1(true)});
    carried.push_back(c);
  }
  return true;
}

void Lowerer::runIteration(LoopModel &lm, State &s) {
  Block &blk = kernel.getBlock();
  Value &guard = lm.guard;
  Operation *&anchor = lm.anchor;
  SymLoop &m = lm.m;
  guard = placeholder(lm, b.getI1Type());
  anchor = guard.getDefiningOp();
  if (!lm.carried.empty())
    anchor = lm.carried.front().holder.getDefiningOp();
  s.guard = guard;
  lm.storeBase = s.stores.size();
  symLoops.emplace_back();
  symLoops.back().loop = lm.l;
  symLoops.back().exiting = lm.exiting;
  symLoops.back().guard = guard;
  symLoops.back().startMark = &blk.back();
  symLoops.back().preDirty = !ownWrites.empty() || !loopWritten.empty();
  symLoops.back().breaks = lm.breaks;
  symLoops.back().storeBase = lm.storeBase;
  symLoops.back().top = guard;
  runBlocks(lm.header, s, /*stopAt=*/lm.header, nullptr, /*entered=*/true);
  m = std::move(symLoops.back());
  symLoops.pop_back();
  for (SymLoop &outer : symLoops) {
    for (auto &[a, is] : m.read)
      outer.read[a].append(is.begin(), is.end());
    for (auto &[a, is] : m.written)
      outer.written[a].append(is.begin(), is.end());
  }
}

bool Lowerer::checkIteration(LoopModel &lm, State &s) {
  SymLoop &m = lm.m;
  if (failed)
    return false;
  if (s.dead)
    return giveUp(lm, "loop body that does not return to its header");
  if (!m.cond && !lm.breaks)
    return giveUp(lm, "loop without an exit test");
  if (m.phase && !checkBarrierPhases(lm))
    return false;
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
        return giveUp(lm, "loop that reads an array it writes at another index "
                          "(iterations would see each other's writes)");
  }
  // A pointer the loop stores into a private variable that lives on.
  for (size_t i = lm.storeBase; i < s.stores.size(); ++i)
    if (s.stores[i].val.kind != SymVal::Scalar)
      for (size_t j = 0; j < lm.storeBase; ++j)
        if (lm.pre.stores.size() > j && s.stores[j].obj == s.stores[i].obj)
          return giveUp(lm,
                        "pointer stored to a private variable in a loop with "
                        "a symbolic trip count");
  return true;
}

bool Lowerer::nextValues(LoopModel &lm, State &s) {
  // What each carried value became after one iteration.
  for (Carried &c : lm.carried) {
    if (c.phi) {
      SymVal v = s.vals.lookup(c.phi);
      if (v.kind != SymVal::Scalar)
        return giveUp(lm, "pointer carried around a loop with a symbolic trip "
                          "count");
      c.next = v.scalar;
      continue;
    }
    // The iteration's stores in order: a conditional one (`if (r < rows)
    // acc += ...`) keeps the value before it where its guard fails.
    Value cur = c.holder;
    for (size_t i = lm.storeBase; i < s.stores.size(); ++i) {
      const PrivStore &st = s.stores[i];
      if (st.obj != c.obj)
        continue;
      bool exact =
          st.off.terms.empty() && st.off.constant == c.off && st.size == c.size;
      bool disjoint =
          st.off.terms.empty() && (st.off.constant >= c.off + (int64_t)c.size ||
                                   c.off >= st.off.constant + (int64_t)st.size);
      if (disjoint)
        continue;
      if (!exact || st.val.kind != SymVal::Scalar ||
          st.val.scalar.getType() != cur.getType())
        return giveUp(lm, "private variable updated through a pointer or "
                          "in part in a loop with a symbolic trip count");
      cur = isTrue(st.guard) || st.guard == lm.guard ||
                    llvm::is_contained(lm.m.tops, st.guard)
                ? st.val.scalar
                : select(st.guard, st.val.scalar, cur);
    }
    c.next = cur;
  }
  return true;
}

void Lowerer::dropUnchanged(LoopModel &lm) {
  std::vector<Carried> &carried = lm.carried;
  Operation *&anchor = lm.anchor;
  // Values the loop does not change are their initial values.
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
    lm.holders.erase(h);
    h->erase();
  }
  carried = std::move(changed);
}

// Induction variables: next = holder + step, the step loop-invariant.
Value Lowerer::stepOf(const LoopModel &lm, const Carried &c) {
  auto add = c.next.getDefiningOp<arith::AddIOp>();
  if (!add)
    return {};
  Value step = add.getLhs() == c.holder   ? add.getRhs()
               : add.getRhs() == c.holder ? add.getLhs()
                                          : Value();
  if (!step || dependsOnAny(step, lm.holders))
    return {};
  return step;
}

bool Lowerer::readExitTest(LoopModel &lm) {
  // The exit test: stay while (holder + offset) pred bound.
  auto cmp = lm.m.cond.getDefiningOp<arith::CmpIOp>();
  if (!cmp)
    return giveUp(lm, "loop exit test that is not a comparison");
  using P = arith::CmpIPredicate;
  P pred = lm.m.stayOnTrue ? cmp.getPredicate()
                           : arith::invertPredicate(cmp.getPredicate());
  Value lhs = cmp.getLhs(), rhs = cmp.getRhs();
  if (dependsOnAny(lhs, lm.holders) == dependsOnAny(rhs, lm.holders))
    return giveUp(lm,
                  "loop exit test that does not compare an induction variable "
                  "with a loop-invariant bound");
  if (dependsOnAny(rhs, lm.holders)) {
    std::swap(lhs, rhs);
    switch (pred) {
    case P::slt:
      pred = P::sgt;
      break;
    case P::sle:
      pred = P::sge;
      break;
    case P::sgt:
      pred = P::slt;
      break;
    case P::sge:
      pred = P::sle;
      break;
    case P::ult:
      pred = P::ugt;
      break;
    case P::ule:
      pred = P::uge;
      break;
    case P::ugt:
      pred = P::ult;
      break;
    case P::uge:
      pred = P::ule;
      break;
    default:
      break;
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
  case P::sgt:
    pred = P::slt;
    down = true;
    break;
  case P::sge:
    pred = P::sle;
    down = true;
    break;
  case P::ugt:
    pred = P::ult;
    down = true;
    break;
  case P::uge:
    pred = P::ule;
    down = true;
    break;
  default:
    break;
  }
  bool isSigned = pred == P::slt || pred == P::sle;
  if (!isSigned && pred != P::ult && pred != P::ule)
    return giveUp(lm,
                  "loop exit test other than <, <=, >, >=, != on an induction "
                  "variable");
  // Comparing extended values is comparing the values.
  if (auto e = lhs.getDefiningOp<arith::ExtSIOp>(); e && isSigned)
    lhs = e.getIn();
  else if (auto e = lhs.getDefiningOp<arith::ExtUIOp>(); e && !isSigned)
    lhs = e.getIn();
  if (auto e = rhs.getDefiningOp<arith::ExtSIOp>();
      e && isSigned && e.getIn().getType() == lhs.getType())
    rhs = e.getIn();
  else if (auto e = rhs.getDefiningOp<arith::ExtUIOp>();
           e && !isSigned && e.getIn().getType() == lhs.getType())
    rhs = e.getIn();
  lm.pred = pred;
  lm.lhs = lhs;
  lm.rhs = rhs;
  lm.fromNe = fromNe;
  lm.down = down;
  lm.isSigned = isSigned;
  return true;
}

bool Lowerer::findInductionVariable(LoopModel &lm) {
  using P = arith::CmpIPredicate;
  Value lhs = lm.lhs;
  bool fromNe = lm.fromNe;
  const Carried *iv = nullptr;
  Value offset;
  for (const Carried &c : lm.carried) {
    if (c.next == c.holder)
      continue;
    if (lhs == c.holder) {
      iv = &c;
    } else if (auto add = lhs.getDefiningOp<arith::AddIOp>()) {
      Value o = add.getLhs() == c.holder   ? add.getRhs()
                : add.getRhs() == c.holder ? add.getLhs()
                                           : Value();
      if (o && !dependsOnAny(o, lm.holders)) {
        iv = &c;
        offset = o;
      }
    }
    if (iv)
      break;
  }
  if (!iv)
    return giveUp(lm, "loop exit test on something other than an induction "
                      "variable plus a loop-invariant offset");
  Value step = stepOf(lm, *iv);
  // `x != bound` stepping down by a constant.
  if (llvm::APInt c;
      fromNe && matchPattern(step, m_ConstantInt(&c)) && c.isNegative())
    lm.down = true;
  // The model counts without wraparound; kv.iter's width makes the checker
  // prove that the variable does not wrap before the loop ends (C's
  // `i += blockDim.x * gridDim.x` is an unsigned add that may).
  unsigned w = lhs.getType().getIntOrFloatBitWidth();
  // A 64-bit variable (MLIR's index, C's size_t or long) is counted too:
  // the checker proves that the model's 64-bit values are exact for it
  // (Encoder::uncountable).
  if (w > 64)
    return giveUp(lm, "loop whose induction variable is wider than 64 bits");
  bool doWhile = lm.exiting == lm.latch;
  // `x != bound` tested on the value before the step (the old value, at the
  // latch): the model starts one step below the first value, -1 from 0, so
  // it counts signed.
  if (fromNe && doWhile && offset != step) {
    lm.pred = P::slt;
    lm.isSigned = true;
  }
  lm.iv = iv;
  lm.offset = offset;
  lm.step = step;
  lm.w = w;
  lm.doWhile = doWhile;
  return true;
}

void Lowerer::emitIterOp(LoopModel &lm) {
  using P = arith::CmpIPredicate;
  P pred = lm.pred;
  Value rhs = lm.rhs, offset = lm.offset, step = lm.step;
  bool isSigned = lm.isSigned, down = lm.down, doWhile = lm.doWhile;
  // Build the model right before the loop body: kv.iter, the induction
  // variables at iteration k, and the iteration's guard.
  Type i64 = b.getI64Type();
  // A decreasing unsigned variable steps by a negative number too.
  Value &step64 = lm.step64;
  step64 = toI64(step, isSigned || down);
  lm.init64 = toI64(lm.iv->init, isSigned);
  // The value tested in iteration j is init + offset + j * step. A header
  // test runs iteration k when its own test passes; a latch test (a
  // rotated loop) when iteration k - 1's did: lb = init + offset - step,
  // which is init when the latch tests the incremented value.
  Value lb = lm.init64;
  if (!(doWhile && offset == step)) {
    if (offset)
      lb = b.createOrFold<arith::AddIOp>(loc, lb, toI64(offset, isSigned));
    if (doWhile)
      lb = b.createOrFold<arith::SubIOp>(loc, lb, step64);
  }
  Value bound = toI64(rhs, isSigned);
  // The model's variable for a decreasing loop: ~x as a 64-bit value, C - x
  // with C = -1 (signed) or 2^w - 1 (unsigned), with the opposite step.
  Value &iterLb = lm.iterLb, &iterStep = lm.iterStep, &iterBound = lm.iterBound;
  iterLb = lb;
  iterStep = step64;
  iterBound = bound;
  if (down) {
    Value c = cst(
        i64, isSigned || lm.w >= 64 ? -1 : int64_t((uint64_t(1) << lm.w) - 1));
    iterLb = b.createOrFold<arith::SubIOp>(loc, c, lb);
    iterBound = b.createOrFold<arith::SubIOp>(loc, c, bound);
    iterStep = b.createOrFold<arith::SubIOp>(loc, cst(i64, 0), step64);
  }
  auto iter = IterOp::create(
      b, loc, i64, iterLb, iterStep, iterBound, lm.entryGuard,
      isSigned ? (pred == P::slt ? IterPred::slt : IterPred::sle)
               : (pred == P::ult ? IterPred::ult : IterPred::ule),
      doWhile, b.getI64IntegerAttr(lm.w), lm.fromNe,
      /*uncounted=*/false);
  lm.k = iter.getResult();
}

Value Lowerer::kTimes(LoopModel &lm, Value s64) {
  Value &m = lm.mulByStep[s64];
  if (!m)
    m = b.createOrFold<arith::MulIOp>(loc, lm.k, s64);
  return m;
}

void Lowerer::replacePlaceholders(LoopModel &lm) {
  Type i64 = b.getI64Type();
  arith::CmpIPredicate pred = lm.pred;
  Value iterLb = lm.iterLb, iterStep = lm.iterStep, iterBound = lm.iterBound;
  Value k = lm.k, entryGuard = lm.entryGuard, guard = lm.guard;
  Value step64 = lm.step64, init64 = lm.init64;
  bool isSigned = lm.isSigned, doWhile = lm.doWhile;
  const Carried *iv = lm.iv;
  Value tested =
      b.createOrFold<arith::AddIOp>(loc, iterLb, kTimes(lm, iterStep));
  Value live = b.createOrFold<arith::CmpIOp>(loc, pred, tested, iterBound);
  if (doWhile)
    live = b.createOrFold<arith::OrIOp>(loc, eq(k, cst(i64, 0)), live);
  live = andI1(entryGuard, live);
  std::vector<std::pair<Value, Value>> repl{{guard, live}};
  for (Carried &c : lm.carried) {
    if (lm.accHolders.contains(c.holder.getDefiningOp())) {
      for (Acc &a : lm.accs)
        if (a.fold && a.c == &c) {
          a.carry = CarryOp::create(b, loc, c.init.getType(), c.init, k);
          repl.push_back({c.holder, a.carry});
        }
      continue;
    }
    Value v = c.init;
    if (c.next != c.holder) {
      bool sgn = &c != iv || isSigned;
      unsigned cw = c.holder.getType().getIntOrFloatBitWidth();
      Value s64 = &c == iv ? step64 : toI64(stepOf(lm, c), sgn);
      c.step64 = s64;
      Value at = b.createOrFold<arith::AddIOp>(
          loc, &c == iv ? init64 : toI64(c.init, sgn), kTimes(lm, s64));
      v = cw == 64
              ? at
              : b.createOrFold<arith::TruncIOp>(loc, c.holder.getType(), at);
    }
    repl.push_back({c.holder, v});
  }
  for (auto &[h, v] : repl) {
    hoist(v, lm.anchor);
    h.replaceAllUsesWith(v);
  }
}

} // namespace lowering
} // namespace kv
