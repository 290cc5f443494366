//===- AtomicTotals.cpp - what a block's atomic updates add up to ---------===//
//
// An atomic update (kv.write atomic KIND) folds a value into a cell; the
// threads' updates of one interval commute, so a cell's value after the
// interval is its value before it, folded with what the block's threads
// (shared arrays) or the grid's blocks (global arrays) add. No single writer
// gives that value; blockTotal gives a block's part, one write op at a time,
// in the first of these forms that applies:
//  - enumerated: the block's shape is fixed and small; the fold of each
//    thread's update, the threads written out (a reduction's one update by
//    thread 0, a histogram's one update per thread);
//  - one writer: no two threads of a block update one cell (proved): the
//    update of a writer thread, as a plain write's (candidates first);
//  - a class: an uninterpreted function of the block and the cell, named by
//    its summand (the update one thread makes to the cell, or the identity):
//    two write ops whose summands are proved equal for every thread share
//    it, so that a global histogram and a privatized one have the same
//    total; a total that is not the identity has a thread that updates the
//    cell (a witness).
//
//===----------------------------------------------------------------------===//
#include "smt-encode/Debug.h"
#include "smt-encode/Encoder.h"
#include "smt-encode/EncoderInternal.h"
#include "smt-encode/Executor.h"

#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace kv {

z3::expr rmwIdentityOf(RmwKind kind, z3::context &ctx, unsigned w) {
  llvm::APInt id(w, 0);
  switch (kind) {
  case RmwKind::add:
  case RmwKind::or_:
  case RmwKind::xor_:
  case RmwKind::umax:
    break;
  case RmwKind::and_:
  case RmwKind::umin:
    id = llvm::APInt::getAllOnes(w);
    break;
  case RmwKind::smin:
    id = llvm::APInt::getSignedMaxValue(w);
    break;
  case RmwKind::smax:
    id = llvm::APInt::getSignedMinValue(w);
    break;
  }
  return ctx.bv_val(id.getZExtValue(), w);
}

z3::expr rmwCombine(RmwKind kind, const z3::expr &a, const z3::expr &b) {
  switch (kind) {
  case RmwKind::add:
    return a + b;
  case RmwKind::and_:
    return a & b;
  case RmwKind::or_:
    return a | b;
  case RmwKind::xor_:
    return a ^ b;
  case RmwKind::smin:
    return z3::ite(a <= b, a, b);
  case RmwKind::smax:
    return z3::ite(a >= b, a, b);
  case RmwKind::umin:
    return z3::ite(z3::ule(a, b), a, b);
  case RmwKind::umax:
    return z3::ite(z3::uge(a, b), a, b);
  }
  llvm_unreachable("unknown atomic kind");
}

namespace {
/// The most threads of a fixed block written out one by one.
constexpr unsigned maxEnumerated = 256;
/// The most cells the enumerated threads may update. Each is a test
/// against the cell asked for: a histogram's threads each update a cell
/// their input decides, and a privatized histogram's flush one cell per
/// thread; 64 to 256 such tests on each side made queries no solver
/// finished, where the forms below (a class, one updater) are proved at
/// once. Enumeration is for many threads folding into a few cells (a
/// block's sum against a tree's).
constexpr unsigned maxEnumeratedCells = 16;
} // namespace

z3::expr Encoder::blockTotal(KernelModel &k, unsigned arg, unsigned interval,
                             const z3::expr &index, const Thread &blockOf,
                             unsigned depth, const z3::expr &start) {
  z3::expr total = start;
  for (WriteOp w : k.writes[arg][interval])
    if (w.isAtomic())
      total = rmwCombine(*w.getRmw(), total,
                         opTotal(k, w, interval, index, blockOf, depth));
  return total;
}

z3::expr Encoder::updateOf(KernelModel &k, WriteOp w, const z3::expr &index,
                           const Thread &t) {
  z3::expr v = value(k, w.getValue(), t);
  return z3::ite(hits(k, w, index, t), v,
                 rmwIdentityOf(*w.getRmw(), ctx, v.get_sort().bv_size()));
}

z3::expr Encoder::opTotal(KernelModel &k, WriteOp w, unsigned interval,
                          const z3::expr &index, const Thread &blockOf,
                          unsigned depth) {
  checkDeadline();
  RmwKind kind = *w.getRmw();
  unsigned width = widthOf(getArrayElementType(w.getArray().getType()));
  z3::expr id = rmwIdentityOf(kind, ctx, width);
  // Inside loops an update is one per (thread, iteration): the total is
  // only that of the one instance updating the cell (a privatized
  // histogram's flush `for (j = tid; j < NB; j += blockDim.x)`).
  const std::vector<Operation *> &loops = k.itersOf(w);
  if (k.repeatedWrites.contains(w) ||
      (!loops.empty() && !oneUpdaterPerBlock(k, w))) {
    if (unsupported.empty()) {
      unsupported = "an atomic update inside a loop of the model, where a "
                    "block's threads may update one cell more than once";
      if (auto l = w->getLoc()->findInstanceOf<FileLineColLoc>())
        unsupported += " (" + l.getFilename().str() + ":" +
                       std::to_string(l.getLine()) + ":" +
                       std::to_string(l.getColumn()) + ")";
    }
    return id;
  }
  auto hitOf = [&](const Thread &t) { return hits(k, w, index, t); };

  // Enumerated: each thread of a fixed, small block.
  uint64_t dims[3];
  bool fixed = true;
  const std::vector<z3::expr> &bd = bdimOf(k.launch);
  for (int i = 0; i < 3; ++i) {
    fixed &= bd[i].is_numeral();
    if (fixed)
      dims[i] = bd[i].get_numeral_uint64();
  }
  if (fixed && loops.empty() && dims[0] * dims[1] * dims[2] <= 1024) {
    std::vector<Thread *> hits;
    for (uint64_t z = 0; z < dims[2]; ++z)
      for (uint64_t y = 0; y < dims[1]; ++y)
        for (uint64_t x = 0; x < dims[0] && hits.size() <= maxEnumerated; ++x) {
          Thread &t = blockThread(blockOf, {x, y, z}, depth + 1);
          // The guard alone first: it decides most threads without their
          // index (which may read memory).
          z3::expr g = accessGuard(k, w, t).simplify();
          if (g.is_false())
            continue;
          if (!hitOf(t).simplify().is_false())
            hits.push_back(&t);
        }
    if (hits.size() <= maxEnumerated) {
      // Threads that update one cell (all of them, for `atomicAdd(out, x)`)
      // are folded under one test of the index: the total is then the same
      // term as a tree's that adds the same values.
      std::vector<std::pair<z3::expr, z3::expr>> byCell;
      for (Thread *t : hits) {
        z3::expr at = toIndex(value(k, w.getIndex(), *t)).simplify();
        z3::expr upd =
            z3::ite(accessGuard(k, w, *t), value(k, w.getValue(), *t), id);
        auto same =
            llvm::find_if(byCell, [&](auto &c) { return z3::eq(c.first, at); });
        if (same == byCell.end())
          byCell.push_back({at, upd});
        else
          same->second = rmwCombine(kind, same->second, upd);
      }
      if (byCell.size() <= maxEnumeratedCells) {
        ++totalsEnumerated;
        z3::expr total = id;
        for (auto &[at, sum] : byCell)
          total = rmwCombine(kind, total, z3::ite(at == index, sum, id));
        if (debugEnabled("encoder"))
          llvm::errs() << k.label << " atomic total: " << hits.size()
                       << " threads of the block\n";
        return total;
      }
      if (debugEnabled("encoder"))
        llvm::errs() << k.label << " atomic total: not enumerated ("
                     << byCell.size() << " cells)\n";
    }
  }

  // One writer per block and cell: a fresh writer, checked against the
  // candidates that solve the index for one coordinate.
  if (oneUpdaterPerBlock(k, w)) {
    ++totalsUnique;
    Thread &fw = freshThread(&blockOf, depth + 1);
    z3::expr chain = updateOf(k, w, index, fw);
    z3::expr fwHit = hitOf(fw);
    std::vector<Thread *> cands = updaterCandidates(k, w, index, fw);
    // Thread 0 of the block: the usual single updater (`if (tid == 0)`).
    if (loops.empty())
      cands.push_back(&blockThread(blockOf, {0, 0, 0}, depth + 1));
    for (Thread *t : cands) {
      z3::expr valid = inRange(*t) && hitOf(*t);
      // "If the fresh writer updates nothing here, no thread of the block
      // does", and at most one does.
      side.push_back(fwHit || !valid);
      side.push_back(!fwHit || !valid || sameInstance(*t, fw, loops));
      chain = z3::ite(valid, updateOf(k, w, index, *t), chain);
    }
    // Its quantified form, for the retry with quantifiers.
    unsigned arg = cast<BlockArgument>(w.getArray()).getArgNumber();
    obligations.push_back(Obligation{&k, arg, interval, index, &blockOf, &fw,
                                     fwHit, depth, w.getOperation()});
    if (debugEnabled("encoder"))
      llvm::errs() << k.label << " atomic total: one updater per block ("
                   << cands.size() << " candidates)\n";
    return chain;
  }

  // A class of totals, shared by write ops with equal summands.
  assert(loops.empty() && "updates in loops have one updater");
  ++totalsAbstract;
  std::string cls = totalClass(k, w);
  z3::expr app = blockCell(cls, blockOf, index, width);
  // A total other than the identity has an updater in the block.
  Thread &witness = freshThread(&blockOf, depth + 1);
  side.push_back(z3::implies(app != id, hitOf(witness)));
  if (debugEnabled("encoder"))
    llvm::errs() << k.label << " atomic total: class " << cls << "\n";
  return app;
}

/// The op `threadIdx.c + k * blockDim.c` in \p v, k the iteration of
/// \p loop: a loop that strides a block's threads over the cells.
static Operation *blockStrideOp(Value v, int c, Operation *loop,
                                unsigned depth = 0) {
  Operation *d = v.getDefiningOp();
  if (!d || depth > 8)
    return nullptr;
  auto isSReg = [&](Value x, SRegGroup g) {
    auto s = underExtensions(x).getDefiningOp<SRegOp>();
    return s && s.getName() == makeSReg(g, c);
  };
  auto isStride = [&](Value x) {
    auto m = x.getDefiningOp<arith::MulIOp>();
    if (!m)
      return false;
    Value a = underExtensions(m.getLhs()), b = underExtensions(m.getRhs());
    return (a.getDefiningOp() == loop && isSReg(b, SRegGroup::BDim)) ||
           (b.getDefiningOp() == loop && isSReg(a, SRegGroup::BDim));
  };
  if (auto a = dyn_cast<arith::AddIOp>(d))
    if ((isStride(a.getLhs()) && isSReg(a.getRhs(), SRegGroup::Tid)) ||
        (isStride(a.getRhs()) && isSReg(a.getLhs(), SRegGroup::Tid)))
      return d;
  for (Value o : d->getOperands())
    if (Operation *s = blockStrideOp(o, c, loop, depth + 1))
      return s;
  return nullptr;
}

std::vector<Thread *> Encoder::updaterCandidates(KernelModel &k, WriteOp w,
                                                 const z3::expr &index,
                                                 const Thread &fw) {
  const std::vector<Operation *> &loops = k.itersOf(w);
  std::vector<Thread *> cands;
  auto make = [&](std::vector<z3::expr> tid) -> Thread & {
    Thread &t = makeThread(std::move(tid), fw.bid, fw.depth, fw.launch);
    for (Operation *l : loops)
      t.iters.emplace(l, iterVar(cast<IterOp>(l), fw));
    return t;
  };
  // A thread coordinate, the writer's iterations kept.
  for (int c = 0; c < 3; ++c) {
    SReg coord = makeSReg(SRegGroup::Tid, c);
    auto isCoord = [&](Operation *op) {
      auto s = dyn_cast<SRegOp>(op);
      return s && s.getName() == coord;
    };
    if (auto sol = solveFor(k, w.getIndex(), isCoord, modelWidth(32, bits),
                            index, fw)) {
      std::vector<z3::expr> tid = fw.tid;
      tid[c] = *sol;
      cands.push_back(&make(tid));
    }
  }
  if (loops.size() != 1)
    return cands;
  Operation *loop = loops[0];
  // The iteration, the writer's thread kept (`out[tid * K + k]`).
  auto isLoop = [&](Operation *op) { return op == loop; };
  if (auto sol = solveFor(k, w.getIndex(), isLoop, 64, index, fw)) {
    Thread &t = make(fw.tid);
    t.iters.insert_or_assign(loop, *sol);
    cands.push_back(&t);
  }
  // Both at once where the loop strides the block's threads over the cells
  // (`j = tid + k * blockDim`): the cell's quotient and remainder by
  // blockDim (no divider in the query: quotient() states them).
  for (int c = 0; c < 3; ++c) {
    Operation *stride = blockStrideOp(w.getIndex(), c, loop);
    if (!stride)
      continue;
    unsigned sw = stride->getResult(0).getType().getIntOrFloatBitWidth();
    auto isStride = [&](Operation *op) { return op == stride; };
    std::optional<z3::expr> sol =
        solveFor(k, w.getIndex(), isStride, sw, index, fw);
    if (!sol)
      continue;
    unsigned tw = fw.tid[c].get_sort().bv_size();
    if (sw < tw || sw > 64)
      continue;
    const z3::expr &bc = bdimOf(fw.launch)[c];
    z3::expr d = sw > tw ? z3::zext(bc, sw - tw) : bc;
    auto [q, r] = quotient(*sol, d);
    std::vector<z3::expr> tid = fw.tid;
    tid[c] = r.extract(tw - 1, 0);
    Thread &t = make(tid);
    t.iters.insert_or_assign(loop, sw < 64 ? z3::zext(q, 64 - sw) : q);
    cands.push_back(&t);
  }
  return cands;
}

bool Encoder::oneUpdaterPerBlock(KernelModel &k, WriteOp w) {
  auto key = std::make_pair(&k, w.getOperation());
  if (auto it = oneUpdater.find(key); it != oneUpdater.end())
    return it->second;
  SideProof p = beginSideProof();
  std::vector<z3::expr> tid1, bid, tid2, unused;
  namedIds("unique", tid1, bid);
  namedIds("unique", tid2, unused);
  Thread &t1 = makeThread(tid1, bid, 1, k.launch);
  Thread &t2 = makeThread(tid2, bid, 1, k.launch);
  z3::expr j = ctx.bv_const(("unique" + std::to_string(fresh++) + ".j").c_str(),
                            indexBits);
  auto hit = [&](const Thread &t) { return hits(k, w, j, t); };
  z3::expr_vector q(ctx);
  q.push_back(inRange(t2) && threadFacts(t2) && hit(t1) && hit(t2) &&
              !sameInstance(t1, t2, k.itersOf(w)));
  bool one = endSideProof(p, t1, q, "unique updater");
  oneUpdater.emplace(key, one);
  return one;
}

std::string Encoder::totalClass(KernelModel &k, WriteOp w) {
  auto key = std::make_pair(&k, w.getOperation());
  if (auto it = totalClassOf.find(key); it != totalClassOf.end())
    return it->second;
  RmwKind kind = *w.getRmw();
  unsigned width = widthOf(getArrayElementType(w.getArray().getType()));
  std::string name;
  // By index, copied: a summand's encoding may add classes (a total that
  // reads a shared array's total).
  for (size_t i = 0; i < totalClasses.size(); ++i) {
    TotalClass c = totalClasses[i];
    if (*c.op.getRmw() != kind ||
        widthOf(getArrayElementType(c.op.getArray().getType())) != width)
      continue;
    // The two summands for one thread and cell, of any block.
    SideProof p = beginSideProof();
    std::vector<z3::expr> tid, bid;
    namedIds("summand", tid, bid);
    Thread &t = makeThread(tid, bid, 1, k.launch);
    z3::expr j = ctx.bv_const(
        ("summand" + std::to_string(fresh++) + ".j").c_str(), indexBits);
    z3::expr differ = updateOf(*c.kernel, c.op, j, t) != updateOf(k, w, j, t);
    if (debugEnabled("totals")) {
      z3::params som(ctx);
      som.set("som", true);
      llvm::errs() << "summands:\n"
                   << updateOf(*c.kernel, c.op, j, t).simplify(som).to_string()
                   << "\n"
                   << updateOf(k, w, j, t).simplify(som).to_string() << "\n";
    }
    z3::expr_vector q(ctx);
    q.push_back(differ);
    if (endSideProof(p, t, q, "summand")) {
      name = c.name;
      break;
    }
  }
  if (name.empty()) {
    name = "atomic.total" + std::to_string(totalClasses.size());
    totalClasses.push_back({&k, w, name});
  }
  totalClassOf.emplace(key, name);
  return name;
}

Encoder::SideProof Encoder::beginSideProof() {
  SideProof p{shadow, proofOnly, abstractNonlinear, (unsigned)side.size()};
  // Exact products: the terms are compared as polynomials (below).
  shadow = true;
  proofOnly = abstractNonlinear = false;
  proofFacts.clear();
  return p;
}

bool Encoder::endSideProof(const SideProof &p, const Thread &t,
                           z3::expr_vector &q, const char *what) {
  shadow = p.shadow;
  proofOnly = p.proofOnly;
  abstractNonlinear = p.abstractNonlinear;
  if (!unsupported.empty())
    return false;
  q.push_back(facts);
  q.push_back(inRange(t));
  q.push_back(threadFacts(t));
  q.push_back(globalIndexFacts(t));
  for (const z3::expr &e : proofFacts)
    q.push_back(e);
  for (unsigned i = p.sideBefore; i < side.size(); ++i)
    q.push_back(side[i]);
  // As sums of monomials, index terms that distribute a product differently
  // (bid * (bx * by) + t against (bid * by + ty) * bx + tx) are one term.
  z3::params som(ctx);
  som.set("som", true);
  z3::expr f = z3::mk_and(q).simplify(som);
  z3::expr_vector lemmas = indexLemmas(q);
  bool proved = proveUnsat(f && z3::mk_and(lemmas), what);
  if (debugEnabled("encoder"))
    llvm::errs() << what << ": " << (proved ? "proved" : "not proved") << "\n";
  return proved;
}

} // namespace kv
