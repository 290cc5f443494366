//===- RelationalHoudini.cpp - the relational proof's invariants -*- C++
//-*-===//
//
// Candidates at each pair of cut points, and Houdini: drop a candidate a
// model of the others falsifies across an edge, until every edge keeps
// what is left; runs of the product on concrete values drop many at once.
//
//===----------------------------------------------------------------------===//

#include "equiv/RelationalProduct.h"

#include "smt-encode/Debug.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/raw_ostream.h"

#include <deque>
#include <functional>
#include <map>

using namespace llvm;

namespace kv::rel {

/// Whether \p e is one of a node's fresh symbols for a value.
bool fresh(const z3::expr &e) {
  return e.is_const() && e.get_sort().is_bv() &&
         e.decl().name().str().find(".v") != std::string::npos;
}

/// A candidate per guess: values equal across the kernels, a value equal
/// to a term the other kernel computes in its step, conditions that hold,
/// values that are not poison, and the memories and access sets agreeing.
void guess(Node &n, const std::vector<z3::expr> *terms,
           const std::vector<z3::expr> &symbols,
           std::set<std::pair<unsigned, uint64_t>> bounds,
           const std::vector<z3::expr> &limits, z3::context &ctx) {
  std::vector<z3::expr> &c = n.cands;
  auto sameSort = [](const z3::expr &a, const z3::expr &b) {
    return a.get_sort().bv_size() == b.get_sort().bv_size();
  };
  // The fresh symbols of each side's state, and every value its state
  // holds (values computed once before any loop are terms, not symbols).
  std::vector<z3::expr> vs[2], held[2];
  for (int s = 0; s < 2; ++s)
    for (auto &[v, e] : n.st[s].vals) {
      held[s].push_back(e);
      if (fresh(e))
        vs[s].push_back(e);
      auto p = n.st[s].poison.find(v);
      if (p != n.st[s].poison.end() && p->second.is_const() &&
          !p->second.is_true() && !p->second.is_false()) {
        c.push_back(!p->second);
        // Poison the after kernel computed ahead of the before kernel,
        // where the before kernel's next step is undefined (an overflow
        // that both compute).
        if (s == 1 && n.aheadUB)
          c.push_back(z3::implies(p->second, *n.aheadUB));
      }
    }
  // The after kernel's values computed ahead: those the before kernel
  // holds after its step along exit j, where it takes it. And which exit
  // that step takes (a loop the after kernel has left: the source's next
  // test leaves it too).
  for (size_t j = 0; j < n.aheadConds.size() && j < 4; ++j)
    c.push_back(n.aheadConds[j]);
  for (size_t j = 0; j < n.aheadStates.size() && j < 4; ++j)
    for (auto &[w, e] : n.aheadStates[j].vals)
      for (auto &[v, a] : n.st[1].vals)
        if (fresh(a) && a.get_sort().bv_size() == e.get_sort().bv_size())
          c.push_back(z3::implies(n.aheadConds[j], a == e));
  // Right-hand sides: what either kernel computes in its step or holds,
  // and the parameters and special registers.
  std::vector<z3::expr> rhs = symbols;
  for (int s = 0; s < 2; ++s) {
    rhs.insert(rhs.end(), terms[s].begin(), terms[s].end());
    rhs.insert(rhs.end(), held[s].begin(), held[s].end());
  }
  std::set<unsigned> seen;
  std::vector<z3::expr> uniq;
  for (const z3::expr &t : rhs)
    if (!t.is_numeral() && seen.insert(t.id()).second)
      uniq.push_back(t);
  for (int s = 0; s < 2; ++s)
    for (const z3::expr &v : vs[s])
      for (const z3::expr &t : uniq)
        if (sameSort(v, t) && t.id() != v.id())
          c.push_back(v == t);
  // A counter of one kernel a few iterations ahead of the other's: the
  // copies of a loop body -O2 unrolled stand between cut points of the
  // source's one body.
  for (const z3::expr &b : vs[0])
    for (const z3::expr &a : vs[1])
      if (sameSort(a, b) && b.get_sort().bv_size() > 1 &&
          !getenv("KV_REL_NO_OFFSETS"))
        for (int k : {1, 2, 3, 4, 8, 16}) {
          z3::expr d = ctx.bv_val(k, b.get_sort().bv_size());
          c.push_back(b == a + d);
          c.push_back(a == b + d);
        }
  // A loop -O2 unrolled at run time by U: the unrolled loop runs n & -U
  // iterations (a closed term the after kernel computes, `and` with a
  // mask that clears the low bits), the remainder the rest. The remainder
  // loop counts from zero where the source's counter stands at n & -U; once
  // the after kernel has left the unrolled loop, the source's counter is
  // at least n & -U and at most n, where n > 0 (n & -U bounds nothing
  // where n is negative): candidates for those, with each condition
  // computed once as a guard.
  std::vector<z3::expr> rounded, roundedOf;
  std::map<unsigned, std::pair<z3::expr, uint64_t>> masked; // n & -U: n, U
  for (const z3::expr &t : symbols) {
    uint64_t m = 0;
    if (!t.is_app() || t.decl().decl_kind() != Z3_OP_BAND ||
        t.num_args() != 2 || t.get_sort().bv_size() > 64)
      continue;
    unsigned w = t.get_sort().bv_size();
    uint64_t ones = w == 64 ? ~0ull : (1ull << w) - 1;
    for (unsigned k = 0; k < 2; ++k) {
      if (!t.arg(k).is_numeral_u64(m) || !m)
        continue;
      // -U, or -U without the sign bit (n > 0 known), for U = 2 .. 16.
      uint64_t u = m & -m, filled = m | (u - 1);
      if (u >= 2 && u <= 16 && (filled == ones || filled == ones >> 1)) {
        rounded.push_back(t);
        roundedOf.push_back(t.arg(1 - k));
        masked.emplace(t.id(), std::make_pair(t.arg(1 - k), u));
      }
    }
  }
  // A trip count that is itself offset (`count - 2` rounded: -O2 writes
  // `(count & -U) - 4` and compares its counter with it before the
  // increment): the rounded count is that term, or that term plus U; n is
  // the masked operand plus the offset, or plus the offset and U.
  for (const z3::expr &t : symbols) {
    if (!t.is_app() || t.decl().decl_kind() != Z3_OP_BADD || t.num_args() != 2)
      continue;
    for (unsigned k = 0; k < 2; ++k) {
      auto it = masked.find(t.arg(1 - k).id());
      if (!t.arg(k).is_numeral() || it == masked.end())
        continue;
      auto &[n, u] = it->second;
      z3::expr du = ctx.bv_val(u, t.get_sort().bv_size());
      rounded.push_back(t);
      rounded.push_back(t + du);
      roundedOf.push_back(n + t.arg(k));
      roundedOf.push_back(n + t.arg(k) + du);
    }
  }
  if (!rounded.empty() && rounded.size() <= 4) {
    for (const z3::expr &b : vs[0])
      for (const z3::expr &a : vs[1])
        for (const z3::expr &t : rounded)
          if (sameSort(a, b) && sameSort(t, b))
            c.push_back(b == a + t);
    std::vector<z3::expr> conds{ctx.bool_val(true)};
    for (const z3::expr &t : symbols)
      if (t.get_sort().is_bv() && t.get_sort().bv_size() == 1 &&
          !t.is_numeral() && conds.size() < 9)
        conds.push_back(t == ctx.bv_val(1, 1));
    std::vector<z3::expr> ends = rounded;
    ends.insert(ends.end(), roundedOf.begin(), roundedOf.end());
    for (const z3::expr &v : vs[0])
      for (const z3::expr &t : ends)
        if (sameSort(t, v))
          for (const z3::expr &p : conds) {
            c.push_back(z3::implies(p, v >= t));
            c.push_back(z3::implies(p, v <= t));
          }
  }
  // Where an unrolled counter stands: a multiple of the unroll factor, at
  // most a bound the loops compare with, less a factor.
  for (int s = 0; s < 2; ++s)
    for (const z3::expr &t : terms[s])
      if (t.is_numeral() && t.get_sort().bv_size() > 1) {
        uint64_t v = 0;
        if (t.is_numeral_u64(v) && v > 1 && v < (1ull << 31))
          bounds.insert({t.get_sort().bv_size(), v});
      }
  for (int s = 0; s < 2 && !getenv("KV_REL_NO_BOUNDS"); ++s)
    for (const z3::expr &v : vs[s]) {
      unsigned w = v.get_sort().bv_size();
      if (w < 8)
        continue;
      for (unsigned u : {2u, 4u, 8u, 16u}) {
        c.push_back((v & ctx.bv_val(u - 1, w)) == ctx.bv_val(0, w));
        for (auto &[bw, b] : bounds)
          if (bw == w && b > u)
            c.push_back(v <= ctx.bv_val(b - u, w));
      }
      for (auto &[bw, b] : bounds)
        if (bw == w) {
          c.push_back(v < ctx.bv_val(b, w));
          c.push_back(v <= ctx.bv_val(b, w));
          c.push_back(z3::ult(v, ctx.bv_val(b, w)));
        }
      c.push_back(v >= ctx.bv_val(0, w));
      // Below a bound the kernels compare with that is not a constant: a
      // counter whose loop the two kernels test in different places (a
      // rotated loop whose body has cut points of its own).
      for (const z3::expr &t : limits)
        if (sameSort(v, t)) {
          c.push_back(v < t);
          c.push_back(v <= t);
          c.push_back(z3::ult(v, t));
        }
    }
  for (int s = 0; s < 2; ++s) {
    // Constants the state holds (a counter's start, a flag).
    for (const z3::expr &v : vs[s])
      for (const z3::expr &t : terms[s])
        if (t.is_numeral() && sameSort(v, t))
          c.push_back(v == t);
    for (const z3::expr &t : terms[s])
      if (t.get_sort().bv_size() == 1 && !t.is_numeral()) {
        c.push_back(t == ctx.bv_val(1, 1));
        c.push_back(t == ctx.bv_val(0, 1));
      }
  }
  // (As the facts, pointwise(): where the before kernel steps alone, a
  // candidate speaks of states whose step is defined.)
  if (n.aheadUB)
    for (z3::expr &x : c)
      x = z3::implies(!*n.aheadUB, x);
  n.goals = c;
  for (int k = 0; k < 4; ++k)
    n.facts.push_back({k, -1});
  for (int j = 0; j < (int)n.aheadStates.size() && j < 4; ++j) {
    n.facts.push_back({4, j});
    n.facts.push_back({5, j});
    n.facts.push_back({6, j});
  }
  for (auto &[k, j] : n.facts) {
    z3::expr x =
        ctx.bv_const(("at" + std::to_string(k) + "." + std::to_string(j) + "." +
                      n.st[0].mem->decl().name().str())
                         .c_str(),
                     64);
    // (As assumed, a fact between arrays is instantiated by decide(); this
    // form is for printing.)
    c.push_back(
        k == 0   ? *n.st[0].mem == *n.st[1].mem
        : k == 1 ? *n.st[0].wr == *n.st[1].wr
        : k == 4 ? z3::implies(n.aheadConds[j],
                               *n.aheadStates[j].mem == *n.st[1].mem)
        : k == 5
            ? z3::implies(n.aheadConds[j], *n.aheadStates[j].wr == *n.st[1].wr)
        : k == 6
            ? z3::implies(n.aheadConds[j],
                          z3::set_subset(*n.st[1].rd,
                                         z3::set_union(*n.aheadStates[j].rd,
                                                       *n.aheadStates[j].wr)))
            : z3::set_subset(*n.st[1].rd,
                             z3::set_union(*n.st[0].rd, *n.st[0].wr)));
    n.goals.push_back(pointwise(n, k, x, j));
  }
  n.alive.assign(c.size(), true);
}

/// (A model alone would leave the memory all zeros, where unrelated values
/// agree.) Each aligned 4-byte word holds a small value, -32..31: full
/// random words make the product of two loaded ints overflow, a step the
/// before kernel does not define, and the run would stop at the first
/// multiply (a register block's accumulators were then never compared
/// around their loop); negative ones drop sign candidates that only
/// non-negative inputs keep.
z3::expr Product::concreteInitial(const z3::expr &e) {
  if (!initialBytes) {
    z3::expr addr = ctx.bv_const("kv.addr", 64);
    z3::expr_vector f(ctx), t(ctx);
    f.push_back(ctx.constant("initial", sh.memSort()));
    z3::expr word = addr & ctx.bv_val((uint64_t)~3ull, 64);
    z3::expr low =
        (z3::lshr(word * ctx.bv_val((uint64_t)0x9E3779B97F4A7C15ull, 64),
                  ctx.bv_val(23u, 64))
             .extract(7, 0) &
         ctx.bv_val(0x3fu, 8)) -
        ctx.bv_val(32u, 8);
    z3::expr sign = z3::ite(z3::slt(low, ctx.bv_val(0u, 8)),
                            ctx.bv_val(0xffu, 8), ctx.bv_val(0u, 8));
    t.push_back(z3::lambda(
        addr,
        z3::ite((addr & ctx.bv_val(3u, 64)) == ctx.bv_val(0u, 64), low, sign)));
    initialBytes.emplace(f, t);
  }
  return z3::expr(e).substitute(initialBytes->first, initialBytes->second);
}

/// Houdini drops a candidate that some model of the current candidates
/// falsifies across one edge; a query per edge and round, and a chain of
/// candidates that each fall one round after the other (a counter's bounds
/// around a loop) takes as many rounds. From that model the product runs
/// on: every state it reaches satisfies the largest inductive invariant,
/// which is among the current candidates, so a candidate false there is
/// not in it. Only values that do not depend on memory count (the model
/// satisfies the facts between arrays only where the query read them), and
/// the run stops where a branch does.
std::set<unsigned> Product::simulate(const z3::model &m, const Edge &first,
                                     bool exact) {
  std::set<unsigned> changed;
  std::unordered_map<unsigned, bool> memo;
  std::set<unsigned> tainted; // symbols of the current node
  // (From the entry every value counts: the run is an execution.)
  std::function<bool(const z3::expr &)> taint = [&](const z3::expr &e) {
    if (exact)
      return false;
    if (e.get_sort().is_array())
      return true;
    if (!e.is_app())
      return true;
    auto it = memo.find(e.id());
    if (it != memo.end())
      return it->second;
    bool t = e.decl().decl_kind() == Z3_OP_SELECT ||
             (e.is_const() && tainted.count(e.id()));
    for (unsigned i = 0; i < e.num_args() && !t; ++i)
      t = taint(e.arg(i));
    memo[e.id()] = t;
    return t;
  };
  z3::expr_vector from(ctx), to(ctx);
  // (From the entry, the initial memory is the run's: concreteInitial.)
  auto value = [&](const z3::expr &e) {
    z3::expr x = z3::expr(e).substitute(from, to);
    return m.eval(exact ? concreteInitial(x) : x, true);
  };
  const Edge *e = &first;
  // The model is of a query rewritten (symbols merged, arithmetic in normal
  // form, extensions replaced where defined); the run's reasoning holds only
  // from a state where every candidate it can evaluate holds.
  if (!exact) {
    const Node &src = nodes[first.from];
    size_t arrays = src.cands.size() - src.facts.size();
    for (size_t i = 0; i < arrays; ++i)
      if (src.alive[i] && !taint(src.cands[i]) &&
          !value(src.cands[i]).is_true()) {
        if (debugEnabled("relational-queries"))
          errs() << "[kv] relational: no run, the model falsifies "
                 << src.cands[i].to_string().substr(0, 300) << "\n";
        return changed;
      }
  }
  llvm::scope_exit say([&] {
    if (debugEnabled("relational-queries"))
      errs() << "[kv] relational: run stops at " << name(e->to) << "\n";
  });
  for (unsigned steps = 0; steps < 4 * nodes.size() && !timeUp(); ++steps) {
    // The target's values.
    z3::expr_vector nf(ctx), nt(ctx);
    std::set<unsigned> nextTainted;
    for (auto &[sym, rhs] : e->subst) {
      if (sym.get_sort().is_array() && !exact)
        continue;
      if (taint(rhs)) {
        nextTainted.insert(sym.id());
        continue;
      }
      nf.push_back(sym);
      nt.push_back(value(rhs));
    }
    from = nf;
    to = nt;
    tainted = std::move(nextTainted);
    memo.clear();
    Node &n = nodes[e->to];
    size_t arrays = n.cands.size() - n.facts.size();
    for (size_t i = 0; i < arrays; ++i)
      if (n.alive[i] && !taint(n.cands[i]) && value(n.cands[i]).is_false()) {
        n.alive[i] = false;
        changed.insert(e->to);
      }
    // The edge the values take, where no branch depends on memory.
    const Edge *next = nullptr;
    for (unsigned o : n.out) {
      const Edge &x = edges[o];
      if (nodes[x.to].kind == Kind::Bad)
        continue;
      if (taint(x.cond)) {
        if (debugEnabled("relational-queries"))
          errs() << "[kv] relational: run: a branch depends on memory\n";
        return changed;
      }
      if (value(x.cond).is_true() && !next)
        next = &x;
    }
    // (A step where the before kernel is undefined is not an execution.)
    if (!next || (!taint(next->ub) && !value(next->ub).is_false())) {
      if (debugEnabled("relational-queries"))
        errs() << "[kv] relational: run: "
               << (next ? "the step is undefined" : "no edge taken") << "\n";
      return changed;
    }
    e = next;
  }
  return changed;
}

void Product::sample() {
  std::vector<z3::expr> syms = sh.symbols();
  for (uint64_t run = 1; run <= 8 && !timeUp(); ++run) {
    z3::solver s(ctx);
    s.add(*background);
    // Small pseudo-random launches and parameters (a model alone would be
    // all zeros, where unrelated values agree).
    uint64_t h = run * 0x9E3779B97F4A7C15ull;
    auto next = [&](uint64_t mod) {
      h ^= h >> 29;
      h *= 0xBF58476D1CE4E5B9ull;
      h ^= h >> 32;
      return h % mod;
    };
    z3::expr_vector assumed(ctx);
    // The launch first, then ids within it: an id past its dimension would
    // make the launch unsatisfiable, and the run fall back to all zeros.
    std::map<std::string, uint64_t> dims;
    for (const z3::expr &x : syms) {
      std::string name = x.get_sort().is_bv() ? x.decl().name().str() : "";
      bool block = name.rfind("ntid.", 0) == 0;
      if (!block && name.rfind("nctaid.", 0) != 0)
        continue;
      // (A block of at most 96 x 2 x 2 threads: within CUDA's 1,024.)
      uint64_t v = 1 + next(!block ? 8 : name == "ntid.x" ? 96 : 2);
      dims[name] = v;
      assumed.push_back(x == ctx.bv_val(v, x.get_sort().bv_size()));
    }
    for (const z3::expr &x : syms) {
      if (!x.get_sort().is_bv())
        continue;
      std::string name = x.decl().name().str();
      if (dims.count(name))
        continue;
      unsigned w = x.get_sort().bv_size();
      uint64_t v;
      if (name.rfind("tid.", 0) == 0 || name.rfind("ctaid.", 0) == 0) {
        // (Every other run takes a thread near the origin: one far out
        // is often past every bound and runs no loop at all.)
        auto d = dims.find("n" + name);
        uint64_t range = d != dims.end() ? d->second : 8;
        v = next(run % 2 ? std::min<uint64_t>(range, 2) : range);
      } else {
        // (Scalars of three sizes: -2..2 are the sizes at which loops do
        // not run, and small and large ones drop bounds that one size
        // keeps.)
        v = w == 64        ? (1 + next(1 << 16)) << 12
            : run % 4 == 0 ? next(5) - 2
            : run > 4      ? next(100000)
                           : next(24);
      }
      // (-2..2 wrapped around 2^64: the value at the scalar's width.)
      if (w < 64)
        v &= (1ull << w) - 1;
      assumed.push_back(x == ctx.bv_val((uint64_t)v, w));
    }
    bool launched = s.check(assumed) == z3::sat;
    if (debugEnabled("relational-queries"))
      errs() << "[kv] relational: run " << run
             << (launched ? "" : " (its launch is infeasible)") << "\n";
    if (!launched && s.check() != z3::sat)
      return;
    z3::model m = s.get_model();
    for (unsigned o : nodes[0].out) {
      const Edge &e = edges[o];
      // The first step as the run's memory has it, as simulate() goes on.
      if (m.eval(concreteInitial(e.cond), true).is_true() &&
          m.eval(concreteInitial(e.ub), true).is_false()) {
        simulate(m, e, /*exact=*/true);
        break;
      }
    }
  }
}

bool Product::houdini() {
  std::deque<unsigned> work;
  for (unsigned e = 0; e < edges.size(); ++e)
    work.push_back(e);
  std::vector<bool> queued(edges.size(), true);
  while (!work.empty()) {
    if (timeUp()) {
      why = "out of time while inferring invariants";
      return false;
    }
    unsigned e = work.front();
    work.pop_front();
    queued[e] = false;
    Edge &edge = edges[e];
    Node &t = nodes[edge.to];
    if (t.kind == Kind::Bad || t.cands.empty())
      continue;
    bool changed = false;
    for (;;) {
      std::vector<z3::expr> evals;
      std::vector<size_t> which;
      for (size_t i = 0; i < t.cands.size(); ++i)
        if (t.alive[i]) {
          evals.push_back(t.goals[i]);
          which.push_back(i);
        }
      // (No candidate left: nothing to ask.)
      if (which.empty())
        break;
      std::vector<bool> truth;
      if (debugEnabled("relational-queries"))
        errs() << "[kv] relational: edge " << name(edge.from) << " -> "
               << name(edge.to) << ", " << which.size() << " candidates\n";
      z3::check_result r =
          decide(edge.from, &edge, ctx.bool_val(true), evals, &truth);
      if (r == z3::unsat)
        break;
      // (A model in which every goal holds is not one of the query: the
      // evaluation and the solver disagree. Each alone then too.)
      if (r == z3::sat && llvm::all_of(truth, [](bool t) { return t; })) {
        if (debugEnabled("relational-queries"))
          errs() << "[kv] relational: a model that falsifies no goal\n";
        r = z3::unknown;
      }
      if (r == z3::unknown) {
        // The solver gave up on all of them together: halves of them, down
        // to each alone, and those it cannot show preserved are dropped. A
        // half's counterexample drops every goal it falsifies; a half it
        // proves keeps all of its goals, where most candidates are
        // preserved and one at a time would ask once for each.
        truth.assign(which.size(), true);
        std::function<void(size_t, size_t)> halves = [&](size_t lo, size_t hi) {
          if (lo >= hi)
            return;
          if (timeUp()) {
            std::fill(truth.begin() + lo, truth.begin() + hi, false);
            return;
          }
          std::vector<z3::expr> part(evals.begin() + lo, evals.begin() + hi);
          std::vector<bool> partTruth;
          if (debugEnabled("relational-queries"))
            errs() << "[kv] relational: candidates " << lo << " to " << hi
                   << "\n";
          z3::check_result q =
              decide(edge.from, &edge, ctx.bool_val(true), part, &partTruth);
          if (q == z3::unsat)
            return;
          if (q == z3::sat &&
              !llvm::all_of(partTruth, [](bool t) { return t; })) {
            for (size_t j = lo; j < hi; ++j)
              if (!partTruth[j - lo])
                truth[j] = false;
            return;
          }
          if (hi - lo == 1) {
            truth[lo] = false;
            return;
          }
          size_t mid = lo + (hi - lo) / 2;
          halves(lo, mid);
          halves(mid, hi);
        };
        // (The whole set was just asked; a single candidate then is
        // dropped.)
        if (which.size() == 1) {
          truth[0] = false;
        } else {
          halves(0, which.size() / 2);
          halves(which.size() / 2, which.size());
        }
      }
      bool dropped = false;
      for (size_t j = 0; j < which.size(); ++j)
        if (!truth[j]) {
          t.alive[which[j]] = false;
          dropped = true;
          if (debugEnabled("relational-queries"))
            errs() << "[kv] relational: drops at " << name(edge.to) << " "
                   << t.cands[which[j]].to_string().substr(0, 2000) << "\n";
        }
      changed |= dropped;
      if (!dropped)
        break;
      if (r == z3::sat && lastModel)
        for (unsigned id : simulate(*lastModel, edge))
          for (unsigned o : nodes[id].out)
            if (!queued[o]) {
              queued[o] = true;
              work.push_back(o);
            }
    }
    if (changed)
      for (unsigned o : t.out)
        if (!queued[o]) {
          queued[o] = true;
          work.push_back(o);
        }
  }
  return true;
}

} // namespace kv::rel
