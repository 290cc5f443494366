//===- SideQueries.cpp - small solver queries of the encoder --------------===//
//
// The encoder's own queries, apart from the main one: checkSmall (a check
// under a deterministic resource limit, with $KV_SUBSTATS), proveUnsat (the
// default solver, then equation solving first), and the deadline of the
// check's time budget that both respect.
//
//===----------------------------------------------------------------------===//
#include "kv/Budget.h"
#include "smt-encode/Debug.h"
#include "smt-encode/Encoder.h"
#include "smt-encode/Stats.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLExtras.h"

#include <chrono>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <tuple>

namespace kv {

void Encoder::checkDeadline() const {
  if (deadline && std::chrono::steady_clock::now() >= *deadline)
    throw EncodeTimeout();
  // The kernel's budget: its deadline, and the size of the query (read
  // chains are built through here) under its memory bound.
  if (budget::exceeded())
    throw EncodeTimeout();
  if (uint64_t cap = budget::maxModelOps(); cap && ++encodeSteps > cap) {
    budget::stop(budget::Kind::Memory,
                 "the query passed " + std::to_string(cap) + " encoding steps");
    throw EncodeTimeout();
  }
}

unsigned Encoder::withinDeadline(unsigned ms) const {
  ms = budget::solverMs(ms);
  if (!deadline)
    return ms;
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                  *deadline - std::chrono::steady_clock::now())
                  .count();
  return left < 1 ? 1 : std::min<long long>(ms, left);
}

z3::check_result checkSmall(z3::solver &s, const char *what, unsigned rlimit,
                            unsigned backstopMs) {
  stats::Scoped timer("solver");
  if (budget::exceeded())
    return z3::unknown;
  budget::Interrupt stop([&] { s.ctx().interrupt(); });
  z3::params p(s.ctx());
  p.set("timeout", budget::solverMs(backstopMs));
  if (rlimit)
    p.set("rlimit", rlimit);
  s.set(p);
  bool log = debugEnabled("substats");
  // The context's resource count is cumulative: the check's share is the
  // difference.
  auto count = [&] {
    z3::stats st = s.statistics();
    for (unsigned i = 0; i < st.size(); ++i)
      if (st.key(i) == "rlimit count")
        return (long)st.uint_value(i);
    return 0l;
  };
  long before = log ? count() : 0;
  auto t0 = std::chrono::steady_clock::now();
  // A limit reached inside a tactic (simplify, solve-eqs) surfaces as an
  // exception ("canceled"), not as unknown.
  z3::check_result r = z3::unknown;
  try {
    r = s.check();
  } catch (z3::exception &) {
    r = z3::unknown;
  }
  if (log) {
    long used = count() - before;
    long ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                  std::chrono::steady_clock::now() - t0)
                  .count();
    llvm::errs() << "substats: " << what << " "
                 << (r == z3::unsat ? "unsat"
                     : r == z3::sat ? "sat"
                                    : "unknown")
                 << " " << ms << " " << used << "\n";
  }
  return r;
}

bool Encoder::proveUnsat(const z3::expr &f, const char *what,
                         unsigned rlimitScale) {
  // Z3's default solver and equation solving first: each fails on queries
  // the other answers at once (the default one on launch assumptions that
  // make two kernels' terms coincide, the other on the bit-level index
  // arithmetic of unrolled sums). The first query of a kind gives both a
  // sixteenth of the budget first, then the whole of it, so that a query
  // one of them refutes in milliseconds does not wait for the other to use
  // up its limit; later queries of the kind start with the strategy that
  // decided the last one.
  auto attempt = [&](bool eqs, unsigned rlimit, z3::solver &s) {
    checkDeadline();
    if (eqs)
      s = (z3::tactic(ctx, "simplify") & z3::tactic(ctx, "solve-eqs") &
           z3::tactic(ctx, "smt"))
              .mk_solver();
    else
      s = z3::solver(ctx);
    s.add(f);
    s.add(loopFacts);
    return checkSmall(s, eqs ? (std::string(what) + "/eqs").c_str() : what,
                      rlimit, withinDeadline(subqueryMs));
  };
  auto budget = [&](bool eqs) {
    return eqs ? subqueryRlimit : subqueryRlimit * rlimitScale;
  };
  struct Step {
    bool eqs;
    unsigned share;
  };
  Step steps[] = {{false, 16}, {true, 16}, {false, 1}, {true, 1}};
  llvm::ArrayRef<Step> plan = steps;
  auto known = sideStrategy.find(what);
  if (known != sideStrategy.end()) {
    steps[0] = {known->second, 1};
    steps[1] = {!known->second, 1};
    plan = plan.take_front(2);
  }
  z3::solver s(ctx);
  z3::check_result r = z3::unknown;
  for (Step st : plan)
    if ((r = attempt(st.eqs, budget(st.eqs) / st.share, s)) != z3::unknown) {
      sideStrategy[what] = st.eqs;
      break;
    }
  if (std::string path = dumpPath("sub"); !path.empty()) {
    dumpTo(path, s.to_smt2());
    llvm::errs() << "subquery " << path << ": "
                 << (r == z3::unsat ? "unsat"
                     : r == z3::sat ? "sat"
                                    : "unknown")
                 << "\n";
  }
  return r == z3::unsat;
}

std::vector<Encoder::LaunchVar> Encoder::launchVars() {
  std::vector<LaunchVar> vars;
  vars.reserve(6 + params.size());
  for (int i = 0; i < 6; ++i)
    vars.push_back({i < 3 ? bdimSymbols[i] : gdimSymbols[i - 3],
                    i < 3 ? bdim[i] : gdim[i - 3], i});
  // The after kernel's own launch (6-8 its blockDim, 9-11 its gridDim).
  for (int i = 0; i < 2 * (int)afterBdim.size(); ++i)
    vars.push_back({i < 3 ? afterBdimSymbols[i] : afterGdimSymbols[i - 3],
                    i < 3 ? afterBdim[i] : afterGdim[i - 3], 6 + i});
  for (size_t j = 0; j < params.size(); ++j)
    if (params[j] && params[j]->is_bv())
      vars.push_back({*paramSymbols[j], *params[j], -1});
  return vars;
}

z3::expr Encoder::preciseFacts() {
  z3::expr f = facts;
  if (abstracted.empty())
    return f;
  z3::expr_vector from(ctx), to(ctx);
  for (auto &[app, precise] : abstracted) {
    from.push_back(app);
    to.push_back(precise);
  }
  // A precise term may apply another abstraction (a product of a
  // product): substituted again until none is left.
  for (unsigned round = 0; round < 8; ++round) {
    z3::expr g = f.substitute(from, to);
    if (z3::eq(g, f))
      break;
    f = g;
  }
  return f;
}

bool Encoder::factsHoldIn(const z3::model &m) {
  z3::expr_vector from(ctx), to(ctx);
  for (const LaunchVar &x : launchVars()) {
    from.push_back(x.sym);
    to.push_back(m.eval(x.now, true));
  }
  // The model's own interpretation of an abstracted product is no
  // product: the facts are evaluated with exact arithmetic. Ground once
  // substituted; anything else they name is not held against the model.
  return !preciseFacts().substitute(from, to).simplify().is_false();
}

const std::pair<z3::expr_vector, z3::expr_vector> &Encoder::samplePoint() {
  if (sample)
    return *sample;
  // The facts name the launch values and scalars by their symbols, also
  // those pinDetermined has made numerals since: those keep their value.
  std::vector<LaunchVar> vars = launchVars();
  z3::expr exact = preciseFacts();
  // A few blocks of a few threads in each dimension, and scalars a multiple
  // of those: the shapes assumptions usually ask for (square blocks, sizes
  // that are multiples of the block), the scalars all equal or in
  // increasing or decreasing order (m < n). The first that the facts
  // admit, decided by evaluation, without a solver.
  const unsigned blocks[][3] = {{4, 4, 2},  {4, 4, 1},   {4, 1, 1},
                                {8, 8, 1},  {16, 16, 1}, {32, 1, 1},
                                {32, 8, 1}, {64, 1, 1},  {256, 1, 1}};
  const unsigned grids[][3] = {{2, 2, 2}, {2, 2, 1}, {2, 1, 1}};
  const unsigned values[] = {16, 8, 64, 32, 256, 2};
  unsigned numScalars =
      llvm::count_if(vars, [](const LaunchVar &x) { return x.dim < 0; });
  // The after kernel's own launch follows from the rest: each of its
  // dimensions the number the facts equate it with once the others are
  // set (--launch-after's expressions).
  auto ownLaunch = [&](z3::expr f, z3::expr_vector &from, z3::expr_vector &to) {
    for (const LaunchVar &x : vars) {
      if (x.dim < 6 || x.now.is_numeral())
        continue;
      std::vector<z3::expr> work{f};
      while (!work.empty()) {
        z3::expr e = work.back();
        work.pop_back();
        if (e.is_and()) {
          for (unsigned i = 0; i < e.num_args(); ++i)
            work.push_back(e.arg(i));
        } else if (e.is_eq()) {
          for (int side = 0; side < 2; ++side)
            if (z3::eq(e.arg(side), x.sym) && e.arg(1 - side).is_numeral()) {
              from.push_back(x.sym);
              to.push_back(e.arg(1 - side));
              work.clear();
              break;
            }
        }
      }
    }
    return f.substitute(from, to).simplify();
  };
  for (const auto &b : blocks)
    for (const auto &g : grids)
      for (unsigned v : values)
        for (int order = 0; order < (numScalars > 1 ? 3 : 1); ++order) {
          z3::expr_vector from(ctx), to(ctx);
          unsigned j = 0;
          for (const LaunchVar &x : vars) {
            if (x.dim >= 6 && !x.now.is_numeral())
              continue;
            from.push_back(x.sym);
            unsigned n = x.dim >= 3 ? g[x.dim - 3] : x.dim >= 0 ? b[x.dim] : 0;
            if (x.dim < 0) {
              n = order == 0   ? v
                  : order == 1 ? v * (j + 1)
                               : v * (numScalars - j);
              ++j;
            }
            to.push_back(x.now.is_numeral()
                             ? x.now
                             : ctx.bv_val(n, x.sym.get_sort().bv_size()));
          }
          z3::expr at = exact.substitute(from, to).simplify();
          if (!afterBdim.empty() && !at.is_true() && !at.is_false())
            at = ownLaunch(at, from, to);
          if (at.is_true()) {
            sample.emplace(from, to);
            return *sample;
          }
        }
  sample.emplace(z3::expr_vector(ctx), z3::expr_vector(ctx));
  return *sample;
}

bool Encoder::satisfiableAtSample(const z3::expr &f, const char *what) {
  const auto &[vars, vals] = samplePoint();
  if (vars.empty())
    return false;
  checkDeadline();
  // Equation solving first: with numerals for the launch, the query is
  // linear and mostly equations.
  z3::solver s = (z3::tactic(ctx, "simplify") & z3::tactic(ctx, "solve-eqs") &
                  z3::tactic(ctx, "smt"))
                     .mk_solver();
  z3::expr g = f && z3::mk_and(loopFacts);
  s.add(g.substitute(vars, vals));
  return checkSmall(s, (std::string(what) + "/sample").c_str(),
                    subqueryRlimit / 16, withinDeadline(subqueryMs)) == z3::sat;
}

namespace {
/// Where two terms differ: u and v under the path condition `when`.
struct Leaf {
  z3::expr when, u, v;
};
} // namespace

// The maximal subterms where a and b differ below a common structure
// (the same operator applied to the same number of arguments), each with
// the conditions of the if-then-elses above it; false if there are more
// than \p limit or one is not a bit-vector or Boolean (arrays are compared
// by their reads).
static bool
differingLeaves(const z3::expr &when, const z3::expr &a, const z3::expr &b,
                std::vector<Leaf> &out,
                std::set<std::tuple<unsigned, unsigned, unsigned>> &seen,
                size_t limit) {
  if (z3::eq(a, b) || !seen.insert({a.id(), b.id(), when.id()}).second)
    return true;
  if (a.is_app() && b.is_app() && a.num_args() > 0 &&
      a.num_args() == b.num_args() && z3::eq(a.decl(), b.decl())) {
    std::vector<z3::expr> xs, ys;
    for (unsigned i = 0; i < a.num_args(); ++i) {
      xs.push_back(a.arg(i));
      ys.push_back(b.arg(i));
    }
    // Arguments of a commutative operator pair up once the common ones
    // are set aside: `8x + m` and `m + 8x` agree.
    switch (a.decl().decl_kind()) {
    case Z3_OP_BADD:
    case Z3_OP_BMUL:
    case Z3_OP_BAND:
    case Z3_OP_BOR:
    case Z3_OP_BXOR:
    case Z3_OP_AND:
    case Z3_OP_OR:
    case Z3_OP_EQ:
      for (size_t i = 0; i < xs.size();) {
        auto j = llvm::find_if(
            ys, [&](const z3::expr &y) { return z3::eq(y, xs[i]); });
        if (j == ys.end()) {
          ++i;
          continue;
        }
        ys.erase(j);
        xs.erase(xs.begin() + i);
      }
      break;
    default:
      break;
    }
    // An if-then-else's branches: under its condition and its negation
    // (both sides take the same branch once the conditions are equal);
    // but a choice between the operands of its own condition (min, max:
    // the operands of a commutative float operation put in order) is a
    // function of them, compared as one.
    auto operandOf = [](const z3::expr &c, const z3::expr &x) {
      for (unsigned i = 0; i < c.num_args(); ++i)
        if (z3::eq(c.arg(i), x))
          return true;
      return false;
    };
    if (a.decl().decl_kind() == Z3_OP_ITE &&
        !(xs[0].is_app() && operandOf(xs[0], xs[1]) && operandOf(xs[0], xs[2])))
      return differingLeaves(when, xs[0], ys[0], out, seen, limit) &&
             differingLeaves(when && xs[0], xs[1], ys[1], out, seen, limit) &&
             differingLeaves(when && !xs[0], xs[2], ys[2], out, seen, limit);
    for (size_t i = 0; i < xs.size(); ++i)
      if (!differingLeaves(when, xs[i], ys[i], out, seen, limit))
        return false;
    return true;
  }
  if (!(a.is_bv() || a.is_bool()))
    return false;
  out.push_back({when, a, b});
  return out.size() <= limit;
}

bool Encoder::proveEqual(const z3::expr &hyps, llvm::ArrayRef<Equation> eqs,
                         const z3::expr &otherwise, const char *what) {
  // Two terms of one shape (the same sum of products of reads, say) that
  // differ in a few places (the reads' indices, written two ways) are
  // equal where those places are: by congruence. Each place is a small
  // query of its own; the whole comparison makes the solver search the
  // values of every product before it sees the indices.
  std::vector<Leaf> leaves;
  std::set<std::tuple<unsigned, unsigned, unsigned>> seen;
  bool split = true;
  // Simplified first: `1 * y + 0` and `y` are one term then.
  for (const Equation &o : eqs)
    split = split && differingLeaves(o.when.simplify(), o.a.simplify(),
                                     o.b.simplify(), leaves, seen, 256);
  // One place reached under several conditions is one query.
  std::vector<Leaf> merged;
  std::map<std::pair<unsigned, unsigned>, size_t> at;
  for (const Leaf &l : leaves) {
    auto [it, added] =
        at.emplace(std::make_pair(l.u.id(), l.v.id()), merged.size());
    if (added)
      merged.push_back(l);
    else
      merged[it->second].when = merged[it->second].when || l.when;
  }
  leaves = std::move(merged);
  split = split && leaves.size() <= 64;
  if (split && leaves.size() > 1) {
    std::string tag = std::string(what) + "/leaf";
    auto refuted = [&](const z3::expr &f) {
      checkDeadline();
      z3::solver s(ctx);
      s.add(hyps);
      s.add(loopFacts);
      s.add(f);
      return checkSmall(s, tag.c_str(), subqueryRlimit / 16,
                        withinDeadline(subqueryMs)) == z3::unsat;
    };
    bool all = otherwise.is_false() || refuted(otherwise);
    for (size_t i = 0; all && i < leaves.size(); ++i)
      all = refuted(leaves[i].when && leaves[i].u != leaves[i].v);
    if (all)
      return true;
  }
  z3::expr differ = otherwise;
  for (const Equation &o : eqs)
    differ = differ || (o.when && o.a != o.b);
  return proveUnsat(hyps && differ, what);
}

} // namespace kv
