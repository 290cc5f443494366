//===- RelationalSide.cpp - one kernel's steps, symbolically ----*- C++ -*-===//

#include "equiv/RelationalInternal.h"

#include "llvm/ADT/PostOrderIterator.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/GetElementPtrTypeIterator.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/Operator.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Transforms/Scalar/SROA.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/Mem2Reg.h"

using namespace llvm;

namespace kv::rel {

//===----------------------------------------------------------------------===//
// One step
//===----------------------------------------------------------------------===//

namespace {

unsigned bitsOf(Type *t, const DataLayout &dl) {
  if (t->isPointerTy())
    return 64;
  if (t->isIntegerTy())
    return t->getIntegerBitWidth();
  if (t->isFloatingPointTy())
    return t->getPrimitiveSizeInBits().getFixedValue();
  if (auto *v = dyn_cast<FixedVectorType>(t)) {
    unsigned e = bitsOf(v->getElementType(), dl);
    return e && !v->getElementType()->isIntegerTy(1) ? e * v->getNumElements()
                                                     : 0;
  }
  return 0;
}

/// The execution of one step: blocks in topological order, each with the
/// condition under which it runs and the memory it starts with.
class Stepper {
public:
  Stepper(Side &s, const State &in)
      : side(s), sh(s.sh), ctx(s.sh.ctx),
        dl(s.fn->getParent()->getDataLayout()), ub(ctx.bool_val(false)),
        vals(in.vals), pois(in.poison) {}

  std::optional<Step> run(BasicBlock *start, const State &in);

private:
  struct Incoming {
    BasicBlock *from;
    z3::expr cond, mem, wr, rd;
  };
  Side &side;
  Shared &sh;
  z3::context &ctx;
  const DataLayout &dl;
  z3::expr ub;
  std::unordered_map<const Value *, z3::expr> vals;
  /// Where each value is poison (LLVM's deferred undefined behaviour: an
  /// overflowing `nsw` add, say), for the values that may be.
  std::unordered_map<const Value *, z3::expr> pois;
  std::vector<z3::expr> terms;
  std::vector<std::pair<z3::expr, unsigned>> loads;
  /// The poison the current instruction's own flags add.
  std::optional<z3::expr> flagged;

public:
  std::string why;

private:
  // The current block's path condition and memory.
  std::optional<z3::expr> cond, mem, wr, rd;

  bool fail(const std::string &w) {
    if (why.empty())
      why = w;
    return false;
  }
  std::optional<z3::expr> get(Value *v);
  std::optional<z3::expr> constant(Constant *c);
  std::optional<z3::expr> gep(GEPOperator &g);
  std::optional<z3::expr> cast(unsigned op, z3::expr v, Type *from, Type *to);
  bool exec(Instruction &i);
  bool call(CallBase &c);
  void undefined(const z3::expr &c) { ub = ub || (*cond && c); }
  z3::expr bit(const z3::expr &b) {
    return z3::ite(b, ctx.bv_val(1, 1), ctx.bv_val(0, 1));
  }
  z3::expr isTrue(const z3::expr &b1) { return b1 == ctx.bv_val(1, 1); }
  z3::expr signBit(unsigned w) {
    return z3::shl(ctx.bv_val(1, w), ctx.bv_val(w - 1, w));
  }
  z3::expr load(const z3::expr &addr, unsigned bytes);
  void store(const z3::expr &addr, const z3::expr &bits, unsigned bytes);
  /// Poison where \p v is.
  z3::expr P(Value *v);
  /// A use that is undefined behaviour on poison (a branch, an address, a
  /// divisor, a stored value).
  void strict(Value *v) { undefined(P(v)); }
  /// An overflow that the instruction's flags say does not happen: in the
  /// source, C's rule (undefined behaviour); in optimized IR, poison.
  void flag(const z3::expr &overflow) {
    if (side.isSource)
      undefined(overflow);
    else
      flagged = flagged ? (*flagged || overflow) : overflow;
  }
  /// The result of \p i: poison where an operand is (or its flags say).
  void set(Instruction &i, const z3::expr &e) {
    z3::expr p = flagged ? *flagged : ctx.bool_val(false);
    flagged.reset();
    if (!isa<FreezeInst>(i) && !isa<LoadInst>(i) && !isa<SelectInst>(i))
      for (Value *op : i.operands())
        if (!isa<BasicBlock>(op) && !isa<Function>(op))
          p = p || P(op);
    if (auto *s = dyn_cast<SelectInst>(&i))
      p = p || P(s->getCondition()) ||
          z3::ite(isTrue(*get(s->getCondition())), P(s->getTrueValue()),
                  P(s->getFalseValue()));
    setRaw(i, e, p.simplify());
  }
  void setRaw(Instruction &i, const z3::expr &e, const z3::expr &p) {
    vals.insert_or_assign(&i, e);
    pois.insert_or_assign(&i, p);
    if (terms.size() < 400)
      terms.push_back(e);
  }
};

std::optional<z3::expr> Stepper::constant(Constant *c) {
  unsigned bits = bitsOf(c->getType(), dl);
  if (auto *ci = dyn_cast<ConstantInt>(c)) {
    const APInt &v = ci->getValue();
    if (bits <= 64)
      return ctx.bv_val(v.getZExtValue(), bits);
    return std::nullopt;
  }
  if (auto *cf = dyn_cast<ConstantFP>(c))
    return ctx.bv_val(cf->getValueAPF().bitcastToAPInt().getZExtValue(), bits);
  if (isa<ConstantPointerNull>(c))
    return ctx.bv_val(0, 64);
  if (isa<UndefValue>(c) && bits)
    // Any value: a fresh symbol, so the proof holds for every choice.
    return ctx.bv_const(("undef" + std::to_string(sh.fresh++)).c_str(), bits);
  if (bits && c->isNullValue())
    return ctx.bv_val(0, bits);
  if (auto *cdv = dyn_cast<ConstantDataVector>(c)) {
    std::optional<z3::expr> r;
    for (unsigned i = 0; i < cdv->getNumElements(); ++i) {
      std::optional<z3::expr> e = constant(cdv->getElementAsConstant(i));
      if (!e)
        return std::nullopt;
      r = r ? z3::concat(*e, *r) : *e;
    }
    return r;
  }
  if (auto *cv = dyn_cast<ConstantVector>(c)) {
    std::optional<z3::expr> r;
    for (unsigned i = 0; i < cv->getNumOperands(); ++i) {
      std::optional<z3::expr> e = constant(cv->getOperand(i));
      if (!e)
        return std::nullopt;
      r = r ? z3::concat(*e, *r) : *e;
    }
    return r;
  }
  if (auto *g = dyn_cast<GlobalVariable>(c)) {
    uint64_t size = dl.getTypeAllocSize(g->getValueType());
    // Both kernels must mean the same object: an initializer they do not
    // share would make equal addresses hold different contents.
    if (g->hasInitializer() && !isa<UndefValue>(g->getInitializer()) &&
        !g->getInitializer()->isNullValue()) {
      fail("a global variable with an initializer ('" + g->getName().str() +
           "')");
      return std::nullopt;
    }
    return sh.global(g->getName().str(), size);
  }
  if (auto *ce = dyn_cast<ConstantExpr>(c)) {
    if (auto *g = dyn_cast<GEPOperator>(ce))
      return gep(*g);
    if (ce->isCast()) {
      std::optional<z3::expr> v = get(ce->getOperand(0));
      if (!v)
        return std::nullopt;
      return cast(ce->getOpcode(), *v, ce->getOperand(0)->getType(),
                  ce->getType());
    }
  }
  fail("a constant the relational proof does not model");
  return std::nullopt;
}

std::optional<z3::expr> Stepper::get(Value *v) {
  auto it = vals.find(v);
  if (it != vals.end())
    return it->second;
  auto st = side.stable.find(v);
  if (st != side.stable.end())
    return st->second;
  if (auto *a = dyn_cast<Argument>(v)) {
    unsigned bits = bitsOf(a->getType(), dl);
    if (!bits) {
      fail("a parameter of a type the relational proof does not model");
      return std::nullopt;
    }
    return sh.arg(a->getArgNo(), bits);
  }
  if (auto *c = dyn_cast<Constant>(v))
    return constant(c);
  fail("a value used before the step computed it");
  return std::nullopt;
}

z3::expr Stepper::P(Value *v) {
  auto it = pois.find(v);
  if (it != pois.end())
    return it->second;
  auto st = side.stablePoison.find(v);
  if (st != side.stablePoison.end())
    return st->second;
  if (isa<PoisonValue>(v))
    return ctx.bool_val(true);
  if (auto *c = dyn_cast<Constant>(v))
    if (!isa<ConstantExpr>(c) && !isa<ConstantVector>(c))
      return ctx.bool_val(false);
  if (isa<Argument>(v) || isa<GlobalValue>(v) || isa<ConstantData>(v))
    return ctx.bool_val(false);
  if (auto *ce = dyn_cast<ConstantExpr>(v)) {
    z3::expr p = ctx.bool_val(false);
    for (Value *op : ce->operands())
      p = p || P(op);
    return p;
  }
  if (auto *cv = dyn_cast<ConstantVector>(v)) {
    z3::expr p = ctx.bool_val(false);
    for (Value *op : cv->operands())
      p = p || P(op);
    return p;
  }
  // A value defined in another step and not carried: it cannot be used
  // here (get() fails first).
  return ctx.bool_val(true);
}

std::optional<z3::expr> Stepper::gep(GEPOperator &g) {
  std::optional<z3::expr> base = get(g.getPointerOperand());
  if (!base || g.getType()->isVectorTy()) {
    fail("a vector of addresses");
    return std::nullopt;
  }
  z3::expr addr = *base;
  for (gep_type_iterator gti = gep_type_begin(g), e = gep_type_end(g); gti != e;
       ++gti) {
    Value *idx = gti.getOperand();
    if (StructType *st = gti.getStructTypeOrNull()) {
      uint64_t off = dl.getStructLayout(st)->getElementOffset(
          llvm::cast<ConstantInt>(idx)->getZExtValue());
      addr = addr + ctx.bv_val(off, 64);
      continue;
    }
    std::optional<z3::expr> i = get(idx);
    if (!i)
      return std::nullopt;
    unsigned w = i->get_sort().bv_size();
    z3::expr i64 = w < 64   ? z3::sext(*i, 64 - w)
                   : w > 64 ? i->extract(63, 0)
                            : *i;
    uint64_t stride = gti.getSequentialElementStride(dl).getFixedValue();
    addr = addr + i64 * ctx.bv_val(stride, 64);
  }
  return addr;
}

std::optional<z3::expr> Stepper::cast(unsigned op, z3::expr v, Type *from,
                                      Type *to) {
  unsigned fb = bitsOf(from, dl), tb = bitsOf(to, dl);
  if (!fb || !tb) {
    fail("a conversion of a type the relational proof does not model");
    return std::nullopt;
  }
  switch (op) {
  case Instruction::ZExt:
    return tb > fb ? z3::zext(v, tb - fb) : v;
  case Instruction::SExt:
    return tb > fb ? z3::sext(v, tb - fb) : v;
  case Instruction::Trunc:
    return tb < fb ? v.extract(tb - 1, 0) : v;
  case Instruction::BitCast:
  case Instruction::AddrSpaceCast:
  case Instruction::PtrToInt:
  case Instruction::IntToPtr:
  case Instruction::PtrToAddr:
    if (tb == fb)
      return v;
    return tb < fb ? v.extract(tb - 1, 0) : z3::zext(v, tb - fb);
  default:
    break;
  }
  // Float conversions: functions of their operand.
  if (from->isVectorTy() || to->isVectorTy()) {
    fail("a vector conversion");
    return std::nullopt;
  }
  return sh.apply(std::string(Instruction::getOpcodeName(op)), {v}, tb);
}

z3::expr Stepper::load(const z3::expr &addr, unsigned bytes) {
  if (loads.size() < 8)
    loads.push_back({addr, bytes});
  std::optional<z3::expr> r;
  for (unsigned i = 0; i < bytes; ++i) {
    z3::expr a = addr + ctx.bv_val(i, 64);
    z3::expr b = z3::select(*mem, a);
    r = r ? z3::concat(b, *r) : b;
    *rd = z3::store(*rd, a, ctx.bool_val(true));
  }
  return *r;
}

void Stepper::store(const z3::expr &addr, const z3::expr &bits,
                    unsigned bytes) {
  for (unsigned i = 0; i < bytes; ++i) {
    z3::expr a = addr + ctx.bv_val(i, 64);
    *mem = z3::store(*mem, a, bits.extract(8 * i + 7, 8 * i));
    *wr = z3::store(*wr, a, ctx.bool_val(true));
  }
}

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
      r = *a * *b;
      if (bo->hasNoSignedWrap())
        flag(z3::sext(*a, w) * z3::sext(*b, w) != z3::sext(r, w));
      if (bo->hasNoUnsignedWrap())
        flag(z3::zext(*a, w) * z3::zext(*b, w) != z3::zext(r, w));
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
      r = *a | *b;
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
        cast(ci->getOpcode(), *a, ci->getSrcTy(), ci->getDestTy());
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
  if (!callee)
    return fail(c.isInlineAsm() ? "inline assembly at " + Side::where(c)
                                : "an indirect call at " + Side::where(c));
  Intrinsic::ID id = callee->getIntrinsicID();
  unsigned bits = bitsOf(c.getType(), dl);
  auto arg = [&](unsigned n) { return get(c.getArgOperand(n)); };
  static const char *axes[] = {"x", "y", "z"};
  switch (id) {
  case Intrinsic::nvvm_read_ptx_sreg_tid_x:
  case Intrinsic::nvvm_read_ptx_sreg_tid_y:
  case Intrinsic::nvvm_read_ptx_sreg_tid_z:
    set(c, sh.sreg(std::string("tid.") +
                   axes[id - Intrinsic::nvvm_read_ptx_sreg_tid_x]));
    return true;
  case Intrinsic::nvvm_read_ptx_sreg_ntid_x:
  case Intrinsic::nvvm_read_ptx_sreg_ntid_y:
  case Intrinsic::nvvm_read_ptx_sreg_ntid_z:
    set(c, sh.sreg(std::string("ntid.") +
                   axes[id - Intrinsic::nvvm_read_ptx_sreg_ntid_x]));
    return true;
  case Intrinsic::nvvm_read_ptx_sreg_ctaid_x:
  case Intrinsic::nvvm_read_ptx_sreg_ctaid_y:
  case Intrinsic::nvvm_read_ptx_sreg_ctaid_z:
    set(c, sh.sreg(std::string("ctaid.") +
                   axes[id - Intrinsic::nvvm_read_ptx_sreg_ctaid_x]));
    return true;
  case Intrinsic::nvvm_read_ptx_sreg_nctaid_x:
  case Intrinsic::nvvm_read_ptx_sreg_nctaid_y:
  case Intrinsic::nvvm_read_ptx_sreg_nctaid_z:
    set(c, sh.sreg(std::string("nctaid.") +
                   axes[id - Intrinsic::nvvm_read_ptx_sreg_nctaid_x]));
    return true;
  case Intrinsic::nvvm_read_ptx_sreg_warpsize:
    set(c, ctx.bv_val(32, 32));
    return true;
  case Intrinsic::lifetime_start:
  case Intrinsic::lifetime_end:
  case Intrinsic::dbg_declare:
  case Intrinsic::dbg_value:
  case Intrinsic::dbg_label:
  case Intrinsic::donothing:
  case Intrinsic::experimental_noalias_scope_decl:
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

std::optional<Step> Stepper::run(BasicBlock *start, const State &in) {
  // The blocks of the step: reachable from start without entering a cut.
  std::vector<BasicBlock *> order;
  {
    DenseSet<BasicBlock *> seen, onStack;
    bool cyclic = false;
    std::function<void(BasicBlock *)> dfs = [&](BasicBlock *bb) {
      seen.insert(bb);
      onStack.insert(bb);
      for (BasicBlock *s : successors(bb)) {
        if (side.isCut.count(s))
          continue;
        if (onStack.count(s))
          cyclic = true;
        else if (!seen.count(s))
          dfs(s);
      }
      onStack.erase(bb);
      order.push_back(bb);
    };
    dfs(start);
    if (cyclic) {
      why = "a loop with more than one entry";
      return std::nullopt;
    }
    std::reverse(order.begin(), order.end());
  }
  Step out{{}, ctx.bool_val(false), {}};
  std::map<BasicBlock *, std::vector<Incoming>> incoming;
  for (BasicBlock *bb : order) {
    auto inst = bb->begin();
    if (bb == start) {
      cond = ctx.bool_val(true);
      mem = *in.mem;
      wr = *in.wr;
      rd = *in.rd;
      inst = bb->getFirstNonPHIIt();
      if (side.isBarrier.count(bb))
        ++inst;
    } else {
      std::vector<Incoming> &ins = incoming[bb];
      if (ins.empty())
        continue; // not reached from start (only from other cuts)
      cond = ins[0].cond;
      mem = ins[0].mem;
      wr = ins[0].wr;
      rd = ins[0].rd;
      for (size_t k = 1; k < ins.size(); ++k) {
        cond = *cond || ins[k].cond;
        mem = z3::ite(ins[k].cond, ins[k].mem, *mem);
        wr = z3::ite(ins[k].cond, ins[k].wr, *wr);
        rd = z3::ite(ins[k].cond, ins[k].rd, *rd);
      }
      for (PHINode &phi : bb->phis()) {
        std::optional<z3::expr> v, p;
        for (Incoming &e : ins) {
          Value *in = phi.getIncomingValueForBlock(e.from);
          std::optional<z3::expr> x = get(in);
          if (!x)
            return std::nullopt;
          v = v ? z3::ite(e.cond, *x, *v) : *x;
          p = p ? z3::ite(e.cond, P(in), *p) : P(in);
        }
        setRaw(phi, *v, *p);
      }
      inst = bb->getFirstNonPHIIt();
    }
    for (auto e = bb->end(); inst != e; ++inst) {
      if (inst->isTerminator())
        break;
      if (!exec(*inst)) {
        if (why.empty())
          why = "a value it cannot compute";
        return std::nullopt;
      }
    }
    Instruction *term = bb->getTerminator();
    std::vector<std::pair<BasicBlock *, z3::expr>> edges;
    if (auto *br = dyn_cast<BranchInst>(term)) {
      if (br->isUnconditional()) {
        edges.push_back({br->getSuccessor(0), *cond});
      } else {
        std::optional<z3::expr> c = get(br->getCondition());
        if (!c)
          return std::nullopt;
        strict(br->getCondition());
        edges.push_back({br->getSuccessor(0), *cond && isTrue(*c)});
        edges.push_back({br->getSuccessor(1), *cond && !isTrue(*c)});
      }
    } else if (auto *sw = dyn_cast<SwitchInst>(term)) {
      std::optional<z3::expr> c = get(sw->getCondition());
      if (!c)
        return std::nullopt;
      strict(sw->getCondition());
      z3::expr none = ctx.bool_val(true);
      for (auto &cs : sw->cases()) {
        std::optional<z3::expr> v = get(cs.getCaseValue());
        if (!v)
          return std::nullopt;
        edges.push_back({cs.getCaseSuccessor(), *cond && *c == *v});
        none = none && *c != *v;
      }
      edges.push_back({sw->getDefaultDest(), *cond && none});
    } else if (isa<ReturnInst>(term)) {
      State s;
      s.mem = *mem;
      s.wr = *wr;
      s.rd = *rd;
      out.exits.push_back({nullptr, *cond, std::move(s)});
    } else if (isa<UnreachableInst>(term)) {
      undefined(ctx.bool_val(true));
    } else {
      why = std::string("'") + term->getOpcodeName() + "' at " +
            Side::where(*term);
      return std::nullopt;
    }
    for (auto &[succ, c] : edges) {
      if (!side.isCut.count(succ)) {
        incoming[succ].push_back({bb, c, *mem, *wr, *rd});
        continue;
      }
      State s;
      s.mem = *mem;
      s.wr = *wr;
      s.rd = *rd;
      for (Value *v : side.live[succ]) {
        Value *src = v;
        if (auto *phi = dyn_cast<PHINode>(v); phi && phi->getParent() == succ)
          src = phi->getIncomingValueForBlock(bb);
        std::optional<z3::expr> x = get(src);
        if (!x)
          return std::nullopt;
        s.vals.insert_or_assign(v, *x);
        s.poison.insert_or_assign(v, P(src));
      }
      out.exits.push_back({succ, c, std::move(s)});
    }
  }
  out.ub = ub;
  out.terms = std::move(terms);
  out.loads = std::move(loads);
  // The values computed once, before any loop or barrier, are the same
  // terms wherever they are used later.
  if (start == side.entry)
    for (auto &[v, e] : vals)
      if (auto *i = dyn_cast<Instruction>(v))
        if (side.once.count(i->getParent())) {
          side.stable.insert_or_assign(v, e);
          side.stablePoison.insert_or_assign(v, pois.at(v));
        }
  return out;
}

} // namespace

std::optional<Step> Side::step(BasicBlock *cut, const State &in) {
  Stepper s(*this, in);
  std::optional<Step> r = s.run(cut, in);
  if (!r)
    fail(s.why.empty() ? "a construct it does not model" : s.why);
  return r;
}

} // namespace kv::rel
