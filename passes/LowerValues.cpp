//===- LowerValues.cpp - Scalar values and constants ----------------------===//
//
// Values of the symbolic execution: LLVM constants (integers, floats as
// their bits, null, undef, globals, constant expressions) and the lookup
// of a value in the state.
//
//===----------------------------------------------------------------------===//
#include "passes/Lowerer.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"

namespace kv {
namespace lowering {

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
  if (isa<llvm::UndefValue>(c) && !c->getType()->isPointerTy()) {
    // undef/poison: any value is a refinement; 0 is one of them.
    Type t = typeFor(c->getType());
    return scalar(cst(t, 0));
  }
  if (auto *gv = dyn_cast<llvm::GlobalVariable>(c)) {
    Value a = arrayFor(gv);
    SymVal p;
    p.kind = SymVal::ArrayPtr;
    p.array = a;
    return p;
  }
  if (auto *ce = dyn_cast<llvm::ConstantExpr>(c)) {
    // Evaluate the expression as an instruction would be.
    llvm::Instruction *inst = ce->getAsInstruction();
    const llvm::Instruction *site = curInst;
    Location siteLoc = loc;
    State tmp = s;
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

} // namespace lowering
} // namespace kv
