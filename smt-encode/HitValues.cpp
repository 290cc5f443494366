//===- HitValues.cpp - a write's value where it hits the cell -------------===//
//
// hitValue: the value a write stores, encoded where its index is the cell
// compared, so that both kernels' reads of their inputs are the same terms
// (a row's inputs indexed by the cell, not by each kernel's thread
// arithmetic); underGuard, which folds the write's own guard into it.
//
//===----------------------------------------------------------------------===//
#include "smt-encode/Debug.h"
#include "smt-encode/Encoder.h"
#include "smt-encode/EncoderInternal.h"

#include "llvm/ADT/DenseSet.h"

#include <set>

using namespace mlir;

namespace kv {

/// Whether \p v depends on \p op's result.
static bool dependsOnOp(Value v, Operation *op) {
  llvm::SmallVector<Value> work{v};
  llvm::DenseSet<Value> seen;
  while (!work.empty()) {
    Value x = work.pop_back_val();
    Operation *d = x.getDefiningOp();
    if (!d || !seen.insert(x).second || seen.size() > 20000)
      continue;
    if (d == op)
      return true;
    for (Value o : d->getOperands())
      work.push_back(o);
  }
  return false;
}

/// Whether \p v is computed from \p from, through reads of global arrays
/// only: a value that reads shared memory would search for its writers
/// again.
static bool computedFrom(Value v, Value from) {
  llvm::SmallVector<Value> work{v};
  llvm::DenseSet<Value> seen;
  bool found = false;
  while (!work.empty()) {
    Value x = work.pop_back_val();
    if (!seen.insert(x).second)
      continue;
    if (x == from) {
      found = true;
      continue;
    }
    Operation *d = x.getDefiningOp();
    if (!d)
      continue;
    if (auto r = dyn_cast<ReadOp>(d))
      if (!isa<GlobalArrayType>(r.getArray().getType()))
        return false;
    // Plain arithmetic and sums only (a sum's body is encoded for a copy
    // of the thread that keeps its pinned values): a shuffle or a fold
    // would encode other lanes or iterations again.
    if (seen.size() > 20000 ||
        !(isa<ReadOp, NoWrapOp, SRegOp, ApplyOp, SumOp, IterOp>(d) ||
          d->getDialect()->getNamespace() == "arith"))
      return false;
    // The value pinned for the sum's body is the same at every iteration:
    // not one computed from the sum's own iteration number.
    if (auto sum = dyn_cast<SumOp>(d))
      if (Operation *it = sum.getIter().getDefiningOp();
          it && dependsOnOp(from, it))
        return false;
    for (Value o : d->getOperands())
      work.push_back(o);
  }
  return found;
}

/// Whether \p e mentions a coordinate of thread \p t.
static bool mentionsThread(const z3::expr &e, const Thread &t) {
  std::set<unsigned> coords, seen;
  for (int i = 0; i < 3; ++i) {
    coords.insert(t.tid[i].id());
    coords.insert(t.bid[i].id());
  }
  std::vector<z3::expr> work{e};
  while (!work.empty()) {
    z3::expr x = work.back();
    work.pop_back();
    if (!x.is_app() || !seen.insert(x.id()).second)
      continue;
    if (coords.count(x.id()))
      return true;
    for (unsigned i = 0; i < x.num_args(); ++i)
      work.push_back(x.arg(i));
  }
  return false;
}

z3::expr Encoder::hitValue(KernelModel &k, WriteOp w, const z3::expr &index,
                           const Thread &t) {
  // Where w hits the cell its index is the cell: the value under the
  // index's extensions is the cell's low bits. What the writer computes
  // from it (a row's inputs) is then encoded once more from there, by a
  // copy of the thread: the other kernel's terms, which the solver would
  // otherwise relate through the index arithmetic of every read.
  const Thread *at = &t;
  Value narrow = underExtensions(w.getIndex());
  unsigned nw = narrow.getType().isInteger() ? widthOf(narrow.getType()) : 0;
  if (nw && nw <= index.get_sort().bv_size()) {
    // The value may compute the index anew (`row = r0 + r * blockDim.x` in
    // the loop and again at the store): then the operand it shares with
    // the index, the cell less a constant offset, is given instead.
    z3::expr cell = index.extract(nw - 1, 0);
    Value from = narrow;
    bool found = false;
    for (unsigned step = 0;
         step < 4 && !(found = computedFrom(w.getValue(), from)); ++step) {
      auto add = from.getDefiningOp<arith::AddIOp>();
      if (!add)
        break;
      z3::expr l = value(k, add.getLhs(), t).simplify(),
               r = value(k, add.getRhs(), t).simplify();
      // The offset is a constant, or the same for every thread (a
      // coarsened thread's site `r0 + blockDim.x`): the other operand is
      // then the one the value shares.
      bool offsetRight = r.is_numeral() || !mentionsThread(r, t);
      if (!offsetRight && !l.is_numeral() && mentionsThread(l, t))
        break;
      cell = cell - (offsetRight ? r : l);
      from = offsetRight ? add.getLhs() : add.getRhs();
    }
    if (debugEnabled("encoder"))
      llvm::errs() << k.label << " write at " << w->getLoc() << ": "
                   << (found ? "value re-encoded at the cell"
                             : "value not computed from its index")
                   << "\n";
    // Not where the thread's own value is a constant or the cell already
    // (a mixed-radix writer's, radixWriter): the copy would encode the
    // same terms again.
    z3::expr mine = value(k, from, t).simplify();
    cell = cell.simplify();
    if (found && !mine.is_numeral() && !z3::eq(mine, cell)) {
      Thread &c = makeThread(t.tid, t.bid, t.depth, t.launch);
      c.iters = t.iters;
      inheritPins(t, c);
      c.pinned.emplace_back(from.getAsOpaquePointer(), cell);
      memo.emplace(std::make_pair(from.getAsOpaquePointer(), c.id), cell);
      at = &c;
    }
  }
  return underGuard(value(k, w.getValue(), *at), accessGuard(k, w, *at));
}

z3::expr Encoder::underGuard(const z3::expr &v, const z3::expr &guard) {
  // The guard's conjuncts hold wherever the value is used: a test the
  // value repeats (`if (row < m) acc += ...` in every iteration of a loop
  // under the write's own `row < m`) folds away, so that the sum is the
  // other kernel's chain of adds, not one behind a chain of if-then-else
  // that the solver would compare adder by adder.
  z3::expr_vector from(ctx), to(ctx);
  std::vector<z3::expr> work{guard.simplify()};
  while (!work.empty() && from.size() < 16) {
    z3::expr c = work.back();
    work.pop_back();
    if (c.is_and()) {
      for (unsigned i = 0; i < c.num_args(); ++i)
        work.push_back(c.arg(i));
    } else if (c.is_not()) {
      from.push_back(c.arg(0));
      to.push_back(ctx.bool_val(false));
    } else if (!c.is_true()) {
      from.push_back(c);
      to.push_back(ctx.bool_val(true));
    }
  }
  if (from.empty())
    return v;
  // Both simplified: the atoms then have one form.
  z3::expr sv = v.simplify();
  z3::expr r = sv.substitute(from, to);
  return z3::eq(r, sv) ? v : r.simplify();
}

} // namespace kv
