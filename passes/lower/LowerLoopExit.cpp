//===- LowerLoopExit.cpp - What a modelled loop leaves behind -------------===//
//
// After a loop modelled as one symbolic iteration (LowerLoops.cpp): its trip
// count, the exact values its carried variables have at the exit, and the
// state after it (the state before the loop, with what the loop stored and
// does not carry marked unknown).
//
//===----------------------------------------------------------------------===//
#include "passes/lower/Lowerer.h"

namespace kv {
namespace lowering {

Value Lowerer::tripCount(LoopModel &lm) {
  using P = arith::CmpIPredicate;
  Type i64 = b.getI64Type();
  Value lb = lm.iterLb, step = lm.iterStep, bound = lm.iterBound;
  // A loop that reaches its bound exactly (x != bound) runs
  // (bound - lb) / step iterations.
  if (lm.fromNe)
    return b.createOrFold<arith::DivUIOp>(
        loc, b.createOrFold<arith::SubIOp>(loc, bound, lb), step);
  // Iteration j runs while lb + j * step pred bound, with a positive step
  // and no wraparound (the countable-loop check): ceil((bound - lb) / step)
  // iterations for < (one more for <=) when the first test passes, else
  // none; a rotated loop runs its first iteration untested. A thread that
  // does not reach the loop runs none.
  P pred = lm.pred;
  bool strict = pred == P::slt || pred == P::ult;
  Value first = b.createOrFold<arith::CmpIOp>(loc, pred, lb, bound);
  Value diff = b.createOrFold<arith::SubIOp>(loc, bound, lb);
  Value n =
      strict ? b.createOrFold<arith::DivUIOp>(
                   loc,
                   b.createOrFold<arith::AddIOp>(
                       loc, diff,
                       b.createOrFold<arith::SubIOp>(loc, step, cst(i64, 1))),
                   step)
             : b.createOrFold<arith::AddIOp>(
                   loc, b.createOrFold<arith::DivUIOp>(loc, diff, step),
                   cst(i64, 1));
  Value zero = cst(i64, 0);
  Value trips = b.createOrFold<arith::SelectOp>(loc, first, n, zero);
  if (lm.doWhile)
    trips = b.createOrFold<arith::SelectOp>(loc, eq(trips, zero), cst(i64, 1),
                                            trips);
  return b.createOrFold<arith::SelectOp>(loc, lm.entryGuard, trips, zero);
}

void Lowerer::exactExitValues(LoopModel &lm) {
  Type i64 = b.getI64Type();
  const llvm::Loop *l = lm.l;
  const llvm::BasicBlock *header = lm.header, *latch = lm.latch,
                         *exiting = lm.exiting;
  Value init64 = lm.init64;
  bool isSigned = lm.isSigned;
  const Carried *iv = lm.iv;
  // The induction variables' values after the loop follow from its trip
  // count (a runtime-unrolled loop's remainder starts there; a hand-written
  // vector loop's tail continues from its index).
  std::vector<std::pair<const llvm::Value *, Value>> &finals = lm.finals;
  Value trips = tripCount(lm);
  lm.trips = trips;
  for (Carried &c : lm.carried) {
    if (!c.phi || !c.step64)
      continue;
    bool sgn = &c != iv || isSigned;
    Type ct = c.phi->getType()->isIntegerTy()
                  ? b.getIntegerType(c.phi->getType()->getIntegerBitWidth())
                  : Type();
    if (!ct)
      continue;
    Value init = &c == iv ? init64 : toI64(c.init, sgn);
    // The update's last value is the one of iteration `trips`; the phi's,
    // seen by the exit, that of the iteration that tested it. An update the
    // header computes before its exit test runs once more than the body
    // (trips + 1 times): it is left unknown after the loop.
    Value after = valueAfter(c, init, trips, ct);
    if (auto *upd =
            dyn_cast<llvm::Instruction>(c.phi->getIncomingValueForBlock(latch));
        upd && l->contains(upd) &&
        (lm.fromNe || !updatesBeforeHeaderTest(lm, upd->getParent())))
      finals.push_back({upd, after});
    finals.push_back({c.phi, exiting == header
                                 ? after
                                 : valueAfter(c, init,
                                              b.createOrFold<arith::SubIOp>(
                                                  loc, trips, cst(i64, 1)),
                                              ct)});
  }
}

bool Lowerer::updatesBeforeHeaderTest(const LoopModel &lm,
                                      const llvm::BasicBlock *bb) {
  // The header tests the exit and a later block closes the loop: the
  // header's own code runs on the last, failing test too.
  return lm.exiting == lm.header && lm.latch != lm.header && bb == lm.header;
}

Value Lowerer::valueAfter(const Carried &c, Value init64, Value n, Type t) {
  Value v = b.createOrFold<arith::AddIOp>(
      loc, init64, b.createOrFold<arith::MulIOp>(loc, n, c.step64));
  return t.getIntOrFloatBitWidth() == 64
             ? v
             : b.createOrFold<arith::TruncIOp>(loc, t, v);
}

void Lowerer::stateAfterLoop(LoopModel &lm, State &s) {
  // After the loop: the state before it (the loop ends for every thread
  // that enters it); what the loop computed is not kept, but for its sums.
  // A private variable the loop stores to that is not carried around it
  // (first assigned inside it) has no known value after it: not the one
  // from before the loop.
  std::vector<PrivStore> inLoop(s.stores.begin() + lm.storeBase,
                                s.stores.end());
  s = std::move(lm.pre);
  SymVal gone;
  gone.kind = SymVal::LoopResult;
  for (PrivStore st : inLoop) {
    bool carried = llvm::any_of(lm.carried, [&](const Carried &c) {
      return !c.phi && st.obj == c.obj && st.off.terms.empty() &&
             st.off.constant == c.off && st.size == c.size;
    });
    if (carried)
      continue;
    st.val = gone;
    st.guard = i1(true);
    st.leaveLoop();
    s.stores.push_back(st);
  }
  for (const llvm::BasicBlock *bb : lm.l->blocks())
    for (const llvm::Instruction &i : *bb)
      if (!i.getType()->isVoidTy())
        s.vals[&i] = gone;
  for (auto &[v, val] : lm.finals)
    s.vals[v] = scalar(val);
  for (Carried &c : lm.carried)
    if (!c.phi && c.next != c.holder) {
      Linear off;
      off.constant = c.off;
      // An induction variable in a private variable (-O0's `c` of
      // `for (; c + 4 <= w; c += 4)`) holds its value after the last
      // update; any other carried value is unknown after the loop.
      SymVal after = gone;
      Type t = c.init.getType(); // the holder is erased by now
      // Not where the header stores before its exit test (a `goto` loop's
      // `s += i; if (--n > 0) goto again;`): that store runs trips + 1
      // times.
      bool headerStores = false;
      if (updatesBeforeHeaderTest(lm, lm.header))
        for (const llvm::Instruction &i : *lm.header)
          headerStores |= isa<llvm::StoreInst>(i);
      if (c.step64 && lm.trips && !headerStores && t.isInteger() &&
          t.getIntOrFloatBitWidth() <= 64)
        after = scalar(valueAfter(c, toI64(c.init, &c != lm.iv || lm.isSigned),
                                  lm.trips, t));
      s.stores.push_back({c.obj, off, c.size, after, i1(true)});
    }
  for (size_t i = 0; i < lm.accs.size(); ++i) {
    const Carried &c = *lm.accs[i].c;
    if (!c.phi) {
      Linear off;
      off.constant = c.off;
      s.stores.push_back({c.obj, off, c.size, scalar(lm.totals[i]), i1(true)});
      continue;
    }
    // The value of the last iteration's update is the total; so is the
    // header's phi when the header tests the exit (it saw every update).
    if (auto *upd = dyn_cast<llvm::Instruction>(
            c.phi->getIncomingValueForBlock(lm.latch)))
      if (lm.l->contains(upd))
        s.vals[upd] = scalar(lm.totals[i]);
    if (lm.exiting == lm.header)
      s.vals[c.phi] = scalar(lm.totals[i]);
  }
}

} // namespace lowering
} // namespace kv
