//===- LowerFloats.cpp - float operations, libdevice, inline PTX ---------===//
//
// Float operations as kv.apply terms in the form -O2 gives them; libdevice's
// straight-line bodies followed as -O2 inlines them (with the CUDA SDK);
// NVVMReflect's answers; inline PTX instructions that are functions of
// their operands.
//
//===----------------------------------------------------------------------===//

#include "passes/lower/Lowerer.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
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

Value Lowerer::floatOp(llvm::StringRef fn, llvm::ArrayRef<Value> ops,
                       Type result) {
  unsigned w = result.getIntOrFloatBitWidth();
  const llvm::fltSemantics *sem = w == 32   ? &llvm::APFloat::IEEEsingle()
                                  : w == 64 ? &llvm::APFloat::IEEEdouble()
                                            : nullptr;
  llvm::SmallVector<llvm::APFloat, 3> x;
  for (Value v : ops) {
    llvm::APInt c;
    if (!sem || !matchPattern(v, m_ConstantInt(&c)) || c.getBitWidth() != w)
      break;
    x.push_back(llvm::APFloat(*sem, c));
  }
  if (sem && !ops.empty() && x.size() == ops.size()) {
    std::optional<llvm::APFloat> r;
    auto rm = llvm::APFloat::rmNearestTiesToEven;
    if (fn == "fneg" && x.size() == 1)
      r = -x[0];
    else if (x.size() == 2 &&
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
    }
    // A NaN's payload is the GPU's choice, not APFloat's; a subnormal
    // depends on the kernel's denormal mode.
    bool subnormal = r && r->isDenormal();
    for (const llvm::APFloat &a : x)
      subnormal |= a.isDenormal();
    if (r && !r->isNaN() && !subnormal)
      return cst(result, r->bitcastToAPInt().getSExtValue());
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
