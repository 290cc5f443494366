//===- Sums.cpp - kv.sum: sums over the iterations of a loop --------------===//
//
// A kv.sum as a fresh value tied to its body by witness lemmas (sumValue),
// and the regrouping of an unrolled loop's sum (groups of terms, with a
// remainder loop or a straight-line tail) into the single loop's sum, proved
// once per kernel pair in side queries (regroupSums, proveRegroup).
//
//===----------------------------------------------------------------------===//
#include "smt-encode/Debug.h"
#include "smt-encode/Encoder.h"
#include "smt-encode/Executor.h"

#include <optional>
#include <set>

using namespace mlir;

namespace kv {

// Sum over the iterations k of a loop of term(k): the body
// ite(k runs, term(k), 0) is encoded over a variable k, and the sum is a
// fresh value tied to it by lemmas at witness iterations (below). Loops of
// the two kernels that add the same terms in whatever shape (rotated, a
// hoisted row offset, another induction variable) get the same value.
Encoder::SumRecord Encoder::sumBody(KernelModel &k, SumOp sum,
                                    const Thread &t) {
  auto it = sum.getIter().getDefiningOp<IterOp>();
  // The loops around the sum keep t's iteration numbers.
  for (Operation *o : k.itersOf(sum))
    iterVar(cast<IterOp>(o), t);
  std::vector<z3::expr> tid = t.tid, bid = t.bid;
  Thread &tk = makeThread(tid, bid, t.depth, t.launch);
  inheritPins(t, tk);
  for (auto &[o, v] : t.iters)
    if (o != it.getOperation())
      tk.iters.emplace(o, v);
  // The body ranges over the 2^31 iteration numbers: a 31-bit variable,
  // extended. Then (int)k and (unsigned)k are the same term to the
  // simplifier, as they are the same number.
  z3::expr j =
      ctx.bv_const(("sum" + std::to_string(fresh++) + ".k").c_str(), 31);
  z3::expr kv = z3::zext(j, 33);
  tk.iters.emplace(it.getOperation(), kv);
  sumVars.push_back(j);
  z3::expr term = value(k, sum.getTerm(), tk);
  if (term.is_bool())
    term = boolToBv(term);
  z3::expr runs = live(k, it, tk);
  // The source kernel's preconditions at every iteration (no signed
  // overflow in row * n + k, say), which -O2 relies on when it rewrites a
  // term. Those that read arrays are left out (fewer assumptions, still
  // sound).
  z3::expr pre = ctx.bool_val(true);
  if (trusted == &k) {
    const std::vector<Operation *> &outer = k.itersOf(sum);
    for (AssumeOp a : k.assumes) {
      const std::vector<Operation *> &deps = k.itersOf(a);
      if (!llvm::is_contained(deps, it.getOperation()) ||
          dependsOn(a.getCond()))
        continue;
      if (llvm::any_of(deps, [&](Operation *d) {
            return d != it.getOperation() && !llvm::is_contained(outer, d);
          }))
        continue;
      z3::expr c = value(k, a.getCond(), tk);
      pre =
          pre && z3::implies(liveAll(k, a, tk), c.is_bool() ? c : bvToBool(c));
    }
  }
  unsigned w = term.get_sort().bv_size();
  // An unrolled loop's terms one by one: the lowering adds them as
  // t0 + (t1 + (... + tU-1)).
  std::vector<z3::expr> parts;
  if (unsigned u = sum.getGroup().value_or(0)) {
    llvm::SmallVector<Value> leaves;
    Value rest = sum.getTerm();
    while (leaves.size() + 1 < u) {
      auto add = rest.getDefiningOp<arith::AddIOp>();
      if (!add)
        break;
      leaves.push_back(add.getLhs());
      rest = add.getRhs();
    }
    leaves.push_back(rest);
    if (leaves.size() == u)
      for (Value v : leaves) {
        z3::expr e = value(k, v, tk);
        if (e.is_bool())
          e = boolToBv(e);
        parts.push_back(z3::ite(runs, e, ctx.bv_val(0, w)).simplify());
      }
  }
  sumVars.pop_back();
  z3::expr body = z3::ite(runs, term, ctx.bv_val(0, w)).simplify();
  return SumRecord{&k,
                   sum,
                   j,
                   body,
                   pre,
                   ctx.bool_val(false),
                   runs.simplify(),
                   w,
                   &tk,
                   sumVars.empty() && k.itersOf(sum).empty(),
                   (unsigned)sum.getGroup().value_or(0),
                   parts};
}

z3::expr Encoder::termAt(const SumRecord &r, const z3::expr &x64) {
  // Encoded afresh for a thread whose iteration is x (not the body with x
  // substituted): products then are the abstracted ones the other kernel's
  // straight-line code has, not exact ones.
  auto sum = cast<SumOp>(r.op);
  auto it = sum.getIter().getDefiningOp<IterOp>();
  Thread &tx = makeThread(r.thread->tid, r.thread->bid, r.thread->depth,
                          r.thread->launch);
  inheritPins(*r.thread, tx);
  for (auto &[o, v] : r.thread->iters)
    if (o != it.getOperation())
      tx.iters.emplace(o, v);
  tx.iters.emplace(it.getOperation(), x64);
  z3::expr term = value(*r.kernel, sum.getTerm(), tx);
  if (term.is_bool())
    term = boolToBv(term);
  return z3::ite(live(*r.kernel, it, tx), term,
                 ctx.bv_val(0, term.get_sort().bv_size()));
}

z3::expr Encoder::atIteration(const SumRecord &r, const z3::expr &x,
                              z3::expr e) {
  z3::expr_vector from(ctx), to(ctx);
  from.push_back(r.var);
  to.push_back(x);
  return e.substitute(from, to);
}

z3::expr Encoder::sumValue(KernelModel &k, SumOp sum, const Thread &t) {
  SumRecord self = sumBody(k, sum, t);
  unsigned w = self.width;
  // The sum is a fresh value; all the query knows of it is extensionality,
  // made explicit with a witness per pair of sums: a fresh x that is where
  // their terms differ if they do anywhere (a definition, so sound), and
  // the source's preconditions at x. The solver compares two terms at one
  // iteration, with no lambdas or quantifiers in the query.
  z3::expr app = ctx.bv_const(("sum" + std::to_string(fresh++)).c_str(), w);
  self.app = app;
  const Thread &tk = *self.thread;
  z3::expr zero = ctx.bv_val(0, w);
  auto at = [&](const SumRecord &r, const z3::expr &x) {
    return std::make_pair(atIteration(r, x, r.body), atIteration(r, x, r.pre));
  };
  auto witness = [&]() {
    return ctx.bv_const(("sum.x" + std::to_string(fresh++)).c_str(), 31);
  };
  {
    z3::expr x = witness();
    auto [b, p] = at(self, x);
    // Preconditions hold for the threads of the launch only.
    side.push_back(z3::implies(inRange(tk), p));
    // A loop that adds nothing (or does not run) sums to zero.
    side.push_back(z3::implies(b == zero, app == zero));
    // One that stops after its first iteration adds that iteration's term
    // (iterations run from 0 in order: a prefix): -O2 gives a loop that
    // runs once a path of its own, without the loop.
    z3::expr one = ctx.bv_val(1, 31), first = ctx.bv_val(0, 31);
    side.push_back(
        z3::implies(inRange(tk), atIteration(self, first, self.pre)));
    side.push_back(z3::implies(!atIteration(self, one, self.runs),
                               app == termAt(self, ctx.bv_val(0, 64))));
  }
  for (const SumRecord &r : sums) {
    if (r.width != w || (r.kernel == &k && r.op != sum.getOperation()))
      continue;
    z3::expr x = witness();
    auto [b1, p1] = at(r, x);
    auto [b2, p2] = at(self, x);
    // Sums of one thread, outside other loops: prove once, in a query of
    // its own, that their terms agree at every iteration; the main query
    // then only sees "same thread, same sum".
    // (A sum of groups of terms and one of single terms do not agree term
    // by term: regroupSums relates those.)
    if (r.topLevel && self.topLevel && r.group == self.group) {
      z3::expr same = sameThread(*r.thread, tk);
      // One sum op outside loops, twice: its value is a function of the
      // thread (its terms read arrays as they stood at its barrier
      // interval, the same for every thread), so equal threads give equal
      // sums without a proof.
      if (r.op == sum.getOperation()) {
        side.push_back(z3::implies(same && inRange(tk), r.app == app));
        continue;
      }
      z3::expr_vector q(ctx);
      q.push_back(facts);
      q.push_back(inRange(tk));
      q.push_back(globalIndexFacts(tk));
      // The before kernel's launch preconditions (its other terms'
      // guards may test them where the after kernel's do not).
      z3::expr launch = straightAssumes(r.kernel == trusted ? *r.thread : tk);
      q.push_back(launch);
      q.push_back(same && p1 && p2);
      if (proveEqual(z3::mk_and(q), {{ctx.bool_val(true), b1, b2}},
                     ctx.bool_val(false), "same-term")) {
        side.push_back(
            z3::implies(same && inRange(tk) && launch, r.app == app));
        continue;
      }
    }
    side.push_back(z3::implies(inRange(*r.thread), p1));
    side.push_back(z3::implies(inRange(tk), p2));
    side.push_back(z3::implies(b1 == b2, r.app == app));
  }
  sums.push_back(self);
  regroupSums(sums.back());
  return app;
}

// A loop unrolled U times adds, in iteration j, the terms of the single
// loop's iterations Uj .. Uj+U-1; a remainder loop adds those from UM on,
// M the number of iterations the unrolled loop ran:
//   sum_x t(x) = sum_j g(j) + sum_i r(i)
// holds for any M with
//   (C1) g(j) = t(Uj) + ... + t(Uj+U-1) for j < M,
//   (C2) g(j) = 0 for j >= M,
//   (C3) r(i) = t(UM + i) for every i
// (t read as 0 beyond the 2^31 iteration numbers): [0, UM) and [UM, ...)
// partition the single loop's iterations. A subquery proves C1-C3 for all
// j and i, M being the first iteration the unrolled loop does not run
// (which exists: the loop check proves fewer than 2^31 iterations); the
// main query gets the equation for the thread.
bool Encoder::regroupProved(const SumRecord &one, const SumRecord &g,
                            Operation *rest, bool tail) {
  // The tail form is keyed with the unrolled op twice.
  auto key = std::make_tuple(one.op, g.op, tail ? g.op : rest);
  RegroupCache &cache = regroupCache ? *regroupCache : regrouped;
  auto known = cache.find(key);
  if (known == cache.end())
    known = cache
                .emplace(key, proveRegroup(*one.kernel, one.op, *g.kernel, g.op,
                                           rest, tail))
                .first;
  return known->second;
}

void Encoder::regroupSums(const SumRecord &added) {
  // Pairs first: a loop over groups of U terms with nothing left over (a
  // loop over tiles, whose bound is a multiple of the tile).
  for (size_t a = 0; a < sums.size(); ++a)
    for (size_t b = 0; b < sums.size(); ++b) {
      const SumRecord &one = sums[a], &g = sums[b];
      // `one` adds one term per iteration (two sums with U terms each are
      // compared term by term in sumValue).
      if ((&one != &added && &g != &added) || !one.topLevel || !g.topLevel ||
          !g.group || one.group || one.kernel == g.kernel ||
          one.width != g.width)
        continue;
      z3::expr same = sameThread(*one.thread, *g.thread);
      z3::expr entered = atIteration(g, ctx.bv_val(0, 31), g.runs);
      if (regroupProved(one, g, nullptr, /*tail=*/false)) {
        side.push_back(z3::implies(same && inRange(*one.thread) && entered,
                                   one.app == g.app));
        continue;
      }
      // Unrolled U times with the last U-1 terms after the loop (the key
      // has the unrolled op twice).
      std::optional<z3::expr> trips =
          tripsOf(*g.kernel, cast<SumOp>(g.op), *g.thread);
      if (!trips)
        continue;
      if (!regroupProved(one, g, nullptr, /*tail=*/true))
        continue;
      z3::expr zero = ctx.bv_val(0, g.width), tail = zero;
      for (unsigned c = 0; c + 1 < g.group; ++c) {
        z3::expr x = ctx.bv_val(g.group, 64) * *trips + ctx.bv_val(c, 64);
        z3::expr in = z3::ult(x, ctx.bv_val(uint64_t(1) << 31, 64));
        z3::expr x31 = x.extract(30, 0);
        side.push_back(z3::implies(inRange(*one.thread) && in,
                                   atIteration(one, x31, one.pre)));
        tail = tail + z3::ite(in, termAt(one, x), zero);
      }
      side.push_back(z3::implies(same && inRange(*one.thread) && entered,
                                 one.app == g.app + tail));
    }
  for (size_t a = 0; a < sums.size(); ++a)
    for (size_t b = 0; b < sums.size(); ++b)
      for (size_t c = 0; c < sums.size(); ++c) {
        const SumRecord &one = sums[a], &g = sums[b], &rest = sums[c];
        if ((&one != &added && &g != &added && &rest != &added) ||
            !one.topLevel || !g.topLevel || !rest.topLevel || !g.group ||
            one.group || g.kernel != rest.kernel || one.kernel == g.kernel ||
            g.op == rest.op || one.width != g.width || rest.width != g.width)
          continue;
        if (!regroupProved(one, g, rest.op, /*tail=*/false))
          continue;
        z3::expr same = sameThread(*one.thread, *g.thread) &&
                        sameThread(*g.thread, *rest.thread);
        z3::expr entered = atIteration(g, ctx.bv_val(0, 31), g.runs);
        side.push_back(z3::implies(same && inRange(*one.thread) && entered,
                                   one.app == g.app + rest.app));
      }
}

void Encoder::dumpSums(const z3::model &m) {
  for (const SumRecord &r : sums) {
    llvm::errs() << "  sum " << r.app.to_string() << " = "
                 << m.eval(r.app, true).to_string() << " group " << r.group
                 << (r.kernel == trusted ? " (before)" : " (after)")
                 << " thread";
    for (auto &c : r.thread->tid)
      llvm::errs() << " " << m.eval(c, true).to_string();
    for (auto &c : r.thread->bid)
      llvm::errs() << " " << m.eval(c, true).to_string();
    llvm::errs() << " in range " << m.eval(inRange(*r.thread), true).to_string()
                 << "\n";
  }
}

std::optional<z3::expr> Encoder::tripsOf(KernelModel &k, SumOp sum,
                                         const Thread &t) {
  auto it = sum.getIter().getDefiningOp<IterOp>();
  if (!it || !it.getFromNe())
    return std::nullopt;
  auto v64 = [&](Value x) { return resize(value(k, x, t), 64, true); };
  return z3::udiv(v64(it.getBound()) - v64(it.getLb()), v64(it.getStep()));
}

bool Encoder::proveRegroup(KernelModel &k1, Operation *single, KernelModel &k2,
                           Operation *unrolled, Operation *remainder,
                           bool tail) {
  // Proved for one thread of both kernels: not where each has a launch of
  // its own.
  if (k1.launch != k2.launch)
    return false;
  // One thread for the three sums, with coordinates of its own: the
  // records' threads may be tied to the query's cell.
  std::string n = std::to_string(fresh++);
  std::vector<z3::expr> tid, bid;
  namedIds("regroup", tid, bid);
  // The thread and the sums' copies of it stay out of the query's threads
  // (whose pairs get index lemmas).
  bool wasShadow = shadow, wasProofOnly = proofOnly;
  shadow = proofOnly = true;
  proofFacts.clear();
  Thread &t = makeThread(tid, bid, 1, k1.launch);
  SumRecord one = sumBody(k1, cast<SumOp>(single), t);
  SumRecord g = sumBody(k2, cast<SumOp>(unrolled), t);
  // The facts of the two sums' bodies, apart from the remainder's.
  size_t pairFacts = proofFacts.size();
  std::optional<SumRecord> rest;
  if (remainder)
    rest = sumBody(k2, cast<SumOp>(remainder), t);
  shadow = wasShadow;
  proofOnly = wasProofOnly;
  auto at = [&](const SumRecord &r, const z3::expr &x, const z3::expr &e) {
    return atIteration(r, x, e);
  };
  z3::expr_vector q(ctx);
  z3::expr zero = ctx.bv_val(0, g.width);
  // The single loop's term at a 64-bit iteration number, 0 beyond 2^31;
  // its iteration's facts go to \p pre, which only the goals that read the
  // term assume (the hypotheses of every term in every goal would make
  // each of a 16-term group's 18 queries as hard as the largest).
  auto term = [&](const z3::expr &x, z3::expr_vector &pre) {
    z3::expr in = z3::ult(x, ctx.bv_val(uint64_t(1) << 31, 64));
    pre.push_back(z3::implies(in, at(one, x.extract(30, 0), one.pre)));
    return z3::ite(in, at(one, x.extract(30, 0), one.body), zero);
  };
  auto assuming = [&](const z3::expr_vector &pre, const z3::expr &goal) {
    return pre.empty() ? goal : z3::implies(z3::mk_and(pre), goal);
  };
  auto wide = [&](const z3::expr &x) { return z3::zext(x, 33); };
  z3::expr j = ctx.bv_const(("regroup" + n + ".j").c_str(), 31);
  z3::expr i = ctx.bv_const(("regroup" + n + ".i").c_str(), 31);
  z3::expr m = ctx.bv_const(("regroup" + n + ".m").c_str(), 31);
  z3::expr u = ctx.bv_val(g.group, 64);
  // C1 term by term when the terms are known one by one (small queries),
  // else for their sum.
  std::vector<z3::expr> goals;
  // C3 first: it fails fast where the remainder is not this one.
  std::optional<z3::expr> goal3;
  if (g.parts.size() == g.group) {
    for (unsigned c = 0; c < g.group; ++c) {
      z3::expr_vector pre(ctx);
      z3::expr t = term(u * wide(j) + ctx.bv_val(c, 64), pre);
      goals.push_back(
          assuming(pre, z3::implies(z3::ult(j, m), at(g, j, g.parts[c]) == t)));
    }
  } else {
    z3::expr_vector pre(ctx);
    z3::expr group = zero;
    for (unsigned c = 0; c < g.group; ++c)
      group = group + term(u * wide(j) + ctx.bv_val(c, 64), pre);
    goals.push_back(
        assuming(pre, z3::implies(z3::ult(j, m), at(g, j, g.body) == group)));
  }
  goals.push_back(z3::implies(z3::uge(j, m), at(g, j, g.body) == zero));
  // C3: the remainder adds the terms from UM on; without one, there are
  // none (tried first: it fails fast where a remainder is needed); with a
  // straight-line tail, none from UM + U - 1 on.
  z3::expr_vector pre3(ctx);
  if (rest)
    goal3 = at(*rest, i, rest->body) == term(u * wide(m) + wide(i), pre3);
  else
    goal3 = term(u * wide(m) + ctx.bv_val(tail ? g.group - 1 : 0, 64) + wide(i),
                 pre3) == zero;
  goal3 = assuming(pre3, *goal3);
  q.push_back(facts);
  q.push_back(inRange(t));
  q.push_back(globalIndexFacts(t));
  for (size_t f = 0; f < pairFacts; ++f)
    q.push_back(proofFacts[f]);
  q.push_back(at(g, j, g.pre));
  // M: the first iteration of g that does not run, g's loop entered (where
  // it is not, the remainder is usually another loop, on a path of its
  // own).
  q.push_back(at(g, ctx.bv_val(0, 31), g.runs));
  z3::expr mDef =
      !at(g, m, g.runs) && (m == ctx.bv_val(0, 31) || at(g, m - 1, g.runs));
  bool proved = true;
  if (tail) {
    // M is the loop's trip count, the value the main query's tail uses:
    // shown from the loop's exactness (x != bound reaches the bound, which
    // the checker proves for every thread that enters).
    auto it = cast<SumOp>(unrolled).getIter().getDefiningOp<IterOp>();
    shadow = proofOnly = true;
    auto v64 = [&](Value x) { return resize(value(k2, x, t), 64, true); };
    z3::expr lb = v64(it.getLb()), step = v64(it.getStep()),
             bound = v64(it.getBound());
    shadow = wasShadow;
    proofOnly = wasProofOnly;
    z3::expr trips = z3::udiv(bound - lb, step);
    q.push_back(z3::urem(bound - lb, step) == ctx.bv_val(0, 64) &&
                (it.isSigned() ? lb <= bound : z3::ule(lb, bound)) &&
                z3::ult(trips, ctx.bv_val(uint64_t(1) << 31, 64)));
    q.push_back(m == trips.extract(30, 0));
    q.push_back(!mDef);
    proved = proveUnsat(z3::mk_and(q));
    q.pop_back();
    if (debugEnabled("regroup"))
      llvm::errs() << "regroup trip count "
                   << (proved ? "proved" : "not proved") << "\n";
  }
  q.push_back(mDef);
  // The remainder's facts join the context of C3 (and of C1 and C2 only
  // where they are not proved without them).
  z3::expr_vector full(ctx); // (a copy of q would share its vector)
  for (const z3::expr &h : q)
    full.push_back(h);
  for (size_t f = pairFacts; f < proofFacts.size(); ++f)
    full.push_back(proofFacts[f]);
  if (rest)
    full.push_back(at(*rest, i, rest->pre));
  auto proveGoal = [&](z3::expr_vector &hyps, const z3::expr &goal) {
    hyps.push_back(!goal);
    // Once per kernel pair, and the index terms of a loop counting down
    // (sign extensions of reassociated sums) need up to 26M: a larger budget.
    bool ok = proveUnsat(z3::mk_and(hyps), "regroup", /*rlimitScale=*/4);
    hyps.pop_back();
    if (debugEnabled("regroup"))
      llvm::errs() << "regroup goal " << (ok ? "proved" : "not proved") << ": "
                   << goal.simplify().to_string() << "\n";
    return ok;
  };
  proved = proved && proveGoal(full, *goal3);
  // C1 and C2 are about the two sums alone: proved once for the pair, then
  // reused for every remainder tried (the key has the single sum's op in
  // the remainder's place).
  if (proved) {
    RegroupCache &cache = regroupCache ? *regroupCache : regrouped;
    auto key = std::make_tuple(single, unrolled, single);
    auto known = cache.find(key);
    if (known != cache.end() && known->second) {
      if (debugEnabled("regroup"))
        llvm::errs() << "regroup goals of the unrolled loop: proved before\n";
    } else {
      bool alone = llvm::all_of(
          goals, [&](const z3::expr &goal) { return proveGoal(q, goal); });
      if (alone)
        cache[key] = true;
      else if (q.size() != full.size())
        proved = llvm::all_of(
            goals, [&](const z3::expr &goal) { return proveGoal(full, goal); });
      else
        proved = false;
    }
  }
  if (debugEnabled("encoder"))
    llvm::errs() << "regrouping an unrolled sum " << unrolled << " (" << g.group
                 << " terms per iteration) with a remainder " << remainder
                 << ": " << (proved ? "proved" : "not proved") << "\n";
  return proved;
}

bool Encoder::mentionsAbstracted(const z3::expr &e) {
  std::set<std::string> names;
  for (auto &[app, precise] : abstracted)
    if (app.is_app())
      names.insert(app.decl().name().str());
  if (names.empty())
    return false;
  std::set<unsigned> seen;
  std::vector<z3::expr> work{e};
  while (!work.empty()) {
    z3::expr x = work.back();
    work.pop_back();
    if (!x.is_app() || !seen.insert(x.id()).second)
      continue;
    if (names.count(x.decl().name().str()))
      return true;
    for (unsigned i = 0; i < x.num_args(); ++i)
      work.push_back(x.arg(i));
  }
  return false;
}

bool Encoder::mentionsSumVar(const z3::expr &e) {
  if (sumVars.empty())
    return false;
  std::set<unsigned> seen;
  std::vector<z3::expr> work{e};
  while (!work.empty()) {
    z3::expr x = work.back();
    work.pop_back();
    if (!seen.insert(x.id()).second)
      continue;
    if (x.is_const()) {
      for (const z3::expr &v : sumVars)
        if (z3::eq(x, v))
          return true;
      continue;
    }
    if (x.is_app())
      for (unsigned i = 0; i < x.num_args(); ++i)
        work.push_back(x.arg(i));
    else if (x.is_quantifier() || x.is_lambda())
      work.push_back(x.body());
  }
  return false;
}

} // namespace kv
