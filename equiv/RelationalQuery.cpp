//===- RelationalQuery.cpp - the relational proof's solver queries -*- C++
//-*-===//
//
// A query: the invariant at an edge's source, its step, and the failure of
// a claim about its target, without array theory; goals about every
// address split by cases.
//
//===----------------------------------------------------------------------===//

#include "equiv/RelationalProduct.h"

#include "smt-encode/Debug.h"

#include "llvm/Support/raw_ostream.h"

#include "llvm/Support/FileSystem.h"

#include <algorithm>
#include <functional>
#include <unordered_set>

using namespace llvm;

namespace kv::rel {

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

/// The memories (k = 0), written bytes (1) or the read bytes covered (2)
/// agreeing at address \p x.
static z3::expr pointwiseFact(const Node &n, int k, const z3::expr &x, int j) {
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

z3::expr pointwise(const Node &n, int k, const z3::expr &x, int j) {
  z3::expr f = pointwiseFact(n, k, x, j);
  // Where the before kernel steps alone, a state whose step is undefined
  // is reached by no execution the before kernel is assumed to have: the
  // facts hold where the step is defined (every query from here assumes
  // it). A K - 1 that wraps breaks a remainder's facts otherwise.
  return n.aheadUB ? z3::implies(!*n.aheadUB, f) : f;
}

/// \p f (which assumes the candidates alive at \p n and the step of \p e)
/// with the symbols that candidates say equal replaced by one of them, and
/// its arithmetic in one normal form: two kernels' indices that are the
/// same polynomial become the same term. The equalities stay, so that a
/// model gives every symbol its value. \p goals, which a model of the
/// query is evaluated on, are rewritten the same way.
static z3::expr sameTerms(const Node &n, const Edge *e, const Node *to,
                          const std::function<z3::expr(z3::expr)> &onEdge,
                          const z3::expr &f, std::vector<z3::expr> &goals) {
  z3::context &ctx = f.ctx();
  std::unordered_map<unsigned, z3::expr> sym; // id -> symbol
  std::unordered_map<unsigned, unsigned> up;  // union-find parent
  std::function<unsigned(unsigned)> find = [&](unsigned x) {
    auto it = up.find(x);
    if (it == up.end() || it->second == x)
      return x;
    return it->second = find(it->second);
  };
  auto symbol = [](const z3::expr &x) {
    return x.is_const() && x.is_bv() &&
           x.decl().decl_kind() == Z3_OP_UNINTERPRETED;
  };
  size_t arrays = n.cands.size() - n.facts.size();
  for (size_t i = 0; i < arrays; ++i) {
    const z3::expr &c = n.cands[i];
    if (!n.alive[i] || !c.is_app() || c.decl().decl_kind() != Z3_OP_EQ ||
        c.num_args() != 2 || !symbol(c.arg(0)) || !symbol(c.arg(1)))
      continue;
    for (unsigned k = 0; k < 2; ++k)
      sym.emplace(c.arg(k).id(), c.arg(k));
    unsigned a = find(c.arg(0).id()), b = find(c.arg(1).id());
    if (a != b)
      up[std::max(a, b)] = std::min(a, b);
  }
  z3::expr_vector src(ctx), dst(ctx);
  z3::expr back = ctx.bool_val(true);
  for (auto &[id, x] : sym) {
    unsigned root = find(id);
    if (root == id)
      continue;
    src.push_back(x);
    dst.push_back(sym.at(root));
    back = back && x == sym.at(root);
  }
  auto normal = [&](z3::expr x) {
    return canonicalArithmetic(src.empty() ? x : x.substitute(src, dst));
  };
  // The step's, and those of the before kernel's next steps that the
  // source's facts and the target's claims speak of.
  std::vector<std::pair<z3::expr, z3::expr>> forms = n.aheadForms;
  if (e) {
    forms.insert(forms.end(), e->forms.begin(), e->forms.end());
    for (auto &[p, w] : to->aheadForms)
      forms.push_back({onEdge(p), onEdge(w)});
  }
  z3::expr_vector wide(ctx), plain(ctx);
  if (!forms.empty()) {
    // The before kernel's extensions written as the after kernel writes
    // them: as the extension where the after kernel's addresses in the
    // step have that extension.
    std::unordered_set<unsigned> has;
    std::vector<z3::expr> todo;
    for (const z3::expr &a : e ? e->afterAddrs : std::vector<z3::expr>{})
      todo.push_back(normal(a));
    while (!todo.empty()) {
      z3::expr x = todo.back();
      todo.pop_back();
      if (!has.insert(x.id()).second || !x.is_app())
        continue;
      for (unsigned i = 0; i < x.num_args(); ++i)
        todo.push_back(x.arg(i));
    }
    for (auto &[p, w] : forms)
      if (has.count(normal(p).id())) {
        wide.push_back(w);
        plain.push_back(p);
      }
  }
  // The query and its goals alike: a model's truth of a goal is then the
  // query's.
  auto rewrite = [&](const z3::expr &x) {
    return normal(wide.empty() ? x : z3::expr(x).substitute(wide, plain));
  };
  for (z3::expr &x : goals)
    x = rewrite(x);
  return rewrite(f) && back;
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
  // Where the source's memories (or written bytes) are equal, one array
  // for both: the two kernels' reads of the same address are then the
  // same term.
  size_t arrays = n.cands.size() - n.facts.size();
  z3::expr_vector asrc(ctx), adst(ctx);
  for (size_t k = 0; k < n.facts.size(); ++k) {
    int kind = n.facts[k].first;
    if (!n.alive[arrays + k] || (kind != 0 && kind != 1))
      continue;
    z3::expr b = kind == 0 ? *n.st[0].mem : *n.st[0].wr;
    z3::expr a = kind == 0 ? *n.st[1].mem : *n.st[1].wr;
    if (a.is_const() && b.is_const() && a.id() != b.id()) {
      asrc.push_back(a);
      adst.push_back(b);
    }
  }
  auto unify = [&](z3::expr x) {
    return asrc.empty() ? x : x.substitute(asrc, adst);
  };
  ArrayElim ae(ctx);
  std::vector<z3::expr> evals;
  z3::expr all = ctx.bool_val(true);
  for (const z3::expr &g : goals) {
    evals.push_back(unify(byCases(onEdge(g))));
    all = all && evals.back();
  }
  z3::expr f = *background && (e ? e->hyp : ctx.bool_val(true)) &&
               onEdge(claim) && (goals.empty() ? ctx.bool_val(true) : !all);
  for (size_t i = 0; i < arrays; ++i)
    if (n.alive[i])
      f = f && n.cands[i];
  f = ae.rewrite(unify(f));
  std::vector<z3::expr> evalR;
  evalR.reserve(evals.size());
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
        f = f && ae.rewrite(unify(
                     pointwise(n, n.facts[k].first, idx, n.facts[k].second)));
  }
  f = sameTerms(n, e, e ? &nodes[e->to] : nullptr, onEdge, f, evalR);
  unsigned ms = budget::solverMs(
      (unsigned)std::min<long long>(left, queryMs ? queryMs : opts.queryMs));
  if (const char *dir = getenv("KV_RELATIONAL_DUMP")) {
    z3::solver d(ctx);
    d.add(f);
    std::error_code ec;
    raw_fd_ostream os(
        std::string(dir) + "/q" + std::to_string(queries) + ".smt2", ec);
    if (!ec)
      os << d.to_smt2();
  }
  // Three rounds, each in a context of its own: Z3's default bit-vector
  // pipeline briefly (it decides some barrier intervals in a few hundred ms
  // that the SMT core does not decide at all), then its SMT core after
  // simplification, substitution of defined symbols and elimination of
  // unconstrained terms (with both kernels' terms shared, what is left of a
  // query is often equalities between the same terms, which congruence
  // closes where bit-blasting their arithmetic, the overflow checks of
  // 64-bit addresses above all, takes seconds), then the default pipeline
  // again for what is left. On 988 queries of the relational tests and the
  // generated families, this left 39 open where the default pipeline alone
  // left 74, in the same total time.
  auto t0 = Clock::now();
  z3::check_result r = z3::unknown;
  std::optional<z3::model> model;
  std::string why;
  const unsigned slices[] = {std::min(ms / 5, 400u), ms * 3 / 4, ms / 2};
  for (int round = 0; round < 3 && r == z3::unknown; ++round) {
    long long spent =
        std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0)
            .count();
    unsigned slice = (unsigned)std::max<long long>(
        0, std::min<long long>(slices[round], left - spent));
    if (slice < 10)
      continue;
    // The query is translated into each round's context: its terms then get
    // ids in the formula's order, as a parser's would, where in the
    // product's context they follow the order the steps, candidates and
    // earlier queries built them. Z3's pipeline on the same formula took two
    // to five times as long in the product's context (a re-strided loop -O2
    // unrolled: 21-24 s and `unknown` against 15 s and proved).
    z3::context fc;
    z3::solver s =
        round != 1 ? z3::solver(fc)
                   : (z3::tactic(fc, "simplify") & z3::tactic(fc, "solve-eqs") &
                      z3::tactic(fc, "elim-uncnstr") & z3::tactic(fc, "smt"))
                         .mk_solver();
    z3::params p(fc);
    p.set("timeout", slice);
    s.set(p);
    s.add(z3::expr(fc, Z3_translate(ctx, f, fc)));
    // (The memory budget's watchdog stops it too.)
    budget::Interrupt stop([&] { fc.interrupt(); });
    auto r0 = Clock::now();
    r = s.check();
    if (debugEnabled("relational-rounds"))
      errs() << "[kv] relational: round " << round << " (" << slice
             << " ms): " << r << " in "
             << std::chrono::duration<double, std::milli>(Clock::now() - r0)
                    .count()
             << " ms\n";
    if (r == z3::sat) {
      z3::model fm = s.get_model();
      model = z3::model(fm, ctx, z3::model::translate());
    } else if (r == z3::unknown) {
      why = s.reason_unknown();
    }
  }
  if (debugEnabled("relational-queries"))
    errs()
        << "[kv] relational: query " << queries << ": "
        << (r == z3::sat     ? "sat"
            : r == z3::unsat ? "unsat"
                             : "unknown")
        << " in "
        << std::chrono::duration<double, std::milli>(Clock::now() - t0).count()
        << " ms" << (r == z3::unknown ? " (" + why + ")" : "") << "\n";
  if (r == z3::sat) {
    lastModel = *model;
    if (truth) {
      truth->clear();
      for (const z3::expr &x : evalR)
        truth->push_back(model->eval(x, true).is_true());
    }
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

} // namespace kv::rel
