//===- Breaks.cpp - Loops with breaks: aligned without a trip count -------===//
//
// A loop with kv.break ops (a search with `break`, `while (x < n) x =
// next[x]`) runs iterations 0 .. T-1 for a thread, T - 1 being the first
// iteration whose break holds. T is an uninterpreted function of the
// thread and the loops around it, with what is true of it in every run
// that ends: 1 <= T <= 2^31 where the loop is entered, the break holds at
// T - 1, and at no iteration k with k + 1 < T. (C++ lets a compiler assume
// that a loop without side effects beyond memory ends; the verdict lists
// the 2^31 bound among its assumptions.)
//
// Alignment: loop X of the after kernel and loop F of the before kernel
// share T and their folds' functions when a side query proves, for a
// symbolic thread in range, outer iterations, iteration y and one value
// per pair of folds (the state both loops hold at y): the folds start
// equal, the iteration runs in both or in neither, it breaks in both or in
// neither, and where it goes on the folds' updates are equal. By induction
// the two loops hold the same state at every iteration and stop at the
// same one: no trip count, no termination argument needed.
//
//===----------------------------------------------------------------------===//
#include "smt-encode/Debug.h"
#include "smt-encode/Encoder.h"
#include "smt-encode/EncoderInternal.h"

#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace kv {

namespace {

std::vector<BreakOp> breaksOf(IterOp it) {
  std::vector<BreakOp> r;
  for (Operation *u : it.getResult().getUsers())
    if (auto b = dyn_cast<BreakOp>(u))
      r.push_back(b);
  llvm::sort(r, [](BreakOp a, BreakOp b) {
    return a->isBeforeInBlock(b.getOperation());
  });
  return r;
}

/// The folds of \p it's loop, in block order.
std::vector<FoldOp> foldsOf(IterOp it) {
  std::vector<FoldOp> r;
  for (Operation *u : it.getResult().getUsers())
    if (auto c = dyn_cast<CarryOp>(u))
      for (Operation *cu : c->getUsers())
        if (auto f = dyn_cast<FoldOp>(cu); f && f.getAcc() == c.getResult())
          r.push_back(f);
  llvm::sort(r, [](FoldOp a, FoldOp b) {
    return a->isBeforeInBlock(b.getOperation());
  });
  return r;
}

} // namespace

/// Whether rotation moves exit \p br of a loop whose exits are \p brs, in
/// \p mode: 0 the header's exits, 1 those before any write, 2 the first
/// exit alone (the first half of a split `a && b` test).
static bool rotates(BreakOp br, const std::vector<BreakOp> &brs,
                    unsigned mode) {
  if (mode == 0)
    return br.getHeader();
  if (mode == 1)
    return br.getFirst();
  return br == brs.front();
}

bool hasBreaks(IterOp it) {
  return llvm::any_of(it.getResult().getUsers(),
                      [](Operation *u) { return isa<BreakOp>(u); });
}

std::vector<Operation *> Encoder::outerItersOf(KernelModel &k, IterOp it) {
  std::vector<Operation *> outer;
  for (Operation *o : k.itersOf(it))
    if (o != it.getOperation())
      outer.push_back(o);
  llvm::sort(outer,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return outer;
}

Thread &Encoder::threadAtIter(IterOp it, const Thread &t, const z3::expr &x) {
  // One thread per (thread, loop, iteration): values are memoized by
  // thread, and a thread per use would grow the query with each.
  if (auto o = t.iters.find(it); o != t.iters.end() && o->second.id() == x.id())
    return const_cast<Thread &>(t);
  auto key = std::make_tuple(t.id, it.getOperation(), x.id(), shadow);
  if (auto m = iterThreads.find(key); m != iterThreads.end())
    return *m->second;
  Thread &tn = makeThread(t.tid, t.bid, t.depth, t.launch);
  inheritPins(t, tn);
  iterThreads[key] = &tn;
  for (auto &[o, v] : t.iters)
    if (o != it.getOperation())
      tn.iters.emplace(o, v);
  tn.iters.emplace(it.getOperation(), x);
  // A running value fixed at \p t's iteration of this loop is not the one
  // at x.
  for (auto &[c, v] : t.carries)
    if (cast<CarryOp>(c).getIter() != it.getResult())
      tn.carries.emplace(c, v);
  return tn;
}

z3::expr Encoder::breakGroup(KernelModel &k, IterOp it, const Thread &t,
                             bool selected, unsigned mode) {
  z3::expr b = ctx.bool_val(false);
  std::vector<BreakOp> brs = breaksOf(it);
  for (BreakOp br : brs) {
    if (rotates(br, brs, mode) != selected)
      continue;
    z3::expr c = value(k, br.getCond(), t);
    b = b || (c.is_bool() ? c : bvToBool(c));
  }
  return b;
}

z3::expr Encoder::guardOf(KernelModel &k, IterOp it, const Thread &t) {
  z3::expr g = value(k, it.getGuard(), t);
  return g.is_bool() ? g : bvToBool(g);
}

void Encoder::foldStepFacts(KernelModel &k, IterOp it, const Thread &t,
                            const z3::expr &p) {
  // Iteration p runs: iteration p - 1 ran and went on, so each fold's
  // running value at p is its update at p - 1.
  Thread &tp = threadAtIter(it, t, p);
  Thread &tq = threadAtIter(it, t, p - ctx.bv_val(1, 64));
  for (FoldOp f : foldsOf(it))
    side.push_back(
        z3::implies(z3::uge(p, ctx.bv_val(1, 64)) && live(k, it, tp),
                    value(k, f.getAcc(), tp) == value(k, f.getNext(), tq)));
}

z3::expr Encoder::breakCond(KernelModel &k, IterOp it, const Thread &t) {
  z3::expr b = ctx.bool_val(false);
  for (BreakOp br : breaksOf(it)) {
    z3::expr c = value(k, br.getCond(), t);
    b = b || (c.is_bool() ? c : bvToBool(c));
  }
  return b;
}

z3::expr Encoder::breakTrips(KernelModel &k, IterOp it, const Thread &t) {
  alignFolds();
  auto cls = breakClass.find(it);
  if (cls == breakClass.end())
    cls = breakClass
              .emplace(it, k.label + ".brk" + std::to_string(breakClass.size()))
              .first;
  z3::expr_vector args(ctx);
  idArgs(k, args, t);
  for (Operation *o : outerItersOf(k, it))
    args.push_back(iterVar(cast<IterOp>(o), t));
  z3::expr n = appOf("trips." + cls->second, args, 64);
  if (!breakFacts.insert({it.getOperation(), n.id()}).second)
    return n;
  // A loop the after kernel's loop X rotates: X's iterations, one more
  // where X's last one left by the exits rotation moved to its end (or X
  // was not entered while this loop was): see proveRotation. (A fact about
  // n, not n itself: its terms read n again.)
  if (auto r = rotated.find(it); r != rotated.end()) {
    z3::expr tx = breakTrips(*r->second.kernel, r->second.x, t);
    Thread &tl = threadAtIter(it, t, tx - ctx.bv_val(1, 64));
    z3::expr rest = breakGroup(k, it, tl, /*selected=*/false, r->second.mode);
    side.push_back(
        z3::implies(guardOf(k, it, t),
                    n == z3::ite(!guardOf(*r->second.kernel, r->second.x, t),
                                 ctx.bv_val(1, 64),
                                 z3::ite(rest, tx, tx + ctx.bv_val(1, 64)))));
    loopFacts.push_back(side.back());
  }
  // Facts true of every run that ends (see the file comment).
  z3::expr one = ctx.bv_val(1, 64);
  Thread &tl = threadAtIter(it, t, n - one);
  z3::expr g = value(k, it.getGuard(), t);
  z3::expr entered = g.is_bool() ? g : bvToBool(g);
  side.push_back(
      z3::implies(entered, z3::uge(n, one) &&
                               z3::ule(n, ctx.bv_val(uint64_t(1) << 31, 64)) &&
                               liveOwn(k, it, tl) && breakCond(k, it, tl)));
  loopFacts.push_back(side.back());
  return n;
}

z3::expr Encoder::noEarlierBreak(KernelModel &k, IterOp it, const Thread &t,
                                 const z3::expr &trips) {
  z3::expr x = iterVar(it, t);
  if (!breakFacts.insert({it.getOperation(), x.id()}).second)
    return ctx.bool_val(true);
  // Iteration x went on to x + 1: it did not break.
  side.push_back(
      z3::implies(z3::ult(x + ctx.bv_val(1, 64), trips) && liveOwn(k, it, t),
                  !breakCond(k, it, t)));
  return ctx.bool_val(true);
}

z3::expr Encoder::lastValue(KernelModel &k, LastOp l, const Thread &t) {
  auto it = l.getIter().getDefiningOp<IterOp>();
  if (!hasBreaks(it))
    return unsupportedOp(l, "a kv.last over a loop without kv.break");
  z3::expr n = breakTrips(k, it, t);
  z3::expr last = n - ctx.bv_val(1, 64);
  foldStepFacts(k, it, t, last);
  Thread &tl = threadAtIter(it, t, last);
  return value(k, l.getValue(), tl);
}

void Encoder::alignBreakLoops() {
  KernelModel *ks[2] = {trusted, bounded};
  if (!ks[0] || !ks[1] || ks[0] == ks[1] || ks[0]->launch != ks[1]->launch)
    return;
  std::vector<IterOp> loops[2];
  for (int i = 0; i < 2; ++i)
    ks[i]->op.walk([&](IterOp it) {
      if (hasBreaks(it))
        loops[i].push_back(it);
    });
  llvm::DenseSet<Operation *> taken;
  for (IterOp x : loops[1]) {
    std::vector<FoldOp> fx = foldsOf(x);
    for (IterOp f : loops[0]) {
      if (taken.contains(f))
        continue;
      std::vector<FoldOp> ff = foldsOf(f);
      if (ff.size() != fx.size() ||
          outerItersOf(*ks[0], f).size() != outerItersOf(*ks[1], x).size())
        continue;
      bool types = true;
      for (size_t i = 0; i < ff.size(); ++i)
        types = types && ff[i].getType() == fx[i].getType();
      bool single = ff.size() == 1 && outerItersOf(*ks[0], f).empty();
      if (!types) {
        if (single && mapState(*ks[0], f, ff[0], *ks[1], x, fx[0])) {
          taken.insert(f);
          ++alignedBreaks;
          ++mappedBreaks;
          break;
        }
        continue;
      }
      // Tentatively share T and the folds' functions.
      std::string cls = "brk.aligned" + std::to_string(fresh++);
      breakClass[f] = breakClass[x] = cls;
      for (size_t i = 0; i < ff.size(); ++i) {
        std::string fc = cls + ".fold" + std::to_string(i);
        alignment[ff[i]] = FoldAlignment{fc, ff[i], ks[0], 1, {}};
        alignment[fx[i]] = FoldAlignment{fc, ff[i], ks[1], 1, {}};
        foldName[ff[i]] = foldName[fx[i]] = fc;
      }
      if (cachedLoopProof(x, f, breakProofCode, [&] {
            return proveBreakAlignment(*ks[0], f, ff, *ks[1], x, fx);
          })) {
        taken.insert(f);
        ++alignedBreaks;
        break;
      }
      // X may be F rotated (as -O2 rotates a loop): the same folds, their
      // own trip counts.
      breakClass[f] = cls + ".before";
      breakClass[x] = cls + ".after";
      bool rotatedOk = false;
      if (outerItersOf(*ks[0], f).empty() && outerItersOf(*ks[1], x).empty())
        for (unsigned mode = 0; mode < 3; ++mode) {
          std::vector<BreakOp> brs = breaksOf(f);
          if (llvm::none_of(brs,
                            [&](BreakOp b) { return rotates(b, brs, mode); }))
            continue;
          rotated[f] = RotatedLoop{x, ks[1], mode};
          if (cachedLoopProof(x, f, breakProofCode + 1 + mode, [&] {
                return proveRotation(*ks[0], f, ff, *ks[1], x, fx, mode);
              })) {
            rotatedOk = true;
            break;
          }
          rotated.erase(f);
        }
      if (rotatedOk) {
        taken.insert(f);
        ++alignedBreaks;
        ++rotatedBreaks;
        break;
      }
      breakClass.erase(f);
      breakClass.erase(x);
      for (size_t i = 0; i < ff.size(); ++i) {
        alignment.erase(ff[i]);
        alignment.erase(fx[i]);
      }
      if (single && mapState(*ks[0], f, ff[0], *ks[1], x, fx[0])) {
        taken.insert(f);
        ++alignedBreaks;
        ++mappedBreaks;
        break;
      }
    }
  }
}

bool Encoder::cachedLoopProof(Operation *x, Operation *f, unsigned code,
                              llvm::function_ref<bool()> prove) {
  if (!alignCache)
    return prove();
  auto key = std::make_tuple(x, f, code);
  if (auto c = alignCache->find(key); c != alignCache->end())
    return c->second;
  bool proved = prove();
  (*alignCache)[key] = proved;
  return proved;
}

bool Encoder::proveBreakAlignment(KernelModel &k1, IterOp f,
                                  std::vector<FoldOp> ff, KernelModel &k2,
                                  IterOp x, std::vector<FoldOp> fx) {
  std::string n = std::to_string(fresh++);
  std::vector<z3::expr> tid, bid;
  namedIds("brk", tid, bid);
  z3::expr_vector q(ctx);
  BreakProof proof = beginBreakProof();
  Thread &t = makeThread(tid, bid, 1, k1.launch);
  std::vector<Operation *> o1 = outerItersOf(k1, f), o2 = outerItersOf(k2, x);
  for (size_t i = 0; i < o1.size(); ++i) {
    z3::expr o =
        ctx.bv_const(("brk" + n + ".o" + std::to_string(i)).c_str(), 64);
    q.push_back(z3::ult(o, ctx.bv_val(uint64_t(1) << 31, 64)));
    t.iters.emplace(o1[i], o);
    t.iters.emplace(o2[i], o);
  }
  z3::expr y = z3::zext(ctx.bv_const(("brk" + n + ".y").c_str(), 31), 33);
  Thread &tf = threadAtIter(f, t, y);
  Thread &tx = threadAtIter(x, t, y);
  z3::expr differ = ctx.bool_val(false);
  for (size_t i = 0; i < ff.size(); ++i) {
    z3::expr a = ctx.bv_const(("brk" + n + ".acc" + std::to_string(i)).c_str(),
                              widthOf(ff[i].getType()));
    tf.carries.insert_or_assign(ff[i].getCarry(), a);
    tx.carries.insert_or_assign(fx[i].getCarry(), a);
    differ = differ || value(k1, ff[i].getCarry().getInit(), t) !=
                           value(k2, fx[i].getCarry().getInit(), t);
  }
  z3::expr runsF = liveOwn(k1, f, tf), runsX = liveOwn(k2, x, tx);
  z3::expr brkF = breakCond(k1, f, tf), brkX = breakCond(k2, x, tx);
  differ = differ || runsF != runsX || (runsF && brkF != brkX);
  for (size_t i = 0; i < ff.size(); ++i)
    differ = differ ||
             (runsF && !brkF &&
              value(k1, ff[i].getNext(), tf) != value(k2, fx[i].getNext(), tx));
  z3::expr pre = sourcePreconditions(k1, f, o1, tf);
  q.push_back(pre);
  return endBreakProof(proof, t, q, differ, "align-breaks", "");
}

bool Encoder::proveRotation(KernelModel &k1, IterOp f, std::vector<FoldOp> ff,
                            KernelModel &k2, IterOp x, std::vector<FoldOp> fx,
                            unsigned mode) {
  // X is F rotated when, with H the exits of F that rotation moves (its
  // header's, or those before any write) and R the others:
  //   entry: X is entered only where F is, and there exactly where F's
  //     first iteration does not leave by H; the folds start equal;
  //   step: at any iteration y and state a where F runs and H does not
  //     hold, X leaves exactly where F leaves by R at y or by H at y + 1
  //     (from F's update of a), and else updates a as F does.
  // By induction X's iterations are F's with the same states, and F runs
  // one more (leaving by H) where X's last left by H or X was not entered:
  // breakTrips defines F's T from X's so.
  std::string n = std::to_string(fresh++);
  std::vector<z3::expr> tid, bid;
  namedIds("rot", tid, bid);
  z3::expr_vector q(ctx);
  BreakProof proof = beginBreakProof();
  Thread &t = makeThread(tid, bid, 1, k1.launch);
  z3::expr gF = guardOf(k1, f, t), gX = guardOf(k2, x, t);
  Thread &tf0 = threadAtIter(f, t, ctx.bv_val(0, 64));
  z3::expr h0 = breakGroup(k1, f, tf0, /*selected=*/true, mode);
  z3::expr initDiffer = ctx.bool_val(false);
  for (size_t i = 0; i < ff.size(); ++i)
    initDiffer = initDiffer || value(k1, ff[i].getCarry().getInit(), t) !=
                                   value(k2, fx[i].getCarry().getInit(), t);
  z3::expr differ =
      (gX && !gF) || (gF && gX != !h0) || (gF && gX && initDiffer);

  z3::expr y = z3::zext(ctx.bv_const(("rot" + n + ".y").c_str(), 31), 33);
  Thread &tf = threadAtIter(f, t, y);
  Thread &tx = threadAtIter(x, t, y);
  for (size_t i = 0; i < ff.size(); ++i) {
    z3::expr a = ctx.bv_const(("rot" + n + ".acc" + std::to_string(i)).c_str(),
                              widthOf(ff[i].getType()));
    tf.carries.insert_or_assign(ff[i].getCarry(), a);
    tx.carries.insert_or_assign(fx[i].getCarry(), a);
  }
  Thread &tf1 = threadAtIter(f, t, y + ctx.bv_val(1, 64));
  for (size_t i = 0; i < ff.size(); ++i)
    tf1.carries.insert_or_assign(ff[i].getCarry(),
                                 value(k1, ff[i].getNext(), tf));
  // F stops within 2^31 iterations (the assumption the verdict lists), so
  // X's run at most 2^31 - 1: y + 1 is an iteration F may run.
  z3::expr hyp =
      gF && gX && liveOwn(k1, f, tf) &&
      z3::ult(y + ctx.bv_val(1, 64), ctx.bv_val(uint64_t(1) << 31, 64)) &&
      !breakGroup(k1, f, tf, /*selected=*/true, mode);
  z3::expr rF = breakGroup(k1, f, tf, /*selected=*/false, mode);
  z3::expr hF1 = breakGroup(k1, f, tf1, /*selected=*/true, mode);
  z3::expr bX = breakCond(k2, x, tx);
  z3::expr step = liveOwn(k2, x, tx) != liveOwn(k1, f, tf) || bX != (rF || hF1);
  for (size_t i = 0; i < ff.size(); ++i)
    step = step || (!bX && value(k1, ff[i].getNext(), tf) !=
                               value(k2, fx[i].getNext(), tx));
  z3::expr pre = sourcePreconditions(k1, f, {}, tf);
  differ = differ || (hyp && pre && step);
  return endBreakProof(proof, t, q, differ, "align-rotated",
                       mode == 0   ? ", rotated (header exits)"
                       : mode == 1 ? ", rotated (first exits)"
                                   : ", rotated (the first exits)");
}

bool Encoder::mapState(KernelModel &k1, IterOp f, FoldOp ff, KernelModel &k2,
                       IterOp x, FoldOp fx) {
  // F's running value may be a value X computes from its own in the same
  // iteration: -O2 moves `x = next[x]`'s load to the top of the loop and
  // carries the index instead. Candidates: X's values of F's type in the
  // iteration that read X's running value.
  std::vector<Value> cands;
  // The values that read X's running value, in block order.
  llvm::DenseSet<Value> reads{fx.getAcc()};
  k2.op.walk([&](Operation *op) {
    if (op->getNumResults() != 1 ||
        llvm::none_of(op->getOperands(),
                      [&](Value o) { return reads.contains(o); }))
      return;
    reads.insert(op->getResult(0));
    if (cands.size() < 8 && op->getResult(0).getType() == ff.getType() &&
        llvm::is_contained(k2.itersOf(op), x.getOperation()) &&
        !isa<CarryOp, FoldOp, LastOp>(op))
      cands.push_back(op->getResult(0));
  });
  for (auto [i, v] : llvm::enumerate(cands)) {
    std::string cls = "brk.mapped" + std::to_string(fresh++);
    breakClass[f] = breakClass[x] = cls;
    if (cachedLoopProof(x, f, breakProofCode + 16 + i, [&, v = v] {
          return proveMapped(k1, f, ff, k2, x, fx, v);
        })) {
      mapped[ff] = MappedFold{&k2, v, x};
      return true;
    }
    breakClass.erase(f);
    breakClass.erase(x);
  }
  return false;
}

bool Encoder::proveMapped(KernelModel &k1, IterOp f, FoldOp ff, KernelModel &k2,
                          IterOp x, FoldOp fx, Value v) {
  // With F's state at y taken to be v computed by X from its state b at
  // y: F starts at v of X's start, both loops are entered alike, iteration
  // y runs and breaks in both or neither, and where it goes on F's update
  // is v of X's update at y + 1. By induction F's state is v of X's at
  // every iteration, and T is shared.
  std::string n = std::to_string(fresh++);
  std::vector<z3::expr> tid, bid;
  namedIds("map", tid, bid);
  BreakProof proof = beginBreakProof();
  Thread &t = makeThread(tid, bid, 1, k1.launch);
  z3::expr gF = guardOf(k1, f, t), gX = guardOf(k2, x, t);
  Thread &tx0 = threadAtIter(x, t, ctx.bv_val(0, 64));
  z3::expr differ = gF != gX || (gF && value(k1, ff.getCarry().getInit(), t) !=
                                           value(k2, v, tx0));
  z3::expr y = z3::zext(ctx.bv_const(("map" + n + ".y").c_str(), 31), 33);
  z3::expr b =
      ctx.bv_const(("map" + n + ".acc").c_str(), widthOf(fx.getType()));
  Thread &tx = threadAtIter(x, t, y);
  tx.carries.insert_or_assign(fx.getCarry(), b);
  z3::expr a = value(k2, v, tx);
  Thread &tf = threadAtIter(f, t, y);
  tf.carries.insert_or_assign(ff.getCarry(), a);
  Thread &tx1 = threadAtIter(x, t, y + ctx.bv_val(1, 64));
  tx1.carries.insert_or_assign(fx.getCarry(), value(k2, fx.getNext(), tx));
  z3::expr runsF = liveOwn(k1, f, tf), runsX = liveOwn(k2, x, tx);
  z3::expr brkF = breakCond(k1, f, tf), brkX = breakCond(k2, x, tx);
  z3::expr step =
      runsF != runsX ||
      (runsF && (brkF != brkX ||
                 (!brkF && value(k1, ff.getNext(), tf) != value(k2, v, tx1))));
  z3::expr pre = sourcePreconditions(k1, f, {}, tf);
  differ = differ || (gF && gX && pre && step);
  z3::expr_vector q(ctx);
  return endBreakProof(proof, t, q, differ, "align-mapped",
                       ", its state mapped");
}

Encoder::BreakProof Encoder::beginBreakProof() {
  BreakProof p{shadow, proofOnly, abstractNonlinear, (unsigned)side.size()};
  shadow = proofOnly = inBreakAlignment = true;
  // One iteration's terms: products and quotients exact (x % 2 against
  // x & 1, x / 2 against a shift), which an uninterpreted one would not
  // relate.
  abstractNonlinear = false;
  proofFacts.clear();
  return p;
}

bool Encoder::endBreakProof(const BreakProof &p, const Thread &t,
                            z3::expr_vector &q, const z3::expr &differ,
                            const char *what, llvm::StringRef how) {
  shadow = p.shadow;
  proofOnly = p.proofOnly;
  inBreakAlignment = false;
  abstractNonlinear = p.abstractNonlinear;
  if (!unsupported.empty())
    return false;
  q.push_back(facts);
  q.push_back(inRange(t));
  q.push_back(globalIndexFacts(t));
  for (const z3::expr &e : proofFacts)
    q.push_back(e);
  for (unsigned i = p.sideBefore; i < side.size(); ++i)
    q.push_back(side[i]);
  q.push_back(differ);
  bool proved = proveUnsat(z3::mk_and(q), what);
  if (debugEnabled("encoder"))
    llvm::errs() << "aligning a loop with breaks of the after kernel with one "
                    "of the before kernel"
                 << how << ": " << (proved ? "proved" : "not proved") << "\n";
  return proved;
}

z3::expr Encoder::sourcePreconditions(KernelModel &k1, IterOp f,
                                      const std::vector<Operation *> &outer,
                                      const Thread &tf) {
  // The source kernel's preconditions at \p tf's iteration of f (no signed
  // overflow), those that read no array: where the real state stands, they
  // hold.
  z3::expr pre = ctx.bool_val(true);
  if (&k1 != trusted)
    return pre;
  for (AssumeOp as : k1.assumes) {
    const std::vector<Operation *> &deps = k1.itersOf(as);
    if (dependsOn(as.getCond()) || llvm::any_of(deps, [&](Operation *d) {
          return d != f.getOperation() && !llvm::is_contained(outer, d);
        }))
      continue;
    z3::expr c = value(k1, as.getCond(), tf);
    z3::expr runs = ctx.bool_val(true);
    for (Operation *d : deps)
      runs = runs && liveOwn(k1, cast<IterOp>(d), tf);
    pre = pre && z3::implies(runs, c.is_bool() ? c : bvToBool(c));
  }
  return pre;
}

} // namespace kv
