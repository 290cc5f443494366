//===- LowerKernel.cpp - Entry point and instructions ---------------------===//
//
// The entry point lowerKernel: the kv.kernel and its arguments, the run of
// the kernel's entry block, and the clean-up after it; and the execution
// of one instruction (exec), calls and inlining.
//
//===----------------------------------------------------------------------===//
#include "passes/Lowerer.h"

#include "llvm/IR/DataLayout.h"
#include "llvm/IR/GetElementPtrTypeIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Operator.h"

namespace kv {
namespace lowering {

void Lowerer::exec(const llvm::Instruction &inst, State &s) {
  curInst = &inst;
  if (const llvm::DebugLoc &dl = inst.getDebugLoc())
    loc = FileLineColLoc::get(ctx, dl->getFilename(), dl.getLine(),
                              dl.getCol());
  if (inst.getType()->isVectorTy()) {
    fail("vector operation");
    return;
  }
  auto set = [&](SymVal v) { s.vals[&inst] = v; };
  auto setS = [&](Value v) { s.vals[&inst] = scalar(v); };

  if (auto *bo = dyn_cast<llvm::BinaryOperator>(&inst)) {
    Value l = evalScalar(bo->getOperand(0), s);
    Value r = evalScalar(bo->getOperand(1), s);
    if (failed)
      return;
    using O = llvm::Instruction::BinaryOps;
    if (opts.assumeNoSignedOverflow && isa<llvm::OverflowingBinaryOperator>(bo) &&
        bo->hasNoSignedWrap() && !isFalse(s.guard)) {
      const char *kind = bo->getOpcode() == O::Add   ? "add"
                         : bo->getOpcode() == O::Sub ? "sub"
                         : bo->getOpcode() == O::Mul ? "mul"
                                                     : nullptr;
      if (kind) {
        Value ok = NoWrapOp::create(b, loc, b.getI1Type(), b.getStringAttr(kind), l, r);
        Value implied = b.createOrFold<arith::OrIOp>(loc, notI1(s.guard), ok);
        if (!isTrue(implied))
          AssumeOp::create(b, loc, implied)->setAttr("ub", b.getUnitAttr());
      }
    }
    switch (bo->getOpcode()) {
    case O::Add: return setS(b.createOrFold<arith::AddIOp>(loc, l, r));
    case O::Sub: return setS(b.createOrFold<arith::SubIOp>(loc, l, r));
    case O::Mul: return setS(b.createOrFold<arith::MulIOp>(loc, l, r));
    case O::UDiv: return setS(b.createOrFold<arith::DivUIOp>(loc, l, r));
    case O::SDiv: return setS(b.createOrFold<arith::DivSIOp>(loc, l, r));
    case O::URem: return setS(b.createOrFold<arith::RemUIOp>(loc, l, r));
    case O::SRem: return setS(b.createOrFold<arith::RemSIOp>(loc, l, r));
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
                IntegerAttr::get(l.getType(),
                                 llvm::APInt::getOneBitSet(
                                     c->getBitWidth(), c->getZExtValue())))));
      return setS(b.createOrFold<arith::ShLIOp>(loc, l, r));
    }
    case O::LShr: return setS(b.createOrFold<arith::ShRUIOp>(loc, l, r));
    case O::AShr: return setS(b.createOrFold<arith::ShRSIOp>(loc, l, r));
    case O::And: return setS(b.createOrFold<arith::AndIOp>(loc, l, r));
    case O::Or:
      // `or disjoint` is an add (an unrolled body's `k | 1` for k + 1), as
      // the index reasoning knows it. Overlapping bits would make it
      // poison, which, like the target's other poison flags, is not
      // modelled.
      if (cast<llvm::PossiblyDisjointInst>(bo)->isDisjoint())
        return setS(b.createOrFold<arith::AddIOp>(loc, l, r));
      return setS(b.createOrFold<arith::OrIOp>(loc, l, r));
    case O::Xor: return setS(b.createOrFold<arith::XOrIOp>(loc, l, r));
    case O::FAdd: return setS(floatOp("fadd", {l, r}, l.getType()));
    case O::FSub: return setS(floatOp("fsub", {l, r}, l.getType()));
    case O::FMul: return setS(floatOp("fmul", {l, r}, l.getType()));
    case O::FDiv: return setS(floatOp("fdiv", {l, r}, l.getType()));
    case O::FRem: return setS(floatOp("frem", {l, r}, l.getType()));
    default:
      return fail(llvm::Twine("instruction '") + inst.getOpcodeName() + "'");
    }
  }
  if (auto *un = dyn_cast<llvm::UnaryOperator>(&inst)) {
    Value v = evalScalar(un->getOperand(0), s);
    if (un->getOpcode() == llvm::Instruction::FNeg)
      return setS(floatOp("fneg", {v}, v.getType()));
    return fail(llvm::Twine("instruction '") + inst.getOpcodeName() + "'");
  }
  if (auto *cmp = dyn_cast<llvm::ICmpInst>(&inst)) {
    if (cmp->getOperand(0)->getType()->isPointerTy())
      return fail("pointer comparison");
    Value l = evalScalar(cmp->getOperand(0), s);
    Value r = evalScalar(cmp->getOperand(1), s);
    if (failed)
      return;
    using P = llvm::CmpInst::Predicate;
    arith::CmpIPredicate p;
    switch (cmp->getPredicate()) {
    case P::ICMP_EQ: p = arith::CmpIPredicate::eq; break;
    case P::ICMP_NE: p = arith::CmpIPredicate::ne; break;
    case P::ICMP_SLT: p = arith::CmpIPredicate::slt; break;
    case P::ICMP_SLE: p = arith::CmpIPredicate::sle; break;
    case P::ICMP_SGT: p = arith::CmpIPredicate::sgt; break;
    case P::ICMP_SGE: p = arith::CmpIPredicate::sge; break;
    case P::ICMP_ULT: p = arith::CmpIPredicate::ult; break;
    case P::ICMP_ULE: p = arith::CmpIPredicate::ule; break;
    case P::ICMP_UGT: p = arith::CmpIPredicate::ugt; break;
    default: p = arith::CmpIPredicate::uge; break;
    }
    return setS(b.createOrFold<arith::CmpIOp>(loc, p, l, r));
  }
  if (auto *fc = dyn_cast<llvm::FCmpInst>(&inst)) {
    Value l = evalScalar(fc->getOperand(0), s);
    Value r = evalScalar(fc->getOperand(1), s);
    std::string fn = ("fcmp." + llvm::CmpInst::getPredicateName(
                                    fc->getPredicate()))
                         .str();
    return setS(floatOp(fn, {l, r}, b.getI1Type()));
  }
  if (auto *sel = dyn_cast<llvm::SelectInst>(&inst)) {
    Value c = evalScalar(sel->getCondition(), s);
    SymVal t = eval(sel->getTrueValue(), s), e = eval(sel->getFalseValue(), s);
    SymVal r = mergeVal(t, e, c);
    if (r.kind == SymVal::None && !failed)
      return fail("select between pointers into different objects");
    return set(r);
  }
  if (auto *cast = dyn_cast<llvm::CastInst>(&inst)) {
    using O = llvm::Instruction::CastOps;
    if (cast->getOpcode() == O::AddrSpaceCast ||
        (cast->getOpcode() == O::BitCast && cast->getType()->isPointerTy()))
      return set(eval(cast->getOperand(0), s));
    if (cast->getOpcode() == O::PtrToInt || cast->getOpcode() == O::IntToPtr)
      return fail("pointer/integer cast");
    Value v = evalScalar(cast->getOperand(0), s);
    Type t = typeFor(cast->getType());
    if (failed)
      return;
    switch (cast->getOpcode()) {
    case O::ZExt: return setS(b.createOrFold<arith::ExtUIOp>(loc, t, v));
    case O::SExt: return setS(b.createOrFold<arith::ExtSIOp>(loc, t, v));
    case O::Trunc: return setS(b.createOrFold<arith::TruncIOp>(loc, t, v));
    case O::BitCast: return setS(v); // float <-> int: same bits
    default: {
      std::string fn = std::string(cast->getOpcodeName()) + "." +
                       typeName(cast->getSrcTy()) + "." +
                       typeName(cast->getDestTy());
      return setS(floatOp(fn, {v}, t));
    }
    }
  }
  if (auto *fr = dyn_cast<llvm::FreezeInst>(&inst))
    return set(eval(fr->getOperand(0), s));
  if (isa<llvm::PHINode>(inst))
    return; // resolved on the edge
  if (isa<llvm::AllocaInst>(inst)) {
    SymVal p;
    p.kind = SymVal::PrivPtr;
    p.obj = nextObj++;
    return set(p);
  }
  if (auto *gep = dyn_cast<llvm::GetElementPtrInst>(&inst)) {
    SymVal p = eval(gep->getPointerOperand(), s);
    if (!p.isPtr() || p.kind == SymVal::NullPtr)
      return failed ? void() : fail("address computed from an unknown pointer");
    const llvm::DataLayout &dl = f.getParent()->getDataLayout();
    for (llvm::gep_type_iterator gi = llvm::gep_type_begin(gep),
                                 ge = llvm::gep_type_end(gep);
         gi != ge; ++gi) {
      const llvm::Value *idx = gi.getOperand();
      if (llvm::StructType *st = gi.getStructTypeOrNull()) {
        unsigned field = cast<llvm::ConstantInt>(idx)->getZExtValue();
        p.off.constant += dl.getStructLayout(st)->getElementOffset(field);
        continue;
      }
      int64_t stride = gi.getSequentialElementStride(dl).getFixedValue();
      if (auto *ci = dyn_cast<llvm::ConstantInt>(idx)) {
        p.off.constant += ci->getSExtValue() * stride;
        continue;
      }
      Value iv = toI64(evalScalar(idx, s));
      if (failed)
        return;
      p.off.add(linearOf(iv), stride);
    }
    return set(p);
  }
  if (auto *ld = dyn_cast<llvm::LoadInst>(&inst)) {
    if (ld->isAtomic())
      return fail("atomic load");
    SymVal p = eval(ld->getPointerOperand(), s);
    if (p.kind == SymVal::PrivPtr)
      return set(loadPrivate(p, ld->getType(), s));
    if (p.kind == SymVal::ArrayPtr) {
      if (ld->getType()->isPointerTy())
        return fail("pointer loaded from shared/global memory");
      return setS(loadArray(p.array, p.off, ld->getType(), s.guard));
    }
    return failed ? void() : fail("load through an unknown pointer");
  }
  if (auto *st = dyn_cast<llvm::StoreInst>(&inst)) {
    if (st->isAtomic())
      return fail("atomic store");
    SymVal p = eval(st->getPointerOperand(), s);
    SymVal v = eval(st->getValueOperand(), s);
    if (failed)
      return;
    if (p.kind == SymVal::PrivPtr) {
      const llvm::DataLayout &dl = f.getParent()->getDataLayout();
      PrivStore ps;
      ps.obj = p.obj;
      ps.off = p.off;
      ps.size = dl.getTypeStoreSize(st->getValueOperand()->getType());
      ps.val = v;
      ps.guard = s.guard;
      s.stores.push_back(ps);
      return;
    }
    if (p.kind == SymVal::ArrayPtr) {
      if (v.kind != SymVal::Scalar)
        return fail("pointer stored to shared/global memory");
      return storeArray(p.array, p.off, v.scalar,
                        st->getValueOperand()->getType(), s);
    }
    return fail("store through an unknown pointer");
  }
  if (auto *call = dyn_cast<llvm::CallBase>(&inst))
    return execCall(*call, s);
  if (isa<llvm::AtomicRMWInst, llvm::AtomicCmpXchgInst, llvm::FenceInst>(inst))
    return fail(llvm::Twine("atomic operation '") + inst.getOpcodeName() + "'");
  fail(llvm::Twine("instruction '") + inst.getOpcodeName() + "'");
}

void Lowerer::execCall(const llvm::CallBase &call, State &s) {
  const llvm::Function *callee = call.getCalledFunction();
  if (!callee)
    return fail(call.isInlineAsm() ? "inline assembly" : "indirect call");
  llvm::StringRef name = callee->getName();
  auto setS = [&](Value v) { s.vals[&call] = scalar(v); };
  if (callee->isIntrinsic()) {
    llvm::Intrinsic::ID id = callee->getIntrinsicID();
    if (name.starts_with("llvm.nvvm.read.ptx.sreg.")) {
      llvm::StringRef reg = name.drop_front(strlen("llvm.nvvm.read.ptx.sreg."));
      static const std::pair<const char *, const char *> map[] = {
          {"tid.", "tid."},
          {"ntid.", "bdim."},
          {"ctaid.", "bid."},
          {"nctaid.", "gdim."}};
      for (auto [from, to] : map)
        if (reg.starts_with(from) && reg.size() == strlen(from) + 1)
          return setS(sreg((llvm::Twine(to) + reg.take_back(1)).str()));
      if (reg == "warpsize")
        return setS(cst(b.getI32Type(), 32));
      return fail("special register '" + reg + "'");
    }
    switch (id) {
    case llvm::Intrinsic::nvvm_barrier_cta_sync_aligned_all:
    case llvm::Intrinsic::nvvm_barrier_cta_sync_all: {
      auto *id = dyn_cast<llvm::ConstantInt>(call.getArgOperand(0));
      if (!id || !id->isZero())
        return fail("named barrier (barrier id other than 0)");
      // A condition is kept: the checker shows the block agrees on it, or
      // reports barrier divergence.
      if (!symLoops.empty())
        return stageBarrier(s);
      BarrierOp::create(b, loc, isTrue(s.guard) ? Value() : s.guard);
      ownWrites.clear();
      loopWritten.clear();
      return;
    }
    case llvm::Intrinsic::lifetime_start:
    case llvm::Intrinsic::lifetime_end:
    case llvm::Intrinsic::dbg_declare:
    case llvm::Intrinsic::dbg_value:
    case llvm::Intrinsic::dbg_label:
    case llvm::Intrinsic::donothing:
    case llvm::Intrinsic::experimental_noalias_scope_decl:
      return;
    case llvm::Intrinsic::assume: {
      Value c = evalScalar(call.getArgOperand(0), s);
      if (failed)
        return;
      // Holds on this path: guard => c.
      Value implied = b.createOrFold<arith::OrIOp>(loc, notI1(s.guard), c);
      if (!isTrue(implied))
        AssumeOp::create(b, loc, implied);
      return;
    }
    case llvm::Intrinsic::smax:
    case llvm::Intrinsic::smin:
    case llvm::Intrinsic::umax:
    case llvm::Intrinsic::umin: {
      Value l = evalScalar(call.getArgOperand(0), s);
      Value r = evalScalar(call.getArgOperand(1), s);
      if (failed)
        return;
      if (id == llvm::Intrinsic::smax)
        return setS(b.createOrFold<arith::MaxSIOp>(loc, l, r));
      if (id == llvm::Intrinsic::smin)
        return setS(b.createOrFold<arith::MinSIOp>(loc, l, r));
      if (id == llvm::Intrinsic::umax)
        return setS(b.createOrFold<arith::MaxUIOp>(loc, l, r));
      return setS(b.createOrFold<arith::MinUIOp>(loc, l, r));
    }
    case llvm::Intrinsic::abs: {
      Value v = evalScalar(call.getArgOperand(0), s);
      Value zero = cst(v.getType(), 0);
      Value neg = b.createOrFold<arith::SubIOp>(loc, zero, v);
      Value lt = b.createOrFold<arith::CmpIOp>(loc, arith::CmpIPredicate::slt,
                                               v, zero);
      return setS(select(lt, neg, v));
    }
    default:
      break;
    }
    // Pure floating-point math intrinsics stay uninterpreted.
    if (callee->doesNotAccessMemory() && !call.getType()->isVoidTy() &&
        call.getType()->isFloatingPointTy()) {
      llvm::SmallVector<Value> ops;
      for (const llvm::Use &a : call.args())
        ops.push_back(evalScalar(a.get(), s));
      return setS(floatOp(name, ops, typeFor(call.getType())));
    }
    return fail("intrinsic '" + name + "'");
  }
  if (callee->isDeclaration()) {
    // A pure external function (e.g. libdevice math) is deterministic:
    // keep it uninterpreted.
    if (callee->doesNotAccessMemory() && !call.getType()->isVoidTy() &&
        !call.getType()->isPointerTy()) {
      llvm::SmallVector<Value> ops;
      for (const llvm::Use &a : call.args())
        ops.push_back(evalScalar(a.get(), s));
      return setS(floatOp(name, ops, typeFor(call.getType())));
    }
    return fail("call to external function '" + sourceName(name) + "'");
  }
  SymVal r = callFunction(*callee, call, s);
  if (!call.getType()->isVoidTy())
    s.vals[&call] = r;
}

SymVal Lowerer::callFunction(const llvm::Function &callee,
                             const llvm::CallBase &call, State &s) {
  if (++depth > opts.maxInlineDepth) {
    fail("call nesting deeper than " + llvm::Twine(opts.maxInlineDepth) +
         " (recursion?)");
    return {};
  }
  const llvm::Instruction *site = curInst;
  callStack.push_back(&call);
  for (unsigned i = 0; i < callee.arg_size(); ++i)
    s.vals[callee.getArg(i)] = eval(call.getArgOperand(i), s);
  s.ret = SymVal();
  // Block visit counts are per call: a helper called in an unrolled loop is
  // entered once per iteration.
  auto savedVisits = std::move(visits);
  visits.clear();
  runBlocks(&callee.getEntryBlock(), s, nullptr);
  visits = std::move(savedVisits);
  curInst = site;
  callStack.pop_back();
  --depth;
  if (s.dead && !failed)
    fail("call to '" + sourceName(callee.getName()) +
         "' never returns normally");
  return s.ret;
}

FailureOr<KernelOp> Lowerer::run() {
  b.setInsertionPointToEnd(module.getBody());
  std::string sym = f.getName().str();
  kernel = KernelOp::create(b, UnknownLoc::get(ctx), b.getStringAttr(sym),
                            b.getStrArrayAttr({}), StringAttr(), ArrayAttr());
  kernel.setSourceNameAttr(b.getStringAttr(sourceName(f.getName())));
  Block *blk = new Block();
  kernel.getBody().push_back(blk);
  b.setInsertionPointToEnd(blk);

  std::vector<std::string> names = parameterNames(f);
  std::vector<bool> isUnsigned = unsignedParameters(f);
  llvm::SmallVector<llvm::StringRef> unsignedNames;
  for (const llvm::Argument &a : f.args())
    if (isUnsigned[a.getArgNo()] && a.getType()->isIntegerTy())
      unsignedNames.push_back(names[a.getArgNo()]);
  if (!unsignedNames.empty())
    kernel.setUnsignedParamsAttr(b.getStrArrayAttr(unsignedNames));
  for (const llvm::Argument &a : f.args()) {
    const std::string &name = names[a.getArgNo()];
    if (a.getType()->isPointerTy()) {
      if (a.hasByValAttr()) {
        curInst = nullptr;
        fail("by-value struct parameter '" + name + "'");
        break;
      }
      Value arr = blk->addArgument(GlobalArrayType::get(ctx, b.getI8Type()),
                                   UnknownLoc::get(ctx));
      argArrays[&a] = arr;
      SymVal p;
      p.kind = SymVal::ArrayPtr;
      p.array = arr;
      paramVals[&a] = p;
    } else if (a.getType()->isIntegerTy() ||
               a.getType()->isFloatingPointTy()) {
      Value v = blk->addArgument(typeFor(a.getType()), UnknownLoc::get(ctx));
      auto pin = opts.pins.find(name);
      if (pin != opts.pins.end() && a.getType()->isIntegerTy())
        v = arith::ConstantOp::create(
            b, UnknownLoc::get(ctx), v.getType(),
            IntegerAttr::get(v.getType(),
                             llvm::APInt(a.getType()->getIntegerBitWidth(),
                                         (uint64_t)pin->second, true)));
      paramVals[&a] = scalar(v);
    } else {
      fail("parameter '" + name + "' of type " + typeName(a.getType()));
      break;
    }
    argNames.push_back(name);
  }
  if (!failed) {
    State s;
    s.guard = i1(true);
    runBlocks(&f.getEntryBlock(), s, nullptr);
  }
  // Arrays never accessed keep a placeholder element type; give them i32.
  for (BlockArgument a : blk->getArguments())
    if (getArrayElementType(a.getType()) == b.getI8Type() &&
        !arrayElemSize.count(a))
      a.setType(isa<SharedArrayType>(a.getType())
                    ? Type(SharedArrayType::get(ctx, b.getI32Type(), 0))
                    : Type(GlobalArrayType::get(ctx, b.getI32Type())));
  // Shared arrays get their size in elements from the global's type.
  for (auto &[base, arr] : argArrays) {
    auto *gv = dyn_cast<llvm::GlobalVariable>(base);
    auto sh = dyn_cast<SharedArrayType>(arr.getType());
    if (!gv || !sh)
      continue;
    uint64_t bytes =
        f.getParent()->getDataLayout().getTypeAllocSize(gv->getValueType());
    uint64_t es = arrayElemSize.count(arr) ? arrayElemSize[arr] : 4;
    arr.setType(SharedArrayType::get(ctx, sh.getElementType(),
                                     (int64_t)(bytes / es)));
  }
  kernel.setArgNamesAttr(b.getStrArrayAttr(
      llvm::SmallVector<llvm::StringRef>(argNames.begin(), argNames.end())));
  if (failed) {
    if (why.splitOn.empty()) {
      kernel.erase();
      return mlir::failure();
    }
    // Keep the parameters: the caller enumerates the split's cases over
    // them.
    for (Operation &op : llvm::make_early_inc_range(llvm::reverse(*blk))) {
      op.dropAllUses();
      op.erase();
    }
    why.signature = kernel;
    return mlir::failure();
  }
  // Drop expression ops nobody uses (constant folding leaves some behind).
  bool changed = true;
  while (changed) {
    changed = false;
    for (Operation &op : llvm::make_early_inc_range(llvm::reverse(*blk)))
      if (op.use_empty() && isPure(&op)) {
        op.erase();
        changed = true;
      }
  }
  return kernel;
}

} // namespace lowering

mlir::FailureOr<KernelOp> lowerKernel(llvm::Function &f, mlir::ModuleOp module,
                                      Unsupported &why,
                                      const LowerOptions &opts) {
  lowering::Lowerer l(f, module, why, opts);
  return l.run();
}

} // namespace kv
