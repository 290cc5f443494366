//===- NonLinear.cpp - products, quotients and remainders -----------------===//
//
// Non-linear arithmetic, which bit-blasting makes expensive: products,
// quotients and remainders of two non-constant values abstracted as
// uninterpreted functions (refined lazily by the checker), the facts and
// mixed-radix index lemmas that keep the abstraction useful, and
// pinDetermined, which turns launch values the facts fix into numerals so
// that products with them become linear.
//
//===----------------------------------------------------------------------===//
#include "smt-encode/Encoder.h"
#include "smt-encode/EncoderInternal.h"
#include "smt-encode/Executor.h"

#include "llvm/ADT/TypeSwitch.h"

#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <tuple>

using namespace mlir;

namespace kv {

z3::expr Encoder::abstractArith(Operation *op, z3::expr l, z3::expr r) {
  unsigned w = l.get_sort().bv_size();
  if (isa<arith::MulIOp>(op))
    return mulTerm(l, r);
  // A narrow quotient or remainder is the low bits of the one at the
  // int width of its extended operands (zext for the unsigned ops, sext
  // for the signed; division by zero and INT_MIN / -1 included). One
  // function per name then relates `(t + 1) % n` to the i16 urem that
  // -O2 narrows it to, by congruence.
  unsigned wide = modelWidth(32, bits);
  bool isSigned = isa<arith::DivSIOp, arith::RemSIOp>(op);
  if (w < wide) {
    l = resize(l, wide, isSigned);
    r = resize(r, wide, isSigned);
  }
  unsigned aw = std::max(w, wide);
  z3::expr app = binaryApp("abs." + op->getName().getStringRef().str(), l, r,
                           aw, /*commutative=*/false);
  z3::expr precise = llvm::TypeSwitch<Operation *, z3::expr>(op)
                         .Case([&](arith::DivUIOp) { return z3::udiv(l, r); })
                         .Case([&](arith::DivSIOp) { return l / r; })
                         .Case([&](arith::RemUIOp) { return z3::urem(l, r); })
                         .Default([&](Operation *) { return z3::srem(l, r); });
  abstracted.push_back({app, precise});
  // Unsigned results are bounded by the dividend (a quotient where the
  // divisor is nonzero: x / 0 is all ones) and a remainder by a nonzero
  // divisor: with them, the narrowed result's high bits are known to be
  // zero without refinement.
  if (!isSigned) {
    z3::expr zero = ctx.bv_val(0, aw);
    z3::expr f = z3::implies(r != zero, z3::ule(app, l));
    if (isa<arith::RemUIOp>(op))
      f = z3::ule(app, l) && z3::implies(r != zero, z3::ult(app, r));
    if (proofOnly)
      proofFacts.push_back(f);
    else
      side.push_back(f);
  }
  return aw == w ? app : app.extract(w - 1, 0);
}

z3::expr Encoder::binaryApp(const std::string &name, z3::expr l, z3::expr r,
                            unsigned width, bool commutative) {
  // Commutative operations get one argument order: a named constant (a
  // scalar parameter, a dimension) first, by name, so that n * x and
  // x' * n are one function of equal arguments when x == x'; else by hash.
  if (commutative) {
    bool lc = l.is_const() && !l.is_numeral(),
         rc = r.is_const() && !r.is_numeral();
    if (lc != rc ? rc
        : lc     ? l.decl().name().str() > r.decl().name().str()
                 : l.hash() > r.hash())
      std::swap(l, r);
  }
  z3::sort_vector dom(ctx);
  dom.push_back(l.get_sort());
  dom.push_back(r.get_sort());
  return uf(name, dom, width)(l, r);
}

/// The name of the array \p e reads an element of, if it is such a read.
static std::optional<std::string> arrayOf(const z3::expr &e) {
  if (e.is_app() && e.decl().decl_kind() == Z3_OP_SELECT && e.arg(0).is_const())
    return e.arg(0).decl().name().str();
  // A conditional read, ite(c, a[i], 0) (a guarded load).
  if (e.is_app() && e.decl().decl_kind() == Z3_OP_ITE) {
    if (e.arg(2).is_numeral())
      return arrayOf(e.arg(1));
    if (e.arg(1).is_numeral())
      return arrayOf(e.arg(2));
  }
  return std::nullopt;
}

z3::expr Encoder::productApp(z3::expr l, z3::expr r) {
  // A product with a constant is linear: exact costs nothing.
  z3::expr ls = l.simplify(), rs = r.simplify();
  if (ls.is_numeral() || rs.is_numeral())
    return exactProduct(l, r);
  // The operands simplified: a shared-memory read resolved to its writer's
  // value is `ite(c, v, v)` until then, and neither its array nor its hash
  // would be the other kernel's `v`.
  l = ls;
  r = rs;
  // Two array elements in the order of their arrays' names (as
  // exactProduct): by term hash, m[i]*v[j] and v[j']*m[i'] with equal but
  // differently written indices would be two unrelated applications.
  std::optional<std::string> al = arrayOf(l), ar = arrayOf(r);
  if (al && ar && *al != *ar)
    return *ar < *al ? binaryApp(productName, r, l, l.get_sort().bv_size(),
                                 /*commutative=*/false)
                     : binaryApp(productName, l, r, l.get_sort().bv_size(),
                                 /*commutative=*/false);
  return binaryApp(productName, l, r, l.get_sort().bv_size(),
                   /*commutative=*/true);
}

void Encoder::pinDetermined() {
  // A value the assumptions determine becomes a constant: blockDim.x == 256
  // then makes blockIdx.x * blockDim.x linear. Every model found on the way
  // shows at once which values are free, so a value costs a query only
  // while all models so far agree on it; the answers are kept per facts
  // (the checker and the safety checks ask again with the same ones).
  std::vector<z3::expr *> vars;
  for (int i = 0; i < 3; ++i) {
    vars.push_back(&bdim[i]);
    vars.push_back(&gdim[i]);
  }
  // The after kernel's own launch, if it has one.
  for (unsigned i = 0; i < afterBdim.size(); ++i) {
    vars.push_back(&afterBdim[i]);
    vars.push_back(&afterGdim[i]);
  }
  for (auto &prm : params)
    if (prm && !prm->is_array() && prm->is_bv())
      vars.push_back(&*prm);
  std::string key = facts.to_string();
  for (z3::expr *v : vars)
    key += " " + v->to_string() + ":" + v->get_sort().to_string();
  static std::mutex cacheLock;
  static std::map<std::string, std::vector<std::optional<uint64_t>>> cache;
  std::vector<std::optional<uint64_t>> pinned;
  {
    std::lock_guard<std::mutex> guard(cacheLock);
    auto it = cache.find(key);
    if (it != cache.end())
      pinned = it->second;
  }
  if (pinned.size() != vars.size()) {
    pinned.assign(vars.size(), std::nullopt);
    // Plain launches first (one thread, scalars 0; then each value 2 in
    // turn), evaluated without a solver: the facts' products of launch
    // dimensions cost the solver hundreds of milliseconds to satisfy, and
    // these usually show every value free at once.
    z3::expr_vector from(ctx);
    for (z3::expr *v : vars)
      from.push_back(*v);
    z3::expr exact = preciseFacts();
    std::vector<uint64_t> base(vars.size(), 0);
    for (size_t i = 0; i < 6 + 2 * afterBdim.size(); ++i)
      base[i] = 1;
    auto holds = [&](const std::vector<uint64_t> &vals) {
      z3::expr_vector to(ctx);
      for (size_t i = 0; i < vals.size(); ++i)
        to.push_back(ctx.bv_val(vals[i], vars[i]->get_sort().bv_size()));
      return exact.substitute(from, to).simplify().is_true();
    };
    std::vector<std::vector<uint64_t>> candidates;
    if (holds(base)) {
      candidates.push_back(base);
      for (size_t i = 0; i < vars.size(); ++i) {
        std::vector<uint64_t> alt = base;
        alt[i] = 2;
        if (holds(alt))
          candidates.push_back(alt);
      }
    }
    std::vector<z3::model> models;
    // Made only when a value is not shown free by the plain launches: a
    // solver's first assertion costs several milliseconds.
    std::optional<z3::solver> solver;
    auto solverFor = [&]() -> z3::solver & {
      if (!solver) {
        solver.emplace(ctx);
        solver->add(facts);
      }
      return *solver;
    };
    if (candidates.empty()) {
      z3::solver &s = solverFor();
      // A check cut short by the deadline throws, so that its answer is not
      // cached.
      checkDeadline();
      if (checkSmall(s, "pin model", pinRlimit, withinDeadline(30000)) !=
          z3::sat) {
        checkDeadline();
        return;
      }
      models.push_back(s.get_model());
    }
    for (size_t i = 0; i < vars.size(); ++i) {
      z3::expr val =
          candidates.empty()
              ? models[0].eval(*vars[i], true)
              : ctx.bv_val(candidates[0][i], vars[i]->get_sort().bv_size());
      uint64_t n;
      if (!val.is_numeral_u64(n))
        continue;
      bool free = false;
      for (size_t c = 1; c < candidates.size() && !free; ++c)
        free = candidates[c][i] != n;
      for (size_t m = candidates.empty() ? 1 : 0; m < models.size() && !free;
           ++m)
        free = !z3::eq(models[m].eval(*vars[i], true), val);
      if (free)
        continue;
      z3::solver &s = solverFor();
      s.push();
      s.add(*vars[i] != val);
      checkDeadline();
      z3::check_result r =
          checkSmall(s, "pin unique", pinRlimit, withinDeadline(30000));
      if (r == z3::sat)
        models.push_back(s.get_model());
      else if (r == z3::unsat)
        pinned[i] = n;
      s.pop();
    }
    checkDeadline();
    std::lock_guard<std::mutex> guard(cacheLock);
    cache[key] = pinned;
  }
  z3::expr_vector from(ctx), to(ctx);
  for (size_t i = 0; i < vars.size(); ++i)
    if (pinned[i]) {
      from.push_back(*vars[i]);
      *vars[i] = ctx.bv_val(*pinned[i], vars[i]->get_sort().bv_size());
      to.push_back(*vars[i]);
    }
  if (from.empty())
    return;
  // The facts' abstract products of a pinned value (the assumption
  // `gridDim.x * blockDim.x >= n` with blockDim.x == 32) are linear now:
  // exact, so that the subqueries, which do not refine abstractions (a
  // candidate writer's coverage), know `32 * gridDim.x >= n`.
  z3::expr_vector apps(ctx), exact(ctx);
  for (auto &[app, precise] : abstracted) {
    if (app.num_args() != 2)
      continue;
    z3::expr a = app.substitute(from, to);
    if (a.arg(0).simplify().is_numeral() || a.arg(1).simplify().is_numeral()) {
      apps.push_back(app);
      exact.push_back(precise.substitute(from, to));
    }
  }
  if (!apps.empty())
    facts = facts.substitute(apps, exact);
}

z3::expr signedMulFits(const z3::expr &l, const z3::expr &r) {
  z3::context &ctx = l.ctx();
  // Not Z3's bvsmul_noovfl alone: Z3 4.8.12 folds it wrongly when both
  // operands are constants and one is negative (it multiplies them as
  // unsigned numbers: -1 * 2 "overflows"), also inside a solver once its
  // preprocessing has substituted values, which rules out executions that
  // exist. Its bit-blasting is right, and so is its folding of non-negative
  // operands and of bvsmul_noudfl: the overflow check is asked only of
  // non-negative operands, or where the signs make it exact.
  unsigned w = l.get_sort().bv_size();
  z3::expr zero = ctx.bv_val(0, w);
  z3::expr min = ctx.bv_val(uint64_t(1) << (w - 1), w);
  // A constant factor (strides, unrolled steps): Z3's own check of x * c,
  // which it simplifies well, wherever it folds correctly.
  auto signedConst = [&](const z3::expr &e) -> std::optional<__int128> {
    uint64_t u;
    z3::expr v = e.simplify();
    if (w > 64 || !v.is_numeral_u64(u))
      return std::nullopt;
    if (w == 64)
      return __int128(int64_t(u));
    return (u >> (w - 1)) & 1 ? __int128(u) - (__int128(1) << w) : u;
  };
  std::optional<__int128> lc = signedConst(l), rc = signedConst(r);
  if (lc && rc) {
    __int128 p = *lc * *rc, lim = __int128(1) << (w - 1);
    return ctx.bool_val(p >= -lim && p < lim);
  }
  if (lc || rc) {
    __int128 c = lc ? *lc : *rc;
    z3::expr x = lc ? r : l, cv = lc ? l : r;
    z3::expr noUnderflow = z3::bvmul_no_underflow(x, cv);
    // A negative x times c >= 0 is not positive.
    if (c >= 0)
      return (x < zero || z3::bvmul_no_overflow(x, cv, true)) && noUnderflow;
    // A non-negative x times c < 0 is not positive; a negative one gives
    // (-x) * (-c) (INT_MIN has no -x, and INT_MIN * c overflows).
    if (c == -(__int128(1) << (w - 1)))
      return x >= zero && noUnderflow;
    return (x >= zero || (x != min && z3::bvmul_no_overflow(-x, -cv, true))) &&
           noUnderflow;
  }
  // Two variables: Z3's check is exact on them, and operands of opposite
  // signs give a product that is not positive (which also covers a fold of
  // such constants). Two negative constants that the solver substituted
  // would fold to "overflows": the disjunct for magnitudes below
  // sqrt(INT_MAX), implied by the check itself, keeps those correct. (The
  // exact alternative, the check of (-l) * (-r), is a second multiplier
  // circuit for every product and made race checks 40% slower; operands
  // that are constants when encoded take the exact path above.)
  z3::expr ln = l < zero, rn = r < zero;
  z3::expr noOverflow = ln != rn || z3::bvmul_no_overflow(l, r, true);
  if (w >= 2 && w <= 64) {
    // The largest m with m * m <= 2^(w-1) - 1.
    unsigned __int128 lim = (unsigned __int128)1 << (w - 1);
    uint64_t m = 0, hi = uint64_t(1) << 32;
    while (m < hi) {
      uint64_t mid = m + (hi - m + 1) / 2;
      if ((unsigned __int128)mid * mid < lim)
        m = mid;
      else
        hi = mid - 1;
    }
    z3::expr negM =
        ctx.bv_val(uint64_t(-(__int128)m) &
                       (w < 64 ? (uint64_t(1) << w) - 1 : ~uint64_t(0)),
                   w);
    noOverflow = noOverflow || (ln && rn && l >= negM && r >= negM);
  }
  return noOverflow && z3::bvmul_no_underflow(l, r);
}

z3::expr Encoder::nowrapMulApp(const z3::expr &l, const z3::expr &r) {
  if (l.simplify().is_numeral() || r.simplify().is_numeral())
    return signedMulFits(l, r);
  z3::expr call = binaryApp("nowrap.mul", l, r, 1, /*commutative=*/true);
  z3::expr app = call == ctx.bv_val(1, 1);
  if (nowrapSeen.insert(call.id()).second)
    abstracted.push_back({app, signedMulFits(l, r)});
  return app;
}

z3::expr Encoder::exactlyAbstracted(const z3::expr &l, const z3::expr &r) {
  if (!abstractNonlinear)
    return l * r;
  z3::expr p = productApp(l, r);
  if (p.is_app() && !p.is_numeral() && nowrapSeen.insert(p.id()).second)
    abstracted.push_back({p, l * r});
  return p;
}

z3::expr Encoder::unsignedNoWrap(const z3::expr &l, const z3::expr &r) {
  // A constant factor (a pinned blockDim) is linear: exact, as subqueries,
  // which refine nothing, need it (the mixed-radix lemmas' premise).
  if (!abstractNonlinear || l.simplify().is_numeral() ||
      r.simplify().is_numeral())
    return z3::bvmul_no_overflow(l, r, false);
  z3::expr ok = binaryApp("unowrap.mul", l, r, 1, /*commutative=*/true) ==
                ctx.bv_val(1, 1);
  if (nowrapSeen.insert(ok.arg(0).id()).second)
    abstracted.push_back({ok, z3::bvmul_no_overflow(l, r, false)});
  return ok;
}

z3::expr Encoder::globalIndexFacts(const Thread &t) {
  unsigned w = modelWidth(32, bits);
  z3::expr f = ctx.bool_val(true);
  if (!abstractNonlinear || hugeGrids || w < 32)
    return f;
  // blockIdx < gridDim, so blockIdx * blockDim + threadIdx < gridDim *
  // blockDim <= INT_MAX (launchConstraints): neither the product nor the sum
  // wraps.
  z3::expr intMax = ctx.bv_val((uint64_t)INT32_MAX, w);
  const std::vector<z3::expr> &bdim = bdimOf(t.launch),
                              &gdim = gdimOf(t.launch);
  for (int i = 0; i < 3; ++i) {
    f = f && z3::ule(productApp(t.bid[i], bdim[i]), intMax - t.tid[i]);
    // The product does not wrap either: said abstractly, so that index
    // lemmas about b * h + t hold without a multiplier's bits.
    f = f && nowrapMulApp(t.bid[i], bdim[i]);
    // ... and below gridDim * blockDim (a grid-stride loop's step), which
    // the solver would otherwise need non-linear reasoning for.
    z3::expr total = productApp(gdim[i], bdim[i]);
    abstracted.push_back({total, gdim[i] * bdim[i]});
    f = f && z3::ult(productApp(t.bid[i], bdim[i]) + t.tid[i], total) &&
        z3::ule(total, intMax);
  }
  return z3::implies(inRange(t), f);
}

namespace {

/// A term e == a * h + b of indexLemmas; `factored` where a * h is no
/// subterm of e (factoredSums).
struct IndexTerm {
  z3::expr e, a, h, b;
  bool factored = false;
};

/// The rows a sum \p e is in beyond its binary p + b form: for each
/// non-numeral factor h of which \p e (its bvadd tree flattened) adds two
/// or more multiples (a product with h, or h itself), the term e = A * h +
/// B with A the sum of the multipliers and B the sum of the other addends.
std::vector<std::pair<unsigned, IndexTerm>>
factoredSums(const z3::expr &e,
             llvm::function_ref<bool(const z3::expr &)> isProduct) {
  z3::context &ctx = e.ctx();
  std::vector<z3::expr> addends, work{e};
  while (!work.empty() && addends.size() <= 16) {
    z3::expr x = work.back();
    work.pop_back();
    if (x.is_app() && x.decl().decl_kind() == Z3_OP_BADD)
      for (unsigned i = 0; i < x.num_args(); ++i)
        work.push_back(x.arg(i));
    else
      addends.push_back(x);
  }
  std::vector<std::pair<unsigned, IndexTerm>> out;
  if (addends.size() < 2 || addends.size() > 16 || !work.empty())
    return out;
  // Factor candidates: the non-numeral factors of the products.
  std::vector<z3::expr> factors;
  for (const z3::expr &x : addends)
    if (isProduct(x))
      for (unsigned f = 0; f < 2; ++f)
        if (!x.arg(f).is_numeral() &&
            llvm::none_of(factors, [&](const z3::expr &g) {
              return z3::eq(g, x.arg(f));
            }))
          factors.push_back(x.arg(f));
  unsigned w = e.get_sort().bv_size();
  for (const z3::expr &h : factors) {
    std::optional<z3::expr> a, b;
    unsigned multiples = 0;
    auto add = [](std::optional<z3::expr> &sum, const z3::expr &x) {
      sum = sum ? *sum + x : x;
    };
    for (const z3::expr &x : addends) {
      if (z3::eq(x, h)) {
        add(a, ctx.bv_val(1, w));
        ++multiples;
      } else if (isProduct(x) && z3::eq(x.arg(1), h)) {
        add(a, x.arg(0));
        ++multiples;
      } else if (isProduct(x) && z3::eq(x.arg(0), h)) {
        add(a, x.arg(1));
        ++multiples;
      } else {
        add(b, x);
      }
    }
    if (multiples < 2)
      continue; // the binary form's term, or none
    out.push_back({h.id(), IndexTerm{e, *a, h, b ? *b : ctx.bv_val(0, w),
                                     /*factored=*/true}});
  }
  return out;
}

} // namespace

z3::expr_vector Encoder::indexLemmas(const z3::expr_vector &assertions,
                                     bool exactFits) {
  using Term = IndexTerm;
  auto isProduct = [](const z3::expr &e) {
    if (!e.is_app() || e.num_args() != 2)
      return false;
    if (e.decl().decl_kind() == Z3_OP_BMUL)
      return true;
    return e.decl().decl_kind() == Z3_OP_UNINTERPRETED &&
           llvm::StringRef(e.decl().name().str()).starts_with(productName);
  };
  // Terms p + b with p = a * h, grouped by h.
  std::map<unsigned, std::vector<Term>> byFactor;
  // Abstracted products h * a by each operand h, with a's position.
  std::map<unsigned, std::vector<std::pair<z3::expr, unsigned>>> byOperand;
  std::set<unsigned> seen;
  std::vector<z3::expr> work;
  work.reserve(assertions.size());
  for (unsigned i = 0; i < assertions.size(); ++i)
    work.push_back(assertions[i]);
  while (!work.empty()) {
    z3::expr e = work.back();
    work.pop_back();
    if (!e.is_app() || !seen.insert(e.id()).second)
      continue;
    // A query of millions of terms (read chains through many barrier
    // intervals) takes seconds to walk: the kernel's budget applies.
    if (!(seen.size() & 4095))
      checkDeadline();
    for (unsigned i = 0; i < e.num_args(); ++i)
      work.push_back(e.arg(i));
    if (abstractNonlinear && isProduct(e) &&
        e.decl().decl_kind() == Z3_OP_UNINTERPRETED && !arrayOf(e.arg(0)) &&
        !arrayOf(e.arg(1)))
      for (unsigned f = 0; f < 2; ++f)
        if (!e.arg(f).is_numeral())
          byOperand[e.arg(f).id()].push_back({e, f});
    if (e.decl().decl_kind() != Z3_OP_BADD)
      continue;
    if (e.num_args() == 2)
      for (unsigned m = 0; m < 2; ++m) {
        z3::expr p = e.arg(m);
        if (!isProduct(p))
          continue;
        for (unsigned f = 0; f < 2; ++f)
          if (!p.arg(f).is_numeral())
            byFactor[p.arg(f).id()].push_back(
                {e, p.arg(1 - f), p.arg(f), e.arg(1 - m)});
      }
    // A sum with several multiples of one factor h, nested or n-ary, is
    // one row too: col + 2 * h with col = (4 * x) * h + y is
    // (4 * x + 2) * h + y (distributivity holds modulo 2^w, so the lemma
    // holds of exact products). The term's a and b are sums of their own.
    for (auto &[h, t] : factoredSums(e, isProduct))
      byFactor[h].push_back(t);
  }
  z3::expr_vector out(ctx);
  // a * h + b < 2^w when b < h and a, h have at most w/2 bits, one of them
  // w/2 - 1: then (a + 1) * h <= 2^(w-1).
  auto fitsUnsigned = [&](const Term &t) {
    unsigned w = t.e.get_sort().bv_size();
    z3::expr c = ctx.bool_val(false);
    if (w >= 4 && w <= 64) {
      unsigned half = w / 2;
      z3::expr big = ctx.bv_val(uint64_t(1) << half, w);
      z3::expr small = ctx.bv_val(uint64_t(1) << (half - 1), w);
      c = (z3::ult(t.a, small) && z3::ult(t.h, big)) ||
          (z3::ult(t.a, big) && z3::ult(t.h, small));
    }
    if (exactFits) {
      // With abstracted products, the product and its overflow check are
      // functions the refinement makes exact where a model needs them: a
      // multiplier per term would dominate every race query.
      if (abstractNonlinear) {
        z3::expr p = exactlyAbstracted(t.a, t.h);
        z3::expr ok = unsignedNoWrap(t.a, t.h);
        c = c || (ok && z3::bvadd_no_overflow(p, t.b, false));
      } else {
        c = c || (z3::bvmul_no_overflow(t.a, t.h, false) &&
                  z3::bvadd_no_overflow(t.a * t.h, t.b, false));
      }
    }
    return z3::ult(t.b, t.h) && c;
  };
  // Or exact in signed arithmetic (the before kernel's nsw products):
  // a*h + b with 0 <= b < h determines a and b, negative a included.
  auto fitsSigned = [&](const Term &t) {
    if (t.factored) // no product subterm to state the sum's bounds on
      return ctx.bool_val(false);
    z3::expr zero = ctx.bv_val(0, t.b.get_sort().bv_size());
    z3::expr p = t.e.arg(0).id() == t.b.id() ? t.e.arg(1) : t.e.arg(0);
    return t.b >= zero && t.b < t.h && nowrapMulApp(t.a, t.h) &&
           z3::bvadd_no_overflow(p, t.b, true) &&
           z3::bvadd_no_underflow(p, t.b);
  };
  // Unsigned and signed decompositions agree where e is not negative; an e
  // of 2^(w-1) or more (only an exact unsigned fit reaches it) has two
  // different quotients by an h that is not a power of two, so an unsigned
  // fit is related to a signed one only there.
  struct Fit {
    z3::expr u, s;
  };
  std::map<std::tuple<unsigned, unsigned, unsigned>, Fit> fitOf;
  auto fit = [&](const Term &t) -> const Fit & {
    auto [it, fresh] =
        fitOf.try_emplace({t.e.id(), t.a.id(), t.h.id()},
                          Fit{ctx.bool_val(false), ctx.bool_val(false)});
    if (fresh) {
      it->second.u = fitsUnsigned(t);
      if (abstractNonlinear)
        it->second.s = fitsSigned(t);
    }
    return it->second;
  };
  const unsigned maxLemmas = 4000;
  // Products of one operand h are monotone in the other where they do not
  // wrap: a1 <= a2 and h * a2 < 2^w give h * a1 <= h * a2. A writer's
  // block q found from its cell (q * h + r == cell < m <= gridDim * h)
  // then lies in the grid without a multiplier's bits. Stated for pairs
  // where one side is a launch dimension or a scalar parameter (a bound),
  // not for the quadratically many pairs of threads.
  std::set<unsigned> bounds;
  for (unsigned l = 0; l < (separateLaunches() ? 2u : 1u); ++l)
    for (int i = 0; i < 3; ++i) {
      bounds.insert(bdimOf(l)[i].id());
      bounds.insert(gdimOf(l)[i].id());
    }
  for (auto &prm : params)
    if (prm && prm->is_bv())
      bounds.insert(prm->id());
  for (auto &[h, prods] : byOperand)
    for (size_t i = 0; i < prods.size() && out.size() < maxLemmas / 2; ++i) {
      // h * a >= h where a != 0 (the product with 1, which is no term).
      const auto &[p1, f1] = prods[i];
      out.push_back(z3::implies(p1.arg(1 - f1) != 0 &&
                                    unsignedNoWrap(p1.arg(f1), p1.arg(1 - f1)),
                                z3::uge(p1, p1.arg(f1))));
      for (size_t j = 0; j < prods.size(); ++j) {
        const auto &[p2, f2] = prods[j];
        if (i == j || z3::eq(p1, p2) ||
            p1.get_sort().bv_size() != p2.get_sort().bv_size())
          continue;
        z3::expr a1 = p1.arg(1 - f1), a2 = p2.arg(1 - f2);
        if (!bounds.count(a1.id()) && !bounds.count(a2.id()))
          continue;
        out.push_back(
            z3::implies(z3::ule(a1, a2) && unsignedNoWrap(p2.arg(f2), a2),
                        z3::ule(p1, p2)));
      }
    }
  for (auto &[h, terms] : byFactor)
    for (size_t i = 0; i < terms.size(); ++i) {
      // Past the cap no pair adds a lemma: stop rather than visit the
      // quadratically many that are left.
      if (out.size() >= maxLemmas)
        return out;
      checkDeadline();
      for (size_t j = i + 1; j < terms.size(); ++j) {
        const Term &t1 = terms[i], &t2 = terms[j];
        if (z3::eq(t1.e, t2.e) ||
            t1.e.get_sort().bv_size() != t2.e.get_sort().bv_size() ||
            out.size() >= maxLemmas)
          continue;
        const Fit &f1 = fit(t1), &f2 = fit(t2);
        z3::expr both = f1.u && f2.u;
        if (abstractNonlinear) {
          z3::expr zero = ctx.bv_val(0, t1.e.get_sort().bv_size());
          both = both || (f1.s && f2.s) ||
                 (t1.e >= zero && (f1.u || f1.s) && (f2.u || f2.s));
        }
        out.push_back(
            z3::implies(both && t1.e == t2.e, t1.a == t2.a && t1.b == t2.b));
      }
    }
  return out;
}

// A product of two array elements in one order for both kernels, by array
// name: a bit-blasted a[i] * b[j] against b[j'] * a[i'] is a hard SAT
// problem, equal terms once i == i' and j == j' are not. (Other products
// keep their order: reordering those by term id slowed unrelated proofs.)
z3::expr Encoder::exactProduct(const z3::expr &l, const z3::expr &r) {
  std::optional<std::string> al = arrayOf(l), ar = arrayOf(r);
  if (al && ar && *ar < *al)
    return r * l;
  return l * r;
}

z3::expr Encoder::mulTerm(const z3::expr &l, const z3::expr &r) {
  // A product of a sum's iteration number stays exact: the abstraction's
  // refinement evaluates products in a model, where a bound variable has
  // no value.
  if (l.simplify().is_numeral() || r.simplify().is_numeral())
    return exactProduct(l, r);
  // A query that only proves (unsat) may read products as any function:
  // equal factors, equal products, without a multiplier's bits.
  if (proofOnly) {
    // What sign a product has where it does not overflow (the source's
    // nsw preconditions say where): zext and sext of a row * n + k index
    // then agree.
    z3::expr app = productApp(l, r);
    unsigned w = l.get_sort().bv_size();
    // Index arithmetic only: products of array elements are data.
    if (!app.is_numeral() && w > 1 && !arrayOf(l) && !arrayOf(r)) {
      z3::expr zero = ctx.bv_val(0, w);
      z3::expr nowrap = binaryApp("nowrap.mul", l, r, 1,
                                  /*commutative=*/true) == ctx.bv_val(1, 1);
      proofFacts.push_back(
          z3::implies(nowrap && l >= zero && r >= zero, app >= zero));
    }
    return app;
  }
  if (!abstractNonlinear || mentionsSumVar(l) || mentionsSumVar(r))
    return exactProduct(l, r);
  unsigned w = l.get_sort().bv_size();
  z3::expr app = productApp(l, r);
  abstracted.push_back({app, exactProduct(l, r)});
  // Keep the facts that rule out most spurious models: x*0 = 0, x*1 = x.
  z3::expr zero = ctx.bv_val(0, w), one = ctx.bv_val(1, w);
  side.push_back(z3::implies(l == zero || r == zero, app == zero));
  side.push_back(z3::implies(l == one, app == r));
  side.push_back(z3::implies(r == one, app == l));
  if (w == 64) {
    // An iteration number (< 2^31) times a step below 2^32 is exact in 64
    // bits: below 2^63 - 2^32 (adding a 32-bit start does not wrap), and
    // at least either factor.
    z3::expr lim31 = ctx.bv_val(uint64_t(1) << 31, 64);
    z3::expr lim32 = ctx.bv_val(uint64_t(1) << 32, 64);
    for (const auto &[a, b] : {std::pair{l, r}, std::pair{r, l}}) {
      side.push_back(z3::implies(
          z3::ult(a, lim31) && z3::ult(b, lim32),
          app >= zero &&
              z3::ult(app, ctx.bv_val((uint64_t(1) << 63) - (uint64_t(1) << 32),
                                      64)) &&
              z3::implies(a != zero, z3::uge(app, b)) &&
              z3::implies(b != zero, z3::uge(app, a))));
      loopFacts.push_back(side.back());
    }
  }
  return app;
}

} // namespace kv
