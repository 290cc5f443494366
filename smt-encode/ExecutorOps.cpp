//===- ExecutorOps.cpp - what each instruction of the executor does -------===//
//
// The interpreter proper: one instruction for the current thread (exec), with
// SMT-LIB's bit-vector semantics for division and shifts, and the kv.apply
// operations it computes natively (IEEE float arithmetic on bit patterns) or
// through ExecInputs::apply.
//
//===----------------------------------------------------------------------===//
#include "kv/Budget.h"
#include "smt-encode/ExecutorInternal.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/APSInt.h"
#include "llvm/ADT/bit.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>

using namespace mlir;
using llvm::APInt;

namespace kv::executor {

namespace {

// SMT-LIB bit-vector division and remainder, total at a zero divisor.
APInt bvudiv(const APInt &a, const APInt &b) {
  if (b.isZero())
    return APInt::getAllOnes(a.getBitWidth());
  return a.udiv(b);
}

APInt bvurem(const APInt &a, const APInt &b) {
  if (b.isZero())
    return a;
  return a.urem(b);
}

APInt bvsdiv(const APInt &a, const APInt &b) {
  bool ns = a.isNegative(), nt = b.isNegative();
  if (!ns && !nt)
    return bvudiv(a, b);
  if (ns && !nt)
    return -bvudiv(-a, b);
  if (!ns && nt)
    return -bvudiv(a, -b);
  return bvudiv(-a, -b);
}

APInt bvsrem(const APInt &a, const APInt &b) {
  bool ns = a.isNegative(), nt = b.isNegative();
  if (!ns && !nt)
    return bvurem(a, b);
  if (ns && !nt)
    return -bvurem(-a, b);
  if (!ns && nt)
    return bvurem(a, -b);
  return -bvurem(-a, -b);
}

template <typename T> bool fcmp(FPred p, T x, T y) {
  // C++ comparisons with a NaN are false (except !=), as the ordered
  // predicates require.
  bool uno = std::isnan(x) || std::isnan(y);
  switch (p) {
  case FPred::False:
    return false;
  case FPred::OEQ:
    return !uno && x == y;
  case FPred::OGT:
    return !uno && x > y;
  case FPred::OGE:
    return !uno && x >= y;
  case FPred::OLT:
    return !uno && x < y;
  case FPred::OLE:
    return !uno && x <= y;
  case FPred::ONE:
    return !uno && x != y;
  case FPred::ORD:
    return !uno;
  case FPred::UNO:
    return uno;
  case FPred::UEQ:
    return uno || x == y;
  case FPred::UGT:
    return uno || x > y;
  case FPred::UGE:
    return uno || x >= y;
  case FPred::ULT:
    return uno || x < y;
  case FPred::ULE:
    return uno || x <= y;
  case FPred::UNE:
    return uno || x != y;
  case FPred::True:
    return true;
  }
  return false;
}

/// IEEE arithmetic on bit patterns: T is float or double, U the unsigned
/// integer of the same size.
template <typename T, typename U>
APInt floatOp(FloatFn fn, FPred pred, const APInt &a, const APInt *b) {
  constexpr unsigned w = sizeof(U) * 8;
  if (fn == FloatFn::Neg)
    // LLVM's fneg flips the sign bit only, NaN payload included.
    return a ^ APInt::getSignMask(w);
  T x = llvm::bit_cast<T>(static_cast<U>(a.getZExtValue()));
  T y = llvm::bit_cast<T>(static_cast<U>(b->getZExtValue()));
  T r = 0;
  switch (fn) {
  case FloatFn::Add:
    r = x + y;
    break;
  case FloatFn::Sub:
    r = x - y;
    break;
  case FloatFn::Mul:
    r = x * y;
    break;
  case FloatFn::Div:
    r = x / y;
    break;
  case FloatFn::Cmp:
    return APInt(1, fcmp(pred, x, y));
  case FloatFn::Neg:
  case FloatFn::None:
    break;
  }
  // As the GPU computes it: a NaN result is the canonical NaN, whatever
  // the operands' payloads (the host would pass one on, and then x + y
  // and y + x could differ in their bits).
  if (r != r)
    return APInt::getSignedMaxValue(w);
  return APInt(w, llvm::bit_cast<U>(r));
}

/// A float or double from its bit pattern, by the width of the pattern.
std::optional<double> toHost(llvm::StringRef type, const APInt &v) {
  if (type == "float" && v.getBitWidth() == 32)
    return llvm::bit_cast<float>((uint32_t)v.getZExtValue());
  if (type == "double" && v.getBitWidth() == 64)
    return llvm::bit_cast<double>(v.getZExtValue());
  return std::nullopt;
}

/// The pattern of \p x as \p type (a float is rounded to nearest, as the
/// GPU's .rn conversions do); NaN is the canonical NaN.
std::optional<APInt> fromHost(llvm::StringRef type, double x) {
  if (type == "float") {
    if (x != x)
      return APInt::getSignedMaxValue(32);
    return APInt(32, llvm::bit_cast<uint32_t>((float)x));
  }
  if (type == "double") {
    if (x != x)
      return APInt::getSignedMaxValue(64);
    return APInt(64, llvm::bit_cast<uint64_t>(x));
  }
  return std::nullopt;
}

/// The IEEE format of a type name: float or double.
const llvm::fltSemantics *semanticsOf(llvm::StringRef type) {
  if (type == "float")
    return &llvm::APFloat::IEEEsingle();
  if (type == "double")
    return &llvm::APFloat::IEEEdouble();
  return nullptr;
}

/// Integer widths in type names: i1 .. i64.
std::optional<unsigned> intWidth(llvm::StringRef type) {
  unsigned w;
  if (!type.consume_front("i") || type.getAsInteger(10, w) || !w || w > 64)
    return std::nullopt;
  return w;
}

/// Integer \p a as a float of \p to, rounded once in mode \p rm (through
/// a host double, a 64-bit value would be rounded twice).
APInt intToFloat(const APInt &a, bool isSigned, const llvm::fltSemantics &to,
                 llvm::APFloat::roundingMode rm) {
  llvm::APFloat f(to);
  f.convertFromAPInt(a, isSigned, rm);
  return f.bitcastToAPInt();
}

/// \p x rounded in mode \p rm to an integer of \p width, and whether it was
/// NaN or out of range (then the value is saturated, NaN giving 0).
std::pair<APInt, bool> floatToInt(const llvm::APFloat &x, unsigned width,
                                  bool isUnsigned,
                                  llvm::APFloat::roundingMode rm) {
  llvm::APSInt r(width, isUnsigned);
  bool exact;
  bool invalid =
      x.convertToInteger(r, rm, &exact) == llvm::APFloat::opInvalidOp;
  return {APInt(r), invalid};
}

/// PTX's cvt between integers and floats, as llvm.nvvm.<from>2<to>.<mode>
/// [.ftz] (from, to: f d i ui ll ull; mode: rn rz rm rp), and d2i.hi/lo
/// (the halves of a double's pattern). Float to integer clamps to the
/// integer's range, NaN giving 0; .ftz flushes a subnormal operand to zero.
std::optional<APInt> nvvmConversion(llvm::StringRef name, const APInt &a,
                                    unsigned width) {
  auto [from, rest] = name.split('2');
  llvm::SmallVector<llvm::StringRef, 3> part;
  rest.split(part, '.');
  if (part.size() < 2)
    return std::nullopt;
  llvm::StringRef to = part[0], mode = part[1];
  bool ftz = part.size() > 2 && part[2] == "ftz";
  auto isFloat = [](llvm::StringRef t) { return t == "f" || t == "d"; };
  auto intBits = [](llvm::StringRef t) -> unsigned {
    return t == "i" || t == "ui" ? 32 : t == "ll" || t == "ull" ? 64 : 0;
  };
  if (from == "d" && to == "i" && (mode == "hi" || mode == "lo")) {
    if (a.getBitWidth() != 64 || width != 32)
      return std::nullopt;
    return mode == "hi" ? a.lshr(32).trunc(32) : a.trunc(32);
  }
  llvm::APFloat::roundingMode rm;
  if (mode == "rn")
    rm = llvm::APFloat::rmNearestTiesToEven;
  else if (mode == "rz")
    rm = llvm::APFloat::rmTowardZero;
  else if (mode == "rm")
    rm = llvm::APFloat::rmTowardNegative;
  else if (mode == "rp")
    rm = llvm::APFloat::rmTowardPositive;
  else
    return std::nullopt;
  const llvm::fltSemantics &single = llvm::APFloat::IEEEsingle();
  const llvm::fltSemantics &dbl = llvm::APFloat::IEEEdouble();
  if (isFloat(from) && intBits(to)) {
    unsigned fw = from == "f" ? 32 : 64;
    if (a.getBitWidth() != fw || width != intBits(to))
      return std::nullopt;
    llvm::APFloat x(fw == 32 ? single : dbl, a);
    if (ftz && x.isDenormal())
      x = llvm::APFloat::getZero(x.getSemantics(), x.isNegative());
    // Saturated out of range and NaN giving 0, as cvt does.
    return floatToInt(x, width, to.starts_with("u"), rm).first;
  }
  if (intBits(from) && isFloat(to)) {
    if (a.getBitWidth() != intBits(from) || width != (to == "f" ? 32u : 64u))
      return std::nullopt;
    return intToFloat(a, !from.starts_with("u"), to == "f" ? single : dbl, rm);
  }
  return std::nullopt;
}

} // namespace

uint64_t floatArith(unsigned opcode, uint64_t a, uint64_t b, unsigned width) {
  FloatFn fn = opcode == llvm::Instruction::FAdd   ? FloatFn::Add
               : opcode == llvm::Instruction::FSub ? FloatFn::Sub
               : opcode == llvm::Instruction::FMul ? FloatFn::Mul
                                                   : FloatFn::Div;
  APInt x(width, a), y(width, b);
  return (width == 32 ? floatOp<float, uint32_t>(fn, FPred::False, x, &y)
                      : floatOp<double, uint64_t>(fn, FPred::False, x, &y))
      .getZExtValue();
}

bool floatCompare(llvm::CmpInst::Predicate pred, uint64_t a, uint64_t b,
                  unsigned width) {
  // FPred numbers the predicates as LLVM does.
  auto p = static_cast<FPred>(pred - llvm::CmpInst::FCMP_FALSE);
  if (width == 32)
    return fcmp(p, llvm::bit_cast<float>((uint32_t)a),
                llvm::bit_cast<float>((uint32_t)b));
  return fcmp(p, llvm::bit_cast<double>(a), llvm::bit_cast<double>(b));
}

bool sameOutput(const APInt &a, const APInt &b, bool floats) {
  if (a.getBitWidth() == b.getBitWidth() && a == b)
    return true;
  if (!floats || a.getBitWidth() != b.getBitWidth())
    return false;
  unsigned w = a.getBitWidth();
  if (w != 32 && w != 64)
    return false;
  auto isNaN = [&](const APInt &x) {
    return APFloat(w == 32 ? APFloat::IEEEsingle() : APFloat::IEEEdouble(), x)
        .isNaN();
  };
  return isNaN(a) && isNaN(b);
}

bool certainlyDiffer(const ExecResult &ra, const ExecResult &rb, unsigned arg,
                     uint64_t idx, const APInt &a, const APInt &b,
                     bool floats) {
  if (sameOutput(a, b, floats))
    return false;
  auto rangeOf =
      [&](const ExecResult &r,
          const APInt &v) -> std::optional<std::pair<double, double>> {
    if (auto in = r.ranges.find(arg); in != r.ranges.end())
      if (auto it = in->second.find(idx); it != in->second.end())
        return it->second;
    unsigned w = v.getBitWidth();
    if (w != 32 && w != 64)
      return std::nullopt;
    double x = w == 32
                   ? (double)llvm::bit_cast<float>((uint32_t)v.getZExtValue())
                   : llvm::bit_cast<double>(v.getZExtValue());
    return std::make_pair(x, x);
  };
  bool ranged = (ra.ranges.count(arg) && ra.ranges.at(arg).count(idx)) ||
                (rb.ranges.count(arg) && rb.ranges.at(arg).count(idx));
  if (!ranged)
    return true;
  std::optional<std::pair<double, double>> x = rangeOf(ra, a),
                                           y = rangeOf(rb, b);
  if (!x || !y)
    return false;
  // A NaN against a range (which holds none) differs; ranges differ where
  // they are disjoint (0 and -0 overlap).
  if (std::isnan(x->first) || std::isnan(y->first))
    return true;
  return x->second < y->first || y->second < x->first;
}

APInt pseudoRandomCell(unsigned width, unsigned arg, uint64_t idx,
                       unsigned seed, bool floats) {
  uint64_t h = (idx * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)arg << 40) ^
               (seed * 0xbf58476d1ce4e5b9ull);
  h ^= h >> 31;
  h *= 0x94d049bb133111ebull;
  h ^= h >> 29;
  uint64_t sign = (h >> 63) & 1, exp = 119 + (h >> 40) % 21;
  if (floats && width == 32)
    return APInt(32, (sign << 31) | (exp << 23) | (h & 0x7fffff));
  if (floats && width == 64)
    return APInt(64, (sign << 63) | ((exp - 127 + 1023) << 52) |
                         ((h & 0xfffffffffffull) << 8));
  return APInt(width, (int64_t)(h % 2001) - 1000, /*isSigned=*/true);
}

/// libdevice's integer functions (the lowering models them the same way).
static std::optional<APInt> libdeviceInteger(llvm::StringRef name,
                                             llvm::ArrayRef<APInt> a,
                                             unsigned width) {
  auto sized = [&](APInt r) -> std::optional<APInt> {
    return r.getBitWidth() == width ? std::optional(r)
                                    : std::optional(r.zextOrTrunc(width));
  };
  if (a.size() == 2 && a[0].getBitWidth() == a[1].getBitWidth()) {
    if (name == "min" || name == "llmin")
      return sized(llvm::APIntOps::smin(a[0], a[1]));
    if (name == "max" || name == "llmax")
      return sized(llvm::APIntOps::smax(a[0], a[1]));
    if (name == "umin" || name == "ullmin")
      return sized(llvm::APIntOps::umin(a[0], a[1]));
    if (name == "umax" || name == "ullmax")
      return sized(llvm::APIntOps::umax(a[0], a[1]));
    if (name == "mul24" || name == "umul24") {
      // The low bits of the product of the low 24 bits of each operand.
      unsigned w = a[0].getBitWidth();
      auto low24 = [&](const APInt &v) {
        APInt t = v.trunc(std::min(w, 24u));
        return name == "mul24" ? t.sext(w) : t.zext(w);
      };
      return sized(low24(a[0]) * low24(a[1]));
    }
    if (name == "hadd" || name == "uhadd" || name == "rhadd" ||
        name == "urhadd") {
      bool sgn = name == "hadd" || name == "rhadd";
      APInt x = a[0] ^ a[1];
      APInt half = sgn ? x.ashr(1) : x.lshr(1);
      return sized(name.contains("rhadd") ? (a[0] | a[1]) - half
                                          : (a[0] & a[1]) + half);
    }
    if (name == "mulhi" || name == "mul64hi")
      return sized(llvm::APIntOps::mulhs(a[0], a[1]));
    if (name == "umulhi" || name == "umul64hi")
      return sized(llvm::APIntOps::mulhu(a[0], a[1]));
    return std::nullopt;
  }
  if (a.size() == 3 && (name == "sad" || name == "usad") &&
      a[0].getBitWidth() == a[1].getBitWidth() &&
      a[1].getBitWidth() == a[2].getBitWidth()) {
    bool gt = name == "sad" ? a[0].sgt(a[1]) : a[0].ugt(a[1]);
    return sized((gt ? a[0] - a[1] : a[1] - a[0]) + a[2]);
  }
  if (a.size() == 3 && (name == "prmt" || name == "byte_perm") &&
      llvm::all_of(a, [](const APInt &v) { return v.getBitWidth() == 32; })) {
    // PTX prmt.b32, default mode; __byte_perm keeps 3 bits per selector.
    uint64_t both = (a[1].getZExtValue() << 32) | a[0].getZExtValue();
    uint64_t sel = a[2].getZExtValue() & (name == "byte_perm" ? 0x7777 : ~0u);
    uint64_t r = 0;
    for (unsigned n = 0; n < 4; ++n) {
      uint64_t nib = (sel >> (4 * n)) & 0xf;
      uint64_t byte = (both >> (8 * (nib & 7))) & 0xff;
      if (nib & 8)
        byte = (byte & 0x80) ? 0xff : 0;
      r |= byte << (8 * n);
    }
    return sized(APInt(32, r));
  }
  if (a.size() != 1)
    return std::nullopt;
  const APInt &x = a[0];
  if (name == "abs" || name == "llabs")
    return sized(x.abs());
  if (name == "popc" || name == "popcll")
    return APInt(width, x.popcount());
  if (name == "clz" || name == "clzll")
    return APInt(width, x.countl_zero());
  if (name == "brev" || name == "brevll")
    return sized(x.reverseBits());
  if (name == "ffs" || name == "ffsll")
    return APInt(width, x.isZero() ? 0 : x.countr_zero() + 1);
  return std::nullopt;
}

std::optional<APInt> nativeApply(llvm::StringRef fn, llvm::ArrayRef<APInt> args,
                                 unsigned width, std::string &why) {
  // The after kernel's undefined values run as the IR replay runs them.
  if (fn.starts_with("undef#"))
    return APInt(width, 0);
  // Conversions, named by the lowering "<cast>.<from>.<to>": exact on the
  // host where the result is representable, rounded to nearest otherwise,
  // as PTX's cvt.rn (int to float) and cvt.rzi (float to int) do.
  llvm::SmallVector<llvm::StringRef, 3> part;
  fn.split(part, '.');
  if (part.size() == 3 && args.size() == 1) {
    llvm::StringRef op = part[0], from = part[1], to = part[2];
    const APInt &a = args[0];
    const llvm::fltSemantics *fromF = semanticsOf(from), *toF = semanticsOf(to);
    std::optional<unsigned> fromI = intWidth(from), toI = intWidth(to);
    if ((op == "sitofp" || op == "uitofp") && fromI && toF &&
        a.getBitWidth() == *fromI &&
        llvm::APFloat::getSizeInBits(*toF) == width)
      return intToFloat(a, op == "sitofp", *toF,
                        llvm::APFloat::rmNearestTiesToEven);
    if ((op == "fptosi" || op == "fptoui") && fromF && toI && *toI == width &&
        a.getBitWidth() == llvm::APFloat::getSizeInBits(*fromF)) {
      auto [r, invalid] =
          floatToInt(llvm::APFloat(*fromF, a), width, op == "fptoui",
                     llvm::APFloat::rmTowardZero);
      if (invalid) {
        why = "'" + fn.str() +
              "' of a value out of the integer's range "
              "(poison)";
        return std::nullopt;
      }
      return r;
    }
    if (op == "fpext" || op == "fptrunc") {
      std::optional<double> x = toHost(from, a);
      if (!x)
        return std::nullopt;
      std::optional<APInt> r = fromHost(to, *x);
      return r && r->getBitWidth() == width ? r : std::nullopt;
    }
  }
  // cvt.sat: clamped to [0, 1], a NaN to 0 (libdevice's expf).
  if ((fn == "llvm.nvvm.saturate.f" || fn == "llvm.nvvm.saturate.d") &&
      args.size() == 1) {
    llvm::StringRef type = fn.ends_with(".f") ? "float" : "double";
    std::optional<double> x = toHost(type, args[0]);
    if (!x)
      return std::nullopt;
    return fromHost(type, std::isnan(*x) ? 0.0 : std::clamp(*x, 0.0, 1.0));
  }
  // PTX's IEEE-rounded arithmetic, subnormals kept (not .ftz): the host's.
  if (fn.starts_with("llvm.nvvm.") && fn.contains(".rn.") &&
      !fn.contains(".ftz")) {
    llvm::StringRef op = fn.drop_front(strlen("llvm.nvvm.")).split('.').first;
    llvm::StringRef ty = fn.ends_with(".f")   ? "f32"
                         : fn.ends_with(".d") ? "f64"
                                              : "";
    if (!ty.empty() && op == "fma" && args.size() == 3)
      return nativeApply(("llvm.fma." + ty).str(), args, width, why);
    llvm::StringRef type = ty == "f32" ? "float" : "double";
    if (!ty.empty() && (op == "add" || op == "mul") && args.size() == 2) {
      std::optional<double> x = toHost(type, args[0]),
                            y = toHost(type, args[1]);
      if (!x || !y)
        return std::nullopt;
      if (ty == "f32")
        return fromHost(type, op == "add" ? (float)*x + (float)*y
                                          : (float)*x * (float)*y);
      return fromHost(type, op == "add" ? *x + *y : *x * *y);
    }
  }
  // The directed roundings (libdevice's expf rounds its reduction down):
  // APFloat's, exact in every mode.
  if (fn.starts_with("llvm.nvvm.") && !fn.contains(".ftz") &&
      (fn.ends_with(".f") || fn.ends_with(".d"))) {
    llvm::SmallVector<llvm::StringRef, 4> part;
    fn.drop_front(strlen("llvm.nvvm.")).split(part, '.');
    std::optional<llvm::RoundingMode> rm;
    if (part.size() == 3)
      rm = llvm::StringSwitch<std::optional<llvm::RoundingMode>>(part[1])
               .Case("rz", llvm::RoundingMode::TowardZero)
               .Case("rm", llvm::RoundingMode::TowardNegative)
               .Case("rp", llvm::RoundingMode::TowardPositive)
               .Default(std::nullopt);
    unsigned n = llvm::StringSwitch<unsigned>(part.empty() ? "" : part[0])
                     .Case("fma", 3)
                     .Cases({"add", "mul", "div"}, 2)
                     .Default(0);
    const llvm::fltSemantics &sem = fn.ends_with(".f")
                                        ? llvm::APFloat::IEEEsingle()
                                        : llvm::APFloat::IEEEdouble();
    if (rm && n && args.size() == n &&
        llvm::all_of(args,
                     [&](const APInt &a) {
                       return a.getBitWidth() ==
                              llvm::APFloat::getSizeInBits(sem);
                     }) &&
        width == llvm::APFloat::getSizeInBits(sem)) {
      llvm::APFloat r(sem, args[0]);
      llvm::APFloat y(sem, args[1]);
      if (part[0] == "fma")
        r.fusedMultiplyAdd(y, llvm::APFloat(sem, args[2]), *rm);
      else if (part[0] == "add")
        r.add(y, *rm);
      else if (part[0] == "mul")
        r.multiply(y, *rm);
      else
        r.divide(y, *rm);
      if (r.isNaN())
        return APInt::getSignedMaxValue(width);
      return r.bitcastToAPInt();
    }
  }
  if (fn.starts_with("llvm.nvvm.") && args.size() == 1)
    return nvvmConversion(fn.drop_front(strlen("llvm.nvvm.")), args[0], width);
  // Math intrinsics with IEEE-exact results (llvm.<name>.f32 / .f64); the
  // approximate ones (sin, exp, ...) are the GPU's own and not computed.
  if (fn.consume_front("llvm.")) {
    auto [name, ty] = fn.rsplit('.');
    llvm::StringRef type = ty == "f32" ? "float" : ty == "f64" ? "double" : "";
    llvm::SmallVector<double, 3> x;
    for (const APInt &a : args) {
      std::optional<double> v = toHost(type, a);
      if (!v)
        return std::nullopt;
      x.push_back(*v);
    }
    auto result = [&](double r) { return fromHost(type, r); };
    auto single = [&](double r) -> std::optional<APInt> {
      // Rounded once, in the operation's own precision.
      return type == "float" ? fromHost(type, (float)r) : fromHost(type, r);
    };
    // fabs and copysign touch the sign bit only, NaN payloads included.
    APInt sign = APInt::getSignMask(args.empty() ? 1 : args[0].getBitWidth());
    if (x.size() == 1) {
      if (name == "fabs")
        return args[0] & ~sign;
      if (name == "sqrt")
        return type == "float" ? result(std::sqrt((float)x[0]))
                               : result(std::sqrt(x[0]));
      if (name == "floor")
        return result(std::floor(x[0]));
      if (name == "ceil")
        return result(std::ceil(x[0]));
      if (name == "trunc")
        return result(std::trunc(x[0]));
      if (name == "round")
        return result(std::round(x[0]));
      if (name == "rint" || name == "nearbyint" || name == "roundeven")
        return result(std::nearbyint(x[0]));
    }
    if (x.size() == 2) {
      if (name == "copysign")
        return (args[0] & ~sign) | (args[1] & sign);
      // minnum/maxnum: the other operand where one is NaN; a zero of
      // either sign where both are zeros.
      if (name == "minnum")
        return result(std::fmin(x[0], x[1]));
      if (name == "maxnum")
        return result(std::fmax(x[0], x[1]));
    }
    if (x.size() == 3 && (name == "fma" || name == "fmuladd"))
      // fmuladd may be fused or not; the NVPTX backend fuses it.
      return type == "float"
                 ? single(std::fma((float)x[0], (float)x[1], (float)x[2]))
                 : result(std::fma(x[0], x[1], x[2]));
    return std::nullopt;
  }
  if (fn.starts_with("__nv_"))
    return libdeviceInteger(fn.drop_front(strlen("__nv_")), args, width);
  if (fn == "frem" && args.size() == 2 && args[0].getBitWidth() == width) {
    llvm::StringRef type = width == 32 ? "float" : width == 64 ? "double" : "";
    std::optional<double> x = toHost(type, args[0]), y = toHost(type, args[1]);
    if (!x || !y)
      return std::nullopt;
    // fmod is exact: no rounding, whatever the precision.
    return fromHost(type, std::fmod(*x, *y));
  }
  return std::nullopt;
}

bool Executor::apply(const Instr &i) {
  if (i.floatFn != FloatFn::None) {
    const APInt &a = slots[i.ops[0]];
    const APInt *b = i.ops.size() > 1 ? &slots[i.ops[1]] : nullptr;
    slots[i.result] = i.floatWidth == 32
                          ? floatOp<float, uint32_t>(i.floatFn, i.fpred, a, b)
                          : floatOp<double, uint64_t>(i.floatFn, i.fpred, a, b);
    return true;
  }
  llvm::StringRef fn = cast<ApplyOp>(i.op).getFn();
  llvm::SmallVector<APInt, 4> args;
  for (unsigned s : i.ops)
    args.push_back(slots[s]);
  std::string why;
  if (std::optional<APInt> r = nativeApply(fn, args, i.width, why)) {
    slots[i.result] = std::move(*r);
    return true;
  }
  if (!why.empty())
    return fail("cannot replay " + why);
  if (in.apply) {
    if (std::optional<APInt> r = in.apply(fn, args, i.width)) {
      if (r->getBitWidth() != i.width)
        return fail("result of '" + fn + "' has " +
                    llvm::Twine(r->getBitWidth()) + " bits, expected " +
                    llvm::Twine(i.width));
      slots[i.result] = std::move(*r);
      return true;
    }
  }
  // Inline assembly by its instruction, not its whole text and
  // constraints.
  if (llvm::StringRef text = fn; text.consume_front("asm:"))
    return fail("cannot replay inline assembly '" +
                text.ltrim().take_until(
                    [](char c) { return c == ' ' || c == '\t' || c == ';'; }) +
                "'");
  return fail("cannot replay uninterpreted operation '" + fn + "'");
}

bool Executor::exec(const Instr &i) {
  if (maxSteps && !stepsLeft--)
    return outOfWork();
  // The kernel's budget, every thousand instructions: a run of a long
  // unrolled model must not outlast it.
  static thread_local unsigned tick = 0;
  if (!(++tick & 1023) && budget::exceeded())
    return fail(budget::shortReason());
  auto arg = [&](unsigned n) -> const APInt & { return slots[i.ops[n]]; };
  auto set = [&](APInt v) {
    slots[i.result] = std::move(v);
    return true;
  };
  switch (i.kind) {
  case Kind::SReg: {
    SReg reg = static_cast<SReg>(i.aux);
    unsigned dim = sregAxis(reg);
    uint64_t v = 0;
    switch (sregGroup(reg)) {
    case SRegGroup::Tid:
      v = tid[dim];
      break;
    case SRegGroup::Bid:
      v = bid[dim];
      break;
    case SRegGroup::BDim:
      v = cfg.block[dim];
      break;
    case SRegGroup::GDim:
      v = cfg.grid[dim];
      break;
    }
    return set(APInt(64, v).zextOrTrunc(i.width));
  }
  case Kind::Read: {
    uint64_t index;
    return arrayIndex(arg(0), index) && load(i, index, slots[i.result]);
  }
  case Kind::Write: {
    if (arg(2).isZero() || replaying)
      return true;
    uint64_t index;
    if (!arrayIndex(arg(0), index))
      return false;
    if (i.argNo == printArg) {
      uint64_t blockThreads = cfg.block[0] * cfg.block[1] * cfg.block[2];
      uint64_t block = bid[0] + cfg.grid[0] * (bid[1] + cfg.grid[1] * bid[2]);
      std::vector<uint64_t> &line = printed[{block * blockThreads + linearTid(),
                                             index / kPrintRecordCells}];
      line.resize(kPrintRecordCells, 0);
      line[index % kPrintRecordCells] = arg(1).getZExtValue();
      return true;
    }
    pending.push_back({i.argNo, i.shared, index, arg(1),
                       cast<WriteOp>(i.op).isAtomic() ? &i : nullptr});
    return true;
  }
  case Kind::Shuffle:
    return shuffle(i);
  case Kind::Ballot:
    return ballot(i);
  case Kind::Lane:
    return set(APInt(64, linearTid() & 31).zextOrTrunc(i.width));
  case Kind::Assume:
    if (arg(0).isZero() && !replaying)
      res.assumeViolated = true;
    return true;
  case Kind::Prove:
    // The checker proved it for every valid launch; failing here means the
    // launch is not one (an assumption fails later) or the model is wrong.
    if (arg(0).isZero())
      return fail("model condition '" + cast<ProveOp>(i.op).getWhat().str() +
                  "' fails at " + describe(i.op));
    return true;
  case Kind::Apply:
    return apply(i);
  case Kind::Iter:
    return fail("internal error: kv.iter outside runRange");
  case Kind::Sum:
    slots[i.result] += arg(0);
    return true;
  case Kind::Carry:
    // Its slot holds the running value: set by runLoop, then by its fold.
    return true;
  case Kind::Fold:
    // ops: the carry, the update, the loop's iteration.
    slots[i.ops[0]] = arg(1);
    slots[i.result] = arg(1);
    return true;
  case Kind::Break:
    // ops: the loop's iteration, the condition; runLoop stops after it.
    if (!arg(1).isZero())
      broke.insert(i.ops[0]);
    return true;
  case Kind::Last:
    // Each iteration's value: the last one stays.
    slots[i.result] = arg(0);
    return true;
  case Kind::NoWrap: {
    if (i.aux & 4)
      return set(APInt(1, 1));
    bool ov = false;
    switch (static_cast<NoWrapKind>(i.aux & 3)) {
    case NoWrapKind::add:
      (void)arg(0).sadd_ov(arg(1), ov);
      break;
    case NoWrapKind::sub:
      (void)arg(0).ssub_ov(arg(1), ov);
      break;
    case NoWrapKind::mul:
      (void)arg(0).smul_ov(arg(1), ov);
      break;
    }
    return set(APInt(1, ov ? 0 : 1));
  }
  case Kind::AddI:
    return set(arg(0) + arg(1));
  case Kind::SubI:
    return set(arg(0) - arg(1));
  case Kind::MulI:
    return set(arg(0) * arg(1));
  case Kind::DivUI:
    return set(bvudiv(arg(0), arg(1)));
  case Kind::DivSI:
    return set(bvsdiv(arg(0), arg(1)));
  case Kind::RemUI:
    return set(bvurem(arg(0), arg(1)));
  case Kind::RemSI:
    return set(bvsrem(arg(0), arg(1)));
  case Kind::AndI:
    return set(arg(0) & arg(1));
  case Kind::OrI:
    return set(arg(0) | arg(1));
  case Kind::XOrI:
    return set(arg(0) ^ arg(1));
  // Shift amounts of at least the width shift everything out, as in SMT-LIB.
  case Kind::ShLI:
    if (arg(1).uge(i.width))
      return set(APInt::getZero(i.width));
    return set(arg(0).shl(arg(1).getZExtValue()));
  case Kind::ShRUI:
    if (arg(1).uge(i.width))
      return set(APInt::getZero(i.width));
    return set(arg(0).lshr(arg(1).getZExtValue()));
  case Kind::ShRSI:
    if (arg(1).uge(i.width))
      return set(arg(0).isNegative() ? APInt::getAllOnes(i.width)
                                     : APInt::getZero(i.width));
    return set(arg(0).ashr(arg(1).getZExtValue()));
  case Kind::CmpI: {
    const APInt &a = arg(0), &b = arg(1);
    bool r = false;
    switch (static_cast<arith::CmpIPredicate>(i.aux)) {
    case arith::CmpIPredicate::eq:
      r = a == b;
      break;
    case arith::CmpIPredicate::ne:
      r = a != b;
      break;
    case arith::CmpIPredicate::slt:
      r = a.slt(b);
      break;
    case arith::CmpIPredicate::sle:
      r = a.sle(b);
      break;
    case arith::CmpIPredicate::sgt:
      r = a.sgt(b);
      break;
    case arith::CmpIPredicate::sge:
      r = a.sge(b);
      break;
    case arith::CmpIPredicate::ult:
      r = a.ult(b);
      break;
    case arith::CmpIPredicate::ule:
      r = a.ule(b);
      break;
    case arith::CmpIPredicate::ugt:
      r = a.ugt(b);
      break;
    case arith::CmpIPredicate::uge:
      r = a.uge(b);
      break;
    }
    return set(APInt(1, r));
  }
  case Kind::Select:
    slots[i.result] = arg(0).isZero() ? arg(2) : arg(1);
    return true;
  // Casts go between model widths, which may be equal (identity) even when
  // the types differ.
  case Kind::ExtUI:
  case Kind::TruncI:
    return set(arg(0).zextOrTrunc(i.width));
  case Kind::ExtSI:
    return set(arg(0).sextOrTrunc(i.width));
  case Kind::MaxSI:
    return set(llvm::APIntOps::smax(arg(0), arg(1)));
  case Kind::MinSI:
    return set(llvm::APIntOps::smin(arg(0), arg(1)));
  case Kind::MaxUI:
    return set(llvm::APIntOps::umax(arg(0), arg(1)));
  case Kind::MinUI:
    return set(llvm::APIntOps::umin(arg(0), arg(1)));
  }
  return fail("internal error: unknown instruction kind");
}

} // namespace kv::executor
