//===- Lockstep.cpp - interval-by-interval proofs ---------------*- C++ -*-===//

#include "equiv/Lockstep.h"
#include "equiv/Safety.h"
#include "smt-encode/Debug.h"
#include "smt-encode/Encoder.h"
#include <cstdlib>
#include <set>

using namespace mlir;

namespace kv {

namespace {

/// Whether the two kernels have the same parameters and shared arrays in
/// the same positions (names of shared arrays included: the model names
/// uninitialized shared memory by them).
bool sameSignature(KernelOp a, KernelOp b) {
  Block &ba = a.getBlock(), &bb = b.getBlock();
  if (ba.getNumArguments() != bb.getNumArguments())
    return false;
  for (unsigned i = 0; i < ba.getNumArguments(); ++i) {
    Type t = ba.getArgument(i).getType();
    if (t != bb.getArgument(i).getType())
      return false;
    if (isa<SharedArrayType>(t) && a.getArgName(i) != b.getArgName(i))
      return false;
  }
  return true;
}

/// Loop models (kv.iter, kv.sum) have iterations the per-thread argument
/// does not cover.
/// Whether \p m satisfies every assertion of \p s with the abstracted
/// products, quotients and overflow checks replaced by their definitions:
/// then the exact query is satisfiable too, by the same values.
bool modelHoldsExactly(Encoder &enc, const z3::model &m, z3::solver &s) {
  if (enc.abstracted.empty())
    return true;
  z3::expr_vector from(enc.ctx), to(enc.ctx);
  for (auto &[app, precise] : enc.abstracted) {
    from.push_back(app);
    to.push_back(precise);
  }
  z3::expr_vector assertions = s.assertions();
  for (unsigned i = 0; i < assertions.size(); ++i) {
    z3::expr e = assertions[i];
    // A definition may apply another abstracted term (a product of
    // products): substitute until none is left.
    for (unsigned round = 0; round < 8 && enc.mentionsAbstracted(e); ++round)
      e = e.substitute(from, to);
    if (enc.mentionsAbstracted(e) || !m.eval(e, true).is_true())
      return false;
  }
  return true;
}

/// Loop models other than plain kv.iter loops: sums, accumulators, folds,
/// breaks carry values across iterations, which no one instance shows.
bool hasLoopModel(KernelOp k) {
  bool found = false;
  k.walk([&](Operation *op) {
    if (isa<SumOp, CarryOp, FoldOp, LastOp, BreakOp>(op))
      found = true;
  });
  return found;
}

/// The loops of \p w, outermost first.
std::vector<Operation *> loopsOf(KernelModel &k, WriteOp w) {
  std::vector<Operation *> loops = k.itersOf(w);
  llvm::sort(loops,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return loops;
}

} // namespace

bool proveLockstep(
    KernelOp before, KernelOp after, const CheckOptions &opts,
    std::optional<std::chrono::steady_clock::time_point> deadline,
    std::string *why) {
  auto stop = [&](const std::string &w) {
    if (why)
      *why = w;
    return false;
  };
  if (!opts.lockstep)
    return false;
  if (!sameSignature(before, after))
    return stop("their parameters or shared arrays differ");
  if (hasLoopModel(before) || hasLoopModel(after))
    return false;
  KernelModel ks(before, "before"), kt(after, "after");
  if (ks.numIntervals != kt.numIntervals)
    return stop("they have " + std::to_string(ks.numIntervals) + " and " +
                std::to_string(kt.numIntervals) + " barrier intervals");
  // Interval i of one kernel stands for interval i of the other only where
  // the barriers between them are of one kind (grid, block or warp).
  auto kinds = [](KernelOp k) {
    std::string s;
    k.walk([&](BarrierOp b) {
      s += b.getGrid() ? 'g' : b.getWarp() ? 'w' : 'b';
    });
    return s;
  };
  if (kinds(before) != kinds(after))
    return stop("their barriers are of different kinds (grid, block, warp)");
  std::set<unsigned> arrays;
  std::map<Operation *, Operation *> loopPairs, loopPairsBack;
  for (KernelModel *k : {&ks, &kt})
    for (auto &[arg, byInterval] : k->writes)
      arrays.insert(arg);
  for (unsigned arg : arrays)
    for (unsigned i = 0; i < ks.numIntervals; ++i) {
      auto &ws = ks.writes[arg][i], &wt = kt.writes[arg][i];
      if (ws.size() != wt.size())
        return stop("interval " + std::to_string(i) + " writes '" +
                    before.getArgName(arg).str() + "' " +
                    std::to_string(ws.size()) + " and " +
                    std::to_string(wt.size()) + " times");
      // Same updates thread by thread: the cells end alike whatever the
      // order of the threads.
      for (size_t j = 0; j < ws.size(); ++j) {
        if (ws[j].getRmw() != wt[j].getRmw())
          return stop("interval " + std::to_string(i) + " write " +
                      std::to_string(j) + " to '" +
                      before.getArgName(arg).str() +
                      "' is a plain write or an atomic update of another "
                      "kind in one kernel");
        // Loops: paired writes' loops are paired, iteration k with
        // iteration k. For atomic updates that pairs the instances one to
        // one, and their order does not matter; plain writes inside loops
        // would also need the order of their instances alike.
        if (ks.repeatedWrites.contains(ws[j]) ||
            kt.repeatedWrites.contains(wt[j]))
          return stop("a write inside a loop does not depend on it");
        std::vector<Operation *> ls = loopsOf(ks, ws[j]),
                                 lt = loopsOf(kt, wt[j]);
        if (ls.empty() && lt.empty())
          continue;
        auto where = [&] {
          return "interval " + std::to_string(i) + " write " +
                 std::to_string(j) + " to '" + before.getArgName(arg).str() +
                 "'";
        };
        if (!ws[j].isAtomic())
          return stop(where() + " is a plain write inside a loop");
        if (ls.size() != lt.size())
          return stop(where() + " is inside " + std::to_string(ls.size()) +
                      " and " + std::to_string(lt.size()) + " loops");
        for (size_t l = 0; l < ls.size(); ++l) {
          // One variable for both: a counted loop's bounds it below 2^31,
          // which would hide an uncounted one's later iterations.
          if (cast<IterOp>(ls[l]).getUncounted() !=
              cast<IterOp>(lt[l]).getUncounted())
            return stop(where() + " is inside a loop the model counts in "
                                  "one kernel only");
          auto [a, newA] = loopPairs.emplace(ls[l], lt[l]);
          auto [b, newB] = loopPairsBack.emplace(lt[l], ls[l]);
          if (a->second != lt[l] || b->second != ls[l])
            return stop(where() + " is inside loops that other writes pair "
                                  "differently");
        }
      }
    }

  // The writes to pair, in order: (array, interval, index of the write).
  struct Slot {
    unsigned arg, interval;
    size_t j;
  };
  std::vector<Slot> slots;
  for (unsigned arg : arrays)
    for (unsigned i = 0; i < ks.numIntervals; ++i)
      for (size_t j = 0; j < ks.writes[arg][i].size(); ++j)
        slots.push_back({arg, i, j});
  auto describe = [&](const Slot &sl) {
    return "array " + before.getArgName(sl.arg).str() + " interval " +
           std::to_string(sl.interval) + " write " + std::to_string(sl.j);
  };

  // One encoding of both kernels, with products uninterpreted or (\p exact)
  // bit-precise: an index the optimizer rewrote through distributivity
  // ((t + 1) * 2 * d against 2 * t * d + 2 * d) only matches so. Pairs are
  // encoded when first asked, and each encoding serves every pair asked of
  // it (re-encoding both kernels per pair cost more than the queries).
  struct Attempt {
    ContextLease lease;
    std::unique_ptr<Encoder> enc;
    Thread *t = nullptr;
  };
  auto build = [&](bool exact) -> std::unique_ptr<Attempt> {
    auto at = std::make_unique<Attempt>();
    try {
      z3::context &ctx = at->lease;
      at->enc = std::make_unique<Encoder>(ctx, opts.bits, before);
      Encoder &enc = *at->enc;
      enc.deadline = deadline;
      enc.hugeGrids = opts.hugeGrids;
      enc.abstractNonlinear = !exact;
      enc.trusted = &ks;
      enc.bounded = &kt;
      std::string err;
      std::optional<z3::expr> a = parseAssumptions(enc, opts, err);
      if (!a)
        return nullptr;
      enc.facts = enc.launchConstraints() && *a;
      enc.pinDetermined();
      // The state after interval i, as the thread's block sees it: the
      // same function in both kernels (the induction hypothesis).
      enc.readHook = [&enc](KernelModel &k, unsigned arg, int interval,
                            const z3::expr &index, const Thread &t) {
        return enc.intervalState("lockstep", k, arg, interval, index, t);
      };
      at->t = &enc.freshThread(nullptr, 0);
      for (auto [ls, lt] : loopPairs)
        at->t->iters.emplace(lt, enc.iterVar(cast<IterOp>(ls), *at->t));
    } catch (z3::exception &) {
      return nullptr;
    } catch (EncodeTimeout &) {
      return nullptr;
    }
    return at;
  };

  // Whether both kernels make the write of \p sl alike: 1 proved, 0 may
  // differ, -1 the encoding fails. \p hasProducts and \p differsExactly
  // say, for a pair that may differ, whether an abstracted product is in it
  // (the only case an exact retry can change) and whether the model that
  // showed it is a real difference with exact products too (then the exact
  // retry, which bit-blasts every product, would only confirm it).
  auto check = [&](Attempt &at, const Slot &sl, bool &hasProducts,
                   bool &differsExactly, bool solve = true) -> int {
    Encoder &enc = *at.enc;
    z3::context &ctx = enc.ctx;
    const Thread &t = *at.t;
    bool exact = !enc.abstractNonlinear;
    try {
      WriteOp ws = ks.writes[sl.arg][sl.interval][sl.j],
              wt = kt.writes[sl.arg][sl.interval][sl.j];
      z3::expr gs = enc.accessGuard(ks, ws, t);
      z3::expr gt = enc.accessGuard(kt, wt, t);
      z3::expr is = enc.toIndex(enc.value(ks, ws.getIndex(), t));
      z3::expr it = enc.toIndex(enc.value(kt, wt.getIndex(), t));
      z3::expr vs = enc.value(ks, ws.getValue(), t);
      z3::expr vt = enc.value(kt, wt.getValue(), t);
      // An atomic update by the kind's identity (add 0, or 0, max with the
      // least value) changes nothing: only the others pair.
      if (std::optional<RmwKind> kind = ws.getRmw()) {
        gs = gs && vs != rmwIdentityOf(*kind, ctx, vs.get_sort().bv_size());
        gt = gt && vt != rmwIdentityOf(*kind, ctx, vt.get_sort().bv_size());
      }
      z3::expr claim = gs == gt && z3::implies(gs, is == it && vs == vt);
      if (!enc.unsupported.empty())
        return -1;
      // Sums whose operands the optimizer reordered become the same term
      // once the operands of + and * are sorted.
      z3::params norm(ctx);
      norm.set("bv_sort_ac", true);
      norm.set("som", true);
      z3::expr c = claim.simplify(norm);
      if (c.is_true())
        return 1;
      if (!solve)
        return 0;
      // One solver per query, without push/pop: Z3 then picks its
      // non-incremental bit-vector strategy (ackermannized uninterpreted
      // functions, bit-blasting), which settles these at once where the
      // incremental core does not.
      z3::solver s(ctx);
      s.add(enc.facts);
      s.add(enc.inRange(t));
      s.add(enc.threadFacts(t));
      s.add(enc.dataFacts(t));
      s.add(enc.globalIndexFacts(t));
      for (const z3::expr &e : enc.side)
        s.add(e);
      s.add(!c);
      if (std::string path = dumpPath("lockstep"); !path.empty())
        dumpTo(path, s.to_smt2());
      const char *what = exact ? "lockstep exact" : "lockstep";
      z3::check_result r = checkSmall(s, what, 2 * enc.subqueryRlimit,
                                      enc.withinDeadline(enc.subqueryMs));
      if (debugEnabled("lockstep"))
        llvm::errs() << "lockstep: " << describe(sl)
                     << (exact ? " (exact products)" : "") << ": "
                     << (r == z3::sat     ? "may differ"
                         : r == z3::unsat ? "same"
                                          : "unknown")
                     << "\n";
      if (r == z3::unsat)
        return 1;
      hasProducts = enc.mentionsAbstracted(claim);
      differsExactly =
          r == z3::sat && !exact && modelHoldsExactly(enc, s.get_model(), s);
      return 0;
    } catch (z3::exception &) {
      return -1;
    } catch (EncodeTimeout &) {
      return -1;
    }
  };

  // Each pair on its own: the conjunction is much harder to refute than its
  // parts. A pair that may differ with uninterpreted products is tried
  // again with exact ones.
  std::unique_ptr<Attempt> abstract = build(/*exact=*/false), precise;
  if (!abstract)
    return false;
  bool preciseFailed = false;
  for (const Slot &sl : slots) {
    bool hasProducts = false, differsExactly = false;
    // Where exact products were needed before, they usually make the next
    // pair the same term too, which costs no query.
    if (precise &&
        check(*precise, sl, hasProducts, differsExactly, /*solve=*/false) == 1)
      continue;
    int r = check(*abstract, sl, hasProducts, differsExactly);
    if (r < 0)
      return false;
    if (r == 1)
      continue;
    bool same = false;
    if (hasProducts && !differsExactly) {
      if (!precise && !preciseFailed) {
        precise = build(/*exact=*/true);
        preciseFailed = !precise;
      }
      bool ignored1, ignored2;
      same = precise && check(*precise, sl, ignored1, ignored2) == 1;
    }
    if (!same)
      return stop(describe(sl) + " may differ (another thread or value)");
  }
  return true;
}

} // namespace kv
