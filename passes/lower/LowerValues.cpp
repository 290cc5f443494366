//===- LowerValues.cpp - Scalar values and constants ----------------------===//
//
// Values of the symbolic execution: LLVM constants (integers, floats as
// their bits, null, undef, globals, constant expressions), the lookup of a
// value in the state, and the instructions that compute scalars: integer
// and floating-point arithmetic, comparisons and casts.
//
//===----------------------------------------------------------------------===//
#include "passes/lower/Lowerer.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Operator.h"
#include "llvm/Support/raw_ostream.h"

namespace kv {
namespace lowering {

SymVal Lowerer::undefinedValue(llvm::Type *ty) {
  Type t = typeFor(ty);
  if (!opts.target)
    return scalar(cst(t, 0));
  if (!symLoops.empty()) {
    SymVal v;
    v.kind = SymVal::Opaque;
    v.origin = curInst;
    return v;
  }
  llvm::SmallVector<Value, 6> at;
  for (SRegGroup g : {SRegGroup::Tid, SRegGroup::Bid})
    for (unsigned axis = 0; axis < 3; ++axis)
      at.push_back(sreg(g, axis));
  return scalar(ApplyOp::create(
      b, loc, t, b.getStringAttr("undef#" + std::to_string(undefs++)), at));
}

SymVal Lowerer::evalConstant(const llvm::Constant *c, State &s) {
  if (auto *ci = dyn_cast<llvm::ConstantInt>(c)) {
    Type t = b.getIntegerType(ci->getBitWidth());
    return scalar(arith::ConstantOp::create(
        b, loc, t, IntegerAttr::get(t, ci->getValue())));
  }
  if (auto *cf = dyn_cast<llvm::ConstantFP>(c)) {
    llvm::APInt bits = cf->getValueAPF().bitcastToAPInt();
    Type t = b.getIntegerType(bits.getBitWidth());
    return scalar(
        arith::ConstantOp::create(b, loc, t, IntegerAttr::get(t, bits)));
  }
  if (isa<llvm::ConstantPointerNull>(c)) {
    SymVal n;
    n.kind = SymVal::NullPtr;
    return n;
  }
  if (c->getType()->isAggregateType())
    return constantAggregate(c, s);
  if (isa<llvm::UndefValue>(c) && !c->getType()->isPointerTy())
    return undefinedValue(c->getType());
  if (auto *gv = dyn_cast<llvm::GlobalVariable>(c)) {
    if (auto it = constTables.find(gv); it != constTables.end()) {
      SymVal p;
      p.kind = SymVal::PrivPtr;
      p.obj = it->second;
      return p;
    }
    Value a = arrayFor(gv);
    SymVal p;
    p.kind = SymVal::ArrayPtr;
    p.array = a;
    return p;
  }
  if (auto *fn = dyn_cast<llvm::Function>(c)) {
    SymVal p;
    p.kind = SymVal::FnPtr;
    p.fns.push_back({fn, i1(true)});
    return p;
  }
  if (auto *ce = dyn_cast<llvm::ConstantExpr>(c)) {
    // Evaluate the expression as an instruction would be.
    llvm::Instruction *inst = ce->getAsInstruction();
    const llvm::Instruction *site = curInst;
    Location siteLoc = loc;
    // A state of its own with the operands alone: a constant expression
    // reads no memory, and a copy of the whole state (every private store
    // so far) per shared-array access made -O0 kernels' lowering quadratic.
    State tmp;
    tmp.guard = s.guard;
    tmp.dead = s.dead;
    for (unsigned i = 0; i < inst->getNumOperands(); ++i)
      tmp.vals[inst->getOperand(i)] = eval(inst->getOperand(i), s);
    exec(*inst, tmp);
    SymVal r = tmp.vals.lookup(inst);
    inst->deleteValue();
    curInst = site;
    loc = siteLoc;
    return r;
  }
  fail("constant `" + [&] {
    std::string str;
    llvm::raw_string_ostream os(str);
    // A function or global prints its whole body: name it instead.
    if (isa<llvm::GlobalValue>(c))
      c->printAsOperand(os, /*PrintType=*/true);
    else
      c->print(os);
    return str;
  }() + "`");
  return scalar(cst(b.getI32Type(), 0));
}

SymVal Lowerer::eval(const llvm::Value *v, State &s) {
  auto it = s.vals.find(v);
  if (it != s.vals.end())
    return it->second;
  auto pit = paramVals.find(v);
  if (pit != paramVals.end())
    return pit->second;
  if (auto *c = dyn_cast<llvm::Constant>(v))
    return evalConstant(c, s);
  fail("value used before it is defined");
  return scalar(cst(b.getI32Type(), 0));
}

bool Lowerer::failUnknown(const SymVal &v, llvm::StringRef how) {
  if (v.kind == SymVal::LoopResult)
    fail(("value computed in a loop with a symbolic trip count, " + how +
          " after the loop")
             .str());
  else if (v.kind == SymVal::Opaque)
    fail(((isa_and_nonnull<llvm::CallBase>(v.origin) ? "inline assembly at "
           : isa_and_nonnull<llvm::LoadInst>(v.origin)
               ? "value read from private memory written with other sizes at "
               : "undefined value (undef/poison) of the after kernel in a "
                 "loop at ") +
          (v.origin ? describeLocation(v.origin, false) : std::string("?")) +
          ", whose value the model does not know, " + how)
             .str());
  else
    return false;
  return true;
}

Value Lowerer::evalScalar(const llvm::Value *v, State &s) {
  SymVal sv = eval(v, s);
  if (sv.kind != SymVal::Scalar) {
    if (!failed && !failUnknown(sv, "used"))
      fail("pointer used as an integer");
    return cst(b.getI32Type(), 0);
  }
  return sv.scalar;
}

void Lowerer::execBinary(const llvm::BinaryOperator *bo, State &s) {
  auto setS = [&](Value v) { s.vals[bo] = scalar(v); };
  Value l = evalScalar(bo->getOperand(0), s);
  Value r = evalScalar(bo->getOperand(1), s);
  if (failed)
    return;
  using O = llvm::Instruction::BinaryOps;
  if (opts.assumeNoSignedOverflow && isa<llvm::OverflowingBinaryOperator>(bo) &&
      bo->hasNoSignedWrap() && !isFalse(s.guard)) {
    std::optional<NoWrapKind> kind =
        bo->getOpcode() == O::Add   ? NoWrapKind::add
        : bo->getOpcode() == O::Sub ? NoWrapKind::sub
        : bo->getOpcode() == O::Mul ? std::optional(NoWrapKind::mul)
                                    : std::nullopt;
    if (kind) {
      Value ok = NoWrapOp::create(b, loc, b.getI1Type(), *kind, l, r);
      Value implied = b.createOrFold<arith::OrIOp>(loc, notI1(s.guard), ok);
      if (!isTrue(implied))
        AssumeOp::create(b, loc, implied, /*bound=*/nullptr, /*ub=*/true);
    }
  }
  switch (bo->getOpcode()) {
  case O::Add:
    return setS(b.createOrFold<arith::AddIOp>(loc, l, r));
  case O::Sub: {
    // x - c is x + -c, the form -O2 gives it: one term for both kernels.
    llvm::APInt c;
    if (matchPattern(r, m_ConstantInt(&c)) && !c.isZero())
      return setS(b.createOrFold<arith::AddIOp>(
          loc, l, cst(l.getType(), (-c).getSExtValue())));
    return setS(b.createOrFold<arith::SubIOp>(loc, l, r));
  }
  case O::Mul:
    return setS(b.createOrFold<arith::MulIOp>(loc, l, r));
  case O::UDiv:
    return setS(b.createOrFold<arith::DivUIOp>(loc, l, r));
  case O::SDiv:
    return setS(b.createOrFold<arith::DivSIOp>(loc, l, r));
  case O::URem:
    return setS(b.createOrFold<arith::RemUIOp>(loc, l, r));
  case O::SRem:
    return setS(b.createOrFold<arith::RemSIOp>(loc, l, r));
  case O::Shl: {
    // x << c is x * 2^c: the checker's index reasoning (solving for a
    // coordinate, the mixed-radix lemmas) knows products, and -O2 turns
    // the source's `blockIdx.x * 16` into a shift.
    if (auto *c = dyn_cast<llvm::ConstantInt>(bo->getOperand(1));
        c && c->getValue().ult(c->getBitWidth()))
      return setS(b.createOrFold<arith::MulIOp>(
          loc, l,
          arith::ConstantOp::create(
              b, loc, l.getType(),
              IntegerAttr::get(l.getType(), llvm::APInt::getOneBitSet(
                                                c->getBitWidth(),
                                                c->getZExtValue() +
                                                    (opts.testBreakShl &&
                                                     c->getZExtValue() + 1 <
                                                         c->getBitWidth()))))));
    return setS(b.createOrFold<arith::ShLIOp>(loc, l, r));
  }
  case O::LShr:
    return setS(b.createOrFold<arith::ShRUIOp>(loc, l, r));
  case O::AShr:
    return setS(b.createOrFold<arith::ShRSIOp>(loc, l, r));
  case O::And:
    return setS(b.createOrFold<arith::AndIOp>(loc, l, r));
  case O::Or:
    // `or disjoint` is an add (an unrolled body's `k | 1` for k + 1), as
    // the index reasoning knows it. Overlapping bits would make it
    // poison, which, like the target's other poison flags, is not
    // modelled.
    if (cast<llvm::PossiblyDisjointInst>(bo)->isDisjoint())
      return setS(b.createOrFold<arith::AddIOp>(loc, l, r));
    return setS(b.createOrFold<arith::OrIOp>(loc, l, r));
  case O::Xor:
    return setS(b.createOrFold<arith::XOrIOp>(loc, l, r));
  case O::FAdd:
    return setS(floatOp("fadd", {l, r}, l.getType()));
  case O::FSub:
    return setS(floatOp("fsub", {l, r}, l.getType()));
  case O::FMul:
    return setS(floatOp("fmul", {l, r}, l.getType()));
  case O::FDiv:
    return setS(floatOp("fdiv", {l, r}, l.getType()));
  case O::FRem:
    return setS(floatOp("frem", {l, r}, l.getType()));
  default:
    return fail(llvm::Twine("instruction '") + bo->getOpcodeName() + "'");
  }
}

void Lowerer::execICmp(const llvm::ICmpInst *cmp, State &s) {
  auto setS = [&](Value v) { s.vals[cmp] = scalar(v); };
  using P = llvm::CmpInst::Predicate;
  P pred = cmp->getPredicate();
  Value l, r;
  if (cmp->getOperand(0)->getType()->isPointerTy()) {
    // Two pointers into one object or array compare as their offsets (an
    // object does not wrap around the address space, so unsigned order is
    // the offsets' signed order). A private object's address is never
    // null. Pointers into two arrays may still be equal (one just past the
    // end of the other), and a parameter may be null: not modelled.
    SymVal a = eval(cmp->getOperand(0), s), c = eval(cmp->getOperand(1), s);
    if (failed)
      return;
    bool eqPred = pred == P::ICMP_EQ || pred == P::ICMP_NE;
    if (a.kind == SymVal::NullPtr && c.kind == SymVal::NullPtr && eqPred)
      return setS(i1(pred == P::ICMP_EQ));
    if (eqPred && ((a.kind == SymVal::PrivPtr && c.kind == SymVal::NullPtr) ||
                   (a.kind == SymVal::NullPtr && c.kind == SymVal::PrivPtr)))
      return setS(i1(pred == P::ICMP_NE));
    // A pointer parameter may be null (an optional bias): whether it is,
    // is an input of the model, kNullParams. A __device__ array is not.
    if (eqPred && ((a.kind == SymVal::ArrayPtr && c.kind == SymVal::NullPtr) ||
                   (a.kind == SymVal::NullPtr && c.kind == SymVal::ArrayPtr))) {
      const SymVal &p = a.kind == SymVal::ArrayPtr ? a : c;
      auto arg = dyn_cast<BlockArgument>(p.array);
      if (arg && p.off.terms.empty() && p.off.constant == 0 &&
          isa<GlobalArrayType>(arg.getType())) {
        if (arg.getArgNumber() >= kvParamCount(f))
          return setS(i1(pred == P::ICMP_NE));
        if (!nullArray) {
          nullArray = newGlobalArray(kNullParams.str(), b.getI8Type());
          arrayElemSize[nullArray] = 1;
        }
        Value flag =
            ReadOp::create(b, loc, b.getI8Type(), nullArray,
                           cst(b.getI64Type(), arg.getArgNumber()), i1(true));
        Value isNull = b.createOrFold<arith::CmpIOp>(
            loc, arith::CmpIPredicate::ne, flag, cst(b.getI8Type(), 0));
        return setS(pred == P::ICMP_EQ ? isNull : notI1(isNull));
      }
    }
    bool same = a.kind == c.kind &&
                ((a.kind == SymVal::PrivPtr && a.obj == c.obj) ||
                 (a.kind == SymVal::ArrayPtr && a.array == c.array));
    if (!same)
      return fail("comparison of pointers into different arrays or with "
                  "null");
    l = materialize(a.off);
    r = materialize(c.off);
    pred = llvm::ICmpInst::isUnsigned(pred)
               ? llvm::ICmpInst::getSignedPredicate(pred)
               : pred;
  } else {
    l = evalScalar(cmp->getOperand(0), s);
    r = evalScalar(cmp->getOperand(1), s);
  }
  if (failed)
    return;
  arith::CmpIPredicate p;
  switch (pred) {
  case P::ICMP_EQ:
    p = arith::CmpIPredicate::eq;
    break;
  case P::ICMP_NE:
    p = arith::CmpIPredicate::ne;
    break;
  case P::ICMP_SLT:
    p = arith::CmpIPredicate::slt;
    break;
  case P::ICMP_SLE:
    p = arith::CmpIPredicate::sle;
    break;
  case P::ICMP_SGT:
    p = arith::CmpIPredicate::sgt;
    break;
  case P::ICMP_SGE:
    p = arith::CmpIPredicate::sge;
    break;
  case P::ICMP_ULT:
    p = arith::CmpIPredicate::ult;
    break;
  case P::ICMP_ULE:
    p = arith::CmpIPredicate::ule;
    break;
  case P::ICMP_UGT:
    p = arith::CmpIPredicate::ugt;
    break;
  default:
    p = arith::CmpIPredicate::uge;
    break;
  }
  return setS(b.createOrFold<arith::CmpIOp>(loc, p, l, r));
}

void Lowerer::execCast(const llvm::CastInst *cast, State &s) {
  auto set = [&](SymVal v) { s.vals[cast] = std::move(v); };
  auto setS = [&](Value v) { s.vals[cast] = scalar(v); };
  using O = llvm::Instruction::CastOps;
  if (cast->getOpcode() == O::AddrSpaceCast ||
      (cast->getOpcode() == O::BitCast && cast->getType()->isPointerTy()))
    return set(eval(cast->getOperand(0), s));
  if (cast->getOpcode() == O::PtrToInt || cast->getOpcode() == O::IntToPtr) {
    SymVal v = eval(cast->getOperand(0), s);
    if (v.kind == SymVal::Opaque)
      return set(v);
    return fail("pointer/integer cast");
  }
  Value v = evalScalar(cast->getOperand(0), s);
  Type t = typeFor(cast->getType());
  if (failed)
    return;
  switch (cast->getOpcode()) {
  case O::ZExt:
    return setS(b.createOrFold<arith::ExtUIOp>(loc, t, v));
  case O::SExt:
    return setS(b.createOrFold<arith::ExtSIOp>(loc, t, v));
  case O::Trunc:
    return setS(b.createOrFold<arith::TruncIOp>(loc, t, v));
  case O::BitCast:
    return setS(v); // float <-> int: same bits
  default: {
    std::string fn = std::string(cast->getOpcodeName()) + "." +
                     typeName(cast->getSrcTy()) + "." +
                     typeName(cast->getDestTy());
    return setS(floatOp(fn, {v}, t));
  }
  }
}

} // namespace lowering
} // namespace kv
