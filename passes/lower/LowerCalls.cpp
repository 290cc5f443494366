//===- LowerCalls.cpp - Calls: intrinsics, libdevice, device functions ----===//
//
// A call's lowering: special registers, exact inline PTX, barriers, fences,
// warp shuffles and votes, math intrinsics (uninterpreted or exact),
// libdevice (its integer functions by definition, its straight-line bodies
// followed), device functions inlined, device functions defined elsewhere
// (uninterpreted), and calls through pointers to known functions.
//
//===----------------------------------------------------------------------===//
#include "passes/lower/Lowerer.h"

#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/Module.h"

#include <utility>

namespace kv {
namespace lowering {

namespace {
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

void Lowerer::gridBarrier(State &s) {
  if (!symLoops.empty())
    return fail("grid-wide barrier (grid.sync()) in a loop with a symbolic "
                "trip count");
  BarrierOp::create(b, loc, isTrue(s.guard) ? Value() : s.guard,
                    /*warp=*/false, /*mask=*/Value(), /*grid=*/true);
  ownWrites.clear();
  loopWritten.clear();
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
    const auto *text = cast<llvm::InlineAsm>(call.getCalledOperand());
    std::string name =
        ("asm:" + text->getAsmString() + ":" + text->getConstraintString())
            .str();
    // A texture fetch: each result an uninterpreted function of the
    // texture and the coordinates (one texture, one point: one texel,
    // filtered as the texture says).
    if (isTextureFetchAsm(call)) {
      llvm::SmallVector<Value> ops;
      for (const llvm::Use &a : call.args())
        ops.push_back(evalScalar(a.get(), s));
      if (failed)
        return;
      auto *st = dyn_cast<llvm::StructType>(call.getType());
      if (!st) {
        s.vals[&call] = scalar(floatOp(name, ops, typeFor(call.getType())));
        return;
      }
      SymVal r;
      r.kind = SymVal::Aggregate;
      for (unsigned i = 0; i < st->getNumElements(); ++i)
        r.parts.push_back(scalar(floatOp(name + "#" + std::to_string(i), ops,
                                         typeFor(st->getElementType(i)))));
      s.vals[&call] = r;
      return;
    }
    // One PTX instruction of its operands alone (libdevice's
    // `rcp.approx.ftz.f32 $0,$1;`): uninterpreted, named by its text, so
    // that the same instruction in both kernels is the same term.
    if (!pureInlineAsm(call)) {
      // Without effects (a special register's read: cooperative groups'
      // reserved shared memory), its result is unknown; nothing else is.
      // The atomics of an inlined grid.sync()'s arrival are the grid
      // barrier already modelled: skipped, their results unknown.
      const auto *asmOp = cast<llvm::InlineAsm>(call.getCalledOperand());
      bool arrival = gridSyncOf.count(call.getParent());
      if (!arrival && (asmOp->hasSideEffects() || !call.doesNotAccessMemory() ||
                       call.getType()->isVoidTy()))
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
    s.vals[&call] = scalar(floatOp(name, ops, typeFor(call.getType())));
    return;
  }
  // Inline assembly returned above: no callee is a call through a pointer.
  if (!callee)
    return execIndirectCall(call, s);
  llvm::StringRef name = callee->getName();
  // Cooperative groups' grid.sync() (the member, or the helper it calls):
  // a barrier of the whole grid. Its body (an atomic arrival count and a
  // spin on it, through the launch's grid workspace) is what a cooperative
  // launch makes a barrier; the model takes it as one, and a kernel that
  // calls it is assumed launched cooperatively (the verdict says so).
  if (isGridSyncName(name))
    return gridBarrier(s);
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
      if (gridSyncEnds.contains(&call))
        return;
      if (std::optional<InlinedGridSync> g = inlinedGridSync(call)) {
        gridSyncs.push_back(std::move(*g));
        for (const llvm::BasicBlock *bb : gridSyncs.back().blocks)
          gridSyncOf[bb] = &gridSyncs.back();
        gridSyncEnds.insert(gridSyncs.back().end);
        return gridBarrier(s);
      }
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
  if (isPrintfCall(call))
    return execPrintf(call, s);
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

} // namespace lowering
} // namespace kv
