//===- Folds.cpp - kv.carry / kv.fold: accumulators aligned by induction --===//
//
// An accumulator that is not a sum (`h = h * 31 + c`, a float `acc += x`)
// is a left fold of its loop's body over the iterations, in order. Its
// running value (kv.carry) and its result (kv.fold) are uninterpreted
// functions of the thread, the iterations of the loops around it, and (for
// the running value) the iteration: nothing about the trip count is needed.
//
// Two folds, one per kernel, are aligned when a side query proves, for a
// symbolic thread in range, symbolic outer iterations, iteration x and
// accumulator value a: equal start values, the same iterations run, and
// equal updates from a at x. By induction over the iterations the two
// running values and results are then equal, and both folds use one
// function. Preconditions of the source kernel at x (no signed overflow)
// are assumed with a for the accumulator: where the real running value
// stands, they hold.
//
//===----------------------------------------------------------------------===//
#include "smt-encode/Debug.h"
#include "smt-encode/Encoder.h"
#include "smt-encode/EncoderInternal.h"

#include "llvm/Support/raw_ostream.h"

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
  llvm::sort(outer, [](Operation *a, Operation *b) {
    return a->isBeforeInBlock(b);
  });
  return outer;
}

z3::expr Encoder::foldApp(KernelModel &k, FoldOp f, const Thread &t,
                          const z3::expr *x) {
  alignFolds();
  unsigned w = widthOf(f.getType());
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
  auto make = [&](const std::string &name) {
    z3::expr_vector args(ctx);
    for (int d = 0; d < 3; ++d) {
      if (foldIds.count(makeSReg(SRegGroup::Tid, d)))
        args.push_back(t.tid[d]);
      if (foldIds.count(makeSReg(SRegGroup::Bid, d)))
        args.push_back(t.bid[d]);
    }
    for (Operation *o : outerIters(k, f))
      args.push_back(iterVar(cast<IterOp>(o), t));
    if (x)
      args.push_back(*x);
    z3::sort_vector dom(ctx);
    for (unsigned i = 0; i < args.size(); ++i)
      dom.push_back(args[i].get_sort());
    return ctx.function(name.c_str(), dom, bvSort(w))(args);
  };
  std::string kind = x ? "carry." : "fold.";
  auto own = foldName.find(f);
  z3::expr mine = make(kind + (own != foldName.end()
                                   ? own->second
                                   : k.label + ".fold" +
                                         std::to_string(foldName.size())));
  auto shared = foldClass.find(f);
  if (shared == foldClass.end())
    return mine;
  // Aligned for the threads of the launch only.
  return z3::ite(inRange(t), make(kind + shared->second), mine);
}

z3::expr Encoder::carryValue(KernelModel &k, CarryOp c, const Thread &t) {
  auto o = t.carries.find(c);
  if (o != t.carries.end())
    return o->second;
  FoldOp f = foldOf(c);
  if (!f)
    return unsupportedOp(c, "a kv.carry without its kv.fold");
  z3::expr x = iterVar(c.getIter().getDefiningOp<IterOp>(), t);
  z3::expr init = value(k, c.getInit(), t);
  return z3::ite(x == ctx.bv_val(0, 64), init, foldApp(k, f, t, &x));
}

z3::expr Encoder::foldValue(KernelModel &k, FoldOp f, const Thread &t) {
  CarryOp c = f.getCarry();
  IterOp it = loopOf(f);
  // The same thread at iterations 0 and 1 of the fold's loop: a loop that
  // does not run leaves the start value, one that runs once its first
  // update (-O2 peels such a path off the loop).
  auto at = [&](uint64_t n) -> Thread & {
    Thread &tn = makeThread(t.tid, t.bid, t.depth);
    for (auto &[o, v] : t.iters)
      if (o != it.getOperation())
        tn.iters.emplace(o, v);
    tn.iters.emplace(it.getOperation(), ctx.bv_val(n, 64));
    tn.carries = t.carries;
    return tn;
  };
  Thread &t0 = at(0), &t1 = at(1);
  z3::expr init = value(k, c.getInit(), t);
  z3::expr first = value(k, f.getNext(), t0);
  return z3::ite(!live(k, it, t0), init,
                 z3::ite(!live(k, it, t1), first, foldApp(k, f, t, nullptr)));
}

void Encoder::alignFolds() {
  if (foldsAligned)
    return;
  foldsAligned = true;
  std::vector<FoldOp> byKernel[2];
  KernelModel *ks[2] = {trusted, bounded};
  for (int i = 0; i < 2; ++i) {
    if (!ks[i] || (i == 1 && ks[1] == ks[0]))
      continue;
    ks[i]->op.walk([&](FoldOp f) {
      foldName[f] = ks[i]->label + ".fold" + std::to_string(byKernel[i].size());
      byKernel[i].push_back(f);
    });
  }
  if (byKernel[0].empty() || byKernel[1].empty())
    return;
  // A fold whose update uses another fold's running value aligns once that
  // one is aligned: a few rounds.
  for (unsigned round = 0; round < 4; ++round) {
    bool changed = false;
    for (FoldOp f1 : byKernel[0]) {
      if (foldClass.count(f1))
        continue;
      for (FoldOp f2 : byKernel[1]) {
        if (foldClass.count(f2) || f1.getType() != f2.getType() ||
            outerIters(*ks[0], f1).size() != outerIters(*ks[1], f2).size())
          continue;
        if (!proveFoldsAligned(*ks[0], f1, *ks[1], f2))
          continue;
        std::string name = "aligned" + std::to_string(alignedFolds++);
        foldClass[f1] = foldClass[f2] = name;
        changed = true;
        break;
      }
    }
    if (!changed)
      break;
  }
}

bool Encoder::proveFoldsAligned(KernelModel &k1, FoldOp f1, KernelModel &k2,
                                FoldOp f2) {
  std::string n = std::to_string(fresh++);
  unsigned tw = bdim[0].get_sort().bv_size();
  std::vector<z3::expr> tid, bid;
  for (int d = 0; d < 3; ++d) {
    tid.push_back(
        ctx.bv_const(("align" + n + ".tid." + axes[d]).c_str(), tw));
    bid.push_back(
        ctx.bv_const(("align" + n + ".bid." + axes[d]).c_str(), tw));
  }
  z3::expr_vector q(ctx);
  bool wasShadow = shadow, wasProofOnly = proofOnly;
  shadow = proofOnly = true;
  proofFacts.clear();
  unsigned sideBefore = side.size();
  Thread &t = makeThread(tid, bid, 1);
  // The loops around the folds at the same iterations, by position.
  std::vector<Operation *> o1 = outerIters(k1, f1), o2 = outerIters(k2, f2);
  for (size_t i = 0; i < o1.size(); ++i) {
    z3::expr o = ctx.bv_const(("align" + n + ".o" + std::to_string(i)).c_str(),
                              64);
    q.push_back(z3::ult(o, ctx.bv_val(uint64_t(1) << 31, 64)));
    t.iters.emplace(o1[i], o);
    t.iters.emplace(o2[i], o);
  }
  z3::expr x = z3::zext(ctx.bv_const(("align" + n + ".x").c_str(), 31), 33);
  IterOp it1 = loopOf(f1), it2 = loopOf(f2);
  t.iters.emplace(it1, x);
  t.iters.emplace(it2, x);
  z3::expr a = ctx.bv_const(("align" + n + ".acc").c_str(),
                            widthOf(f1.getType()));
  t.carries.emplace(f1.getCarry(), a);
  t.carries.emplace(f2.getCarry(), a);
  z3::expr differ = ctx.bool_val(false);
  z3::expr pre = ctx.bool_val(true);
  {
    z3::expr init1 = value(k1, f1.getCarry().getInit(), t);
    z3::expr init2 = value(k2, f2.getCarry().getInit(), t);
    z3::expr runs1 = live(k1, it1, t), runs2 = live(k2, it2, t);
    z3::expr next1 = value(k1, f1.getNext(), t);
    z3::expr next2 = value(k2, f2.getNext(), t);
    differ = init1 != init2 || runs1 != runs2 || (runs1 && next1 != next2);
    // The source kernel's preconditions in the loop and around it, those
    // that read no array.
    for (KernelModel *k : {&k1, &k2}) {
      if (k != trusted)
        continue;
      Operation *loop = k == &k1 ? it1.getOperation() : it2.getOperation();
      const std::vector<Operation *> &outer = k == &k1 ? o1 : o2;
      for (AssumeOp as : k->assumes) {
        const std::vector<Operation *> &deps = k->itersOf(as);
        if (dependsOn(as.getCond()) ||
            llvm::any_of(deps, [&](Operation *d) {
              return d != loop && !llvm::is_contained(outer, d);
            }))
          continue;
        z3::expr c = value(*k, as.getCond(), t);
        pre = pre &&
              z3::implies(liveAll(*k, as, t), c.is_bool() ? c : bvToBool(c));
      }
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
  for (const z3::expr &f : proofFacts)
    q.push_back(f);
  for (unsigned i = sideBefore; i < side.size(); ++i)
    q.push_back(side[i]);
  q.push_back(differ);
  bool proved = proveUnsat(z3::mk_and(q), "align-fold");
  if (debugEnabled("encoder"))
    llvm::errs() << "aligning " << k1.label << " fold " << foldName[f1]
                 << " with " << k2.label << " fold " << foldName[f2] << ": "
                 << (proved ? "proved" : "not proved") << "\n";
  return proved;
}

} // namespace kv
