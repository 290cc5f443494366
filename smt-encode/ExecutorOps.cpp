//===- ExecutorOps.cpp - what each instruction of the executor does -------===//
//
// The interpreter proper: one instruction for the current thread (exec), with
// SMT-LIB's bit-vector semantics for division and shifts, and the kv.apply
// operations it computes natively (IEEE float arithmetic on bit patterns;
// the rest of nativeApply in NativeApply.cpp) or through ExecInputs::apply.
//
//===----------------------------------------------------------------------===//
#include "kv/Budget.h"
#include "smt-encode/ExecutorInternal.h"

#include "llvm/ADT/APFloat.h"
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
