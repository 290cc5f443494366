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

#include "equiv/Relational.h"
#include "equiv/RelationalInternal.h"

#include "kv/Budget.h"
#include "smt-encode/Debug.h"

#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <deque>
#include <functional>
#include <map>
#include <set>

using namespace llvm;

namespace kv {

namespace {

using namespace rel;
using Clock = std::chrono::steady_clock;

enum class Kind { Entry, Lockstep, OnlyBefore, OnlyAfter, Meet, Bad };

struct Node {
  BasicBlock *cut[2]; // null: returned
  Kind kind;
  State st[2];
  /// After a barrier both kernels see the same memory, which the other
  /// threads wrote: one fresh array.
  std::optional<z3::expr> afterBarrier;
  /// Candidates as assumed (at the source of an edge) and as goals (at its
  /// target): an equality of arrays is a goal at one fresh address, which
  /// the solver decides without extensionality.
  std::vector<z3::expr> cands, goals;
  std::vector<bool> alive;
  /// What the before kernel reads in its step from here (address, bytes).
  std::vector<std::pair<z3::expr, unsigned>> ahead;
  /// The states the before kernel's step from here leaves: the after kernel
  /// may already stand there (a rotated loop leaves one test early).
  std::vector<State> aheadStates;
  /// The condition of each of those exits, and where that step is
  /// undefined (the before kernel's own, assumed absent).
  std::vector<z3::expr> aheadConds;
  std::optional<z3::expr> aheadUB;
  /// The facts between arrays, the last candidates: (kind, exit).
  std::vector<std::pair<int, int>> facts;
  std::vector<unsigned> out; // edges
};

struct Edge {
  unsigned from, to;
  /// The step's condition, the before kernel's freedom from undefined
  /// behaviour, and the target's state bound to the step's result.
  z3::expr hyp;
  /// The target's symbols and the terms the step gives them.
  std::vector<std::pair<z3::expr, z3::expr>> subst;
  bool before, after; // which kernels step
  /// The exits' conditions alone, and where the before kernel's step is
  /// undefined (for running the product on concrete values).
  z3::expr cond, ub;
};

/// Queries without array theory. Memories and access sets are store chains
/// over a few base arrays; a query reads them at finitely many addresses
/// (the loads and the fresh address of a goal). Each read of a chain
/// becomes an if-then-else over its stores down to a read of a base array,
/// and each fact between base arrays (equal memories, the reads covered)
/// is instantiated at every address a base array is read at, which is
/// complete for such facts. What is left is bit-vectors and the base
/// arrays' reads as uninterpreted functions, which the solver bit-blasts.
class ArrayElim {
public:
  explicit ArrayElim(z3::context &c) : ctx(c) {}
  z3::expr rewrite(const z3::expr &e);
  /// Reads of base arrays so far: (array, address).
  std::vector<std::pair<z3::expr, z3::expr>> reads;

private:
  z3::context &ctx;
  std::unordered_map<unsigned, z3::expr> done;
  std::map<std::pair<unsigned, unsigned>, z3::expr> selects;
  z3::expr select(const z3::expr &arr, const z3::expr &idx);
};

z3::expr ArrayElim::select(const z3::expr &arr, const z3::expr &idx) {
  auto key = std::make_pair(arr.id(), idx.id());
  auto it = selects.find(key);
  if (it != selects.end())
    return it->second;
  z3::expr r(ctx);
  switch (arr.decl().decl_kind()) {
  case Z3_OP_STORE:
    r = z3::ite(idx == rewrite(arr.arg(1)), rewrite(arr.arg(2)),
                select(arr.arg(0), idx));
    break;
  case Z3_OP_ITE:
    r = z3::ite(rewrite(arr.arg(0)), select(arr.arg(1), idx),
                select(arr.arg(2), idx));
    break;
  case Z3_OP_CONST_ARRAY:
    r = rewrite(arr.arg(0));
    break;
  default:
    r = z3::select(arr, idx);
    reads.push_back({arr, idx});
    break;
  }
  selects.emplace(key, r);
  return r;
}

z3::expr ArrayElim::rewrite(const z3::expr &e) {
  auto it = done.find(e.id());
  if (it != done.end())
    return it->second;
  z3::expr r = e;
  if (e.is_app()) {
    if (e.decl().decl_kind() == Z3_OP_SELECT) {
      r = select(e.arg(0), rewrite(e.arg(1)));
    } else if (e.num_args() > 0 && !e.get_sort().is_array()) {
      z3::expr_vector args(ctx);
      bool changed = false;
      for (unsigned i = 0; i < e.num_args(); ++i) {
        z3::expr a = rewrite(e.arg(i));
        changed |= a.id() != e.arg(i).id();
        args.push_back(a);
      }
      if (changed)
        r = e.decl()(args);
    }
  }
  done.emplace(e.id(), r);
  return r;
}

class Product {
public:
  Product(const RelationalOptions &o, z3::context &c)
      : opts(o), ctx(c), sh(c), sides{Side(sh, true), Side(sh, false)} {}
  RelationalResult run(const Function &before, const Function &after);

private:
  const RelationalOptions &opts;
  z3::context &ctx;
  Shared sh;
  Side sides[2];
  std::vector<Node> nodes;
  std::vector<Edge> edges;
  std::map<std::pair<BasicBlock *, BasicBlock *>, unsigned> index;
  /// Per node, the after kernel's undefined behaviour in its step.
  std::vector<std::pair<unsigned, z3::expr>> afterUB;
  std::optional<z3::expr> background;
  /// The model of the last satisfiable query.
  std::optional<z3::model> lastModel;
  Clock::time_point deadline;
  std::string why;
  unsigned queries = 0;

  unsigned node(BasicBlock *b, BasicBlock *a);
  bool explore();
  /// Whether \p e mentions no node's symbols: a value that holds wherever
  /// it is used.
  bool closed(const z3::expr &e);
  std::unordered_map<unsigned, bool> closedMemo;
  std::set<unsigned> closedIds;
  std::vector<z3::expr> closedTerms;
  std::map<unsigned, std::vector<z3::expr>[2]> stepTerms;
  bool houdini();
  /// Drops the candidates a run of the product from \p e's target, on the
  /// values of \p m, falsifies; the nodes whose candidates changed.
  std::set<unsigned> simulate(const z3::model &m, const Edge &e,
                              bool exact = false);
  /// Runs the product from its entry on a few pseudo-random launches and
  /// inputs, dropping the candidates false on the way (cheaper than the
  /// queries that would drop them one round after another).
  void sample();
  bool obligations();
  void dump(const z3::expr *model_of = nullptr);
  std::string name(unsigned id) const;
  /// Whether the invariant at \p from, the step \p e (if any), \p claim
  /// and the failure of one of \p goals (claims about the target) can hold
  /// together; where they can, \p truth gets each goal's value.
  z3::check_result decide(unsigned from, const Edge *e, const z3::expr &claim,
                          const std::vector<z3::expr> &goals,
                          std::vector<bool> *truth);
  /// A goal about every address, \p g at a fresh address, by cases.
  z3::expr byCases(const z3::expr &g);
  bool timeUp() { return Clock::now() > deadline || budget::exceeded(); }
};

Kind kindOf(Side *s, BasicBlock *b, BasicBlock *a) {
  bool bb = b && s[0].isBarrier.count(b), ab = a && s[1].isBarrier.count(a);
  if (!b && !a)
    return Kind::Meet;
  if (bb && ab)
    return Kind::Meet;
  if ((!b && ab) || (bb && !a))
    return Kind::Bad;
  if (!b || bb)
    return Kind::OnlyAfter;
  if (!a || ab)
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
  nodes.push_back(std::move(n));
  return id;
}

/// The memories (k = 0), written bytes (1) or the read bytes covered (2)
/// agreeing at address \p x.
static z3::expr pointwise(const Node &n, int k, const z3::expr &x, int j = -1) {
  if (k == 0)
    return z3::select(*n.st[0].mem, x) == z3::select(*n.st[1].mem, x);
  if (k == 1)
    return z3::select(*n.st[0].wr, x) == z3::select(*n.st[1].wr, x);
  // k == 4, 5: the after kernel's memory or written bytes are those the
  // before kernel's step leaves along exit j (where it takes it).
  // k == 6: the after kernel's reads are among what the before kernel has
  // accessed once its step along exit j is done (the precise form of k ==
  // 3, where the step's paths read different cells).
  if (k >= 4) {
    const State &a = n.aheadStates[j];
    z3::expr holds =
        k == 4   ? z3::select(*a.mem, x) == z3::select(*n.st[1].mem, x)
        : k == 5 ? z3::select(*a.wr, x) == z3::select(*n.st[1].wr, x)
                 : z3::implies(z3::select(*n.st[1].rd, x),
                               z3::select(*a.rd, x) || z3::select(*a.wr, x));
    return z3::implies(n.aheadConds[j], holds);
  }
  z3::expr covered = z3::select(*n.st[0].rd, x) || z3::select(*n.st[0].wr, x);
  // k == 3: or the before kernel reads it in its next step (the after
  // kernel read it first, waiting at a barrier the before kernel has not
  // reached).
  // (Byte by byte, as the access sets hold them: the same address terms,
  // which the solver matches without arithmetic.)
  if (k == 3)
    for (auto &[a, bytes] : n.ahead)
      for (unsigned b = 0; b < bytes; ++b)
        covered = covered || x == a + x.ctx().bv_val(b, 64);
  return z3::implies(z3::select(*n.st[1].rd, x), covered);
}

/// Whether \p e is one of a node's fresh symbols for a value.
static bool fresh(const z3::expr &e) {
  return e.is_const() && e.get_sort().is_bv() &&
         e.decl().name().str().find(".v") != std::string::npos;
}

/// A candidate per guess: values equal across the kernels, a value equal
/// to a term the other kernel computes in its step, conditions that hold,
/// values that are not poison, and the memories and access sets agreeing.
static void guess(Node &n, const std::vector<z3::expr> *terms,
                  const std::vector<z3::expr> &symbols,
                  std::set<std::pair<unsigned, uint64_t>> bounds,
                  z3::context &ctx) {
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
  // holds after its step along exit j, where it takes it.
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
      }
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
        }
    }
    for (int s = 0; s < 2; ++s)
      if (st[s]) {
        stepTerms[id][s] = st[s]->terms;
        for (const z3::expr &t : st[s]->terms)
          if (!t.is_numeral() && closed(t) && closedIds.insert(t.id()).second)
            closedTerms.push_back(t);
      }
    z3::expr hypBase =
        st[0] ? !st[0]->ub : ctx.bool_val(true); // the source is defined
    if (st[1])
      afterUB.push_back({id, hypBase && st[1]->ub});
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
                         st[0] ? st[0]->ub : ctx.bool_val(false)});
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
      guess(nodes[id], stepTerms[id], symbols, bounds, ctx);
  return true;
}

z3::check_result Product::decide(unsigned from, const Edge *e,
                                 const z3::expr &claim,
                                 const std::vector<z3::expr> &goals,
                                 std::vector<bool> *truth) {
  ++queries;
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                  deadline - Clock::now())
                  .count();
  if (left <= 0 || budget::exceeded())
    return z3::unknown;
  const Node &n = nodes[from];
  z3::expr_vector src(ctx), dst(ctx);
  if (e)
    for (auto &[a, b] : e->subst) {
      src.push_back(a);
      dst.push_back(b);
    }
  auto onEdge = [&](z3::expr x) { return e ? x.substitute(src, dst) : x; };
  ArrayElim ae(ctx);
  std::vector<z3::expr> evals;
  z3::expr all = ctx.bool_val(true);
  for (const z3::expr &g : goals) {
    evals.push_back(byCases(onEdge(g)));
    all = all && evals.back();
  }
  z3::expr f = *background && (e ? e->hyp : ctx.bool_val(true)) &&
               onEdge(claim) && (goals.empty() ? ctx.bool_val(true) : !all);
  size_t arrays = n.cands.size() - n.facts.size();
  for (size_t i = 0; i < arrays; ++i)
    if (n.alive[i])
      f = f && n.cands[i];
  f = ae.rewrite(f);
  std::vector<z3::expr> evalR;
  for (const z3::expr &x : evals)
    evalR.push_back(ae.rewrite(x));
  // The source's facts between arrays, at every address read (reading a
  // fact's arrays adds reads at the same address only). A fact about
  // memories matters where a memory is read, one about access sets where a
  // set is.
  std::set<std::pair<size_t, unsigned>> inst;
  for (size_t r = 0; r < ae.reads.size(); ++r) {
    z3::expr idx = ae.reads[r].second;
    bool memory = ae.reads[r].first.get_sort().array_range().is_bv();
    for (size_t k = 0; k < n.facts.size(); ++k)
      if (n.alive[arrays + k] &&
          memory == (n.facts[k].first == 0 || n.facts[k].first == 4) &&
          inst.insert({k, idx.id()}).second)
        f = f &&
            ae.rewrite(pointwise(n, n.facts[k].first, idx, n.facts[k].second));
  }
  z3::solver s(ctx);
  z3::params p(ctx);
  p.set("timeout",
        budget::solverMs((unsigned)std::min<long long>(left, opts.queryMs)));
  s.set(p);
  s.add(f);
  if (const char *dir = getenv("KV_RELATIONAL_DUMP")) {
    std::error_code ec;
    raw_fd_ostream os(
        std::string(dir) + "/q" + std::to_string(queries) + ".smt2", ec);
    if (!ec)
      os << s.to_smt2();
  }
  auto t0 = Clock::now();
  z3::check_result r = s.check();
  if (debugEnabled("relational-queries"))
    errs()
        << "[kv] relational: query " << queries << ": "
        << (r == z3::sat     ? "sat"
            : r == z3::unsat ? "unsat"
                             : "unknown")
        << " in "
        << std::chrono::duration<double, std::milli>(Clock::now() - t0).count()
        << " ms" << (r == z3::unknown ? " (" + s.reason_unknown() + ")" : "")
        << "\n";
  if (r == z3::sat)
    lastModel = s.get_model();
  if (r == z3::sat && truth) {
    z3::model m = s.get_model();
    truth->clear();
    for (const z3::expr &x : evalR)
      truth->push_back(m.eval(x, true).is_true());
  }
  return r;
}

/// The arrays \p a reads through (stores and choices down to base arrays):
/// the addresses of its stores.
static void storedAt(const z3::expr &a, std::vector<z3::expr> &out,
                     std::set<unsigned> &seen) {
  if (!seen.insert(a.id()).second || !a.is_app() || out.size() > 64)
    return;
  switch (a.decl().decl_kind()) {
  case Z3_OP_STORE:
    out.push_back(a.arg(1));
    storedAt(a.arg(0), out, seen);
    break;
  case Z3_OP_ITE:
    storedAt(a.arg(1), out, seen);
    storedAt(a.arg(2), out, seen);
    break;
  default:
    break;
  }
}

/// ∀x g(x) as g at each address a store in the arrays it reads at x
/// writes, and g(x) for x elsewhere. At a store's address every read
/// resolves, and the solver compares two kernels' addresses as terms in
/// normal form (s + 4t + 4 against s + 4(t + 1)) where the difference of
/// two bit-blasted sums would take it seconds.
z3::expr Product::byCases(const z3::expr &g) {
  // The fresh address: the index of a select that is a goal's constant.
  std::optional<z3::expr> x;
  std::vector<z3::expr> addrs;
  std::set<unsigned> seen, visited;
  bool two = false; // two fresh addresses: not split
  std::function<void(const z3::expr &)> walk = [&](const z3::expr &e) {
    if (!e.is_app() || !visited.insert(e.id()).second)
      return;
    if (e.decl().decl_kind() == Z3_OP_SELECT && e.arg(1).is_const() &&
        e.arg(1).decl().name().str().rfind("at", 0) == 0) {
      two |= x && x->id() != e.arg(1).id();
      x = e.arg(1);
      storedAt(e.arg(0), addrs, seen);
    }
    for (unsigned i = 0; i < e.num_args(); ++i)
      walk(e.arg(i));
  };
  walk(g);
  if (!x || two || addrs.empty() || addrs.size() > 64)
    return g;
  z3::expr_vector from(ctx), to(ctx);
  from.push_back(*x);
  z3::expr r = ctx.bool_val(true), somewhere = ctx.bool_val(false);
  std::set<unsigned> distinct;
  for (const z3::expr &a : addrs) {
    if (!distinct.insert(a.id()).second)
      continue;
    to.resize(0);
    to.push_back(a);
    r = r && z3::expr(g).substitute(from, to);
    somewhere = somewhere || *x == a;
  }
  return r && (somewhere || g);
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
  // The initial memory, where the run starts at the entry: each byte a
  // different function of its address.
  z3::expr init = ctx.constant("initial", sh.memSort());
  z3::expr addr = ctx.bv_const("kv.addr", 64);
  z3::expr bytes = z3::lambda(
      addr, z3::lshr(addr * ctx.bv_val((uint64_t)0x9E3779B97F4A7C15ull, 64),
                     ctx.bv_val(23u, 64))
                .extract(7, 0));
  auto value = [&](const z3::expr &e) {
    z3::expr x = z3::expr(e).substitute(from, to);
    if (exact) {
      z3::expr_vector f(ctx), t(ctx);
      f.push_back(init);
      t.push_back(bytes);
      x = x.substitute(f, t);
    }
    return m.eval(x, true);
  };
  const Edge *e = &first;
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
      if (taint(x.cond))
        return changed;
      if (value(x.cond).is_true() && !next)
        next = &x;
    }
    // (A step where the before kernel is undefined is not an execution.)
    if (!next || (!taint(next->ub) && !value(next->ub).is_false()))
      return changed;
    e = next;
  }
  return changed;
}

void Product::sample() {
  std::vector<z3::expr> syms = sh.symbols();
  for (uint64_t run = 1; run <= 3 && !timeUp(); ++run) {
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
    for (const z3::expr &x : syms) {
      if (!x.get_sort().is_bv())
        continue;
      std::string name = x.decl().name().str();
      unsigned w = x.get_sort().bv_size();
      uint64_t v = name.rfind("ntid", 0) == 0     ? 1 + next(96)
                   : name.rfind("nctaid", 0) == 0 ? 1 + next(8)
                   : name.rfind("tid", 0) == 0    ? next(32)
                   : name.rfind("ctaid", 0) == 0  ? next(8)
                   : w == 64                      ? (1 + next(1 << 16)) << 12
                                                  : next(200);
      assumed.push_back(x == ctx.bv_val((uint64_t)v, w));
    }
    if (s.check(assumed) != z3::sat && s.check() != z3::sat)
      return;
    z3::model m = s.get_model();
    for (unsigned o : nodes[0].out) {
      const Edge &e = edges[o];
      if (m.eval(e.cond, true).is_true() && m.eval(e.ub, true).is_false()) {
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
      std::vector<bool> truth;
      if (debugEnabled("relational-queries"))
        errs() << "[kv] relational: edge " << name(edge.from) << " -> "
               << name(edge.to) << ", " << which.size() << " candidates\n";
      z3::check_result r =
          decide(edge.from, &edge, ctx.bool_val(true), evals, &truth);
      if (r == z3::unsat)
        break;
      if (r == z3::unknown) {
        // The solver gave up on all of them together: each alone, and
        // those it cannot show preserved are dropped.
        truth.assign(which.size(), true);
        for (size_t j = 0; j < which.size(); ++j)
          if (decide(edge.from, &edge, ctx.bool_val(true), {t.goals[which[j]]},
                     nullptr) != z3::unsat)
            truth[j] = false;
      }
      bool dropped = false;
      for (size_t j = 0; j < which.size(); ++j)
        if (!truth[j]) {
          t.alive[which[j]] = false;
          dropped = true;
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

bool Product::obligations() {
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
  for (auto &[id, ub] : afterUB)
    if (decide(id, nullptr, ub, {}, nullptr) != z3::unsat) {
      why = "could not show the optimized kernel free of undefined behaviour "
            "(poison, a division by zero, a trap) where the source is";
      return false;
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
  bool ok = houdini() && obligations();
  if (debugEnabled("relational"))
    dump();
  if (!ok) {
    r.why = why;
    return r;
  }
  unsigned loops = 0, barriers = 0;
  for (BasicBlock *c : sides[1].cuts)
    if (sides[1].isBarrier.count(c))
      ++barriers;
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
      " in the after kernel), " + std::to_string(kept) +
      " invariant candidates inductive, " + std::to_string(queries) +
      " queries";
  r.assumptions.push_back(
      "the before kernel has no data race, barrier divergence or undefined "
      "behaviour (the relational proof shows the after kernel's accesses are "
      "among the before kernel's, and that it is free of undefined "
      "behaviour where the before kernel is)");
  r.assumptions.push_back("the before kernel's loops terminate");
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

} // namespace

RelationalResult proveRelational(const Function &before, const Function &after,
                                 const RelationalOptions &opts) {
  z3::context ctx;
  try {
    Product p(opts, ctx);
    return p.run(before, after);
  } catch (const z3::exception &e) {
    RelationalResult r;
    r.why = std::string("solver error: ") + e.msg();
    return r;
  }
}

} // namespace kv
