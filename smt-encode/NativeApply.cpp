//===- NativeApply.cpp - kv.apply operations computed on the host ---------===//
//
// executor::nativeApply: the conversions, IEEE-exact math intrinsics, PTX
// operations (cvt, directed roundings, saturation) and libdevice integer
// functions that both executors compute as the GPU does; approximate math
// is not among them (the IR runs bound it: equiv/IRExecutorApprox.cpp).
//
//===----------------------------------------------------------------------===//
#include "smt-encode/ExecutorInternal.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/APSInt.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/ADT/bit.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>

using llvm::APInt;

namespace kv::executor {

namespace {
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

} // namespace kv::executor
