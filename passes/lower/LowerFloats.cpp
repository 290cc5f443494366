//===- LowerFloats.cpp - float operations, libdevice, inline PTX ---------===//
//
// Float operations as kv.apply terms in the form -O2 gives them; libdevice's
// straight-line bodies followed as -O2 inlines them (with the CUDA SDK);
// NVVMReflect's answers; inline PTX instructions that are functions of
// their operands.
//
//===----------------------------------------------------------------------===//

#include "passes/lower/Lowerer.h"

#include "llvm/ADT/FloatingPointMode.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Module.h"

namespace kv {

// Approximations, and the _ftz forms, keep their names.
llvm::StringRef exactNvvmName(llvm::StringRef name) {
  static const llvm::StringMap<llvm::StringRef> exact = {
      {"llvm.nvvm.fma.rn.f", "llvm.fma.f32"},
      {"llvm.nvvm.fma.rn.d", "llvm.fma.f64"},
      {"llvm.nvvm.fmin.f", "llvm.minnum.f32"},
      {"llvm.nvvm.fmin.d", "llvm.minnum.f64"},
      {"llvm.nvvm.fmax.f", "llvm.maxnum.f32"},
      {"llvm.nvvm.fmax.d", "llvm.maxnum.f64"},
      {"llvm.nvvm.fabs.f32", "llvm.fabs.f32"},
      {"llvm.nvvm.fabs.f64", "llvm.fabs.f64"},
      {"llvm.nvvm.floor.f", "llvm.floor.f32"},
      {"llvm.nvvm.floor.d", "llvm.floor.f64"},
      {"llvm.nvvm.ceil.f", "llvm.ceil.f32"},
      {"llvm.nvvm.ceil.d", "llvm.ceil.f64"},
      {"llvm.nvvm.trunc.f", "llvm.trunc.f32"},
      {"llvm.nvvm.trunc.d", "llvm.trunc.f64"},
      {"llvm.nvvm.sqrt.rn.f", "llvm.sqrt.f32"},
      {"llvm.nvvm.sqrt.rn.d", "llvm.sqrt.f64"},
      {"llvm.nvvm.add.rn.f", "fadd"},
      {"llvm.nvvm.add.rn.d", "fadd"},
      {"llvm.nvvm.mul.rn.f", "fmul"},
      {"llvm.nvvm.mul.rn.d", "fmul"},
      {"llvm.nvvm.div.rn.f", "fdiv"},
      {"llvm.nvvm.div.rn.d", "fdiv"}};
  auto it = exact.find(name);
  return it == exact.end() ? name : it->second;
}

bool isTextureFetchAsm(const llvm::CallBase &call) {
  const auto *asmOp = llvm::dyn_cast<llvm::InlineAsm>(call.getCalledOperand());
  if (!asmOp || asmOp->hasSideEffects() || !call.doesNotAccessMemory() ||
      asmOp->getConstraintString().contains("memory") ||
      asmOp->getConstraintString().contains('*'))
    return false;
  llvm::StringRef text = asmOp->getAsmString().trim();
  if (!(text.starts_with("tex.") || text.starts_with("tld4.")) ||
      text.contains("%%") || text.rtrim(';').contains(';'))
    return false;
  auto scalar = [](llvm::Type *t) {
    return t->isIntegerTy() || t->isFloatingPointTy();
  };
  auto *st = llvm::dyn_cast<llvm::StructType>(call.getType());
  if (st ? !llvm::all_of(st->elements(), scalar) : !scalar(call.getType()))
    return false;
  return llvm::all_of(call.args(),
                      [&](const llvm::Use &a) { return scalar(a->getType()); });
}

namespace lowering {

bool Lowerer::pureInlineAsm(const llvm::CallBase &call) {
  const auto *asmOp = dyn_cast<llvm::InlineAsm>(call.getCalledOperand());
  if (!asmOp || asmOp->hasSideEffects() || call.arg_size() == 0 ||
      !(call.getType()->isIntegerTy() || call.getType()->isFloatingPointTy()))
    return false;
  // One arithmetic instruction, no special register (%%laneid, %%clock:
  // not functions of the operands), no memory: its operands are values. A
  // shuffle or a vote reads other lanes' values, a load memory: neither is
  // in the list.
  llvm::StringRef text = asmOp->getAsmString().trim();
  if (text.contains("%%") || text.contains('[') || text.contains('@') ||
      text.rtrim(';').contains(';') ||
      asmOp->getConstraintString().contains("memory") ||
      asmOp->getConstraintString().contains('*'))
    return false;
  llvm::StringRef opcode =
      text.take_until([](char c) { return c == '.' || c == ' ' || c == '\t'; });
  static const llvm::StringSet<> arithmetic = {
      "add",   "sub",  "mul",  "mad",  "fma",   "div",      "rem",
      "abs",   "neg",  "min",  "max",  "rcp",   "sqrt",     "rsqrt",
      "sin",   "cos",  "lg2",  "ex2",  "tanh",  "cvt",      "set",
      "setp",  "selp", "slct", "and",  "or",    "xor",      "not",
      "cnot",  "shl",  "shr",  "bfe",  "bfi",   "brev",     "clz",
      "popc",  "prmt", "lop3", "shf",  "testp", "copysign", "mad24",
      "mul24", "sad",  "dp4a", "dp2a", "bmsk",  "szext",    "fns"};
  if (!arithmetic.contains(opcode))
    return false;
  return llvm::all_of(call.args(), [](const llvm::Use &a) {
    return a->getType()->isIntegerTy() || a->getType()->isFloatingPointTy();
  });
}

bool Lowerer::followLibdevice(const llvm::Function &fn) {
  auto [it, fresh] = libdeviceFollowed.try_emplace(&fn, false);
  if (!fresh)
    return it->second;
  if (fn.isDeclaration() || !loops(fn).empty())
    return false;
  for (const llvm::Instruction &inst : llvm::instructions(fn)) {
    if (isa<llvm::AllocaInst, llvm::LoadInst, llvm::StoreInst,
            llvm::AtomicRMWInst, llvm::AtomicCmpXchgInst, llvm::FenceInst>(
            inst))
      return false;
    if (auto *c = dyn_cast<llvm::CallBase>(&inst)) {
      if (c->isInlineAsm() && (pureInlineAsm(*c) || isWideMadInlinePtx(*c)))
        continue;
      const llvm::Function *g = c->getCalledFunction();
      if (!g || c->isInlineAsm())
        return false;
      if (g->isIntrinsic() || g->getName() == "__nvvm_reflect")
        continue;
      if (!g->getName().starts_with("__nv_") || !followLibdevice(*g))
        return false;
    }
  }
  return libdeviceFollowed[&fn] = true;
}

} // namespace lowering

std::string floatCompareName(const llvm::FCmpInst &cmp) {
  llvm::StringRef pred = llvm::CmpInst::getPredicateName(cmp.getPredicate());
  llvm::Type *t = cmp.getOperand(0)->getType()->getScalarType();
  const llvm::Function *fn = cmp.getFunction();
  bool ftz = fn && t->isFloatingPointTy() &&
             fn->getDenormalMode(t->getFltSemantics()).Input !=
                 llvm::DenormalMode::IEEE;
  return ((ftz ? "fcmp.ftz." : "fcmp.") + pred).str();
}

int64_t nvvmReflect(llvm::StringRef what, const llvm::Function &fn) {
  // As LLVM's NVVMReflect pass: module flags, the target's SM version, 0
  // for anything else.
  auto flag = [&](llvm::StringRef name) -> int64_t {
    if (auto *c = llvm::mdconst::extract_or_null<llvm::ConstantInt>(
            fn.getParent()->getModuleFlag(name)))
      return c->getSExtValue();
    return 0;
  };
  if (what == "__CUDA_FTZ")
    return flag("nvvm-reflect-ftz");
  if (what == "__CUDA_PREC_SQRT")
    return flag("nvvm-reflect-prec-sqrt");
  if (what == "__CUDA_ARCH") {
    llvm::StringRef cpu = fn.getFnAttribute("target-cpu").getValueAsString();
    unsigned sm = 0;
    if (cpu.consume_front("sm_") &&
        !cpu.take_while(llvm::isDigit).getAsInteger(10, sm))
      return sm * 10;
  }
  return 0;
}

namespace lowering {

/// \p fn on float constants \p x, as the GPU computes it, where that is
/// exact and does not depend on the kernel's modes: none for a NaN result
/// (its payload is the GPU's choice, not APFloat's) or a subnormal operand
/// or result (the denormal mode decides).
static std::optional<llvm::APInt> foldFloat(llvm::StringRef fn,
                                            llvm::ArrayRef<llvm::APFloat> x) {
  for (const llvm::APFloat &a : x)
    if (a.isDenormal())
      return std::nullopt;
  auto rm = llvm::APFloat::rmNearestTiesToEven;
  if (fn.consume_front("fcmp.") && x.size() == 2) {
    fn.consume_front("ftz.");
    llvm::APFloat::cmpResult c = x[0].compare(x[1]);
    bool lt = c == llvm::APFloat::cmpLessThan,
         gt = c == llvm::APFloat::cmpGreaterThan,
         eq = c == llvm::APFloat::cmpEqual,
         un = c == llvm::APFloat::cmpUnordered;
    std::optional<bool> r = llvm::StringSwitch<std::optional<bool>>(fn)
                                .Case("false", false)
                                .Case("oeq", eq)
                                .Case("ogt", gt)
                                .Case("oge", gt || eq)
                                .Case("olt", lt)
                                .Case("ole", lt || eq)
                                .Case("one", lt || gt)
                                .Case("ord", !un)
                                .Case("ueq", un || eq)
                                .Case("ugt", un || gt)
                                .Case("uge", un || gt || eq)
                                .Case("ult", un || lt)
                                .Case("ule", un || lt || eq)
                                .Case("une", !eq)
                                .Case("uno", un)
                                .Case("true", true)
                                .Default(std::nullopt);
    if (!r)
      return std::nullopt;
    return llvm::APInt(1, *r);
  }
  std::optional<llvm::APFloat> r;
  if (fn == "fneg" && x.size() == 1) {
    r = -x[0];
  } else if (x.size() == 2 &&
             (fn == "fadd" || fn == "fsub" || fn == "fmul" || fn == "fdiv")) {
    r = x[0];
    if (fn == "fadd")
      r->add(x[1], rm);
    else if (fn == "fsub")
      r->subtract(x[1], rm);
    else if (fn == "fmul")
      r->multiply(x[1], rm);
    else
      r->divide(x[1], rm);
  } else if (x.size() == 3 && fn.starts_with("llvm.fma.f")) {
    r = x[0];
    r->fusedMultiplyAdd(x[1], x[2], rm);
  } else if (x.size() == 1 && fn.consume_front("llvm.")) {
    // The exact one-operand intrinsics (libdevice's powf tests its
    // exponent with trunc, floor and fabs: a constant exponent folds).
    std::optional<llvm::RoundingMode> mode =
        llvm::StringSwitch<std::optional<llvm::RoundingMode>>(
            fn.take_until([](char c) { return c == '.'; }))
            .Case("trunc", llvm::RoundingMode::TowardZero)
            .Case("floor", llvm::RoundingMode::TowardNegative)
            .Case("ceil", llvm::RoundingMode::TowardPositive)
            .Case("round", llvm::RoundingMode::NearestTiesToAway)
            .Case("roundeven", llvm::RoundingMode::NearestTiesToEven)
            .Case("rint", llvm::RoundingMode::NearestTiesToEven)
            .Case("nearbyint", llvm::RoundingMode::NearestTiesToEven)
            .Default(std::nullopt);
    r = x[0];
    if (mode)
      r->roundToIntegral(*mode);
    else if (fn.starts_with("fabs."))
      r->clearSign();
    else
      r.reset();
  } else if (x.size() == 2 && fn.consume_front("llvm.")) {
    // min/max of two zeros may give either sign: not folded.
    if (fn.starts_with("copysign.")) {
      r = x[0];
      r->copySign(x[1]);
    } else if (!(x[0].isZero() && x[1].isZero()) &&
               (fn.starts_with("minnum.") || fn.starts_with("maxnum."))) {
      r = fn.starts_with("minnum.") ? llvm::minnum(x[0], x[1])
                                    : llvm::maxnum(x[0], x[1]);
    }
  }
  if (!r || r->isNaN() || r->isDenormal())
    return std::nullopt;
  return r->bitcastToAPInt();
}

Value Lowerer::floatOp(llvm::StringRef fn, llvm::ArrayRef<Value> ops,
                       Type result) {
  unsigned w = result.getIntOrFloatBitWidth();
  // The operands' width: a comparison's result is an i1.
  unsigned ow = ops.empty() ? 0 : ops[0].getType().getIntOrFloatBitWidth();
  const llvm::fltSemantics *sem = w == 32   ? &llvm::APFloat::IEEEsingle()
                                  : w == 64 ? &llvm::APFloat::IEEEdouble()
                                            : nullptr;
  const llvm::fltSemantics *osem = ow == 32   ? &llvm::APFloat::IEEEsingle()
                                   : ow == 64 ? &llvm::APFloat::IEEEdouble()
                                              : nullptr;
  bool cmp = fn.starts_with("fcmp.") && w == 1;
  llvm::SmallVector<llvm::APFloat, 3> x;
  for (Value v : ops) {
    llvm::APInt c;
    if (!osem || (!sem && !cmp) || !matchPattern(v, m_ConstantInt(&c)) ||
        c.getBitWidth() != ow)
      break;
    x.push_back(llvm::APFloat(*osem, c));
  }
  if (!ops.empty() && x.size() == ops.size() && (cmp || ow == w))
    if (std::optional<llvm::APInt> r = foldFloat(fn, x))
      return cst(result, cmp ? (int64_t)r->getZExtValue() : r->getSExtValue());
  // |x| clears the sign bit (LLVM defines it so, even for a NaN): as an
  // integer mask it is the term -O2's `bitcast(x) & 0x7fffffff` is.
  if ((fn == "llvm.fabs.f32" || fn == "llvm.fabs.f64") && ops.size() == 1 &&
      ow == w)
    return b.createOrFold<arith::AndIOp>(
        loc, ops[0],
        cst(result, (int64_t)llvm::APInt::getSignedMaxValue(w).getZExtValue()));
  // An operation of constants and one select with a constant arm is the
  // select of the operation on each arm, one of them folded: -O2 folds
  // `0.30103 * (p ? -inf : y)` (log10f's body) into `p ? -inf : 0.30103 * y`,
  // which uninterpreted operations would not see as equal.
  if ((sem || cmp) && osem && ops.size() <= 3) {
    for (size_t i = 0; i < ops.size(); ++i) {
      auto sel = ops[i].getDefiningOp<arith::SelectOp>();
      if (!sel)
        continue;
      // The operation on the select's constant arm, folded; the other arm
      // built only then.
      auto onArm = [&](Value arm) {
        llvm::SmallVector<llvm::APFloat, 3> cs;
        for (size_t j = 0; j < ops.size(); ++j) {
          llvm::APInt c;
          if (!matchPattern(j == i ? arm : ops[j], m_ConstantInt(&c)) ||
              c.getBitWidth() != ow)
            return std::optional<llvm::APInt>();
          cs.push_back(llvm::APFloat(*osem, c));
        }
        return foldFloat(fn, cs);
      };
      std::optional<llvm::APInt> t = onArm(sel.getTrueValue());
      std::optional<llvm::APInt> e =
          t ? std::nullopt : onArm(sel.getFalseValue());
      if (!t && !e)
        break;
      llvm::SmallVector<Value, 3> other(ops.begin(), ops.end());
      other[i] = t ? sel.getFalseValue() : sel.getTrueValue();
      auto folded = [&](const llvm::APInt &c) {
        return cst(result, cmp ? (int64_t)c.getZExtValue() : c.getSExtValue());
      };
      Value rest = floatOp(fn, other, result);
      return t ? select(sel.getCondition(), folded(*t), rest)
               : select(sel.getCondition(), rest, folded(*e));
    }
  }
  // The forms -O2 gives a subtraction, as one term: `x - c` is `x + -c`
  // bit for bit; `-0.0 - x` is `-x` but for a NaN's payload, which LLVM
  // leaves unspecified (as the model does).
  if (sem && fn == "fsub" && ops.size() == 2) {
    llvm::APInt c;
    if (matchPattern(ops[1], m_ConstantInt(&c)) && c.getBitWidth() == w &&
        !llvm::APFloat(*sem, c).isNaN())
      return floatOp(
          "fadd",
          {ops[0],
           cst(result,
               (-llvm::APFloat(*sem, c)).bitcastToAPInt().getSExtValue())},
          result);
    if (matchPattern(ops[0], m_ConstantInt(&c)) && c.getBitWidth() == w &&
        llvm::APFloat(*sem, c).isNegZero())
      return floatOp("fneg", {ops[1]}, result);
  }
  // A negated factor times a constant is the factor times the negated
  // constant, exactly (IEEE rounding is symmetric): -O2 folds the negation
  // so.
  bool product = fn == "fmul" || fn.starts_with("llvm.fma.f");
  if (sem && product && ops.size() >= 2) {
    for (int i = 0; i < 2; ++i) {
      auto neg = ops[i].getDefiningOp<ApplyOp>();
      llvm::APInt c;
      if (!neg || neg.getFn() != "fneg" ||
          !matchPattern(ops[1 - i], m_ConstantInt(&c)) ||
          c.getBitWidth() != w || llvm::APFloat(*sem, c).isNaN())
        continue;
      llvm::SmallVector<Value, 3> folded(ops.begin(), ops.end());
      folded[i] = neg.getOperand(0);
      folded[1 - i] = cst(
          result, (-llvm::APFloat(*sem, c)).bitcastToAPInt().getSExtValue());
      return floatOp(fn, folded, result);
    }
  }
  // A fused product by 1 or -1 is exact: fma(a, 1, c) is a + c and
  // fma(a, -1, c) is c - a (one rounding either way), as -O2 folds them.
  if (sem && ops.size() == 3 && fn.starts_with("llvm.fma.f"))
    for (int i = 0; i < 2; ++i) {
      llvm::APInt c;
      if (!matchPattern(ops[i], m_ConstantInt(&c)) || c.getBitWidth() != w)
        continue;
      llvm::APFloat one(*sem, c);
      if (one.isExactlyValue(1.0))
        return floatOp("fadd", {ops[1 - i], ops[2]}, result);
      if (one.isExactlyValue(-1.0))
        return floatOp("fsub", {ops[2], ops[1 - i]}, result);
    }
  // A fused product commutes exactly: a constant factor second, as -O2
  // puts it.
  if (ops.size() == 3 && fn.starts_with("llvm.fma.f") &&
      matchPattern(ops[0], m_Constant()) && !matchPattern(ops[1], m_Constant()))
    return ApplyOp::create(b, loc, result, b.getStringAttr(fn),
                           ValueRange{ops[1], ops[0], ops[2]});
  return ApplyOp::create(b, loc, result, b.getStringAttr(fn), ops);
}

} // namespace lowering
} // namespace kv
