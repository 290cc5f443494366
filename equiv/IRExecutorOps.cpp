//===- IRExecutorOps.cpp - the IR interpreter's operations ----------------===//
//
// Integer and float arithmetic, conversions, calls of math functions the
// executors compute alike (executor::nativeApply), address arithmetic and
// constant expressions, for the LLVM IR interpreter (IRExecutor.cpp).
//
//===----------------------------------------------------------------------===//
#include "equiv/IRExecutorInternal.h"

#include "llvm/IR/GetElementPtrTypeIterator.h"

namespace kv {
namespace irexec {

//===----------------------------------------------------------------------===//
// Operations
//===----------------------------------------------------------------------===//

bool IRRunner::binary(unsigned opc, Type *ty, Val a, Val b, Val &out) {
  if (ty->isFloatTy() || ty->isDoubleTy()) {
    bool f = ty->isFloatTy();
    if (opc == Instruction::FRem) {
      std::string why;
      unsigned w = f ? 32 : 64;
      std::optional<APInt> r = executor::nativeApply(
          "frem", {APInt(w, a.bits), APInt(w, b.bits)}, w, why);
      if (!r)
        return fail("frem");
      out = Val{r->getZExtValue()};
      return true;
    }
    out = Val{executor::floatArith(opc, a.bits, b.bits, f ? 32 : 64)};
    return true;
  }
  if (!ty->isIntegerTy() || ty->getIntegerBitWidth() > 64)
    return fail("operation on type '" + typeName(ty) + "'");
  unsigned w = ty->getIntegerBitWidth();
  uint64_t m = maskOf(w), x = a.bits & m, y = b.bits & m;
  APInt ax(w, x), ay(w, y);
  uint64_t r = 0;
  switch (opc) {
  case Instruction::Add:
    r = x + y;
    break;
  case Instruction::Sub:
    r = x - y;
    break;
  case Instruction::Mul:
    r = x * y;
    break;
  case Instruction::And:
    r = x & y;
    break;
  case Instruction::Or:
    r = x | y;
    break;
  case Instruction::Xor:
    r = x ^ y;
    break;
  // Division by zero and over-wide shifts: SMT-LIB's results, as the kv
  // executor computes them (LLVM leaves them undefined).
  case Instruction::UDiv:
    r = y ? x / y : m;
    break;
  case Instruction::URem:
    r = y ? x % y : x;
    break;
  case Instruction::SDiv:
    r = y ? ax.sdiv(ay).getZExtValue() : (ax.isNegative() ? 1 : m);
    break;
  case Instruction::SRem:
    r = y ? ax.srem(ay).getZExtValue() : x;
    break;
  case Instruction::Shl:
    r = y >= w ? 0 : ax.shl((unsigned)y).getZExtValue();
    break;
  case Instruction::LShr:
    r = y >= w ? 0 : ax.lshr((unsigned)y).getZExtValue();
    break;
  case Instruction::AShr:
    r = ax.ashr(y >= w ? w - 1 : (unsigned)y).getZExtValue();
    break;
  default:
    return fail(Twine("instruction '") + Instruction::getOpcodeName(opc) + "'");
  }
  out = Val{r & m};
  return true;
}

bool IRRunner::convert(unsigned opc, Type *from, Type *to, Val a, Val &out) {
  switch (opc) {
  case Instruction::Trunc:
    out = Val{a.bits & maskOf(to->getIntegerBitWidth())};
    return true;
  case Instruction::ZExt:
    out = Val{a.bits};
    return true;
  case Instruction::SExt: {
    unsigned fw = from->getIntegerBitWidth(), tw = to->getIntegerBitWidth();
    out = Val{APInt(fw, a.bits).sext(tw).getZExtValue()};
    return true;
  }
  case Instruction::BitCast:
  case Instruction::AddrSpaceCast:
    if (from->isPointerTy() != to->isPointerTy())
      return fail("bitcast between a pointer and a number");
    out = a;
    return true;
  case Instruction::SIToFP:
  case Instruction::UIToFP:
  case Instruction::FPToSI:
  case Instruction::FPToUI:
  case Instruction::FPExt:
  case Instruction::FPTrunc: {
    std::string fn = (Twine(Instruction::getOpcodeName(opc)) + "." +
                      typeName(from) + "." + typeName(to))
                         .str();
    return apply(fn, {a}, {from}, to, out);
  }
  default:
    return fail(Twine("cast '") + Instruction::getOpcodeName(opc) + "'");
  }
}

bool IRRunner::apply(StringRef fn, ArrayRef<Val> args, ArrayRef<Type *> types,
                     Type *ret, Val &out) {
  SmallVector<APInt, 3> ops;
  for (unsigned i = 0; i < args.size(); ++i) {
    if (!types[i]->isIntegerTy() && !types[i]->isFloatTy() &&
        !types[i]->isDoubleTy())
      return fail("cannot run '" + fn + "'");
    ops.push_back(APInt(types[i]->getPrimitiveSizeInBits(), args[i].bits));
  }
  // Exact PTX operations under LLVM's names (llvm.nvvm.fabs.f32 is
  // llvm.fabs.f32), as the lowering names them.
  if (StringRef exact = exactNvvmName(fn);
      fn.starts_with("llvm.nvvm.") && exact.starts_with("llvm."))
    fn = exact;
  std::string why;
  std::optional<APInt> r =
      executor::nativeApply(fn, ops, ret->getPrimitiveSizeInBits(), why);
  if (!r)
    return fail("cannot run '" + fn + "'" + (why.empty() ? "" : ": " + why));
  out = Val{r->getZExtValue()};
  return true;
}

bool IRRunner::gep(ThreadState &t, const GEPOperator &g, Val &out) {
  Val base = get(t, g.getPointerOperand());
  if (failed)
    return false;
  int64_t off = 0;
  for (gep_type_iterator it = gep_type_begin(&g), e = gep_type_end(&g); it != e;
       ++it) {
    Val idx = get(t, it.getOperand());
    unsigned w = it.getOperand()->getType()->getIntegerBitWidth();
    int64_t i = APInt(w, idx.bits).getSExtValue();
    if (StructType *st = it.getStructTypeOrNull())
      off += dl.getStructLayout(st)->getElementOffset((unsigned)i);
    else
      off += i * (int64_t)it.getSequentialElementStride(dl).getFixedValue();
  }
  if (!base.isPtr())
    return fail("getelementptr on a non-pointer");
  out = Val{base.bits + (uint64_t)off, base.obj};
  return true;
}

/// An instruction or constant expression computing a value from operands.
bool IRRunner::evalOp(ThreadState &t, const Operator &op, Val &out) {
  unsigned opc = op.getOpcode();
  if (auto *g = dyn_cast<GEPOperator>(&op))
    return gep(t, *g, out);
  if (Instruction::isBinaryOp(opc)) {
    Val a = get(t, op.getOperand(0)), b = get(t, op.getOperand(1));
    if (failed || !binary(opc, op.getType(), a, b, out))
      return false;
    auto *ob = dyn_cast<OverflowingBinaryOperator>(&op);
    if (in.noSignedOverflow && ob && ob->hasNoSignedWrap() &&
        op.getType()->isIntegerTy() &&
        (opc == Instruction::Add || opc == Instruction::Sub ||
         opc == Instruction::Mul)) {
      unsigned w = op.getType()->getIntegerBitWidth();
      APInt x(w, a.bits & maskOf(w)), y(w, b.bits & maskOf(w));
      bool ov = false;
      (void)(opc == Instruction::Add   ? x.sadd_ov(y, ov)
             : opc == Instruction::Sub ? x.ssub_ov(y, ov)
                                       : x.smul_ov(y, ov));
      if (ov)
        assumeViolated = true;
    }
    return true;
  }
  if (Instruction::isCast(opc)) {
    Val a = get(t, op.getOperand(0));
    return !failed &&
           convert(opc, op.getOperand(0)->getType(), op.getType(), a, out);
  }
  return fail(Twine("instruction '") + Instruction::getOpcodeName(opc) + "'");
}

} // namespace irexec
} // namespace kv
