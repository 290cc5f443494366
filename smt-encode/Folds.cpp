//===- Folds.cpp - kv.carry / kv.fold: accumulators aligned by induction --===//
//
// An accumulator that is not a sum (`h = h * 31 + c`, a float `acc += x`)
// is a left fold of its loop's body over the iterations, in order. Its
// running value (kv.carry) and its result (kv.fold) are uninterpreted
// functions of the thread, the iterations of the loops around it, and (for
// the running value) the iteration: nothing about the trip count is needed.
//
// Alignment: a fold F of the before kernel is a root, with its running
// value carry_F(p) at iteration p (init_F at p = 0). A fold X of the after
// kernel is a segment of F with scale U and offset o when, for a symbolic
// thread in range, outer iterations, iteration y and accumulator a, a side
// query proves:
//   - X starts where F stood at o: o = 0 and equal start values, or X
//     starts from the result of a segment Y of F (a remainder loop after
//     a loop unrolled by U), o = U_Y * trips(Y) + o_Y;
//   - iteration y of X runs only where F's iterations U*y + o .. U*y + o +
//     U - 1 run;
//   - X's update from a at y equals U updates of F from a at those.
// By induction X's running value at y is carry_F(U*y + o) and its result
// carry_F(U * trips(X) + o): one function for both kernels, read at points
// the main query relates through the loops' trip counts (each defined by
// its loop's exit test). A loop unrolled at run time (U:1) and its
// remainder loop align with the single loop; U = 1 is the plain case.
// Preconditions of the source kernel at F's iterations (no signed
// overflow) are assumed with a for the accumulator: where the real running
// value stands, they hold.
//
//===----------------------------------------------------------------------===//
#include "smt-encode/Debug.h"
#include "smt-encode/Encoder.h"
#include "smt-encode/EncoderInternal.h"
#include "smt-encode/Executor.h"

#include "mlir/IR/Matchers.h"

#include "llvm/Support/raw_ostream.h"

#include <functional>

using namespace mlir;

namespace kv {

namespace {

FoldOp foldOf(CarryOp c) {
  for (Operation *u : c->getUsers())
    if (auto f = dyn_cast<FoldOp>(u); f && f.getAcc() == c.getResult())
      return f;
  return {};
}

IterOp loopOf(FoldOp f) {
  return f.getCarry().getIter().getDefiningOp<IterOp>();
}

} // namespace

std::vector<Operation *> Encoder::outerIters(KernelModel &k, FoldOp f) {
  // By nesting (block order), so that two kernels' loops pair up by
  // position.
  std::vector<Operation *> outer = k.itersOf(f);
  llvm::sort(outer,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return outer;
}

namespace {

/// A fold's loop step when it is a constant.
std::optional<int64_t> constStep(FoldOp f) {
  llvm::APInt c;
  if (matchPattern(loopOf(f).getStep(), m_ConstantInt(&c)))
    return c.getSExtValue();
  return std::nullopt;
}

/// The longest chain of operations from a fold's running value to its
/// update, casts not counted (0 when the update does not read it). A loop
/// unrolled U times, or one whose body walks a tile of U elements, chains U
/// copies of the source body.
unsigned carryDepth(FoldOp f) {
  Value carry = f.getAcc();
  llvm::DenseMap<Value, int> memo;
  std::function<int(Value)> depth = [&](Value v) -> int {
    if (v == carry)
      return 0;
    if (auto it = memo.find(v); it != memo.end())
      return it->second;
    memo[v] = -1; // no cycles in SSA; guards the recursion all the same
    int best = -1;
    if (Operation *op = v.getDefiningOp()) {
      for (Value o : op->getOperands())
        best = std::max(best, depth(o));
      bool cast = isa<arith::ExtSIOp, arith::ExtUIOp, arith::TruncIOp,
                      arith::BitcastOp>(op);
      if (best >= 0 && !cast)
        ++best;
    }
    return memo[v] = best;
  };
  int d = depth(f.getNext());
  return d < 0 ? 0 : (unsigned)d;
}

} // namespace

void Encoder::foldArgs(KernelModel &k, FoldOp f, const Thread &t,
                       z3::expr_vector &args) {
  idArgs(k, args, t);
  for (Operation *o : outerIters(k, f))
    args.push_back(iterVar(cast<IterOp>(o), t));
}

void Encoder::idArgs(KernelModel &k, z3::expr_vector &args, const Thread &t) {
  // The ids the kernels read: two threads that differ only in others
  // (a 1-D kernel's rows along y) compute the same fold.
  if (foldIds.empty())
    for (KernelModel *km : {&k, trusted, bounded})
      if (km)
        km->op.walk([&](SRegOp op) {
          if (op.getGroup() == SRegGroup::Tid ||
              op.getGroup() == SRegGroup::Bid)
            foldIds.insert(op.getName());
        });
  for (int d = 0; d < 3; ++d) {
    if (foldIds.count(makeSReg(SRegGroup::Tid, d)))
      args.push_back(t.tid[d]);
    if (foldIds.count(makeSReg(SRegGroup::Bid, d)))
      args.push_back(t.bid[d]);
  }
}

z3::expr Encoder::appOf(const std::string &name, const z3::expr_vector &args,
                        unsigned width) {
  z3::sort_vector dom(ctx);
  for (unsigned i = 0; i < args.size(); ++i)
    dom.push_back(args[i].get_sort());
  return uf(name, dom, width)(args);
}

void Encoder::namedIds(const std::string &prefix, std::vector<z3::expr> &tid,
                       std::vector<z3::expr> &bid) {
  unsigned tw = modelWidth(32, bits);
  std::string n = prefix + std::to_string(fresh++);
  for (int d = 0; d < 3; ++d) {
    tid.push_back(ctx.bv_const((n + ".tid." + axes[d]).c_str(), tw));
    bid.push_back(ctx.bv_const((n + ".bid." + axes[d]).c_str(), tw));
  }
}

z3::expr Encoder::foldApp(KernelModel &k, FoldOp f, const Thread &t,
                          const z3::expr *x) {
  unsigned w = widthOf(f.getType());
  z3::expr_vector args(ctx);
  foldArgs(k, f, t, args);
  if (x)
    args.push_back(*x);
  auto own = foldName.find(f);
  std::string name =
      (x ? "carry." : "fold.") +
      (own != foldName.end()
           ? own->second
           : k.label + ".fold" + std::to_string(foldName.size()));
  return appOf(name, args, w);
}

Thread &Encoder::foldThreadAt(KernelModel &k, FoldOp f, const Thread &t,
                              const z3::expr &x) {
  IterOp it = loopOf(f);
  Thread &tn = makeThread(t.tid, t.bid, t.depth, t.launch);
  inheritPins(t, tn);
  for (auto &[o, v] : t.iters)
    if (o != it.getOperation())
      tn.iters.emplace(o, v);
  tn.iters.emplace(it.getOperation(), x);
  tn.carries = t.carries;
  return tn;
}

z3::expr Encoder::foldTrips(KernelModel &k, FoldOp f, const Thread &t) {
  auto key = std::make_pair(f.getOperation(), t.id);
  auto m = tripMemo.find(key);
  if (m != tripMemo.end())
    return m->second;
  // The first iteration that does not run: the loop's trip count (its
  // iterations are a prefix, fewer than 2^31, which the checker proves).
  z3::expr_vector args(ctx);
  foldArgs(k, f, t, args);
  z3::expr n = appOf("trips." + foldName[f], args, 64);
  IterOp it = loopOf(f);
  z3::expr one = ctx.bv_val(1, 64);
  Thread &tn = foldThreadAt(k, f, t, n);
  Thread &tp = foldThreadAt(k, f, t, n - one);
  side.push_back(z3::ult(n, ctx.bv_val(uint64_t(1) << 31, 64)) &&
                 !live(k, it, tn) &&
                 (n == ctx.bv_val(0, 64) || live(k, it, tp)));
  tripMemo.emplace(key, n);
  return n;
}

z3::expr Encoder::foldOffset(FoldOp f, const Thread &t) {
  const FoldAlignment &al = alignment.at(f);
  if (!al.from)
    return ctx.bv_val(0, 64);
  FoldOp from = al.from;
  const FoldAlignment &y = alignment.at(from);
  return ctx.bv_val(y.scale, 64) * foldTrips(*y.kernel, from, t) +
         foldOffset(from, t);
}

z3::expr Encoder::rootCarry(FoldOp f, const Thread &t, const z3::expr &p,
                            bool unfold) {
  const FoldAlignment &al = alignment.at(f);
  FoldOp rootOp = al.root;
  const FoldAlignment &root = alignment.at(rootOp);
  // The thread in the root's loops: outer iterations by position. Without
  // any, \p t itself: a new thread per use would have its own facts
  // (threadFacts), which may use this fold again.
  std::vector<Operation *> mine = outerIters(*al.kernel, f),
                           theirs = outerIters(*root.kernel, rootOp);
  Thread *trp = const_cast<Thread *>(&t);
  if (!mine.empty() || !theirs.empty()) {
    trp = &makeThread(t.tid, t.bid, t.depth, t.launch);
    inheritPins(t, *trp);
    for (size_t i = 0; i < mine.size() && i < theirs.size(); ++i)
      trp->iters.emplace(theirs[i], iterVar(cast<IterOp>(mine[i]), t));
  }
  Thread &tr = *trp;
  z3::expr init = value(*root.kernel, rootOp.getCarry().getInit(), tr);
  z3::expr_vector args(ctx);
  foldArgs(*root.kernel, rootOp, tr, args);
  args.push_back(p);
  z3::expr c = appOf("carry." + al.cls, args, widthOf(f.getType()));
  z3::expr r = z3::ite(p == ctx.bv_val(0, 64), init, c);
  // At a result: the definition unfolded one step, the value at p being
  // the root's update of the value at p - 1 where p - 1 runs. A loop
  // unrolled at run time with its last iteration as straight-line code
  // after it ends with such an update. (Deeper and elsewhere, the
  // unfoldings make the queries much harder.)
  if (unfold && unfoldDepth == 0) {
    ++unfoldDepth;
    z3::expr one = ctx.bv_val(1, 64);
    Thread &tp = foldThreadAt(*root.kernel, rootOp, tr, p - one);
    z3::expr before = rootCarry(f, t, p - one);
    tp.carries.insert_or_assign(rootOp.getCarry(), before);
    z3::expr step = value(*root.kernel, rootOp.getNext(), tp);
    side.push_back(z3::implies(inRange(t) && z3::uge(p, one) &&
                                   live(*root.kernel, loopOf(rootOp), tp),
                               c == step));
    --unfoldDepth;
  }
  return r;
}

z3::expr Encoder::carryValue(KernelModel &k, CarryOp c, const Thread &t) {
  auto o = t.carries.find(c);
  if (o != t.carries.end())
    return o->second;
  FoldOp f = foldOf(c);
  if (!f)
    return unsupportedOp(c, "a kv.carry without its kv.fold");
  alignFolds();
  z3::expr x = iterVar(c.getIter().getDefiningOp<IterOp>(), t);
  z3::expr init = value(k, c.getInit(), t);
  // A running value that the other kernel's loop computes (Breaks.cpp).
  if (auto m = mapped.find(f); m != mapped.end()) {
    Thread &tx = threadAtIter(m->second.x, t, x);
    return z3::ite(x == ctx.bv_val(0, 64), init,
                   value(*m->second.kernel, m->second.v, tx));
  }
  z3::expr own = z3::ite(x == ctx.bv_val(0, 64), init, foldApp(k, f, t, &x));
  auto al = alignment.find(f);
  if (al == alignment.end())
    return own;
  // Aligned for the threads of the launch only.
  z3::expr p = ctx.bv_val(al->second.scale, 64) * x + foldOffset(f, t);
  return z3::ite(inRange(t), rootCarry(f, t, p), own);
}

z3::expr Encoder::foldValue(KernelModel &k, FoldOp f, const Thread &t) {
  alignFolds();
  CarryOp c = f.getCarry();
  IterOp it = loopOf(f);
  // The same thread at iterations 0 and 1 of the fold's loop: a loop that
  // does not run leaves the start value, one that runs once its first
  // update (-O2 peels such a path off the loop).
  Thread &t0 = foldThreadAt(k, f, t, ctx.bv_val(0, 64));
  Thread &t1 = foldThreadAt(k, f, t, ctx.bv_val(1, 64));
  z3::expr init = value(k, c.getInit(), t);
  z3::expr first = value(k, f.getNext(), t0);
  z3::expr own =
      z3::ite(!live(k, it, t0), init,
              z3::ite(!live(k, it, t1), first, foldApp(k, f, t, nullptr)));
  auto al = alignment.find(f);
  if (al == alignment.end())
    return own;
  z3::expr p =
      ctx.bv_val(al->second.scale, 64) * foldTrips(k, f, t) + foldOffset(f, t);
  return z3::ite(inRange(t), rootCarry(f, t, p, /*unfold=*/true), own);
}

void Encoder::alignFolds() {
  if (foldsAligned)
    return;
  foldsAligned = true;
  std::vector<FoldOp> byKernel[2];
  KernelModel *ks[2] = {trusted, bounded};
  // An alignment is proved for one thread of both kernels: none where
  // each kernel has a launch of its own.
  if (ks[0] && ks[1] && ks[0]->launch != ks[1]->launch)
    return;
  for (int i = 0; i < 2; ++i) {
    if (!ks[i] || (i == 1 && ks[1] == ks[0]))
      continue;
    ks[i]->op.walk([&](FoldOp f) {
      if (!foldName.count(f))
        foldName[f] =
            ks[i]->label + ".fold" + std::to_string(byKernel[i].size());
      byKernel[i].push_back(f);
    });
  }
  // Loops with breaks first: their folds are aligned with the loops.
  alignBreakLoops();
  for (std::vector<FoldOp> &fs : byKernel)
    llvm::erase_if(fs, [](FoldOp f) { return hasBreaks(loopOf(f)); });
  if (byKernel[0].empty() || byKernel[1].empty())
    return;
  // The after kernel's folds in order: a remainder loop's start is the
  // result of the loop before it, aligned first.
  for (FoldOp x : byKernel[1]) {
    FoldOp from;
    if (auto y = x.getCarry().getInit().getDefiningOp<FoldOp>())
      if (alignment.count(y))
        from = y;
    for (FoldOp f : byKernel[0]) {
      if (f.getType() != x.getType() ||
          outerIters(*ks[0], f).size() != outerIters(*ks[1], x).size() ||
          (from && alignment.at(from).root != f))
        continue;
      // The unroll factor: the ratio of the loops' steps, else 1.
      std::vector<unsigned> scales{1};
      std::optional<int64_t> sf = constStep(f), sx = constStep(x);
      if (sf && sx && *sf != 0 && *sx % *sf == 0 && *sx / *sf > 1 &&
          *sx / *sf <= 16)
        scales.insert(scales.begin(), (unsigned)(*sx / *sf));
      // Or the ratio of the updates' depths: a tile loop's body that chains
      // a tile's worth of source updates.
      unsigned df = carryDepth(f), dx = carryDepth(x);
      if (df && dx % df == 0 && dx / df > 1 && dx / df <= 64 &&
          !llvm::is_contained(scales, dx / df))
        scales.insert(scales.begin(), dx / df);
      bool done = false;
      for (unsigned u : scales) {
        std::string cls = alignment.count(f)
                              ? alignment.at(f).cls
                              : "aligned" + std::to_string(alignedFolds);
        // Tentatively: the proof reads X's offset through `alignment`.
        bool rootNew = !alignment.count(f);
        if (rootNew)
          alignment[f] = FoldAlignment{cls, f, ks[0], 1, {}};
        alignment[x] = FoldAlignment{cls, f, ks[1], u, from};
        if (cachedLoopProof(x, f, u, [&] {
              return proveSegment(*ks[0], f, *ks[1], x, u);
            })) {
          if (rootNew)
            ++alignedFolds;
          done = true;
          break;
        }
        alignment.erase(x);
        if (rootNew)
          alignment.erase(f);
      }
      if (done)
        break;
    }
  }
}

bool Encoder::proveSegment(KernelModel &k1, FoldOp f, KernelModel &k2, FoldOp x,
                           unsigned scale) {
  std::string n = std::to_string(fresh++);
  std::vector<z3::expr> tid, bid;
  namedIds("align", tid, bid);
  z3::expr_vector q(ctx);
  bool wasShadow = shadow, wasProofOnly = proofOnly;
  shadow = proofOnly = true;
  proofFacts.clear();
  unsigned sideBefore = side.size();
  Thread &t = makeThread(tid, bid, 1, k1.launch);
  // The loops around the folds at the same iterations, by position.
  std::vector<Operation *> o1 = outerIters(k1, f), o2 = outerIters(k2, x);
  for (size_t i = 0; i < o1.size(); ++i) {
    z3::expr o =
        ctx.bv_const(("align" + n + ".o" + std::to_string(i)).c_str(), 64);
    q.push_back(z3::ult(o, ctx.bv_val(uint64_t(1) << 31, 64)));
    t.iters.emplace(o1[i], o);
    t.iters.emplace(o2[i], o);
  }
  z3::expr y = z3::zext(ctx.bv_const(("align" + n + ".y").c_str(), 31), 33);
  z3::expr a =
      ctx.bv_const(("align" + n + ".acc").c_str(), widthOf(f.getType()));
  z3::expr differ = ctx.bool_val(false);
  std::vector<Equation> eqs;
  z3::expr pre = ctx.bool_val(true);
  {
    IterOp itf = loopOf(f), itx = loopOf(x);
    Thread &tx = foldThreadAt(k2, x, t, y);
    tx.carries.emplace(x.getCarry(), a);
    z3::expr runsX = live(k2, itx, tx);
    z3::expr off = foldOffset(x, t);
    z3::expr base = ctx.bv_val(scale, 64) * y + off;
    if (!alignment.at(x).from)
      eqs.push_back({ctx.bool_val(true), value(k1, f.getCarry().getInit(), t),
                     value(k2, x.getCarry().getInit(), t)});
    // U updates of F from a, at F's iterations base .. base + U - 1.
    z3::expr acc = a;
    // Where X's iteration runs and F's does not (1:1), X's update must
    // leave the accumulator alone: a test inside the loop (`if (r < rows)
    // acc += ...`) against the loop under it. F's function is not used
    // there: no iteration of F defines it.
    std::optional<z3::expr> idle;
    for (unsigned u = 0; u < scale; ++u) {
      Thread &tf = foldThreadAt(k1, f, t, base + ctx.bv_val(u, 64));
      tf.carries.insert_or_assign(f.getCarry(), acc);
      if (u + 1 == scale && scale == 1)
        idle = runsX && !live(k1, itf, tf);
      else if (u + 1 == scale)
        differ = differ || (runsX && !live(k1, itf, tf));
      acc = value(k1, f.getNext(), tf);
      // The source kernel's preconditions at those iterations, those that
      // read no array.
      if (&k1 == trusted)
        for (AssumeOp as : k1.assumes) {
          const std::vector<Operation *> &deps = k1.itersOf(as);
          if (dependsOn(as.getCond()) || llvm::any_of(deps, [&](Operation *d) {
                return d != itf.getOperation() && !llvm::is_contained(o1, d);
              }))
            continue;
          z3::expr c = value(k1, as.getCond(), tf);
          pre = pre &&
                z3::implies(liveAll(k1, as, tf), c.is_bool() ? c : bvToBool(c));
        }
    }
    z3::expr next = value(k2, x.getNext(), tx);
    if (idle) {
      eqs.push_back({*idle, next, a});
      eqs.push_back({runsX && !*idle, next, acc});
    } else {
      eqs.push_back({runsX, next, acc});
    }
  }
  shadow = wasShadow;
  proofOnly = wasProofOnly;
  if (!unsupported.empty())
    return false;
  q.push_back(facts);
  q.push_back(inRange(t));
  q.push_back(globalIndexFacts(t));
  q.push_back(pre);
  for (const z3::expr &e : proofFacts)
    q.push_back(e);
  for (unsigned i = sideBefore; i < side.size(); ++i)
    q.push_back(side[i]);
  bool proved = proveEqual(z3::mk_and(q), eqs, differ, "align-fold");
  if (debugEnabled("encoder"))
    llvm::errs() << "aligning " << foldName[x] << " with " << foldName[f]
                 << " (" << scale
                 << ":1): " << (proved ? "proved" : "not proved") << "\n";
  return proved;
}

} // namespace kv
