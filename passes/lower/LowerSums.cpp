//===- LowerSums.cpp - Sums in loops with a symbolic trip count -----------===//
//
// The carried values of a modelled loop that are neither induction
// variables nor loop-invariant: accumulators (`s += term`), recognized
// with their terms and emitted as kv.sum over the loop's iterations.
//
//===----------------------------------------------------------------------===//
#include "passes/lower/Lowerer.h"

#include "llvm/ADT/SetVector.h"

namespace kv {
namespace lowering {

bool Lowerer::findSums(LoopModel &lm) {
  std::vector<Carried> &carried = lm.carried;
  llvm::DenseSet<Operation *> &accHolders = lm.accHolders;
  // Accumulators: next = holder + term, or select(c, holder + term, holder)
  // (a conditional `s += term`), where the term does not depend on any
  // accumulator. The loop's result is init + kv.sum(term).
  for (Carried &c : carried)
    if (c.next != c.holder && !stepOf(lm, c))
      accHolders.insert(c.holder.getDefiningOp());
  if (lm.m.cond && dependsOnAny(lm.m.cond, accHolders))
    return giveUp(lm,
                  "loop exit test that depends on a value carried around the "
                  "loop other than an induction variable");
  // A bounded check (--unroll) unrolls sums: a sum in one kernel and its
  // unrolled terms in the other could not be compared.
  if (!accHolders.empty() && opts.unrollBound)
    return giveUp(lm, "value carried around a loop with a symbolic trip count "
                      "that is not an induction variable, with --unroll");
  std::vector<Acc> &accs = lm.accs;
  for (Carried &c : carried) {
    if (!accHolders.contains(c.holder.getDefiningOp()))
      continue;
    Acc a{&c, {}, {}};
    a.term = accTerm(lm, c, a.chain, a.addends);
    // Any other update is a left fold of the body over the iterations, in
    // order: no algebra needed, and the checker aligns it with the other
    // kernel's fold.
    if (!a.term) {
      a.chain.clear();
      a.fold = true;
    }
    accs.push_back(std::move(a));
  }
  return true;
}

// The ops that compute next from the holder; the term.
Value Lowerer::accTerm(LoopModel &lm, Carried &c,
                       llvm::SmallVectorImpl<Operation *> &chain,
                       unsigned &addends) {
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
  if (!term || dependsOnAny(term, lm.accHolders) ||
      (cond && dependsOnAny(cond, lm.accHolders)))
    return {};
  if (cond) {
    Value zero = cst(term.getType(), 0);
    term = negate ? select(cond, zero, term) : select(cond, term, zero);
  }
  return term;
}

bool Lowerer::dropRunningSums(LoopModel &lm) {
  // The running sum has no value inside the loop: only the source kernel's
  // "no signed overflow" assumptions may use it, and they are dropped (an
  // assumption fewer keeps a proof sound).
  for (Acc &a : lm.accs) {
    // A fold's running value is its kv.carry: uses of it stay.
    if (a.fold)
      continue;
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
          if (!as.getUb())
            return giveUp(lm, "running value of a sum used inside its loop");
          continue;
        }
        if (u->getNumResults() != 1 || isa<ReadOp>(u))
          return giveUp(lm, "running value of a sum used inside its loop");
        work.push_back(u->getResult(0));
      }
    }
    // Users come after their operands in the block: erase from the last.
    llvm::SmallVector<Operation *> dead(slice.begin(), slice.end());
    dead.append(a.chain.begin(), a.chain.end());
    llvm::sort(
        dead, [](Operation *x, Operation *y) { return y->isBeforeInBlock(x); });
    for (Operation *op : dead)
      op->erase();
  }
  return true;
}

void Lowerer::emitSums(LoopModel &lm) {
  // Each sum, after the loop body.
  // A loop unrolled U times (the step of its induction variable is U, and
  // its sums add U terms per iteration) is marked: the checker then tries to
  // regroup its sums with a remainder loop's.
  std::optional<unsigned> unrolled;
  if (llvm::APInt c; matchPattern(lm.step, m_ConstantInt(&c))) {
    if (lm.down)
      c.negate();
    if (c.sgt(1) && c.slt(64))
      unrolled = c.getZExtValue();
  }
  std::vector<Value> &totals = lm.totals;
  for (Acc &a : lm.accs) {
    if (a.fold) {
      auto fold = FoldOp::create(b, loc, a.carry.getType(), a.carry, a.c->next);
      totals.push_back(fold.getResult());
      continue;
    }
    auto sum =
        SumOp::create(b, loc, a.term.getType(), a.term, lm.k, IntegerAttr());
    if (unrolled && a.addends == *unrolled)
      sum.setGroupAttr(b.getI64IntegerAttr(*unrolled));
    // A barrier loop over tiles adds a tile's terms per iteration: the
    // checker tries to regroup them with a loop over single terms.
    else if (lm.m.phase && a.addends >= 2)
      sum.setGroupAttr(b.getI64IntegerAttr(a.addends));
    totals.push_back(
        b.createOrFold<arith::AddIOp>(loc, a.c->init, sum.getResult()));
  }
}

} // namespace lowering
} // namespace kv
