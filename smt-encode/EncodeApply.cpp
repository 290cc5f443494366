//===- EncodeApply.cpp - kv.apply: floats and other named operations -----===//
//
// kv.apply is an operation the encoder keeps uninterpreted: float
// arithmetic, conversions, comparisons, libdevice calls. What IEEE
// guarantees bit for bit is built into how applications are formed (one
// operand order for commutative operations, mirrored comparisons, x +
// (-0.0) = x, uitofp of a non-negative int = sitofp); --fp=real adds the
// operations' real-number meaning.
//
//===----------------------------------------------------------------------===//
#include "smt-encode/Encoder.h"
#include "smt-encode/EncoderInternal.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/APInt.h"
#include "llvm/ADT/StringExtras.h"

#include <map>
#include <optional>
#include <set>

using namespace mlir;

namespace kv {

/// The exact value of the finite float or double with bit pattern \p bits
/// (\p w = 32 or 64), or none for an infinity or NaN.
static std::optional<z3::expr> exactReal(z3::context &ctx, uint64_t bits,
                                         unsigned w) {
  unsigned mantBits = w == 32 ? 23 : 52, expBits = w == 32 ? 8 : 11;
  int bias = w == 32 ? 127 : 1023;
  uint64_t mant = bits & ((uint64_t(1) << mantBits) - 1);
  uint64_t e = (bits >> mantBits) & ((uint64_t(1) << expBits) - 1);
  bool neg = (bits >> (w - 1)) & 1;
  if (e == (uint64_t(1) << expBits) - 1)
    return std::nullopt;
  // value = m * 2^exp, m an integer.
  int exp;
  if (e == 0) {
    exp = 1 - bias - (int)mantBits;
  } else {
    mant |= uint64_t(1) << mantBits;
    exp = (int)e - bias - (int)mantBits;
  }
  llvm::APInt m(2200, mant);
  std::string text;
  if (exp >= 0) {
    text = llvm::toString(m.shl(exp), 10, false);
  } else {
    text = llvm::toString(m, 10, false) + "/" +
           llvm::toString(llvm::APInt(2200, 1).shl(-exp), 10, false);
  }
  if (neg && mant)
    text = "-" + text;
  return ctx.real_val(text.c_str());
}

std::optional<z3::expr> exactFloatCompare(llvm::StringRef fn, const z3::expr &a,
                                          const z3::expr &b) {
  if (!fn.consume_front("fcmp.") || !a.is_bv() || !b.is_bv())
    return std::nullopt;
  bool ftz = fn.consume_front("ftz.");
  unsigned w = a.get_sort().bv_size();
  if ((w != 32 && w != 64) || b.get_sort().bv_size() != w)
    return std::nullopt;
  z3::context &ctx = a.ctx();
  uint64_t signBit = uint64_t(1) << (w - 1);
  uint64_t inf = w == 32 ? 0x7f800000ull : 0x7ff0000000000000ull;
  uint64_t minNormal = uint64_t(1) << (w == 32 ? 23 : 52);
  z3::expr zero = ctx.bv_val(0, w);
  auto magnitude = [&](const z3::expr &x) {
    return x & ctx.bv_val(signBit - 1, w);
  };
  auto isNaN = [&](const z3::expr &x) {
    return z3::ugt(magnitude(x), ctx.bv_val(inf, w));
  };
  // Sign and magnitude as one signed number: the order of non-NaN values,
  // both zeros 0.
  auto key = [&](const z3::expr &x) {
    z3::expr m = magnitude(x);
    if (ftz)
      m = z3::ite(z3::ult(m, ctx.bv_val(minNormal, w)), zero, m);
    return z3::ite((x & ctx.bv_val(signBit, w)) != zero, zero - m, m);
  };
  z3::expr un = isNaN(a) || isNaN(b);
  z3::expr ka = key(a), kb = key(b);
  z3::expr lt = ka<kb, gt = ka> kb, eq = ka == kb;
  if (fn == "false")
    return ctx.bool_val(false);
  if (fn == "true")
    return ctx.bool_val(true);
  if (fn == "ord")
    return !un;
  if (fn == "uno")
    return un;
  std::optional<z3::expr> ordered =
      fn.ends_with("eq")   ? std::optional<z3::expr>(eq)
      : fn.ends_with("ne") ? std::optional<z3::expr>(!eq)
      : fn.ends_with("gt") ? std::optional<z3::expr>(gt)
      : fn.ends_with("ge") ? std::optional<z3::expr>(gt || eq)
      : fn.ends_with("lt") ? std::optional<z3::expr>(lt)
      : fn.ends_with("le") ? std::optional<z3::expr>(lt || eq)
                           : std::nullopt;
  if (!ordered || fn.size() != 3)
    return std::nullopt;
  if (fn[0] == 'o')
    return !un && *ordered;
  if (fn[0] == 'u')
    return un || *ordered;
  return std::nullopt;
}

void Encoder::realFacts(llvm::StringRef fn, const std::vector<z3::expr> &ops,
                        const z3::expr &result) {
  unsigned w = result.get_sort().bv_size();
  llvm::StringRef base = fn;
  bool fused =
      base.consume_front("llvm.fma.") || base.consume_front("llvm.fmuladd.");
  static const std::set<std::string> arith = {"fadd", "fsub", "fmul", "fdiv",
                                              "fneg"};
  if (!fused && !arith.count(fn.str()))
    return;
  std::vector<z3::expr> r;
  for (const z3::expr &o : ops) {
    if (!o.is_bv() || o.get_sort().bv_size() != w)
      return;
    if (o.is_numeral())
      if (std::optional<z3::expr> c =
              exactReal(ctx, numeralOf(o, w).getZExtValue(), w))
        side.push_back(realOf(o) == *c);
    r.push_back(realOf(o));
  }
  z3::expr v = realOf(result);
  if (fused && r.size() == 3)
    side.push_back(v == r[0] * r[1] + r[2]);
  else if (fn == "fneg" && r.size() == 1)
    side.push_back(v == -r[0]);
  else if (r.size() != 2)
    return;
  else if (fn == "fadd")
    side.push_back(v == r[0] + r[1]);
  else if (fn == "fsub")
    side.push_back(v == r[0] - r[1]);
  else if (fn == "fmul")
    side.push_back(v == r[0] * r[1]);
  else if (fn == "fdiv")
    side.push_back(z3::implies(r[1] != 0, v * r[1] == r[0]));
}

std::string Encoder::canonicalApply(std::string fn,
                                    std::vector<z3::expr> &ops) {
  // IEEE addition and multiplication commute bit for bit (a NaN result's
  // payload is unspecified in LLVM and canonical on the GPU), and a
  // comparison is its mirror with the operands swapped: the smaller
  // operand first, so that x + 0.0 and 0.0 + x are one value (-O2 moves
  // constants to the right).
  if (ops.size() != 2)
    return fn;
  static const std::map<std::string, std::string> mirror = {
      {"fcmp.ogt", "fcmp.olt"},
      {"fcmp.oge", "fcmp.ole"},
      {"fcmp.ugt", "fcmp.ult"},
      {"fcmp.uge", "fcmp.ule"}};
  static const std::set<std::string> symmetric = {
      "fadd",     "fmul",     "fcmp.oeq", "fcmp.one",  "fcmp.ord",
      "fcmp.uno", "fcmp.ueq", "fcmp.une", "fcmp.true", "fcmp.false"};
  if (auto m = mirror.find(fn); m != mirror.end()) {
    std::swap(ops[0], ops[1]);
    return m->second;
  }
  // By value, not by term: two kernels' operands may be equal values
  // written as different terms, and congruence must still apply.
  if (symmetric.count(fn) && !z3::eq(ops[0], ops[1])) {
    // The order a pair was first formed in, so that x * y and y * x from
    // two kernels are the same terms (the solver does not see
    // ite(a < b, a, b) and ite(b < a, b, a) as one). Not a canonical order
    // of terms: two kernels' equal values may be different terms, and
    // their operand order is then the better guide.
    unsigned i0 = Z3_get_ast_id(ctx, ops[0]), i1 = Z3_get_ast_id(ctx, ops[1]);
    if (commutedPairs.count({fn, i1, i0})) {
      std::swap(ops[0], ops[1]);
    } else if (commutedPairs.insert({fn, i0, i1}).second) {
      commutedTerms.push_back(ops[0]);
      commutedTerms.push_back(ops[1]);
    }
    z3::expr lt = z3::ult(ops[0], ops[1]);
    z3::expr lo = z3::ite(lt, ops[0], ops[1]);
    z3::expr hi = z3::ite(lt, ops[1], ops[0]);
    ops[0] = lo;
    ops[1] = hi;
  }
  return fn;
}

z3::expr Encoder::encodeApply(KernelModel &k, ApplyOp a, const Thread &t) {
  Type rt = a->getNumResults() ? a->getResult(0).getType() : Type();
  bool isBool = rt && rt.isInteger(1);
  auto bv = [&](const z3::expr &e) { return e.is_bool() ? boolToBv(e) : e; };
  unsigned w = std::max(1u, widthOf(rt));
  auto apply = [&](const std::string &name, std::vector<z3::expr> xs) {
    std::string fn = canonicalApply(name, xs);
    z3::sort_vector dom(ctx);
    z3::expr_vector args(ctx);
    for (const z3::expr &e : xs) {
      dom.push_back(e.get_sort());
      args.push_back(e);
    }
    z3::expr r = uf("uf." + fn, dom, w)(args);
    if (realFloats && (w == 32 || w == 64))
      realFacts(fn, xs, r);
    return r;
  };
  std::vector<z3::expr> ops;
  for (Value o : a.getOperands())
    ops.push_back(bv(value(k, o, t)));
  // x + (-0.0) is x (but for a NaN x's payload, which LLVM leaves
  // unspecified): -O2 folds `c ? r + x : r` into `r + (c ? x : -0.0)`.
  if (a.getFn() == "fadd" && ops.size() == 2 && (w == 32 || w == 64) &&
      ops[0].get_sort().bv_size() == w && ops[1].get_sort().bv_size() == w) {
    auto negZero = [&](const z3::expr &e) {
      return e.is_numeral() && numeralOf(e, w) == llvm::APInt::getSignMask(w);
    };
    for (int i = 0; i < 2; ++i) {
      const z3::expr &x = ops[i], &other = ops[1 - i];
      if (negZero(x))
        return other;
      if (x.is_app() && x.decl().decl_kind() == Z3_OP_ITE) {
        if (negZero(x.arg(2)))
          return z3::ite(x.arg(0), apply("fadd", {other, x.arg(1)}), other);
        if (negZero(x.arg(1)))
          return z3::ite(x.arg(0), other, apply("fadd", {other, x.arg(2)}));
      }
    }
  }
  // x * 1 and x / 1 are x, x * -1 and x / -1 are -x (but for a NaN x's
  // sign and payload, which LLVM leaves unspecified): -O2 folds
  // `x * (c ? -1.0f : 1.0f)` into `c ? -x : x`. A factor that is a select
  // of such constants is the select of the folded products.
  if ((a.getFn() == "fmul" || a.getFn() == "fdiv") && ops.size() == 2 &&
      (w == 32 || w == 64) && ops[0].get_sort().bv_size() == w &&
      ops[1].get_sort().bv_size() == w) {
    bool div = a.getFn() == "fdiv";
    const llvm::fltSemantics &sem =
        w == 32 ? llvm::APFloat::IEEEsingle() : llvm::APFloat::IEEEdouble();
    // The product of \p x and the constant \p c, where c is +-1.
    auto unit = [&](const z3::expr &x,
                    const z3::expr &c) -> std::optional<z3::expr> {
      if (!c.is_numeral())
        return std::nullopt;
      llvm::APFloat f(sem, numeralOf(c, w));
      if (f.isExactlyValue(1.0))
        return x;
      if (f.isExactlyValue(-1.0))
        return apply("fneg", {x});
      return std::nullopt;
    };
    auto product = [&](const z3::expr &x, const z3::expr &c) {
      if (std::optional<z3::expr> r = unit(x, c))
        return *r;
      return apply(a.getFn().str(), div ? std::vector<z3::expr>{x, c}
                                        : std::vector<z3::expr>{c, x});
    };
    for (int i = div ? 1 : 0; i < 2; ++i) {
      const z3::expr &c = ops[i], &x = ops[1 - i];
      if (std::optional<z3::expr> r = unit(x, c))
        return *r;
      if (c.is_app() && c.decl().decl_kind() == Z3_OP_ITE &&
          (unit(x, c.arg(1)) || unit(x, c.arg(2))))
        return z3::ite(c.arg(0), product(x, c.arg(1)), product(x, c.arg(2)));
    }
  }
  // An unsigned conversion of an integer whose sign bit is clear is the
  // signed one (-O2 turns sitofp of a count into uitofp nneg).
  llvm::StringRef fn = a.getFn();
  if (fn.starts_with("uitofp.") && ops.size() == 1 && ops[0].is_bv()) {
    const z3::expr &x = ops[0];
    z3::expr zero = ctx.bv_val(0, x.get_sort().bv_size());
    z3::expr r = z3::ite(x < zero, apply(fn.str(), ops),
                         apply(("sitofp." + fn.drop_front(7)).str(), ops));
    return isBool ? bvToBool(r) : r;
  }
  if (ops.size() == 2)
    if (std::optional<z3::expr> c = exactFloatCompare(fn, ops[0], ops[1]))
      return isBool ? *c : boolToBv(*c);
  z3::expr r = apply(fn.str(), ops);
  return isBool ? bvToBool(r) : r;
}

} // namespace kv
