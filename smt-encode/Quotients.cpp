//===- Quotients.cpp - division with remainder without a divider ----------===//
//
// quotient: fresh symbols for n / d and n % d defined on the abstracted
// product q * d, with the decompositions that keep a coarsened writer's
// coordinates linear (through the radix of a c * s divisor, and n0 - i * d
// through n0's); dividedBy, which takes a known factor off a product.
//
//===----------------------------------------------------------------------===//
#include "smt-encode/Encoder.h"
#include "smt-encode/EncoderInternal.h"

#include "llvm/ADT/StringRef.h"

#include <optional>

namespace kv {

std::pair<z3::expr, z3::expr> Encoder::quotient(const z3::expr &n,
                                                const z3::expr &d) {
  // The real quotient and remainder satisfy the definition, so the symbols
  // over-approximate them; a candidate built on them is checked anyway.
  std::string name = "quot" + std::to_string(fresh++);
  unsigned w = n.get_sort().bv_size();
  z3::expr q = ctx.bv_const((name + ".q").c_str(), w);
  z3::expr r = ctx.bv_const((name + ".r").c_str(), w);
  // A divisor c * s (a coarsening factor times a blockDim) as the kernels
  // write the product, (q * s) * c: the quotient's thread computes the
  // same term then, and the solver need not multiply either out.
  z3::expr ds = d.simplify();
  z3::expr prod(ctx), noWrap(ctx);
  // Neither the product nor the sum wraps (q * d + r == n exactly): with
  // products abstracted, `prod + r == n` alone holds modulo 2^w for any
  // value of prod.
  z3::expr exact = z3::ule(r, n);
  bool scaled = ds.is_app() && ds.decl().decl_kind() == Z3_OP_BMUL &&
                ds.num_args() == 2 && ds.arg(0).is_numeral();
  if (scaled && abstractNonlinear && ds.arg(0).get_numeral_uint64() >= 2 &&
      ds.arg(0).get_numeral_uint64() <= 16) {
    // Through the radix s first: n == Q * s + R, then Q == q * c + j, so
    // r == j * s + R with j < c a small case split. The quotient by s is
    // the one the other kernel's writer (row = b * s + t) has, and which
    // site of a coarsened thread writes n is then linear in j: no bits of
    // a product decide it.
    uint64_t c = ds.arg(0).get_numeral_uint64();
    z3::expr s = ds.arg(1), cv = ds.arg(0);
    auto [bigQ, bigR] = quotient(n, s);
    z3::expr j = z3::urem(bigQ, cv);
    z3::expr js = ctx.bv_val(0, w);
    for (uint64_t i = 1; i < c; ++i)
      js = z3::ite(j == ctx.bv_val(i, w), s * ctx.bv_val(i, w), js);
    z3::expr inner = mulTerm(q, s);
    side.push_back(z3::implies(
        s != 0, q == z3::udiv(bigQ, cv) && r == js + bigR &&
                    mulTerm(bigQ, s) == inner * cv + js &&
                    unsignedNoWrap(q, s) && z3::ule(inner * cv, n)));
    return {q, r};
  }
  if (!scaled && !ds.is_numeral() && abstractNonlinear) {
    // n == n0 - i * d (a coarsened thread's later site, row - i * blockDim)
    // has n0's quotient less i where that is at least i: the two are then
    // one decomposition, which the mixed-radix lemmas, comparing sums of
    // equal value only, would not relate.
    z3::expr ns = n.simplify();
    if (ns.is_app() && ns.decl().decl_kind() == Z3_OP_BADD)
      for (unsigned a = 0; a < ns.num_args(); ++a) {
        z3::expr t = ns.arg(a);
        if (!(t.is_app() && t.decl().decl_kind() == Z3_OP_BMUL &&
              t.num_args() == 2 && t.arg(0).is_numeral() &&
              z3::eq(t.arg(1), ds)))
          continue;
        uint64_t i = (~t.arg(0).get_numeral_uint64() + 1) &
                     (w < 64 ? (uint64_t(1) << w) - 1 : ~uint64_t(0));
        if (i == 0 || i > 16)
          continue;
        z3::expr n0 = ctx.bv_val(0, w);
        for (unsigned b = 0; b < ns.num_args(); ++b)
          if (b != a)
            n0 = n0 + ns.arg(b);
        auto [q0, r0] = quotient(n0.simplify(), d);
        z3::expr iv = ctx.bv_val(i, w);
        side.push_back(
            z3::implies(d != 0 && z3::uge(q0, iv), q == q0 - iv && r == r0));
        break;
      }
  }
  if (scaled) {
    z3::expr inner = mulTerm(q, ds.arg(1));
    prod = inner * ds.arg(0);
    // q * (c * s) does not wrap: nor do q * s and its c-fold.
    noWrap = unsignedNoWrap(q, ds.arg(1)) &&
             z3::bvmul_no_overflow(inner, ds.arg(0), false);
  } else {
    prod = mulTerm(q, d);
    noWrap = ds.is_numeral() ? z3::bvmul_no_overflow(q, d, false)
                             : unsignedNoWrap(q, d);
  }
  exact = exact && z3::ule(prod, n);
  side.push_back(
      z3::implies(d != 0, noWrap && prod + r == n && z3::ult(r, d) && exact));
  return {q, r};
}

z3::expr Encoder::dividedBy(const z3::expr &n, const z3::expr &m) {
  // A product with m as a factor (the other kernel's `y * w`): the other
  // factors, exactly, without a quotient for the solver to find.
  z3::expr e = n.simplify();
  if (e.is_app() && e.num_args() >= 2 &&
      (e.decl().decl_kind() == Z3_OP_BMUL ||
       (e.num_args() == 2 && e.decl().decl_kind() == Z3_OP_UNINTERPRETED &&
        llvm::StringRef(e.decl().name().str()).starts_with(productName))))
    for (unsigned i = 0; i < e.num_args(); ++i) {
      if (!z3::eq(e.arg(i), m))
        continue;
      std::optional<z3::expr> rest;
      for (unsigned j = 0; j < e.num_args(); ++j)
        if (j != i)
          rest = rest ? *rest * e.arg(j) : e.arg(j);
      return *rest;
    }
  return quotient(n, m).first;
}

} // namespace kv
