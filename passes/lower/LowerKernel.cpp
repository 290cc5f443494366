//===- LowerKernel.cpp - Entry point and instructions ---------------------===//
//
// The entry point lowerKernel: the kv.kernel and its arguments, the run of
// the kernel's entry block, and the clean-up after it; and the execution
// of one instruction (exec, which hands arithmetic to LowerValues.cpp,
// integer functions and bit intrinsics to LowerIntegers.cpp and
// memory accesses to LowerMemory.cpp), calls and inlining.
//
//===----------------------------------------------------------------------===//
#include "passes/lower/Lowerer.h"

#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/ProgramStack.h"

#include <functional>
#include <utility>

namespace kv {
namespace lowering {

namespace {
/// The lowering walk's stack (see Lowerer::run): 256 MB of address space,
/// a few hundred thousand nested branches.
constexpr unsigned kLoweringStackBytes = 256u << 20;

/// PTX's conversions between integers and floats (llvm.nvvm.f2i.rn,
/// llvm.nvvm.d2ull.rz.ftz, llvm.nvvm.d2i.hi, ...): pure, and defined
/// exactly by PTX (executor::nativeApply computes them).
bool isNvvmConversion(llvm::StringRef name) {
  if (!name.consume_front("llvm.nvvm."))
    return false;
  auto [from, rest] = name.split('2');
  llvm::StringRef to = rest.split('.').first;
  auto isType = [](llvm::StringRef t) {
    return llvm::is_contained({"f", "d", "i", "ui", "ll", "ull"}, t);
  };
  return !rest.empty() && isType(from) && isType(to);
}

} // namespace

const llvm::DILocation *Lowerer::userLocation(const llvm::Instruction &inst) {
  const llvm::DILocation *inner = inst.getDebugLoc().get();
  const llvm::DISubprogram *sp = f.getSubprogram();
  if (!inner || !sp)
    return inner;
  // Innermost first: the instruction's inlining chain, then the calls the
  // lowering is inside of, each with its own chain.
  auto inKernelFile = [&](const llvm::DILocation *l) {
    for (; l; l = l->getInlinedAt())
      if (l->getFilename() == sp->getFilename())
        return l;
    return (const llvm::DILocation *)nullptr;
  };
  if (const llvm::DILocation *l = inKernelFile(inner))
    return l;
  for (auto it = callStack.rbegin(); it != callStack.rend(); ++it)
    if (const llvm::DILocation *l = inKernelFile((*it)->getDebugLoc().get()))
      return l;
  return inner;
}

void Lowerer::exec(const llvm::Instruction &inst, State &s) {
  // A constant expression evaluated as an instruction has no parent: keep
  // the instruction that uses it as the site diagnostics name.
  if (inst.getParent() || !curInst)
    curInst = &inst;
  if (const llvm::DILocation *dl = userLocation(inst))
    loc = FileLineColLoc::get(ctx, dl->getFilename(), dl->getLine(),
                              dl->getColumn());
  if (inst.getType()->isVectorTy()) {
    fail("vector operation");
    return;
  }
  auto set = [&](SymVal v) { s.vals[&inst] = std::move(v); };
  auto setS = [&](Value v) { s.vals[&inst] = scalar(v); };

  if (isa<llvm::ExtractValueInst>(inst) || isa<llvm::InsertValueInst>(inst))
    return execAggregateOp(inst, s);
  // Arithmetic on an unknown value (inline assembly's result) is unknown:
  // cooperative groups' this_grid() combines two such registers into a
  // pointer that only grid.sync() uses.
  if (isa<llvm::BinaryOperator, llvm::UnaryOperator, llvm::CmpInst,
          llvm::CastInst, llvm::SelectInst, llvm::FreezeInst>(inst))
    for (const llvm::Use &u : inst.operands())
      if (isa<llvm::Instruction, llvm::Argument>(u.get()))
        if (SymVal v = eval(u.get(), s); v.kind == SymVal::Opaque)
          return set(v);
  if (auto *bo = dyn_cast<llvm::BinaryOperator>(&inst))
    return execBinary(bo, s);
  if (auto *un = dyn_cast<llvm::UnaryOperator>(&inst)) {
    Value v = evalScalar(un->getOperand(0), s);
    if (un->getOpcode() == llvm::Instruction::FNeg)
      return setS(floatOp("fneg", {v}, v.getType()));
    return fail(llvm::Twine("instruction '") + inst.getOpcodeName() + "'");
  }
  if (auto *cmp = dyn_cast<llvm::ICmpInst>(&inst))
    return execICmp(cmp, s);
  if (auto *fc = dyn_cast<llvm::FCmpInst>(&inst)) {
    Value l = evalScalar(fc->getOperand(0), s);
    Value r = evalScalar(fc->getOperand(1), s);
    std::string fn =
        ("fcmp." + llvm::CmpInst::getPredicateName(fc->getPredicate())).str();
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
  if (auto *cast = dyn_cast<llvm::CastInst>(&inst))
    return execCast(cast, s);
  if (auto *fr = dyn_cast<llvm::FreezeInst>(&inst))
    return set(eval(fr->getOperand(0), s));
  if (isa<llvm::PHINode>(inst))
    return; // resolved on the edge
  if (auto *al = dyn_cast<llvm::AllocaInst>(&inst)) {
    SymVal p;
    p.kind = SymVal::PrivPtr;
    p.obj = nextObj++;
    if (!al->isArrayAllocation())
      objTypes[p.obj] = al->getAllocatedType();
    return set(p);
  }
  if (auto *gep = dyn_cast<llvm::GetElementPtrInst>(&inst))
    return execGEP(gep, s);
  if (auto *ld = dyn_cast<llvm::LoadInst>(&inst))
    return execLoad(ld, s);
  if (auto *st = dyn_cast<llvm::StoreInst>(&inst))
    return execStore(st, s);
  if (auto *call = dyn_cast<llvm::CallBase>(&inst))
    return execCall(*call, s);
  if (auto *rmw = dyn_cast<llvm::AtomicRMWInst>(&inst))
    return execAtomicRMW(rmw, s);
  // A fence orders this thread's accesses as other threads see them: it
  // synchronizes nothing by itself, and the model's threads (race free
  // within a barrier interval, or checked so) see no order to keep.
  if (isa<llvm::FenceInst>(inst))
    return;
  if (isa<llvm::AtomicCmpXchgInst>(inst))
    return fail(llvm::Twine("atomic operation '") + inst.getOpcodeName() + "'");
  fail(llvm::Twine("instruction '") + inst.getOpcodeName() + "'");
}

/// Bit-counting and bit-moving intrinsics, spelled out in shifts, masks
/// and selects over the value's bits (which the encoder and the replay
/// already compute exactly). ctlz/cttz of 0 give the width, a valid choice
/// where LLVM makes it poison.
void Lowerer::initConstantTables(const llvm::Function &fn, State &s) {
  // Globals that fixed contents make constants: not written by the host
  // (__constant__ variables are externally initialized) and not shared.
  // A global of this module alone that its code only reads is one too
  // (libdevice's __cudart_i2opi_f before -O2 marks it constant).
  std::function<bool(const llvm::Value *)> onlyRead =
      [&](const llvm::Value *v) {
        for (const llvm::User *u : v->users()) {
          if (auto *ld = dyn_cast<llvm::LoadInst>(u)) {
            if (ld->isVolatile() || ld->isAtomic())
              return false;
            continue;
          }
          bool address = isa<llvm::GEPOperator>(u) ||
                         isa<llvm::BitCastOperator>(u) ||
                         isa<llvm::AddrSpaceCastOperator>(u);
          if (!address || !onlyRead(u))
            return false;
        }
        return true;
      };
  auto isTable = [&](const llvm::GlobalVariable &gv) {
    return (gv.isConstant() || (gv.hasLocalLinkage() && onlyRead(&gv))) &&
           gv.hasDefinitiveInitializer() && !gv.isExternallyInitialized() &&
           gv.getAddressSpace() != 3 && gv.getValueType()->isSized();
  };
  llvm::SmallPtrSet<const llvm::Function *, 8> seenFns;
  llvm::SmallPtrSet<const llvm::Constant *, 32> seenConsts;
  llvm::SmallVector<const llvm::GlobalVariable *> tables;
  std::function<void(const llvm::Constant *)> visitConst =
      [&](const llvm::Constant *c) {
        if (!seenConsts.insert(c).second)
          return;
        if (auto *gv = dyn_cast<llvm::GlobalVariable>(c)) {
          if (isTable(*gv))
            tables.push_back(gv);
          return;
        }
        if (isa<llvm::ConstantExpr>(c) || isa<llvm::ConstantAggregate>(c))
          for (const llvm::Use &u : c->operands())
            visitConst(cast<llvm::Constant>(u.get()));
      };
  std::function<void(const llvm::Function &)> visitFn =
      [&](const llvm::Function &g) {
        if (!seenFns.insert(&g).second)
          return;
        for (const llvm::Instruction &i : llvm::instructions(g)) {
          for (const llvm::Use &u : i.operands())
            if (auto *c = dyn_cast<llvm::Constant>(u.get()))
              visitConst(c);
          if (auto *call = dyn_cast<llvm::CallBase>(&i))
            if (const llvm::Function *callee = call->getCalledFunction())
              if (!callee->isDeclaration())
                visitFn(*callee);
        }
      };
  visitFn(fn);
  const llvm::DataLayout &dl = f.getParent()->getDataLayout();
  for (const llvm::GlobalVariable *gv : tables) {
    llvm::Type *ty = gv->getValueType();
    const llvm::Constant *init = gv->getInitializer();
    // A table too large to spell out stays an input array (any contents).
    if (dl.getTypeAllocSize(ty) > 4096)
      continue;
    llvm::SmallVector<std::pair<uint64_t, llvm::Type *>> leaves;
    if (ty->isAggregateType())
      leaves = aggregateLeaves(ty);
    else
      leaves.push_back({0, ty});
    SymVal agg = ty->isAggregateType() ? constantAggregate(init, s)
                                       : evalConstant(init, s);
    if (failed)
      return;
    unsigned obj = nextObj++;
    objTypes[obj] = ty;
    constTables[gv] = obj;
    for (size_t i = 0; i < leaves.size(); ++i) {
      PrivStore ps;
      ps.obj = obj;
      ps.off.constant = (int64_t)leaves[i].first;
      ps.size = dl.getTypeStoreSize(leaves[i].second);
      ps.val = ty->isAggregateType() ? agg.parts[i] : agg;
      ps.guard = s.guard;
      s.stores.push_back(ps);
    }
  }
}

void Lowerer::execCall(const llvm::CallBase &call, State &s) {
  const llvm::Function *callee = call.getCalledFunction();
  if (std::optional<LaneRegister> r = laneRegisterAsm(call)) {
    s.vals[&call] = scalar(laneRegister(*r));
    return;
  }
  if (llvm::StringRef op = exactInlinePtx(call); !op.empty()) {
    Value a = evalScalar(call.getArgOperand(0), s);
    if (!failed)
      s.vals[&call] = scalar(exactPtx(op, a));
    return;
  }
  if (isWideMadInlinePtx(call)) {
    // {lo, hi} of a * b + c in 64 bits.
    Type i64 = b.getI64Type(), i32 = b.getI32Type();
    Value w[3];
    for (unsigned i = 0; i < 3; ++i)
      w[i] = b.createOrFold<arith::ExtUIOp>(
          loc, i64, evalScalar(call.getArgOperand(i), s));
    if (failed)
      return;
    Value sum = b.createOrFold<arith::AddIOp>(
        loc, b.createOrFold<arith::MulIOp>(loc, w[0], w[1]), w[2]);
    Value hi = b.createOrFold<arith::ShRUIOp>(loc, sum, cst(i64, 32));
    SymVal r;
    r.kind = SymVal::Aggregate;
    r.parts = {scalar(b.createOrFold<arith::TruncIOp>(loc, i32, sum)),
               scalar(b.createOrFold<arith::TruncIOp>(loc, i32, hi))};
    s.vals[&call] = r;
    return;
  }
  if (!callee && call.isInlineAsm()) {
    // One PTX instruction of its operands alone (libdevice's
    // `rcp.approx.ftz.f32 $0,$1;`): uninterpreted, named by its text, so
    // that the same instruction in both kernels is the same term.
    if (!pureInlineAsm(call)) {
      // Without effects (a special register's read: cooperative groups'
      // reserved shared memory), its result is unknown; nothing else is.
      const auto *asmOp = cast<llvm::InlineAsm>(call.getCalledOperand());
      if (asmOp->hasSideEffects() || !call.doesNotAccessMemory() ||
          call.getType()->isVoidTy())
        return fail("inline assembly");
      SymVal v;
      v.kind = SymVal::Opaque;
      v.origin = &call;
      s.vals[&call] = v;
      return;
    }
    llvm::SmallVector<Value> ops;
    for (const llvm::Use &a : call.args())
      ops.push_back(evalScalar(a.get(), s));
    if (failed)
      return;
    const auto *asmOp = cast<llvm::InlineAsm>(call.getCalledOperand());
    s.vals[&call] = scalar(floatOp(
        ("asm:" + asmOp->getAsmString() + ":" + asmOp->getConstraintString())
            .str(),
        ops, typeFor(call.getType())));
    return;
  }
  if (!callee && !call.isInlineAsm())
    return execIndirectCall(call, s);
  if (!callee)
    return fail("inline assembly");
  llvm::StringRef name = callee->getName();
  if (name.contains("grid_group4sync") || name.contains("details4grid4sync"))
    return fail("grid-wide barrier (cooperative groups' grid.sync()): the "
                "model has one block's barriers");
  auto setS = [&](Value v) { s.vals[&call] = scalar(v); };
  // A trap or a failed assert ends the launch with an error: the paths that
  // reach one are not launches the kernel computes a result for, like
  // `unreachable` (`assert(n % 32 == 0)` is a precondition).
  if (name == "llvm.trap" || name == "__assertfail") {
    if (!isFalse(s.guard)) {
      auto a = AssumeOp::create(b, loc, notI1(s.guard), /*bound=*/nullptr,
                                /*ub=*/true);
      a->setAttr("trap", b.getUnitAttr());
    }
    s.dead = true;
    trapped = true;
    return;
  }
  // A pure function of its operands: one uninterpreted operation.
  auto uninterpreted = [&] {
    llvm::SmallVector<Value> ops;
    for (const llvm::Use &a : call.args())
      ops.push_back(evalScalar(a.get(), s));
    setS(floatOp(exactNvvmName(name), ops, typeFor(call.getType())));
  };
  // libdevice asks NVVMReflect for the target's settings.
  if (name == "__nvvm_reflect") {
    llvm::StringRef what;
    if (!llvm::getConstantStringInfo(call.getArgOperand(0), what))
      return fail("__nvvm_reflect of a string that is not a constant");
    return setS(
        cst(typeFor(call.getType()), nvvmReflect(what, *call.getFunction())));
  }
  if (callee->isIntrinsic()) {
    llvm::Intrinsic::ID id = callee->getIntrinsicID();
    if (name.starts_with("llvm.nvvm.read.ptx.sreg.")) {
      llvm::StringRef reg = name.drop_front(strlen("llvm.nvvm.read.ptx.sreg."));
      static const std::pair<const char *, SRegGroup> map[] = {
          {"tid.", SRegGroup::Tid},
          {"ntid.", SRegGroup::BDim},
          {"ctaid.", SRegGroup::Bid},
          {"nctaid.", SRegGroup::GDim}};
      for (auto [from, to] : map)
        if (reg.starts_with(from) && reg.size() == strlen(from) + 1 &&
            reg.back() >= 'x' && reg.back() <= 'z')
          return setS(sreg(to, reg.back() - 'x'));
      if (reg == "warpsize")
        return setS(cst(b.getI32Type(), 32));
      if (reg == "laneid")
        return setS(laneId());
      if (reg == "warpid")
        return fail("special register 'warpid' (the warp's hardware slot, "
                    "which may change; threadIdx.x / 32 is the warp in the "
                    "block)");
      return fail("special register '" + reg + "'");
    }
    if (auto *mi = dyn_cast<llvm::MemIntrinsic>(&call))
      return execMemIntrinsic(*mi, s);
    if (isReduxIntrinsic(id))
      return execRedux(call, id, s);
    switch (id) {
    case llvm::Intrinsic::nvvm_barrier_cta_sync_aligned_all:
    case llvm::Intrinsic::nvvm_barrier_cta_sync_all: {
      // The id may come through a variable (clang's __barrier_sync(id) at
      // -O0, which cooperative groups' sync() calls with 0).
      Value id = evalScalar(call.getArgOperand(0), s);
      if (failed)
        return;
      if (!matchPattern(id, m_Zero()))
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
    case llvm::Intrinsic::nvvm_membar_cta:
    case llvm::Intrinsic::nvvm_membar_gl:
    case llvm::Intrinsic::nvvm_membar_sys:
      return; // __threadfence*: a fence (above).
    case llvm::Intrinsic::nvvm_shfl_sync_up_i32:
    case llvm::Intrinsic::nvvm_shfl_sync_up_f32:
      return execShuffle(call, ShuffleMode::Up, s);
    case llvm::Intrinsic::nvvm_shfl_sync_down_i32:
    case llvm::Intrinsic::nvvm_shfl_sync_down_f32:
      return execShuffle(call, ShuffleMode::Down, s);
    case llvm::Intrinsic::nvvm_shfl_sync_bfly_i32:
    case llvm::Intrinsic::nvvm_shfl_sync_bfly_f32:
      return execShuffle(call, ShuffleMode::Xor, s);
    case llvm::Intrinsic::nvvm_shfl_sync_idx_i32:
    case llvm::Intrinsic::nvvm_shfl_sync_idx_f32:
      return execShuffle(call, ShuffleMode::Index, s);
    case llvm::Intrinsic::nvvm_bar_warp_sync: {
      // __syncwarp(mask): a barrier for the threads of one warp.
      if (!symLoops.empty())
        return fail("__syncwarp in a loop with a symbolic trip count");
      Value mask = evalScalar(call.getArgOperand(0), s);
      if (failed)
        return;
      BarrierOp::create(b, loc, isTrue(s.guard) ? Value() : s.guard,
                        /*warp=*/true, mask);
      ownWrites.clear();
      loopWritten.clear();
      return;
    }
    case llvm::Intrinsic::nvvm_vote_ballot_sync:
    case llvm::Intrinsic::nvvm_vote_any_sync:
    case llvm::Intrinsic::nvvm_vote_all_sync:
    case llvm::Intrinsic::nvvm_vote_uni_sync:
    case llvm::Intrinsic::nvvm_activemask:
    case llvm::Intrinsic::nvvm_vote_ballot:
    case llvm::Intrinsic::nvvm_vote_any:
    case llvm::Intrinsic::nvvm_vote_all:
    case llvm::Intrinsic::nvvm_vote_uni:
      return execVote(call, id, s);
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
    case llvm::Intrinsic::nvvm_mul24_i:
    case llvm::Intrinsic::nvvm_mul24_ui:
    case llvm::Intrinsic::nvvm_sad_i:
    case llvm::Intrinsic::nvvm_sad_ui:
    case llvm::Intrinsic::nvvm_prmt: {
      // PTX integer operations libdevice's bodies leave after -O2 inlines
      // them: the same definitions as their __nv_ functions.
      llvm::SmallVector<Value> ops;
      for (const llvm::Use &a : call.args())
        ops.push_back(evalScalar(a.get(), s));
      if (failed)
        return;
      if (Value v = libdeviceInteger(ptxIntegerName(id), ops))
        return setS(v);
      return fail("intrinsic '" + name + "'");
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
    case llvm::Intrinsic::ctpop:
    case llvm::Intrinsic::ctlz:
    case llvm::Intrinsic::cttz:
    case llvm::Intrinsic::bitreverse:
    case llvm::Intrinsic::bswap:
    case llvm::Intrinsic::fshl:
    case llvm::Intrinsic::fshr: {
      llvm::SmallVector<Value> ops;
      for (unsigned i = 0; i < call.arg_size(); ++i)
        if (call.getArgOperand(i)->getType()->isIntegerTy() &&
            !(i == 1 &&
              (id == llvm::Intrinsic::ctlz || id == llvm::Intrinsic::cttz)))
          ops.push_back(evalScalar(call.getArgOperand(i), s));
      if (failed)
        return;
      return setS(bitIntrinsic(id, ops));
    }
    // A double's halves and a double made of two: bits, exactly (libdevice's
    // exp and log take doubles apart so; -O2 folds some of it).
    case llvm::Intrinsic::nvvm_d2i_lo:
    case llvm::Intrinsic::nvvm_d2i_hi: {
      Value v = evalScalar(call.getArgOperand(0), s);
      if (failed)
        return;
      if (id == llvm::Intrinsic::nvvm_d2i_hi)
        v = b.createOrFold<arith::ShRUIOp>(loc, v, cst(v.getType(), 32));
      return setS(b.createOrFold<arith::TruncIOp>(loc, b.getI32Type(), v));
    }
    case llvm::Intrinsic::nvvm_lohi_i2d: {
      Value lo = evalScalar(call.getArgOperand(0), s);
      Value hi = evalScalar(call.getArgOperand(1), s);
      if (failed)
        return;
      Type i64 = b.getI64Type();
      Value h = b.createOrFold<arith::ShLIOp>(
          loc, b.createOrFold<arith::ExtUIOp>(loc, i64, hi), cst(i64, 32));
      return setS(b.createOrFold<arith::OrIOp>(
          loc, h, b.createOrFold<arith::ExtUIOp>(loc, i64, lo)));
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
    // Pure floating-point math intrinsics stay uninterpreted, and so do
    // PTX's conversions to integers (f2i.rn, d2i.hi, ...: libdevice's
    // __float2int_rn): functions of their operands alone.
    if (callee->doesNotAccessMemory() && !call.getType()->isVoidTy() &&
        (call.getType()->isFloatingPointTy() ||
         (call.getType()->isIntegerTy() && isNvvmConversion(name) &&
          call.arg_size() > 0))) {
      return uninterpreted();
    }
    return fail("intrinsic '" + name + "'");
  }
  // libdevice's integer functions have exact definitions (-O2 inlines the
  // SDK's bodies into the same intrinsics).
  if (name.starts_with("__nv_") && call.getType()->isIntegerTy() &&
      llvm::all_of(call.args(), [](const llvm::Use &a) {
        return a->getType()->isIntegerTy();
      })) {
    llvm::SmallVector<Value> ops;
    for (const llvm::Use &a : call.args())
      ops.push_back(evalScalar(a.get(), s));
    if (failed)
      return;
    if (Value v = libdeviceInteger(name, ops))
      return setS(v);
  }
  // libdevice's math (__nv_sinf, __nv_expf, ...) is a pure function of its
  // operands: with the CUDA SDK its body is in the module, and -O2 inlines
  // it, so the lowering follows it where it can (straight-line bodies);
  // otherwise, and without the SDK, it is uninterpreted.
  if (name.starts_with("__nv_") && !callee->isDeclaration() &&
      followLibdevice(*callee)) {
    SymVal r = callFunction(*callee, call, s);
    if (!call.getType()->isVoidTy())
      s.vals[&call] = r;
    return;
  }
  if (name.starts_with("__nv_") && !call.getType()->isVoidTy() &&
      (call.getType()->isFloatingPointTy() || call.getType()->isIntegerTy()) &&
      llvm::all_of(call.args(), [](const llvm::Use &a) {
        return a->getType()->isFloatingPointTy() || a->getType()->isIntegerTy();
      })) {
    return uninterpreted();
  }
  if (callee->isDeclaration()) {
    // A pure external function (e.g. libdevice math) is deterministic:
    // keep it uninterpreted.
    if (callee->doesNotAccessMemory() && !call.getType()->isVoidTy() &&
        !call.getType()->isPointerTy()) {
      return uninterpreted();
    }
    // A device function defined in another translation unit, of scalars to
    // a scalar: a function of its operands (an assumption the verdict
    // lists, by the name `extern:` gives it). With pointers, or no result,
    // what it does to memory is unknown.
    auto scalar = [](llvm::Type *t) {
      return t->isIntegerTy() || t->isFloatTy() || t->isDoubleTy();
    };
    if (scalar(call.getType()) &&
        llvm::all_of(call.args(), [&](const llvm::Use &a) {
          return scalar(a->getType());
        })) {
      llvm::SmallVector<Value> ops;
      for (const llvm::Use &a : call.args())
        ops.push_back(evalScalar(a.get(), s));
      if (!failed)
        setS(floatOp(("extern:" + name).str(), ops, typeFor(call.getType())));
      return;
    }
    return fail("call to external function '" + sourceName(name) +
                "' that takes or returns a pointer, or returns nothing "
                "(what it does to memory is unknown)");
  }
  SymVal r = callFunction(*callee, call, s);
  if (!call.getType()->isVoidTy())
    s.vals[&call] = r;
}

void Lowerer::execIndirectCall(const llvm::CallBase &call, State &s) {
  SymVal target = eval(call.getCalledOperand(), s);
  if (failed)
    return;
  if (target.kind != SymVal::FnPtr)
    return fail("call through a pointer to a function the model cannot "
                "name (a parameter, or loaded from memory the host may "
                "write)");
  // One call per target, each under the condition that it is the one, as
  // the branches of a switch over the targets would be.
  Value outer = s.guard;
  SymVal result;
  for (auto &[fn, when] : target.fns) {
    if (isFalse(when))
      continue;
    if (fn->isDeclaration() || fn->getFunctionType() != call.getFunctionType())
      return fail("call through a pointer to '" + sourceName(fn->getName()) +
                  "', " +
                  (fn->isDeclaration() ? "which has no body here"
                                       : "whose type is not the call's"));
    s.guard = andI1(outer, when);
    SymVal r = callFunction(*fn, call, s);
    s.guard = outer;
    if (failed)
      return;
    result = result.kind == SymVal::None ? r : mergeVal(r, result, when);
  }
  if (!call.getType()->isVoidTy())
    s.vals[&call] = result;
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
  // The caller's own return value is not the callee's: a callee's left
  // behind would meet another's where the caller's paths merge.
  SymVal callerRet = std::move(s.ret);
  s.ret = SymVal();
  // Block visit counts are per call: a helper called in an unrolled loop is
  // entered once per iteration.
  auto savedVisits = std::move(visits);
  visits.clear();
  bool trappedBefore = trapped;
  trapped = false;
  runBlocks(&callee.getEntryBlock(), s, nullptr);
  visits = std::move(savedVisits);
  curInst = site;
  callStack.pop_back();
  --depth;
  // A helper that always traps (clang's __assert_fail): the caller's path
  // ends there too, excluded like the trap's own.
  bool calleeTrapped = trapped;
  trapped = trappedBefore || calleeTrapped;
  if (s.dead && !failed && !calleeTrapped)
    fail("call to '" + sourceName(callee.getName()) +
         "' never returns normally");
  return std::exchange(s.ret, std::move(callerRet));
}

/// The functions \p f calls, directly or not, with \p f.
static llvm::SmallVector<const llvm::Function *>
reachableFunctions(const llvm::Function &f) {
  llvm::SmallVector<const llvm::Function *> out{&f};
  llvm::SmallPtrSet<const llvm::Function *, 8> seen{&f};
  for (size_t i = 0; i < out.size(); ++i)
    for (const llvm::Instruction &inst : llvm::instructions(*out[i]))
      if (auto *call = dyn_cast<llvm::CallBase>(&inst))
        if (const llvm::Function *callee = call->getCalledFunction())
          if (!callee->isDeclaration() && seen.insert(callee).second)
            out.push_back(callee);
  return out;
}

std::vector<const llvm::GlobalVariable *>
Lowerer::sharedVariablesOf(const llvm::Function &f) {
  std::vector<const llvm::GlobalVariable *> out;
  llvm::SmallPtrSet<const llvm::GlobalVariable *, 8> seen;
  for (const llvm::Function *fn : reachableFunctions(f))
    for (const llvm::Instruction &inst : llvm::instructions(*fn))
      for (const llvm::Value *op : inst.operands()) {
        auto *gv = dyn_cast<llvm::GlobalVariable>(
            llvm::getUnderlyingObject(op->stripPointerCasts()));
        if (gv && gv->getAddressSpace() == 3 && seen.insert(gv).second)
          out.push_back(gv);
      }
  return out;
}

/// The narrowest access (load, store) in bytes through each pointer
/// parameter ("#N") and __shared__ variable (its kv name) of \p f and its
/// callees: the element sizes of a signature's arrays.
static std::map<std::string, unsigned> accessBytes(const llvm::Function &f) {
  std::map<std::string, unsigned> out;
  const llvm::DataLayout &dl = f.getParent()->getDataLayout();
  for (const llvm::Function *fn : reachableFunctions(f))
    for (const llvm::Instruction &inst : llvm::instructions(*fn)) {
      const llvm::Value *ptr = llvm::getLoadStorePointerOperand(&inst);
      if (!ptr)
        continue;
      llvm::Type *ty =
          isa<llvm::LoadInst>(inst)
              ? inst.getType()
              : cast<llvm::StoreInst>(inst).getValueOperand()->getType();
      uint64_t bytes = dl.getTypeStoreSize(ty).getKnownMinValue();
      if (bytes == 0 || bytes > 8 || (bytes & (bytes - 1)))
        continue;
      const llvm::Value *base = llvm::getUnderlyingObject(ptr);
      std::string key;
      if (auto *a = dyn_cast<llvm::Argument>(base);
          a && a->getParent() == &f && !a->hasByValAttr())
        key = "#" + std::to_string(kvParamIndex(*a));
      else if (auto *gv = dyn_cast<llvm::GlobalVariable>(base);
               gv && gv->getAddressSpace() == 3)
        key = variableName(gv->getName());
      else
        continue;
      auto [it, fresh] = out.try_emplace(key, (unsigned)bytes);
      if (!fresh)
        it->second = std::min(it->second, (unsigned)bytes);
    }
  return out;
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
  // A pointer parameter is a global array; an integer or float, a scalar
  // (or the constant a case pins it to).
  auto arrayParam = [&]() {
    Value arr = blk->addArgument(GlobalArrayType::get(ctx, b.getI8Type()),
                                 UnknownLoc::get(ctx));
    arrayKeys[arr] = "#" + std::to_string(blk->getNumArguments() - 1);
    SymVal p;
    p.kind = SymVal::ArrayPtr;
    p.array = arr;
    return p;
  };
  auto scalarParam = [&](llvm::Type *ty, const std::string &name) {
    Value v = blk->addArgument(typeFor(ty), UnknownLoc::get(ctx));
    auto pin = opts.pins.find(name);
    if (pin != opts.pins.end() && ty->isIntegerTy())
      v = arith::ConstantOp::create(
          b, UnknownLoc::get(ctx), v.getType(),
          IntegerAttr::get(v.getType(),
                           llvm::APInt(ty->getIntegerBitWidth(),
                                       (uint64_t)pin->second, true)));
    return scalar(v);
  };
  // A by-value struct or array is the thread's own copy of its scalars,
  // each a kv parameter: private memory that holds them at its entry.
  std::vector<PrivStore> byValCopies;
  FieldNames fields;
  for (const llvm::Argument &a : f.args())
    if (a.hasByValAttr() && !fields)
      fields = sourceFieldNames(f);
  for (const llvm::Argument &a : f.args()) {
    const std::string &name = names[a.getArgNo()];
    if (auto leaves = byValLeaves(a, fields)) {
      if (leaves->empty()) {
        curInst = nullptr;
        fail("by-value parameter '" + name + "' of type " +
             typeName(a.getParamByValType()) +
             " (a field of another kind than integer, float and pointer, "
             "or more than 64 of them)");
        break;
      }
      SymVal copy;
      copy.kind = SymVal::PrivPtr;
      copy.obj = nextObj++;
      objTypes[copy.obj] = a.getParamByValType();
      const llvm::DataLayout &dl = f.getParent()->getDataLayout();
      for (const ByValLeaf &leaf : *leaves) {
        std::string leafName = name + leaf.path;
        PrivStore ps;
        ps.obj = copy.obj;
        ps.off.constant = (int64_t)leaf.offset;
        ps.size = dl.getTypeStoreSize(leaf.type);
        ps.val = leaf.type->isPointerTy() ? arrayParam()
                                          : scalarParam(leaf.type, leafName);
        byValCopies.push_back(ps);
        argNames.push_back(leafName);
      }
      paramVals[&a] = copy;
      continue;
    }
    if (a.getType()->isPointerTy()) {
      paramVals[&a] = arrayParam();
      argArrays[&a] = paramVals[&a].array;
    } else if (a.getType()->isIntegerTy() || a.getType()->isFloatingPointTy()) {
      paramVals[&a] = scalarParam(a.getType(), name);
    } else {
      fail("parameter '" + name + "' of type " + typeName(a.getType()));
      break;
    }
    argNames.push_back(name);
  }
  if (!failed && opts.signatureOnly) {
    for (const llvm::GlobalVariable *gv : sharedVariablesOf(f))
      arrayFor(gv);
  } else if (!failed) {
    State s;
    s.guard = i1(true);
    for (PrivStore &ps : byValCopies) {
      ps.guard = s.guard;
      s.stores.push_back(ps);
    }
    initConstantTables(f, s);
    // The walk recurses at each branch until its join, and a loop's exit
    // test is such a branch: its depth grows with the iterations unrolled
    // (thousands, up to maxBlockVisits per block). On a stack of its own,
    // reserved rather than committed, so that it cannot overflow the
    // caller's (clang's main thread in the plugin).
    llvm::runOnNewStack(kLoweringStackBytes,
                        [&] { runBlocks(&f.getEntryBlock(), s, nullptr); });
  }
  // Arrays never accessed keep a placeholder element type; give them i32
  // (or the other kernel's type).
  for (BlockArgument a : blk->getArguments())
    if (getArrayElementType(a.getType()) == b.getI8Type() &&
        !arrayElemSize.count(a)) {
      unsigned bytes = 4;
      auto hint = opts.elemBytes.find(arrayKeys.lookup(a));
      if (hint != opts.elemBytes.end())
        bytes = hint->second;
      Type et = b.getIntegerType(8 * bytes);
      a.setType(isa<SharedArrayType>(a.getType())
                    ? Type(SharedArrayType::get(ctx, et, 0))
                    : Type(GlobalArrayType::get(ctx, et)));
      arrayElemSize[a] = bytes;
    }
  // Shared arrays get their size in elements from the global's type.
  for (auto &[base, arr] : argArrays) {
    auto *gv = dyn_cast<llvm::GlobalVariable>(base);
    auto sh = dyn_cast<SharedArrayType>(arr.getType());
    if (!gv || !sh)
      continue;
    uint64_t bytes =
        f.getParent()->getDataLayout().getTypeAllocSize(gv->getValueType());
    uint64_t es = arrayElemSize.count(arr) ? arrayElemSize[arr] : 4;
    arr.setType(
        SharedArrayType::get(ctx, sh.getElementType(), (int64_t)(bytes / es)));
  }
  kernel.setArgNamesAttr(b.getStrArrayAttr(
      llvm::SmallVector<llvm::StringRef>(argNames.begin(), argNames.end())));
  if (!failed)
    checkAtomicOlds(*blk);
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
  // LowerOptions::modelConstantLoops: a constant loop the model did not
  // take was unrolled after all (kConstantLoopsUnrolledAttr).
  if (!optionModelFailed.empty())
    kernel->setAttr(kConstantLoopsUnrolledAttr, b.getUnitAttr());
  return kernel;
}

} // namespace lowering

mlir::FailureOr<KernelOp> lowerKernel(llvm::Function &f, mlir::ModuleOp module,
                                      Unsupported &why,
                                      const LowerOptions &opts) {
  // An array accessed with a narrower element than at its first access
  // (a struct's fields after a whole-struct copy) restarts the lowering
  // with that element size; each restart narrows one array.
  LowerOptions o = opts;
  if (o.signatureOnly)
    for (auto &[key, bytes] : lowering::accessBytes(f))
      o.elemBytes.try_emplace(key, bytes);
  for (unsigned attempt = 0;; ++attempt) {
    Unsupported u;
    lowering::Lowerer l(f, module, u, o);
    mlir::FailureOr<KernelOp> k = l.run();
    auto hint = o.elemBytes.find(u.retypeKey);
    if (mlir::succeeded(k) || u.retypeKey.empty() || attempt == 16 ||
        (hint != o.elemBytes.end() && hint->second <= u.retypeBytes)) {
      why = u;
      return k;
    }
    o.elemBytes[u.retypeKey] = u.retypeBytes;
  }
}

std::map<std::string, unsigned> arrayElemBytes(KernelOp k, unsigned numParams) {
  std::map<std::string, unsigned> out;
  for (mlir::BlockArgument a : k.getBlock().getArguments()) {
    mlir::Type t = a.getType();
    if (!mlir::isa<SharedArrayType, GlobalArrayType>(t))
      continue;
    unsigned i = a.getArgNumber();
    std::string key = !mlir::isa<SharedArrayType>(t) && i < numParams
                          ? "#" + std::to_string(i)
                          : k.getArgName(i).str();
    out[key] = getArrayElementType(t).getIntOrFloatBitWidth() / 8;
  }
  return out;
}

} // namespace kv
