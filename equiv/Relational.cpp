//===- Relational.cpp - product of cut graphs, Houdini invariants -*- C++
//-*-===//
//
// The product's nodes pair a cut point of each kernel (a loop header, a
// barrier, the entry, or the end). From a node both kernels take one step
// (lockstep), or, where one waits at a barrier or has returned, the other
// steps alone. Each node has a state of fresh symbols per kernel; its
// invariant is the set of candidates that survive Houdini: a candidate
// false in some model of (invariant at the source, step) is dropped at the
// target, until every edge preserves what is left. Then:
// - where both kernels are at a barrier, or both have returned, their
//   memories, written bytes and read bytes must agree (the obligation);
// - a node where one is at a barrier and the other has returned, or not at
//   a barrier, must not be reached;
// - the after kernel's undefined behaviour must not be reached;
// - the after kernel never steps alone around a cycle (it would run on
//   where the before kernel stopped).
//
//===----------------------------------------------------------------------===//

#include "equiv/RelationalProduct.h"
#include "equiv/RelationalStepper.h"

#include "smt-encode/Debug.h"

#include "llvm/Support/raw_ostream.h"

#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"

#include <deque>
#include <functional>

using namespace llvm;

namespace kv::rel {

static Kind kindOf(Side *s, BasicBlock *b, BasicBlock *a) {
  // Where each kernel waits for the others: 1 returned, 2 at a barrier, 3
  // at a warp exchange (0: it steps on).
  auto waits = [&](int k, BasicBlock *c) {
    if (!c)
      return 1;
    if (s[k].isBarrier.count(c))
      return 2;
    return s[k].isExchange.count(c) ? 3 : 0;
  };
  int wb = waits(0, b), wa = waits(1, a);
  if (wb && wb == wa)
    return wb == 3 ? Kind::Exchange : Kind::Meet;
  if (wb && wa)
    return Kind::Bad;
  if (wb)
    return Kind::OnlyAfter;
  if (wa)
    return Kind::OnlyBefore;
  return Kind::Lockstep;
}

unsigned Product::node(BasicBlock *b, BasicBlock *a) {
  auto it = index.find({b, a});
  if (it != index.end())
    return it->second;
  unsigned id = nodes.size();
  index[{b, a}] = id;
  Node n{{b, a}, kindOf(sides, b, a), {}, {}, {}, {}, {}};
  std::string tag = "n" + std::to_string(id);
  for (int s = 0; s < 2; ++s) {
    std::string st = tag + (s ? "a" : "b");
    n.st[s].mem = ctx.constant((st + ".mem").c_str(), sh.memSort());
    n.st[s].wr = ctx.constant((st + ".wr").c_str(), sh.setSort());
    n.st[s].rd = ctx.constant((st + ".rd").c_str(), sh.setSort());
    if (!n.cut[s])
      continue;
    unsigned k = 0;
    for (Value *v : sides[s].live[n.cut[s]]) {
      auto stable = sides[s].stable.find(v);
      if (stable != sides[s].stable.end()) {
        n.st[s].vals.insert_or_assign(v, stable->second);
        n.st[s].poison.insert_or_assign(v, sides[s].stablePoison.at(v));
        continue;
      }
      unsigned bits = 0;
      Type *t = v->getType();
      if (t->isPointerTy())
        bits = 64;
      else if (t->isIntegerTy())
        bits = t->getIntegerBitWidth();
      else if (t->isFloatingPointTy())
        bits = t->getPrimitiveSizeInBits().getFixedValue();
      else if (auto *vt = dyn_cast<FixedVectorType>(t))
        bits = vt->getPrimitiveSizeInBits().getFixedValue();
      if (!bits) {
        why = "a value of a type the relational proof does not model at a "
              "loop header";
        bits = 1;
      }
      std::string name = st + ".v" + std::to_string(k++);
      n.st[s].vals.insert_or_assign(v, ctx.bv_const(name.c_str(), bits));
      n.st[s].poison.insert_or_assign(
          v, ctx.bool_const((name + ".poison").c_str()));
    }
  }
  if (n.kind == Kind::Meet && n.cut[0])
    n.afterBarrier = ctx.constant((tag + ".shared").c_str(), sh.memSort());
  if (n.kind == Kind::Exchange) {
    unsigned bits = bitsOf(n.cut[0]->getFirstNonPHIIt()->getType(),
                           n.cut[0]->getModule()->getDataLayout());
    n.exchanged = {ctx.bv_const((tag + ".xchg").c_str(), bits),
                   ctx.bool_val(false)};
  }
  nodes.push_back(std::move(n));
  return id;
}

bool Product::closed(const z3::expr &e) {
  auto it = closedMemo.find(e.id());
  if (it != closedMemo.end())
    return it->second;
  bool r = true;
  if (e.is_const()) {
    // A node's symbols are named n<id>...
    std::string n = e.decl().name().str();
    r = !(n.size() > 1 && n[0] == 'n' && isdigit((unsigned char)n[1]));
  } else if (e.is_app()) {
    for (unsigned i = 0; i < e.num_args() && r; ++i)
      r = closed(e.arg(i));
  } else {
    r = false;
  }
  closedMemo[e.id()] = r;
  return r;
}

bool Product::explore() {
  unsigned start = node(sides[0].entry, sides[1].entry);
  nodes[start].kind = Kind::Entry;
  std::deque<unsigned> work{start};
  std::vector<bool> done;
  while (!work.empty()) {
    unsigned id = work.front();
    work.pop_front();
    if (done.size() <= id)
      done.resize(nodes.size() + 1, false);
    if (done[id])
      continue;
    done[id] = true;
    if (nodes.size() > opts.maxNodes) {
      why =
          "more than " + std::to_string(opts.maxNodes) + " pairs of cut points";
      return false;
    }
    if (timeUp()) {
      why = "out of time while pairing the kernels' cut points";
      return false;
    }
    Kind kind = nodes[id].kind;
    if (kind == Kind::Bad)
      continue;
    bool steps[2] = {kind != Kind::OnlyAfter, kind != Kind::OnlyBefore};
    if (!nodes[id].cut[0] && !nodes[id].cut[1])
      continue; // both have returned
    std::optional<Step> st[2];
    for (int s = 0; s < 2; ++s) {
      if (!steps[s])
        continue;
      Node &n = nodes[id];
      if (!n.cut[s]) {
        steps[s] = false;
        continue;
      }
      State in = n.st[s];
      if (kind == Kind::Entry) {
        in.mem = ctx.constant("initial", sh.memSort());
        in.wr = in.rd = sh.emptySet();
      } else if (kind == Kind::Meet) {
        in.mem = *n.afterBarrier;
        in.wr = in.rd = sh.emptySet();
      } else if (kind == Kind::Exchange) {
        in.exchange = n.exchanged;
      }
      // A loop -O2 unrolled by u against the source's: the source's step
      // is u iterations (the ratio of the bodies' memory traffic), so that
      // the two loops meet at their headers.
      unsigned u = 1;
      if (s == 0 && kind == Kind::Lockstep && n.cut[1])
        if (unsigned a = sides[0].loopWork(n.cut[0]))
          if (unsigned b = sides[1].loopWork(n.cut[1]))
            if (b > a && b % a == 0 && b / a <= 16)
              u = b / a;
      if (u > 1)
        st[s] = sides[s].steps(n.cut[s], in, u);
      if (!st[s])
        st[s] = sides[s].step(n.cut[s], in);
      if (st[s] && debugEnabled("relational-steps"))
        for (const Exit &x : st[s]->exits)
          errs() << "[kv] relational: " << name(id) << " side " << s
                 << " exit to "
                 << (x.cut ? x.cut->getName().str() : std::string("ret"))
                 << " if " << x.cond.simplify().to_string().substr(0, 300)
                 << "\n";
      if (!st[s]) {
        why = (s ? "after kernel: " : "before kernel: ") + sides[s].why;
        return false;
      }
    }
    if (kind == Kind::Exchange) {
      // The same exchange on the same operands, none of them poison: then
      // every lane gets the same value in both kernels, and never poison.
      const Step &xb = *st[0], &xa = *st[1];
      bool alike = xb.exchangeOp == xa.exchangeOp &&
                   xb.exchangeArgs.size() == xa.exchangeArgs.size();
      z3::expr same = ctx.bool_val(alike);
      for (size_t k = 0; alike && k < xb.exchangeArgs.size(); ++k) {
        auto &[vb, pb] = xb.exchangeArgs[k];
        auto &[va, pa] = xa.exchangeArgs[k];
        if (vb.get_sort().bv_size() != va.get_sort().bv_size())
          same = ctx.bool_val(alike = false);
        else
          same = same && !pb && !pa && vb == va;
      }
      nodes[id].exchangeClaim = same.simplify();
      if (debugEnabled("relational-steps"))
        errs() << "[kv] relational: " << name(id) << " exchanges if "
               << nodes[id].exchangeClaim->to_string().substr(0, 300) << "\n";
    }
    // The candidates come when every step is known: a value computed once
    // (over parameters, registers and the initial memory) is a guess for
    // any node.
    if (st[0]) {
      nodes[id].ahead = st[0]->loads;
      // Only where the after kernel waits: elsewhere both step together.
      if (kind == Kind::OnlyBefore)
        for (const Exit &x : st[0]->exits) {
          nodes[id].aheadStates.push_back(x.state);
          nodes[id].aheadConds.push_back(x.cond);
          nodes[id].aheadUB = st[0]->ub;
          nodes[id].aheadForms = st[0]->forms;
        }
    }
    for (int s = 0; s < 2; ++s)
      if (st[s]) {
        stepTerms[id][s] = st[s]->terms;
        for (const z3::expr &t : st[s]->terms)
          if (!t.is_numeral() && closed(t) && closedIds.insert(t.id()).second)
            closedTerms.push_back(t);
        for (const z3::expr &t : st[s]->compared)
          if (!t.is_numeral() && closed(t) && limits.size() < 4 &&
              llvm::none_of(
                  limits, [&](const z3::expr &l) { return l.id() == t.id(); }))
            limits.push_back(t);
      }
    z3::expr hypBase =
        st[0] ? !st[0]->ub : ctx.bool_val(true); // the source is defined
    for (int s = 0; s < 2; ++s)
      if (st[s])
        for (const z3::expr &l : st[s]->lemmas)
          hypBase = hypBase && l;
    if (st[1]) {
      afterUB.push_back({id, hypBase && st[1]->ub});
      afterUBSites.push_back({hypBase, st[1]->ubSites});
    }
    // Each combination of the stepping kernels' exits.
    std::vector<const Exit *> eb{nullptr}, ea{nullptr};
    if (st[0]) {
      eb.clear();
      for (const Exit &e : st[0]->exits)
        eb.push_back(&e);
    }
    if (st[1]) {
      ea.clear();
      for (const Exit &e : st[1]->exits)
        ea.push_back(&e);
    }
    for (const Exit *xb : eb)
      for (const Exit *xa : ea) {
        BasicBlock *tb = xb ? xb->cut : nodes[id].cut[0];
        BasicBlock *ta = xa ? xa->cut : nodes[id].cut[1];
        unsigned to = node(tb, ta);
        if (!why.empty())
          return false;
        Node &n = nodes[id];
        Node &t = nodes[to];
        z3::expr hyp = hypBase, cond = ctx.bool_val(true);
        // The target's symbols stand for the step's result (or, for a
        // kernel that waits, the source's state): substituted into what is
        // said about the target, so that a loop's edge back to its own
        // header relates two states.
        std::vector<std::pair<z3::expr, z3::expr>> subst;
        const Exit *xs[2] = {xb, xa};
        for (int s = 0; s < 2; ++s) {
          const State &from = xs[s] ? xs[s]->state : n.st[s];
          if (xs[s])
            hyp = hyp && xs[s]->cond;
          if (xs[s])
            cond = cond && xs[s]->cond;
          subst.push_back({*t.st[s].mem, *from.mem});
          subst.push_back({*t.st[s].wr, *from.wr});
          subst.push_back({*t.st[s].rd, *from.rd});
          for (auto &[v, e] : t.st[s].vals) {
            auto f = from.vals.find(v);
            if (f == from.vals.end()) {
              why = "a value live at a cut point that the step does not "
                    "compute";
              return false;
            }
            if (fresh(e))
              subst.push_back({e, f->second});
            auto tp = t.st[s].poison.find(v);
            auto fp = from.poison.find(v);
            if (tp != t.st[s].poison.end() && fp != from.poison.end() &&
                tp->second.is_const() && !tp->second.is_true() &&
                !tp->second.is_false())
              subst.push_back({tp->second, fp->second});
          }
        }
        unsigned e = edges.size();
        edges.push_back({id, to, hyp, std::move(subst), xb != nullptr,
                         xa != nullptr, cond,
                         st[0] ? st[0]->ub : ctx.bool_val(false),
                         st[0] ? st[0]->forms
                               : std::vector<std::pair<z3::expr, z3::expr>>{},
                         st[1] ? st[1]->addrs : std::vector<z3::expr>{}});
        nodes[id].out.push_back(e);
        work.push_back(to);
      }
  }
  std::set<std::pair<unsigned, uint64_t>> bounds = sides[0].bounds;
  bounds.insert(sides[1].bounds.begin(), sides[1].bounds.end());
  std::vector<z3::expr> symbols = sh.symbols();
  if (!getenv("KV_REL_NO_CLOSED"))
    symbols.insert(symbols.end(), closedTerms.begin(), closedTerms.end());
  for (unsigned id = 0; id < nodes.size(); ++id)
    if (nodes[id].kind != Kind::Entry && nodes[id].kind != Kind::Bad)
      guess(nodes[id], stepTerms[id], symbols, bounds, limits, ctx);
  return true;
}

std::string Product::name(unsigned id) const {
  const Node &n = nodes[id];
  std::string s = "n" + std::to_string(id) + "(";
  for (int k = 0; k < 2; ++k) {
    BasicBlock *b = n.cut[k];
    s += b ? (b->hasName() ? b->getName().str() : "bb") : "ret";
    s += k ? ")" : ",";
  }
  return s;
}

void Product::dump(const z3::expr *) {
  for (unsigned id = 0; id < nodes.size(); ++id) {
    const Node &n = nodes[id];
    unsigned alive = 0;
    for (bool a : n.alive)
      alive += a;
    errs() << "[kv] relational: " << name(id) << " kind " << (int)n.kind << ", "
           << alive << "/" << n.cands.size() << " candidates, out:";
    for (unsigned o : n.out)
      errs() << " " << edges[o].to;
    errs() << "\n";
    if (debugEnabled("relational-invariants"))
      for (int k = 0; k < 2; ++k) {
        errs() << "    " << (k ? "after" : "before") << ":";
        for (auto &[v, e] : n.st[k].vals)
          if (fresh(e)) {
            errs() << " " << e.to_string() << "=";
            v->printAsOperand(errs(), false);
          }
        errs() << "\n";
      }
    if (debugEnabled("relational-invariants"))
      for (size_t i = 0; i < n.cands.size(); ++i) {
        size_t f = n.cands.size() - n.facts.size();
        if (!n.alive[i] && i < f && !debugEnabled("relational-candidates"))
          continue;
        if (!n.alive[i] && i < f)
          errs() << "    dropped";
        errs() << "    ";
        if (i >= f) // facts between arrays, dead ones too
          errs() << "[fact " << n.facts[i - f].first << "] "
                 << (n.alive[i] ? "" : "dropped ");
        errs() << n.cands[i].to_string().substr(
                      0, debugEnabled("relational-candidates") ? 4000 : 200)
               << "\n";
      }
  }
}

/// Where the after kernel's step at \p id may be undefined (\p ub): not
/// along any edge where the before kernel's next step (which it takes: the
/// after kernel has returned or waits) is defined. -O2's remainder runs
/// the source's last iteration in the after kernel's step before it.
bool Product::definedAhead(unsigned id, const z3::expr &ub) {
  if (llvm::none_of(nodes[id].out,
                    [&](unsigned o) { return nodes[edges[o].to].aheadUB; }))
    return false;
  for (unsigned o : nodes[id].out) {
    Edge e = edges[o];
    const Node &t = nodes[e.to];
    e.hyp = e.hyp && ub;
    z3::expr ahead = t.aheadUB ? !*t.aheadUB : ctx.bool_val(true);
    if (decide(id, &e, ahead, {}, nullptr) != z3::unsat)
      return false;
  }
  return true;
}

bool Product::obligations() {
  queryMs = 4 * opts.queryMs;
  for (const Edge &e : edges) {
    const Node &t = nodes[e.to];
    if (t.kind == Kind::Bad) {
      z3::check_result r = decide(e.from, &e, ctx.bool_val(true), {}, nullptr);
      if (r != z3::unsat) {
        if (debugEnabled("relational"))
          errs() << "[kv] relational: edge " << name(e.from) << " -> "
                 << name(e.to) << " may be taken ("
                 << (r == z3::sat ? "sat" : "unknown") << ", query " << queries
                 << ")\n";
        why = std::string("could not show that both kernels reach the same "
                          "barriers (one ") +
              (t.cut[0] ? "waits at a barrier" : "has returned") +
              " where the other " +
              (t.cut[1] ? "waits at a barrier" : "has returned") + ")";
        return false;
      }
      continue;
    }
    z3::expr at = ctx.bv_const("at.meet", 64);
    std::vector<bool> parts;
    if (t.kind == Kind::Meet &&
        decide(e.from, &e, ctx.bool_val(true),
               {pointwise(t, 0, at), pointwise(t, 1, at), pointwise(t, 2, at)},
               &parts) != z3::unsat) {
      if (debugEnabled("relational")) {
        errs() << "[kv] relational: edge " << name(e.from) << " -> "
               << name(e.to) << " breaks the obligation";
        if (parts.size() == 3)
          errs() << " (memory " << (parts[0] ? "agrees" : "differs")
                 << ", written bytes " << (parts[1] ? "agree" : "differ")
                 << ", reads " << (parts[2] ? "covered" : "not covered") << ")";
        errs() << "\n";
      }
      why = std::string("could not show that both kernels write the same "
                        "memory ") +
            (t.cut[0] ? "by a barrier" : "by the end");
      return false;
    }
  }
  for (unsigned id = 0; id < nodes.size(); ++id)
    if (nodes[id].exchangeClaim &&
        decide(id, nullptr, !*nodes[id].exchangeClaim, {}, nullptr) !=
            z3::unsat) {
      if (debugEnabled("relational"))
        errs() << "[kv] relational: " << name(id)
               << ": the warp exchanges' operands may differ\n";
      why = "could not show that both kernels exchange the same values in "
            "a warp shuffle, vote or reduction (at " +
            Side::where(*nodes[id].cut[1]->getFirstNonPHIIt()) + ")";
      return false;
    }
  for (auto [k, entry] : llvm::enumerate(afterUB)) {
    auto &[id, ub] = entry;
    if (!definedAhead(id, ub) &&
        decide(id, nullptr, ub, {}, nullptr) != z3::unsat) {
      if (debugEnabled("relational")) {
        errs() << "[kv] relational: " << name(id)
               << ": the after kernel's step may be undefined\n";
        auto &[hyp, sites] = afterUBSites[k];
        for (auto &[inst, c] : sites)
          if (z3::check_result r = decide(id, nullptr, hyp && c, {}, nullptr);
              r != z3::unsat) {
            errs() << "[kv] relational:   ("
                   << (r == z3::sat ? "sat" : "unknown") << ") at "
                   << (inst ? Side::where(*inst) : std::string("?")) << ":";
            if (inst)
              errs() << *inst;
            errs() << "\n";
          }
      }
      why = "could not show the optimized kernel free of undefined behaviour "
            "(poison, a division by zero, a trap) where the source is";
      return false;
    }
  }
  // The after kernel alone must not cycle: its steps are then bounded by
  // the before kernel's.
  std::vector<int> color(nodes.size(), 0);
  std::function<bool(unsigned)> cyclic = [&](unsigned v) {
    color[v] = 1;
    for (unsigned o : nodes[v].out) {
      const Edge &e = edges[o];
      if (e.before || !e.after)
        continue;
      // An edge no state satisfying the invariants takes (a node the
      // kernels never reach together has an invariant that is false).
      if (decide(v, &e, ctx.bool_val(true), {}, nullptr) == z3::unsat)
        continue;
      if (color[e.to] == 1 || (color[e.to] == 0 && cyclic(e.to)))
        return true;
    }
    color[v] = 2;
    return false;
  };
  for (unsigned v = 0; v < nodes.size(); ++v)
    if (color[v] == 0 && cyclic(v)) {
      why = "the optimized kernel may loop where the source has stopped";
      return false;
    }
  return true;
}

RelationalResult Product::run(const Function &before, const Function &after) {
  RelationalResult r;
  deadline = Clock::now() + std::chrono::milliseconds(opts.timeoutMs);
  if (before.arg_size() != after.arg_size()) {
    r.why = "the kernels' parameters differ";
    return r;
  }
  for (unsigned i = 0; i < before.arg_size(); ++i)
    if (before.getArg(i)->getType() != after.getArg(i)->getType() &&
        !(before.getArg(i)->getType()->isPointerTy() &&
          after.getArg(i)->getType()->isPointerTy())) {
      r.why = "the kernels' parameters differ";
      return r;
    }
  for (int s = 0; s < 2; ++s)
    if (!sides[s].prepare(s ? after : before)) {
      r.why = (s ? "after kernel: " : "before kernel: ") + sides[s].why;
      return r;
    }
  if (!explore()) {
    r.why = why;
    return r;
  }
  background = sh.facts();
  sample();
  // (What the runs left, before any query.)
  if (debugEnabled("relational-runs"))
    dump();
  bool ok = houdini() && obligations();
  if (debugEnabled("relational"))
    dump();
  if (!ok) {
    r.why = why;
    return r;
  }
  unsigned loops = 0, barriers = 0, exchanges = 0;
  for (BasicBlock *c : sides[1].cuts)
    if (sides[1].isBarrier.count(c))
      ++barriers;
    else if (sides[1].isExchange.count(c))
      ++exchanges;
    else if (c != sides[1].entry)
      ++loops;
  unsigned kept = 0;
  for (const Node &n : nodes)
    for (bool a : n.alive)
      kept += a;
  r.proved = true;
  r.method =
      "relational: " + std::to_string(nodes.size()) + " pairs of cut points (" +
      std::to_string(loops) + (loops == 1 ? " loop" : " loops") + ", " +
      std::to_string(barriers) + (barriers == 1 ? " barrier" : " barriers") +
      (exchanges ? ", " + std::to_string(exchanges) +
                       (exchanges == 1 ? " warp exchange" : " warp exchanges")
                 : std::string()) +
      " in the after kernel), " + std::to_string(kept) +
      " invariant candidates inductive, " + std::to_string(queries) +
      " queries";
  r.assumptions.push_back(
      std::string(opts.beforeSafetyChecked
                      ? "the before kernel has no undefined behaviour"
                      : "the before kernel has no data race, barrier "
                        "divergence or undefined behaviour") +
      " (the relational proof shows the after kernel's accesses are among "
      "the before kernel's, and that it is free of undefined behaviour "
      "where the before kernel is" +
      (opts.beforeSafetyChecked
           ? "; the before kernel's freedom from data races, barrier "
             "divergence and out-of-bounds shared accesses is checked)"
           : ")"));
  r.assumptions.push_back("the before kernel's loops terminate");
  if (!sides[0].isExchange.empty())
    r.assumptions.push_back(
        "every lane the mask of a warp shuffle, vote or reduction names in "
        "the before kernel reaches it with the others (the after kernel's "
        "lanes then reach theirs alike, with the same operands)");
  // The preconditions a kernel states, named as the model's methods name
  // them.
  bool unreachable = false;
  std::set<std::string> traps;
  for (const BasicBlock &bb : before)
    for (const Instruction &i : bb) {
      unreachable |= isa<UnreachableInst>(i);
      if (auto *c = dyn_cast<CallBase>(&i))
        if (const Function *g = c->getCalledFunction())
          if (g->getIntrinsicID() == Intrinsic::trap ||
              g->getName() == "__assertfail")
            traps.insert(Side::where(i));
    }
  for (const std::string &at : traps)
    r.assumptions.push_back("the before kernel reaches no trap or failed "
                            "assertion at " +
                            at +
                            " (such a launch ends with an error, not a "
                            "result)");
  if (unreachable)
    r.assumptions.push_back("the before kernel reaches no "
                            "__builtin_unreachable() (undefined behaviour)");
  return r;
}

} // namespace kv::rel

namespace kv {

RelationalResult proveRelational(const Function &before, const Function &after,
                                 const RelationalOptions &opts) {
  z3::context ctx;
  try {
    rel::Product p(opts, ctx);
    return p.run(before, after);
  } catch (const z3::exception &e) {
    RelationalResult r;
    r.why = std::string("solver error: ") + e.msg();
    return r;
  }
}

} // namespace kv
