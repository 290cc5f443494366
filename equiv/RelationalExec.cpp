//===- RelationalExec.cpp - an instruction's meaning in a step ---*- C++
//-*-===//
//
// What each instruction and call does to a step's values, memory and
// undefined behaviour, as the relational proof models it.
//
//===----------------------------------------------------------------------===//

#include "equiv/Intrinsics.h"
#include "equiv/RelationalStepper.h"
#include "passes/lower/LowerToKV.h"
#include "smt-encode/Encoder.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/IntrinsicsNVPTX.h"

using namespace llvm;

namespace kv::rel {

/// Float comparisons with swapped operands, as instcombine writes them, are
/// the same function of the operands in one order.
static std::pair<CmpInst::Predicate, bool> canonical(CmpInst::Predicate p) {
  switch (p) {
  case CmpInst::FCMP_OGT:
  case CmpInst::FCMP_OGE:
  case CmpInst::FCMP_UGT:
  case CmpInst::FCMP_UGE:
    return {CmpInst::getSwappedPredicate(p), true};
  default:
    return {p, false};
  }
}

bool Stepper::exec(Instruction &i) {
  current = &i;
  auto op = [&](unsigned n) { return get(i.getOperand(n)); };
  unsigned bits = bitsOf(i.getType(), dl);
  if (auto *bo = dyn_cast<BinaryOperator>(&i)) {
    std::optional<z3::expr> a = op(0), b = op(1);
    if (!a || !b)
      return false;
    if (i.getType()->isVectorTy())
      return fail("vector arithmetic at " + Side::where(i));
    unsigned w = a->get_sort().bv_size();
    z3::expr zero = ctx.bv_val(0, w);
    z3::expr r = *a;
    switch (bo->getOpcode()) {
    case Instruction::Add:
      r = *a + *b;
      if (bo->hasNoSignedWrap())
        flag(z3::sext(*a, 1) + z3::sext(*b, 1) != z3::sext(r, 1));
      if (bo->hasNoUnsignedWrap())
        flag(z3::zext(*a, 1) + z3::zext(*b, 1) != z3::zext(r, 1));
      break;
    case Instruction::Sub:
      r = *a - *b;
      if (bo->hasNoSignedWrap())
        flag(z3::sext(*a, 1) - z3::sext(*b, 1) != z3::sext(r, 1));
      if (bo->hasNoUnsignedWrap())
        flag(z3::ult(*a, *b));
      break;
    case Instruction::Mul:
      // Operands in a fixed order: -O2 writes n * t where the source has
      // t * n, and two multipliers with their operands swapped are one
      // the solver cannot match (it bit-blasts both).
      if (a->id() > b->id())
        std::swap(a, b);
      r = *a * *b;
      // (Overflow predicates: a product of twice the width is a multiplier
      // four times the size, bit-blasted in every query.)
      if (bo->hasNoSignedWrap())
        flag(!signedMulFits(*a, *b));
      if (bo->hasNoUnsignedWrap())
        flag(!z3::bvmul_no_overflow(*a, *b, false));
      break;
    case Instruction::UDiv:
      undefined(*b == zero);
      strict(bo->getOperand(1));
      r = z3::udiv(*a, *b);
      break;
    case Instruction::SDiv:
      undefined(*b == zero);
      strict(bo->getOperand(1));
      r = *a / *b;
      // INT_MIN / -1 overflows.
      undefined(*a == signBit(w) && *b == ctx.bv_val(-1, w));
      break;
    case Instruction::URem:
      undefined(*b == zero);
      strict(bo->getOperand(1));
      r = z3::urem(*a, *b);
      break;
    case Instruction::SRem:
      undefined(*b == zero);
      strict(bo->getOperand(1));
      r = z3::srem(*a, *b);
      break;
    case Instruction::Shl:
      flag(z3::uge(*b, ctx.bv_val(w, w)));
      r = z3::shl(*a, *b);
      if (bo->hasNoSignedWrap())
        flag(z3::ashr(r, *b) != *a);
      if (bo->hasNoUnsignedWrap())
        flag(z3::lshr(r, *b) != *a);
      break;
    case Instruction::LShr:
      flag(z3::uge(*b, ctx.bv_val(w, w)));
      r = z3::lshr(*a, *b);
      break;
    case Instruction::AShr:
      flag(z3::uge(*b, ctx.bv_val(w, w)));
      r = z3::ashr(*a, *b);
      break;
    case Instruction::And:
      r = *a & *b;
      break;
    case Instruction::Or:
      // Disjoint bits: the add it stands for (-O2 writes k + 1 of an even
      // k so), poison where a bit is common.
      if (llvm::cast<PossiblyDisjointInst>(bo)->isDisjoint()) {
        r = *a + *b;
        flag((*a & *b) != zero);
      } else {
        r = *a | *b;
      }
      break;
    case Instruction::Xor:
      r = *a ^ *b;
      break;
    case Instruction::FAdd:
    case Instruction::FMul: {
      // Commutative: instcombine orders the operands its own way, so the
      // function is applied to them in the order of their bits.
      z3::expr lo = z3::ite(z3::ule(*a, *b), *a, *b);
      z3::expr hi = z3::ite(z3::ule(*a, *b), *b, *a);
      r = sh.apply(bo->getOpcodeName(), {lo, hi}, w);
      break;
    }
    case Instruction::FSub:
    case Instruction::FDiv:
    case Instruction::FRem:
      r = sh.apply(bo->getOpcodeName(), {*a, *b}, w);
      break;
    default:
      return fail(std::string("'") + bo->getOpcodeName() + "' at " +
                  Side::where(i));
    }
    set(i, r);
    return true;
  }
  if (auto *cmp = dyn_cast<CmpInst>(&i)) {
    std::optional<z3::expr> a = op(0), b = op(1);
    if (!a || !b)
      return false;
    if (i.getType()->isVectorTy())
      return fail("a vector comparison at " + Side::where(i));
    if (isa<ICmpInst>(cmp) && compared.size() < 16) {
      compared.push_back(*a);
      compared.push_back(*b);
    }
    z3::expr r = ctx.bool_val(true);
    switch (cmp->getPredicate()) {
    case CmpInst::ICMP_EQ:
      r = *a == *b;
      break;
    case CmpInst::ICMP_NE:
      r = *a != *b;
      break;
    case CmpInst::ICMP_UGT:
      r = z3::ugt(*a, *b);
      break;
    case CmpInst::ICMP_UGE:
      r = z3::uge(*a, *b);
      break;
    case CmpInst::ICMP_ULT:
      r = z3::ult(*a, *b);
      break;
    case CmpInst::ICMP_ULE:
      r = z3::ule(*a, *b);
      break;
    case CmpInst::ICMP_SGT:
      r = *a > *b;
      break;
    case CmpInst::ICMP_SGE:
      r = *a >= *b;
      break;
    case CmpInst::ICMP_SLT:
      r = *a < *b;
      break;
    case CmpInst::ICMP_SLE:
      r = *a <= *b;
      break;
    case CmpInst::FCMP_FALSE:
      r = ctx.bool_val(false);
      break;
    case CmpInst::FCMP_TRUE:
      r = ctx.bool_val(true);
      break;
    default: {
      if (std::optional<z3::expr> c = exactFloatCompare(
              floatCompareName(*llvm::cast<FCmpInst>(cmp)), *a, *b)) {
        set(i, bit(*c)); // a Boolean; values here are bit-vectors
        return true;
      }
      auto [p, swap] = canonical(cmp->getPredicate());
      z3::expr x = swap ? *b : *a, y = swap ? *a : *b;
      std::string name = "fcmp." + CmpInst::getPredicateName(p).str();
      if (p == CmpInst::FCMP_OEQ || p == CmpInst::FCMP_UNE ||
          p == CmpInst::FCMP_ONE || p == CmpInst::FCMP_UEQ ||
          p == CmpInst::FCMP_ORD || p == CmpInst::FCMP_UNO) {
        z3::expr lo = z3::ite(z3::ule(x, y), x, y);
        y = z3::ite(z3::ule(x, y), y, x);
        x = lo;
      }
      set(i, sh.apply(name, {x, y}, 1));
      return true;
    }
    }
    set(i, bit(r));
    return true;
  }
  if (auto *ci = dyn_cast<CastInst>(&i)) {
    std::optional<z3::expr> a = op(0);
    if (!a)
      return false;
    std::optional<z3::expr> r =
        cast(ci->getOpcode(), ci->getOperand(0), *a, ci->getSrcTy(),
             ci->getDestTy(), ci->hasNonNeg());
    // A `zext nneg` (or `uitofp nneg`) of a negative value is poison.
    if (ci->hasNonNeg())
      flag(z3::slt(*a, ctx.bv_val(0, a->get_sort().bv_size())));
    if (!r)
      return fail(why + " at " + Side::where(i));
    set(i, *r);
    return true;
  }
  if (auto *g = dyn_cast<GetElementPtrInst>(&i)) {
    std::optional<z3::expr> r = gep(*llvm::cast<GEPOperator>(g));
    if (!r)
      return false;
    set(i, *r);
    return true;
  }
  if (auto *s = dyn_cast<SelectInst>(&i)) {
    std::optional<z3::expr> c = op(0), a = op(1), b = op(2);
    if (!c || !a || !b)
      return false;
    if (s->getCondition()->getType()->isVectorTy())
      return fail("a vector select at " + Side::where(i));
    set(i, z3::ite(isTrue(*c), *a, *b));
    return true;
  }
  if (isa<FreezeInst>(i)) {
    std::optional<z3::expr> a = op(0);
    if (!a)
      return false;
    // Freezing poison picks some value: the operand's, where it is not.
    z3::expr any = ctx.bv_const(("frozen" + std::to_string(sh.fresh++)).c_str(),
                                a->get_sort().bv_size());
    setRaw(i, z3::ite(P(i.getOperand(0)), any, *a), ctx.bool_val(false));
    return true;
  }
  if (auto *u = dyn_cast<UnaryOperator>(&i)) {
    std::optional<z3::expr> a = op(0);
    if (!a || u->getOpcode() != Instruction::FNeg || i.getType()->isVectorTy())
      return fail("'" + std::string(u->getOpcodeName()) + "' at " +
                  Side::where(i));
    unsigned w = a->get_sort().bv_size();
    set(i, *a ^ signBit(w));
    return true;
  }
  if (auto *l = dyn_cast<LoadInst>(&i)) {
    if (!l->isSimple() && l->isAtomic())
      return fail("an atomic load at " + Side::where(i));
    std::optional<z3::expr> a = op(0);
    if (!a)
      return false;
    strict(l->getPointerOperand());
    if (!bits)
      return fail("a load of a type the relational proof does not model at " +
                  Side::where(i));
    unsigned bytes = dl.getTypeStoreSize(l->getType()).getFixedValue();
    z3::expr v = load(*a, bytes);
    set(i, bits < 8 * bytes ? v.extract(bits - 1, 0) : v);
    return true;
  }
  if (auto *s = dyn_cast<StoreInst>(&i)) {
    if (s->isAtomic())
      return fail("an atomic store at " + Side::where(i));
    std::optional<z3::expr> v = op(0), a = op(1);
    if (!v || !a)
      return false;
    // Memory holds no poison here: a stored value must not be (stricter
    // than LLVM, which stores poison, never weaker).
    strict(s->getPointerOperand());
    strict(s->getValueOperand());
    Type *t = s->getValueOperand()->getType();
    unsigned vb = bitsOf(t, dl);
    if (!vb)
      return fail("a store of a type the relational proof does not model at " +
                  Side::where(i));
    unsigned bytes = dl.getTypeStoreSize(t).getFixedValue();
    z3::expr x = 8 * bytes > vb ? z3::zext(*v, 8 * bytes - vb) : *v;
    store(*a, x, bytes);
    return true;
  }
  if (auto *ee = dyn_cast<ExtractElementInst>(&i)) {
    std::optional<z3::expr> v = op(0);
    auto *idx = dyn_cast<ConstantInt>(ee->getIndexOperand());
    if (!v || !idx)
      return fail("a vector element at a variable index at " + Side::where(i));
    unsigned k = idx->getZExtValue();
    set(i, v->extract((k + 1) * bits - 1, k * bits));
    return true;
  }
  if (auto *ie = dyn_cast<InsertElementInst>(&i)) {
    std::optional<z3::expr> v = op(0), e = op(1);
    auto *idx = dyn_cast<ConstantInt>(ie->getOperand(2));
    if (!v || !e || !idx)
      return fail("a vector element at a variable index at " + Side::where(i));
    unsigned eb = e->get_sort().bv_size(), k = idx->getZExtValue();
    unsigned n = bits / eb;
    std::optional<z3::expr> r;
    for (unsigned j = 0; j < n; ++j) {
      z3::expr lane = j == k ? *e : v->extract((j + 1) * eb - 1, j * eb);
      r = r ? z3::concat(lane, *r) : lane;
    }
    set(i, *r);
    return true;
  }
  if (auto *sv = dyn_cast<ShuffleVectorInst>(&i)) {
    std::optional<z3::expr> a = op(0), b = op(1);
    if (!a || !b)
      return false;
    auto *vt = llvm::cast<FixedVectorType>(sv->getOperand(0)->getType());
    unsigned eb = bitsOf(vt->getElementType(), dl), n = vt->getNumElements();
    std::optional<z3::expr> r;
    for (int m : sv->getShuffleMask()) {
      z3::expr lane =
          m < 0
              ? ctx.bv_const(("undef" + std::to_string(sh.fresh++)).c_str(), eb)
          : (unsigned)m < n ? a->extract((m + 1) * eb - 1, m * eb)
                            : b->extract((m - n + 1) * eb - 1, (m - n) * eb);
      r = r ? z3::concat(lane, *r) : lane;
    }
    set(i, *r);
    return true;
  }
  if (auto *c = dyn_cast<CallBase>(&i))
    return call(*c);
  return fail("'" + std::string(i.getOpcodeName()) + "' at " + Side::where(i));
}

bool Stepper::call(CallBase &c) {
  Function *callee = c.getCalledFunction();
  // Inline assembly without effects: a lane register exactly, anything
  // else any value (a fresh symbol per execution, never poison), so that a
  // proof holds whatever it returns.
  if (auto *asmOp = dyn_cast<InlineAsm>(c.getCalledOperand());
      asmOp && !asmOp->hasSideEffects() && c.doesNotAccessMemory() &&
      c.getType()->isIntegerTy()) {
    unsigned w = bitsOf(c.getType(), dl);
    z3::expr v = ctx.bv_const(("asm" + std::to_string(sh.fresh++)).c_str(), w);
    if (std::optional<LaneRegister> r = laneRegisterAsm(c)) {
      z3::expr linear =
          sh.sreg("tid.x") +
          sh.sreg("ntid.x") *
              (sh.sreg("tid.y") + sh.sreg("ntid.y") * sh.sreg("tid.z"));
      z3::expr lane = linear & ctx.bv_val(31, 32);
      v = laneRegisterFrom<z3::expr>(*r, lane, z3::shl(ctx.bv_val(1, 32), lane),
                                     ctx.bv_val(1, 32));
    }
    setRaw(c, v, ctx.bool_val(false));
    return true;
  }
  if (!callee)
    return fail(c.isInlineAsm() ? "inline assembly at " + Side::where(c)
                                : "an indirect call at " + Side::where(c));
  Intrinsic::ID id = callee->getIntrinsicID();
  unsigned bits = bitsOf(c.getType(), dl);
  auto arg = [&](unsigned n) { return get(c.getArgOperand(n)); };
  if (auto r = specialRegister(id)) {
    static const char *names[] = {"tid.", "ntid.", "ctaid.", "nctaid."};
    static const char *axes[] = {"x", "y", "z"};
    set(c, sh.sreg(std::string(names[(int)r->first]) + axes[r->second]));
    return true;
  }
  if (hasNoEffect(id))
    return true;
  switch (id) {
  case Intrinsic::nvvm_read_ptx_sreg_warpsize:
    set(c, ctx.bv_val(32, 32));
    return true;
  case Intrinsic::sideeffect:
    return true;
  case Intrinsic::assume: {
    std::optional<z3::expr> a = arg(0);
    if (!a)
      return false;
    strict(c.getArgOperand(0));
    undefined(!isTrue(*a));
    return true;
  }
  case Intrinsic::trap:
    undefined(ctx.bool_val(true));
    return true;
  case Intrinsic::smax:
  case Intrinsic::smin:
  case Intrinsic::umax:
  case Intrinsic::umin: {
    std::optional<z3::expr> a = arg(0), b = arg(1);
    if (!a || !b || c.getType()->isVectorTy())
      return fail("a vector min/max at " + Side::where(c));
    z3::expr gt = id == Intrinsic::smax || id == Intrinsic::smin
                      ? *a > *b
                      : z3::ugt(*a, *b);
    bool max = id == Intrinsic::smax || id == Intrinsic::umax;
    set(c, z3::ite(gt, max ? *a : *b, max ? *b : *a));
    return true;
  }
  case Intrinsic::abs: {
    std::optional<z3::expr> a = arg(0);
    if (!a || c.getType()->isVectorTy())
      return fail("a vector abs at " + Side::where(c));
    set(c, z3::ite(*a < ctx.bv_val(0, bits), -*a, *a));
    return true;
  }
  case Intrinsic::fabs: {
    std::optional<z3::expr> a = arg(0);
    if (!a || c.getType()->isVectorTy())
      return fail("a vector fabs at " + Side::where(c));
    set(c, *a & ~signBit(bits));
    return true;
  }
  case Intrinsic::fshl:
  case Intrinsic::fshr: {
    std::optional<z3::expr> a = arg(0), b = arg(1), s = arg(2);
    if (!a || !b || !s || c.getType()->isVectorTy())
      return fail("a vector funnel shift at " + Side::where(c));
    z3::expr both = z3::concat(*a, *b);
    z3::expr amt = z3::zext(z3::urem(*s, ctx.bv_val(bits, bits)), bits);
    set(c, id == Intrinsic::fshl
               ? z3::shl(both, amt).extract(2 * bits - 1, bits)
               : z3::lshr(both, amt).extract(bits - 1, 0));
    return true;
  }
  case Intrinsic::memcpy:
  case Intrinsic::memmove:
  case Intrinsic::memset: {
    auto *len = dyn_cast<ConstantInt>(c.getArgOperand(2));
    if (!len || len->getZExtValue() > 256)
      return fail("a memory copy of a length that is not a small constant "
                  "at " +
                  Side::where(c));
    std::optional<z3::expr> d = arg(0), s = arg(1);
    if (!d || !s)
      return false;
    strict(c.getArgOperand(0));
    strict(c.getArgOperand(1));
    unsigned n = len->getZExtValue();
    if (id == Intrinsic::memset) {
      for (unsigned k = 0; k < n; ++k)
        store(*d + ctx.bv_val(k, 64), *s, 1);
      return true;
    }
    // Read all, then write: memmove's overlap.
    std::vector<z3::expr> bytes;
    bytes.reserve(n);
    for (unsigned k = 0; k < n; ++k)
      bytes.push_back(load(*s + ctx.bv_val(k, 64), 1));
    for (unsigned k = 0; k < n; ++k)
      store(*d + ctx.bv_val(k, 64), bytes[k], 1);
    return true;
  }
  default:
    break;
  }
  if (callee->getName() == "__assertfail") {
    undefined(ctx.bool_val(true));
    return true;
  }
  // Intrinsics that touch no memory and libdevice math without its bodies:
  // deterministic functions of their operands.
  bool pure =
      (callee->isIntrinsic() && callee->doesNotAccessMemory() &&
       !callee->getName().starts_with("llvm.nvvm.read.ptx.sreg.")) ||
      (callee->isDeclaration() && callee->getName().starts_with("__nv_"));
  if (!pure || !bits)
    return fail("a call to '" + callee->getName().str() + "' at " +
                Side::where(c));
  std::vector<z3::expr> args;
  for (unsigned k = 0; k < c.arg_size(); ++k) {
    std::optional<z3::expr> a = arg(k);
    if (!a)
      return false;
    args.push_back(*a);
  }
  set(c, sh.apply(callee->getName().str(), args, bits));
  return true;
}

} // namespace kv::rel
