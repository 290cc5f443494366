//===- ExecutorOps.cpp - what each instruction of the executor does -------===//
//
// The interpreter proper: one instruction for the current thread (exec), with
// SMT-LIB's bit-vector semantics for division and shifts, and the kv.apply
// operations it computes natively (IEEE float arithmetic on bit patterns) or
// through ExecInputs::apply.
//
//===----------------------------------------------------------------------===//
#include "smt-encode/ExecutorInternal.h"

#include "llvm/ADT/bit.h"

#include <cmath>
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
APInt floatOp(const Instr &in, const APInt &a, const APInt *b) {
  constexpr unsigned w = sizeof(U) * 8;
  if (in.floatFn == FloatFn::Neg)
    // LLVM's fneg flips the sign bit only, NaN payload included.
    return a ^ APInt::getSignMask(w);
  T x = llvm::bit_cast<T>(static_cast<U>(a.getZExtValue()));
  T y = llvm::bit_cast<T>(static_cast<U>(b->getZExtValue()));
  T r = 0;
  switch (in.floatFn) {
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
    return APInt(1, fcmp(in.fpred, x, y));
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

} // namespace

bool Executor::apply(const Instr &i) {
  if (i.floatFn != FloatFn::None) {
    const APInt &a = slots[i.ops[0]];
    const APInt *b = i.ops.size() > 1 ? &slots[i.ops[1]] : nullptr;
    slots[i.result] = i.floatWidth == 32 ? floatOp<float, uint32_t>(i, a, b)
                                         : floatOp<double, uint64_t>(i, a, b);
    return true;
  }
  llvm::StringRef fn = cast<ApplyOp>(i.op).getFn();
  if (in.apply) {
    llvm::SmallVector<APInt, 4> args;
    for (unsigned s : i.ops)
      args.push_back(slots[s]);
    if (std::optional<APInt> r = in.apply(fn, args, i.width)) {
      if (r->getBitWidth() != i.width)
        return fail("result of '" + fn + "' has " +
                    llvm::Twine(r->getBitWidth()) + " bits, expected " +
                    llvm::Twine(i.width));
      slots[i.result] = std::move(*r);
      return true;
    }
  }
  return fail("cannot replay uninterpreted operation '" + fn + "'");
}

bool Executor::exec(const Instr &i) {
  if (maxSteps && !stepsLeft--)
    return outOfWork();
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
    if (arg(2).isZero())
      return true;
    uint64_t index;
    if (!arrayIndex(arg(0), index))
      return false;
    pending.push_back({i.argNo, i.shared, index, arg(1)});
    return true;
  }
  case Kind::Assume:
    if (arg(0).isZero())
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
