//===- IRExecutorApprox.cpp - approximate results as bounded ranges -------===//
//
// PTX's `.approx` instructions (ex2, lg2, sin, cos, rcp, rsqrt, sqrt, div,
// tanh) and the CUDA math library's functions are not exact: their results
// are the GPU's own, within error bounds the PTX ISA and the CUDA
// Programming Guide state. A run cannot compute them, but it can bound
// them: such a result is a range that holds every value a conforming GPU
// may return, and what is computed from it is the range of every result
// (interval arithmetic: +, -, *, / away from a zero divisor, fma, min and
// max take their extremes over a box of operands at its corners, and the
// functions taken are monotone; rounding to nearest is monotone too, so
// corners computed in the operation's own precision bound it exactly). A branch
// or a conversion the range does not decide ends the run. Two final cells then
// differ for certain only where their ranges are disjoint
// (executor::certainlyDiffer): a counterexample that holds on every GPU, not on
// one guess of its math.
//
// The bounds below are at least the documented maximum errors (wider is
// sound: it only confirms fewer differences).
//
//===----------------------------------------------------------------------===//
#include "equiv/IRExecutorInternal.h"

#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/IR/InlineAsm.h"

#include <cfloat>
#include <cmath>

namespace kv {
namespace irexec {

namespace {

/// The largest value of the type (f32: float) at most \p v, the smallest
/// at least \p v.
double down(double v, bool f32) {
  if (!f32 || std::isinf(v))
    return v;
  float f = (float)v;
  return (double)f > v ? std::nextafter(f, -INFINITY) : f;
}
double up(double v, bool f32) {
  if (!f32 || std::isinf(v))
    return v;
  float f = (float)v;
  return (double)f < v ? std::nextafter(f, INFINITY) : f;
}

/// Every value within relative error \p rel and absolute error \p abs of
/// the exact result \p r (computed on the host in double precision, whose
/// own error is far below any bound here), in the type's values.
Range around(double r, double rel, double abs, bool f32) {
  double maxFinite = f32 ? FLT_MAX : DBL_MAX;
  Range out;
  out.f32 = f32;
  if (std::isinf(r)) {
    // Beyond the largest finite value: the GPU may still round below it.
    out.lo = r > 0 ? maxFinite * (1 - rel) : -INFINITY;
    out.hi = r > 0 ? INFINITY : -maxFinite * (1 - rel);
  } else {
    double slack = std::fabs(r) * rel + abs;
    // Twice the host's rounding as well (the double result, then the
    // bound's arithmetic).
    slack += std::fabs(r) * 0x1p-50;
    out.lo = r - slack;
    out.hi = r + slack;
  }
  out.lo = down(out.lo, f32);
  out.hi = up(out.hi, f32);
  return out;
}

/// An approximate operation: what it computes, its documented error and
/// how it varies (for an operand that is itself a range).
struct ApproxFn {
  double (*host)(double) = nullptr;
  double (*host2)(double, double) = nullptr;
  double rel = 0, abs = 0;
  /// +1: increasing, -1: decreasing, 0: neither (point operands only).
  int monotone = 0;
  bool f32 = true;
  /// sin/cos: outside |x| <= sinCosRange the result is only in [-1, 1].
  double sinCosRange = 0;
  /// The operand (or the divisor) must be > 0 (log, rsqrt) or, for a
  /// division, have a magnitude in [2^-126, 2^126].
  bool positive = false, divisorInRange = false;
  /// __expf: 2 + floor(|1.173 x|) ulp (the Programming Guide).
  bool fastExp = false;
  /// Flushes a subnormal operand to 0 (rcp of one is then infinite).
  bool ftz = false;
};

double rcp(double x) { return 1 / x; }
double rsqrt(double x) { return 1 / std::sqrt(x); }
double divide(double x, double y) { return x / y; }
double exp10(double x) { return std::pow(10.0, x); }
double sinD(double x) { return std::sin(x); }
double cosD(double x) { return std::cos(x); }

// Bounds used: PTX's .approx instructions are stated at 2^-20.5 .. 2^-23
// relative (or absolute, for lg2, sin and cos) error; 2^-20 is taken. The
// f64 ones seed Newton iterations in libdevice and are taken at 2^-16.
// tanh.approx is stated at 2^-10.987. The CUDA math library's float
// functions are stated at 1 .. 4 ulp (2^-21 relative at most), its
// double ones at 1 .. 2 ulp; 2^-19 and 2^-48 are taken.
constexpr double kPtx = 0x1p-20, kPtx64 = 0x1p-16, kLibF = 0x1p-19,
                 kLibD = 0x1p-48, kTiny = 0x1p-125;

/// The PTX intrinsics and instructions (inline assembly `OP $0, $1;`).
std::optional<ApproxFn> ptxApprox(StringRef op) {
  ApproxFn f;
  f.rel = kPtx;
  // Flushed subnormals: a result below the smallest normal may be 0.
  f.abs = kTiny;
  if (op.consume_back(".f32") || op.consume_back(".f"))
    f.f32 = true;
  else if (op.consume_back(".f64") || op.consume_back(".d"))
    f.f32 = false, f.rel = kPtx64, f.abs = 0x1p-1020;
  else
    return std::nullopt;
  f.ftz = op.consume_back(".ftz");
  if (!op.consume_back(".approx"))
    return std::nullopt;
  if (op == "ex2")
    f.host = std::exp2, f.monotone = 1;
  else if (op == "lg2")
    f.host = std::log2, f.monotone = 1, f.positive = true, f.abs = kPtx;
  else if (op == "sin" || op == "cos")
    // Stated for [-pi, pi] (as __sinf's); only [-1, 1] is taken outside.
    f.host = op == "sin" ? sinD : cosD, f.abs = 0x1p-19, f.rel = 0,
    f.sinCosRange = M_PI;
  else if (op == "rcp")
    f.host = rcp, f.monotone = -1;
  else if (op == "rsqrt")
    f.host = rsqrt, f.monotone = -1, f.positive = true;
  else if (op == "sqrt")
    f.host = [](double x) { return std::sqrt(x); }, f.monotone = 1;
  else if (op == "tanh")
    f.host = [](double x) { return std::tanh(x); }, f.monotone = 1,
    f.rel = 0x1p-10;
  else if (op == "div")
    f.host2 = divide, f.divisorInRange = true;
  else
    return std::nullopt;
  if (!f.f32 && (op == "sin" || op == "cos" || op == "tanh" || op == "div"))
    return std::nullopt;
  return f;
}

/// The CUDA math library's functions, where the module has no body for
/// them (no SDK) or the operand is a range (the body is the kernel's own
/// code, run where its operands are exact).
std::optional<ApproxFn> libdeviceApprox(StringRef name) {
  if (!name.consume_front("__nv_"))
    return std::nullopt;
  ApproxFn f;
  if (name.consume_front("fast_")) {
    // The intrinsic forms (__expf, __sinf, ...).
    if (name == "expf")
      f.host = [](double x) { return std::exp(x); }, f.monotone = 1,
      f.fastExp = true, f.abs = kTiny;
    else if (name == "exp10f")
      f.host = exp10, f.monotone = 1, f.fastExp = true, f.abs = kTiny;
    else if (name == "sinf" || name == "cosf")
      // 2^-21.41 absolute in [-pi, pi]; unbounded error outside.
      f.host = name == "sinf" ? sinD : cosD, f.abs = 0x1p-19,
      f.sinCosRange = M_PI;
    else if (name == "logf" || name == "log2f")
      f.host = name == "logf" ? [](double x) { return std::log(x); }
                              : [](double x) { return std::log2(x); },
      f.monotone = 1, f.positive = true, f.rel = kLibF, f.abs = 0x1p-19;
    else
      return std::nullopt;
    return f;
  }
  if (name == "fdividef") {
    f.host2 = divide, f.rel = kLibF, f.divisorInRange = true;
    return f;
  }
  f.f32 = name.consume_back("f");
  f.rel = f.f32 ? kLibF : kLibD;
  f.abs = f.f32 ? kTiny : 0x1p-1020;
  using Fn = double (*)(double);
  auto one = [&](Fn h, int mono, bool positive = false) {
    f.host = h, f.monotone = mono, f.positive = positive;
    return f;
  };
  std::optional<ApproxFn> r =
      StringSwitch<std::optional<ApproxFn>>(name)
          .Case("exp", one([](double x) { return std::exp(x); }, 1))
          .Case("exp2", one([](double x) { return std::exp2(x); }, 1))
          .Case("exp10", one(exp10, 1))
          .Case("expm1", one([](double x) { return std::expm1(x); }, 1))
          .Case("log", one([](double x) { return std::log(x); }, 1, true))
          .Case("log2", one([](double x) { return std::log2(x); }, 1, true))
          .Case("log10", one([](double x) { return std::log10(x); }, 1, true))
          .Case("log1p", one([](double x) { return std::log1p(x); }, 1))
          .Case("sin", one(sinD, 0))
          .Case("cos", one(cosD, 0))
          .Case("tan", one([](double x) { return std::tan(x); }, 0))
          .Case("rsqrt", one(rsqrt, -1, true))
          .Case("cbrt", one([](double x) { return std::cbrt(x); }, 1))
          .Case("atan", one([](double x) { return std::atan(x); }, 1))
          .Case("asin", one([](double x) { return std::asin(x); }, 1))
          .Case("acos", one([](double x) { return std::acos(x); }, -1))
          .Case("sinh", one([](double x) { return std::sinh(x); }, 1))
          .Case("cosh", one([](double x) { return std::cosh(x); }, 0))
          .Case("tanh", one([](double x) { return std::tanh(x); }, 1))
          .Case("erf", one([](double x) { return std::erf(x); }, 1))
          .Default(std::nullopt);
  if (r)
    return r;
  auto two = [&](double (*h)(double, double)) {
    f.host = nullptr, f.host2 = h, f.monotone = 0;
    return f;
  };
  return StringSwitch<std::optional<ApproxFn>>(name)
      .Case("pow", two([](double x, double y) { return std::pow(x, y); }))
      .Case("atan2", two([](double y, double x) { return std::atan2(y, x); }))
      .Case("hypot", two([](double x, double y) { return std::hypot(x, y); }))
      .Default(std::nullopt);
}

/// `OP $0, $1;` of libdevice's inline assembly (rcp.approx.ftz.f32).
std::optional<ApproxFn> asmApprox(const CallBase &c) {
  const auto *asmOp = dyn_cast<InlineAsm>(c.getCalledOperand());
  if (!asmOp || asmOp->hasSideEffects() || c.arg_size() != 1)
    return std::nullopt;
  StringRef text = asmOp->getAsmString().trim();
  size_t blank = text.find_first_of(" \t");
  if (blank == StringRef::npos)
    return std::nullopt;
  StringRef op = text.take_front(blank), rest = text.drop_front(blank).trim();
  if (!rest.consume_back(";"))
    return std::nullopt;
  SmallVector<StringRef, 2> operands;
  rest.split(operands, ',');
  if (operands.size() != 2 || operands[0].trim() != "$0" ||
      operands[1].trim() != "$1")
    return std::nullopt;
  return ptxApprox(op);
}

/// IEEE \p opc (FAdd .. FDiv) of two floats (\p f32) or doubles, as the
/// GPU computes it.
double arith(unsigned opc, bool f32, double x, double y) {
  return floatValue(executor::floatArith(opc, floatBits(x, f32),
                                         floatBits(y, f32), f32 ? 32 : 64),
                    f32);
}

/// The range of \p fn on point operands \p x (and \p y).
std::optional<Range> atPoint(const ApproxFn &fn, double x, double y = 0) {
  if (std::isnan(x) || std::isnan(y))
    return std::nullopt; // a NaN result: the caller's exact NaN
  // A subnormal operand flushed to 0 is another operand (1/0 = inf): not
  // bounded here. (A range's inner values lie between its ends' results
  // for the monotone functions taken, flushed or not.)
  double smallest = fn.f32 ? 0x1p-126 : 0x1p-1022;
  if (fn.ftz && ((x != 0 && std::fabs(x) < smallest) ||
                 (y != 0 && std::fabs(y) < smallest)))
    return std::nullopt;
  double rel = fn.rel, abs = fn.abs;
  if (fn.fastExp)
    rel = (2 + std::floor(std::fabs(1.173 * x)) + 1) * 0x1p-23;
  if (fn.divisorInRange) {
    double m = std::fabs(y);
    if (!(m >= 0x1p-126 && m <= 0x1p126))
      return std::nullopt;
  }
  double r = fn.host ? fn.host(x) : fn.host2(x, y);
  if (std::isnan(r))
    return std::nullopt;
  if (fn.sinCosRange && !(std::fabs(x) <= fn.sinCosRange))
    return Range{-1, 1, fn.f32};
  // The special values are exact: an infinite operand (2^inf, 1/inf), a
  // pole (1/0, log 0). Two-operand functions have too many to list.
  if (fn.host2 && (std::isinf(x) || std::isinf(y)))
    return std::nullopt;
  // (Of an infinite operand, only the results C fixes: 0, 1, infinity;
  // atan(inf) is pi/2 within the bound.)
  if ((std::isinf(x) && (r == 0 || std::fabs(r) == 1 || std::isinf(r))) ||
      (x == 0 && std::isinf(r)))
    return Range{r, r, fn.f32};
  Range out = around(r, rel, abs, fn.f32);
  if (fn.sinCosRange) {
    out.lo = std::max(out.lo, -1.0);
    out.hi = std::min(out.hi, 1.0);
  }
  return out;
}

} // namespace

uint64_t IRRunner::keyOf(ThreadState &t, StringRef what,
                         ArrayRef<const Value *> ops) {
  hash_code h = hash_value(what);
  for (const Value *v : ops) {
    Val x = get(t, v);
    h = hash_combine(h, x.obj,
                     x.obj == Val::Approx ? ranges[x.bits].key : x.bits);
  }
  return (uint64_t)h;
}

Val IRRunner::rangeVal(Range r) {
  r.key = rangeKey;
  if (r.lo == r.hi && !(r.lo == 0 && std::signbit(r.lo) != std::signbit(r.hi)))
    return Val{floatBits(r.lo, r.f32)};
  approxSeen = true;
  ranges.push_back(r);
  return Val{ranges.size() - 1, Val::Approx};
}

std::optional<Range> IRRunner::rangeOf(ThreadState &, Val v, Type *ty) {
  if (v.obj == Val::Approx)
    return ranges[v.bits];
  double x = floatValue(v.bits, ty->isFloatTy());
  if (std::isnan(x))
    return std::nullopt;
  return Range{x, x, ty->isFloatTy()};
}

bool IRRunner::approxCall(ThreadState &t, const CallBase &c, Val &out,
                          bool &handled) {
  handled = false;
  Type *ty = c.getType();
  if (!ty->isFloatTy() && !ty->isDoubleTy())
    return true;
  std::optional<ApproxFn> fn;
  const Function *callee = c.getCalledFunction();
  if (c.isInlineAsm())
    fn = asmApprox(c);
  else if (callee && callee->getName().starts_with("llvm.nvvm."))
    fn = ptxApprox(callee->getName().drop_front(strlen("llvm.nvvm.")));
  else if (callee) {
    // A libdevice body runs where its operands are exact (it is the
    // kernel's code); the documented bound stands in for it where there is
    // no body or an operand is a range.
    bool rangeArg = any_of(c.args(), [&](const Use &a) {
      return get(t, a.get()).obj == Val::Approx;
    });
    if (callee->isDeclaration() || rangeArg)
      fn = libdeviceApprox(callee->getName());
  }
  if (!fn || fn->f32 != ty->isFloatTy() ||
      c.arg_size() != (fn->host2 ? 2u : 1u))
    return true;
  handled = true;
  {
    SmallVector<const Value *, 2> ops(c.args().begin(), c.args().end());
    std::string what =
        callee ? callee->getName().str()
               : cast<InlineAsm>(c.getCalledOperand())->getAsmString().str();
    rangeKey = keyOf(t, what, ops);
  }
  // The canonical NaN, as the GPU's operations give it.
  auto nanResult = [&] {
    out = Val{ty->isFloatTy() ? 0x7fffffffull : 0x7fffffffffffffffull};
    return true;
  };
  SmallVector<Range, 2> xs;
  for (const Use &a : c.args()) {
    Val v = get(t, a.get());
    std::optional<Range> r = rangeOf(t, v, a->getType());
    if (!r) {
      // A NaN operand gives a NaN, whatever the approximation (pow(1, NaN)
      // is 1: two-operand functions are not run on one).
      if (fn->host2)
        return fail("'" + (callee ? callee->getName() : StringRef("")) +
                    "' of a NaN");
      return nanResult();
    }
    xs.push_back(*r);
  }
  auto undecided = [&] {
    return fail("'" +
                (callee ? callee->getName() : StringRef("inline assembly")) +
                "' of a range its bounds do not cover (an approximate "
                "result the run cannot bound)");
  };
  if (xs.size() == 1 && xs[0].lo == xs[0].hi) {
    std::optional<Range> r = atPoint(*fn, xs[0].lo);
    if (!r) {
      if (std::isnan(fn->host(xs[0].lo)))
        return nanResult();
      return undecided();
    }
    out = rangeVal(*r);
    return true;
  }
  if (xs.size() == 2 && xs[0].lo == xs[0].hi && xs[1].lo == xs[1].hi) {
    std::optional<Range> r = atPoint(*fn, xs[0].lo, xs[1].lo);
    if (!r)
      return undecided();
    out = rangeVal(*r);
    return true;
  }
  // A range operand: the bounds at its ends, for a monotone function on
  // a domain without special values.
  if (xs.size() != 1 || !fn->monotone || (fn->positive && !(xs[0].lo > 0)) ||
      std::isinf(xs[0].lo) || std::isinf(xs[0].hi) ||
      (fn->host == rcp && xs[0].lo <= 0 && xs[0].hi >= 0))
    return undecided();
  std::optional<Range> a = atPoint(*fn, xs[0].lo), b = atPoint(*fn, xs[0].hi);
  if (!a || !b)
    return undecided();
  Range r = fn->monotone > 0 ? Range{a->lo, b->hi, fn->f32}
                             : Range{b->lo, a->hi, fn->f32};
  out = rangeVal(r);
  return true;
}

bool IRRunner::approxStep(ThreadState &t, const Instruction &inst, Val &out,
                          bool &handled) {
  handled = false;
  const auto *call = dyn_cast<CallBase>(&inst);
  bool any = false;
  for (const Use &u : inst.operands()) {
    if (!isa<Instruction, Argument>(u.get()) ||
        get(t, u.get()).obj != Val::Approx)
      continue;
    // Moved, not computed with (store() keeps it; a call's argument is
    // judged below).
    if (movesOperand(inst, u.getOperandNo()))
      continue;
    any = true;
  }
  if (!any)
    return true;
  {
    SmallVector<const Value *, 3> ops;
    for (const Use &u : call ? call->args() : inst.operands())
      ops.push_back(u.get());
    std::string what = inst.getOpcodeName();
    if (auto *cmp = dyn_cast<CmpInst>(&inst))
      what += CmpInst::getPredicateName(cmp->getPredicate());
    if (call && call->getCalledFunction())
      what += call->getCalledFunction()->getName();
    rangeKey = keyOf(t, what, ops);
  }
  auto why = [&](const Twine &what) {
    return fail("an approximate result (PTX .approx or the CUDA math "
                "library, known within its error bound) used by " +
                what + ", which the run cannot bound");
  };
  Type *ty = inst.getType();
  auto operand = [&](unsigned i) {
    return rangeOf(t, get(t, inst.getOperand(i)),
                   inst.getOperand(i)->getType());
  };
  // Corners of \p f over the operand ranges, in the result's precision.
  auto corners = [&](ArrayRef<Range> xs,
                     function_ref<double(ArrayRef<double>)> f) -> bool {
    double lo = INFINITY, hi = -INFINITY;
    SmallVector<double, 3> p(xs.size());
    for (unsigned m = 0; m < (1u << xs.size()); ++m) {
      for (unsigned k = 0; k < xs.size(); ++k)
        p[k] = (m >> k) & 1 ? xs[k].hi : xs[k].lo;
      double r = f(p);
      if (std::isnan(r))
        return why("an operation that may give NaN");
      lo = std::min(lo, r);
      hi = std::max(hi, r);
    }
    out = rangeVal(Range{lo, hi, ty->isFloatTy()});
    handled = true;
    return true;
  };
  if (!call) {
    if (auto *bo = dyn_cast<BinaryOperator>(&inst);
        bo && (ty->isFloatTy() || ty->isDoubleTy())) {
      std::optional<Range> a = operand(0), b = operand(1);
      if (!a || !b)
        return why("an operation with a NaN");
      bool f = ty->isFloatTy();
      unsigned opc = bo->getOpcode();
      if (opc == Instruction::FDiv && b->lo <= 0 && b->hi >= 0)
        return why("a division by a range that holds 0");
      if (opc != Instruction::FAdd && opc != Instruction::FSub &&
          opc != Instruction::FMul && opc != Instruction::FDiv)
        return why(Twine("'") + inst.getOpcodeName() + "'");
      return corners({*a, *b}, [&](ArrayRef<double> p) {
        return arith(opc, f, p[0], p[1]);
      });
    }
    if (isa<UnaryOperator>(inst) && inst.getOpcode() == Instruction::FNeg) {
      std::optional<Range> a = operand(0);
      out = rangeVal(Range{-a->hi, -a->lo, a->f32});
      handled = true;
      return true;
    }
    if (auto *cmp = dyn_cast<FCmpInst>(&inst)) {
      std::optional<Range> a = operand(0), b = operand(1);
      // Ranges hold no NaN: an ordered and an unordered predicate agree
      // unless an exact operand is NaN.
      if (!a || !b)
        return why("a comparison with a NaN");
      auto lt = [](Range x, Range y) -> std::optional<bool> {
        if (x.hi < y.lo)
          return true;
        if (x.lo >= y.hi)
          return false;
        return std::nullopt;
      };
      auto le = [](Range x, Range y) -> std::optional<bool> {
        if (x.hi <= y.lo)
          return true;
        if (x.lo > y.hi)
          return false;
        return std::nullopt;
      };
      auto eq = [](Range x, Range y) -> std::optional<bool> {
        if (x.hi < y.lo || y.hi < x.lo)
          return false;
        if (x.lo == x.hi && y.lo == y.hi)
          return true;
        return std::nullopt;
      };
      std::optional<bool> r;
      using P = CmpInst::Predicate;
      switch (cmp->getPredicate()) {
      case P::FCMP_OLT:
      case P::FCMP_ULT:
        r = lt(*a, *b);
        break;
      case P::FCMP_OLE:
      case P::FCMP_ULE:
        r = le(*a, *b);
        break;
      case P::FCMP_OGT:
      case P::FCMP_UGT:
        r = lt(*b, *a);
        break;
      case P::FCMP_OGE:
      case P::FCMP_UGE:
        r = le(*b, *a);
        break;
      case P::FCMP_OEQ:
      case P::FCMP_UEQ:
        r = eq(*a, *b);
        break;
      case P::FCMP_ONE:
      case P::FCMP_UNE:
        if ((r = eq(*a, *b)))
          r = !*r;
        break;
      case P::FCMP_ORD:
        r = true;
        break;
      case P::FCMP_UNO:
        r = false;
        break;
      case P::FCMP_TRUE:
        r = true;
        break;
      default:
        r = false;
        break;
      }
      if (!r)
        return why("a comparison its bounds do not decide");
      out = Val{*r ? 1u : 0u};
      handled = true;
      return true;
    }
    if (auto *cast = dyn_cast<CastInst>(&inst)) {
      std::optional<Range> a = operand(0);
      unsigned opc = cast->getOpcode();
      if (opc == Instruction::FPExt) {
        out = rangeVal(Range{a->lo, a->hi, false});
        handled = true;
        return true;
      }
      if (opc == Instruction::FPTrunc) {
        out = rangeVal(Range{(double)(float)a->lo, (double)(float)a->hi, true});
        handled = true;
        return true;
      }
      if (opc == Instruction::FPToSI || opc == Instruction::FPToUI) {
        // Exact where both ends convert to one integer.
        Type *from = cast->getSrcTy();
        Val lo, hi;
        bool f32 = from->isFloatTy();
        if (!convert(opc, from, ty, Val{floatBits(a->lo, f32)}, lo) ||
            !convert(opc, from, ty, Val{floatBits(a->hi, f32)}, hi))
          return false;
        if (lo.bits != hi.bits)
          return why("a conversion to an integer its bounds do not decide");
        out = lo;
        handled = true;
        return true;
      }
    }
    return why(Twine("'") + inst.getOpcodeName() + "'");
  }
  // Calls: approximate operations of a range, LLVM's exact monotone math,
  // and calls whose bodies run (the range is their argument).
  if (!approxCall(t, *call, out, handled))
    return false;
  if (handled)
    return true;
  const Function *callee = call->getCalledFunction();
  if (callee && !callee->isDeclaration() && !callee->isIntrinsic())
    return true;
  if (callee && (ty->isFloatTy() || ty->isDoubleTy())) {
    StringRef name = exactNvvmName(callee->getName());
    bool f = ty->isFloatTy();
    SmallVector<Range, 3> xs;
    for (const Use &a : call->args()) {
      std::optional<Range> r = rangeOf(t, get(t, a.get()), a->getType());
      if (!r)
        return why("a math function with a NaN");
      xs.push_back(*r);
    }
    auto rounded = [f](double r) { return f ? (double)(float)r : r; };
    if ((name.starts_with("llvm.fma.") || name.starts_with("llvm.fmuladd.")) &&
        xs.size() == 3)
      return corners(xs, [&](ArrayRef<double> p) {
        return f ? (double)std::fmaf((float)p[0], (float)p[1], (float)p[2])
                 : std::fma(p[0], p[1], p[2]);
      });
    if (xs.size() == 1 && name.starts_with("llvm.fabs.")) {
      Range a = xs[0];
      double m = std::max(std::fabs(a.lo), std::fabs(a.hi));
      double l = a.lo <= 0 && a.hi >= 0
                     ? 0
                     : std::min(std::fabs(a.lo), std::fabs(a.hi));
      out = rangeVal(Range{l, m, f});
      handled = true;
      return true;
    }
    auto monotone1 = [&](double (*g)(double)) {
      return corners(xs, [&](ArrayRef<double> p) { return rounded(g(p[0])); });
    };
    if (xs.size() == 1) {
      if (name.starts_with("llvm.floor."))
        return monotone1([](double x) { return std::floor(x); });
      if (name.starts_with("llvm.ceil."))
        return monotone1([](double x) { return std::ceil(x); });
      if (name.starts_with("llvm.trunc."))
        return monotone1([](double x) { return std::trunc(x); });
      if (name.starts_with("llvm.rint.") ||
          name.starts_with("llvm.nearbyint.") ||
          name.starts_with("llvm.roundeven."))
        return monotone1([](double x) { return std::nearbyint(x); });
      if (name.starts_with("llvm.round."))
        return monotone1([](double x) { return std::round(x); });
      if (name.starts_with("llvm.sqrt.") && xs[0].lo >= 0)
        return corners(xs, [&](ArrayRef<double> p) {
          return f ? (double)std::sqrt((float)p[0]) : std::sqrt(p[0]);
        });
      if (name == "llvm.nvvm.saturate.f" || name == "llvm.nvvm.saturate.d")
        return monotone1([](double x) { return std::clamp(x, 0.0, 1.0); });
    }
    if (xs.size() == 2 &&
        (name.starts_with("llvm.minnum.") || name.starts_with("llvm.minimum.")))
      return corners(xs,
                     [](ArrayRef<double> p) { return std::min(p[0], p[1]); });
    if (xs.size() == 2 &&
        (name.starts_with("llvm.maxnum.") || name.starts_with("llvm.maximum.")))
      return corners(xs,
                     [](ArrayRef<double> p) { return std::max(p[0], p[1]); });
    if (xs.size() == 2 && (name == "fadd" || name == "fmul"))
      return corners(xs, [&](ArrayRef<double> p) {
        return arith(name == "fadd" ? Instruction::FAdd : Instruction::FMul, f,
                     p[0], p[1]);
      });
  }
  // Warp shuffles move a lane's value to another.
  if (callee && isShuffleSyncIntrinsic(callee->getIntrinsicID()))
    return true;
  return why(
      "'" + (callee ? callee->getName() : StringRef("an indirect call")) + "'");
}

bool IRRunner::loadRange(Val p, uint64_t n, Type *ty, Val &out, bool &found) {
  found = false;
  if (!approxSeen || p.obj < 0)
    return true;
  Obj &o = objs[p.obj];
  int64_t off = (int64_t)p.bits;
  bool whole = (ty->isFloatTy() && n == 4) || (ty->isDoubleTy() && n == 8);
  if (o.sparse) {
    int64_t first = floorDiv(off, o.elem), last = floorDiv(off + n - 1, o.elem);
    for (int64_t e = first; e <= last; ++e) {
      auto it = o.cells.find(e);
      if (it == o.cells.end() || it->second.range < 0)
        continue;
      found = true;
      // Read as what it is, or as bytes the run does not know.
      out = whole && n == o.elem && off == e * (int64_t)o.elem
                ? Val{(uint64_t)it->second.range, Val::Approx}
                : opaque();
    }
    return true;
  }
  for (auto it = o.ptrs.lower_bound(off - 7);
       it != o.ptrs.end() && it->first < off + (int64_t)n; ++it) {
    if (it->second.obj != Val::Approx)
      continue;
    found = true;
    bool f32 = ranges[it->second.bits].f32;
    out = whole && it->first == off && f32 == ty->isFloatTy() ? it->second
                                                              : opaque();
  }
  return true;
}

bool IRRunner::cellMayHold(const Obj::Cell &c, unsigned elem, Range r) {
  Range held;
  if (c.range >= 0) {
    held = ranges[c.range];
  } else {
    double x = floatValue(c.v, elem == 4);
    held = Range{x, x, elem == 4};
  }
  return !(held.hi < r.lo || r.hi < held.lo);
}

bool IRRunner::storeRange(Val p, uint64_t n, Val v) {
  if (p.obj < 0)
    return fail("store through a non-pointer");
  Obj &o = objs[p.obj];
  const Range &r = ranges[v.bits];
  // The cell's bits: the middle of the range (what a report shows).
  double mid = r.lo / 2 + r.hi / 2;
  uint64_t bits = floatBits(mid, r.f32);
  int64_t off = (int64_t)p.bits;
  if (o.readOnly)
    return fail("store to a constant");
  if (o.sparse) {
    if (off % (int64_t)o.elem || n != o.elem)
      return fail("an approximate result stored to part of a cell");
    int64_t e = off / (int64_t)o.elem;
    Obj::Cell &c = o.cells[e];
    // Two writes are "the same value" to the race check where they may be
    // (a GPU computes one approximation of one operand alike): no race is
    // shown, and the run is not known to be free of one.
    bool same = c.written && c.range >= 0 && ranges[c.range].key == r.key;
    bool maybeSame = same || (c.written && cellMayHold(c, o.elem, r));
    if (maybeSame && !same)
      notClean("two writes of a cell, one approximate, that may be equal",
               /*race=*/true);
    access(o, e, c, /*write=*/true, maybeSame);
    c.v = bits;
    c.written = true;
    c.range = (int32_t)v.bits;
    return true;
  }
  uint8_t b[8];
  for (uint64_t i = 0; i < n; ++i)
    b[i] = (bits >> (8 * i)) & 0xff;
  if (!writeBytes(p, n, b))
    return false;
  o.ptrs[off] = v;
  return true;
}

} // namespace irexec
} // namespace kv
