//===- IRExecutorCalls.cpp - the LLVM IR interpreter's calls
//---------------===//
//
// A call: special registers, exact inline PTX, warp shuffles and votes
// (parked until the warp's lanes arrive), barriers, fences, math and PTX
// intrinsics computed as the kv executor computes them, libdevice's integer
// functions, and calls of functions with bodies (directly or through a
// pointer to one).
//
//===----------------------------------------------------------------------===//
#include "equiv/IRExecutorInternal.h"
#include "equiv/Intrinsics.h"
#include "passes/lower/LowerToKV.h"

#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/IntrinsicsNVPTX.h"

namespace kv {
namespace irexec {

bool IRRunner::call(ThreadState &t, const CallBase &c, bool &barrier,
                    bool &entered) {
  const Function *callee = c.getCalledFunction();
  auto set = [&](Val v) {
    Frame &f = t.stack.back();
    t.regs[f.base + f.info->slots.lookup(&c)] = v;
    return true;
  };
  if (std::optional<LaneRegister> r = laneRegisterAsm(c))
    return set(Val{laneRegisterValue(*r, laneOf(t))});
  if (isWideMadInlinePtx(c)) {
    uint64_t w = (uint64_t)(uint32_t)get(t, c.getArgOperand(0)).bits *
                     (uint32_t)get(t, c.getArgOperand(1)).bits +
                 (uint32_t)get(t, c.getArgOperand(2)).bits;
    return set(aggregate(t, {Val{w & 0xffffffff}, Val{w >> 32}}));
  }
  if (StringRef op = exactInlinePtx(c); !op.empty())
    return set(Val{
        exactInlinePtxValue(op, (uint32_t)get(t, c.getArgOperand(0)).bits)});
  // PTX's .approx operations and the math library without its bodies:
  // ranges within their documented error.
  {
    bool handled = false;
    Val out;
    if (!approxCall(t, c, out, handled))
      return false;
    if (handled)
      return set(out);
  }
  // Inline assembly without effects: its result is unknown, not an error
  // until it is used (cooperative groups read reserved shared memory's
  // address into a field no kernel reads). In an inlined grid.sync(), the
  // arrival's atomics are the grid barrier the run has passed.
  if (const auto *asmOp = dyn_cast<InlineAsm>(c.getCalledOperand())) {
    if (gridSyncOf.count(c.getParent()))
      return c.getType()->isVoidTy() || set(opaque());
    if (!asmOp->hasSideEffects() && c.doesNotAccessMemory() &&
        !c.getType()->isVoidTy())
      return set(opaque());
  }
  if (!callee && !c.isInlineAsm()) {
    Val p = get(t, c.getCalledOperand());
    if (p.obj == Val::Fn)
      callee = reinterpret_cast<const Function *>((uintptr_t)p.bits);
    if (callee && callee->getFunctionType() != c.getFunctionType())
      return fail("call through a pointer to a function of another type");
  }
  if (!callee)
    return fail(c.isInlineAsm() ? "inline assembly" : "indirect call");
  if (isPrintfCall(c))
    return print(t, c) && set(Val{0});
  // grid.sync(): the block waits until every block has reached it (the
  // launch is taken as cooperative; its body spins on a workspace that
  // only such a launch has).
  if (isGridSyncName(callee->getName())) {
    t.atGridSync = true;
    barrier = true;
    return true;
  }
  auto arg = [&](unsigned i) { return get(t, c.getArgOperand(i)); };
  if (callee->isIntrinsic()) {
    Intrinsic::ID id = callee->getIntrinsicID();
    if (auto r = specialRegister(id)) {
      unsigned a = r->second;
      switch (r->first) {
      case SpecialReg::Tid:
        return set(Val{t.tid[a]});
      case SpecialReg::Ntid:
        return set(Val{cfg.block[a]});
      case SpecialReg::Ctaid:
        return set(Val{bid[a]});
      case SpecialReg::Nctaid:
        return set(Val{cfg.grid[a]});
      }
    }
    if (hasNoEffect(id))
      return true;
    switch (id) {
    case Intrinsic::nvvm_read_ptx_sreg_warpsize:
      return set(Val{32});
    default:
      if (callee->getName().starts_with("llvm.nvvm.read.ptx.sreg."))
        return fail("special register '" + callee->getName() + "'");
      break;
    }
    if (auto *mi = dyn_cast<MemIntrinsic>(&c))
      return memIntrinsic(t, *mi);
    unsigned w =
        c.getType()->isIntegerTy() ? c.getType()->getIntegerBitWidth() : 0;
    auto ap = [&](unsigned i) {
      return APInt(c.getArgOperand(i)->getType()->getIntegerBitWidth(),
                   arg(i).bits);
    };
    if (isReduxIntrinsic(id))
      return parkVote(t, c, id);
    switch (id) {
    case Intrinsic::nvvm_shfl_sync_up_i32:
    case Intrinsic::nvvm_shfl_sync_up_f32:
    case Intrinsic::nvvm_shfl_sync_down_i32:
    case Intrinsic::nvvm_shfl_sync_down_f32:
    case Intrinsic::nvvm_shfl_sync_bfly_i32:
    case Intrinsic::nvvm_shfl_sync_bfly_f32:
    case Intrinsic::nvvm_shfl_sync_idx_i32:
    case Intrinsic::nvvm_shfl_sync_idx_f32:
      return parkShuffle(t, c, id);
    case Intrinsic::nvvm_vote_ballot_sync:
    case Intrinsic::nvvm_vote_any_sync:
    case Intrinsic::nvvm_vote_all_sync:
    case Intrinsic::nvvm_vote_uni_sync:
    case Intrinsic::nvvm_activemask:
    case Intrinsic::nvvm_bar_warp_sync:
    case Intrinsic::nvvm_vote_ballot:
    case Intrinsic::nvvm_vote_any:
    case Intrinsic::nvvm_vote_all:
    case Intrinsic::nvvm_vote_uni:
      return parkVote(t, c, id);
    case Intrinsic::nvvm_barrier_cta_sync_aligned_all:
    case Intrinsic::nvvm_barrier_cta_sync_all: {
      if (arg(0).bits != 0)
        return fail("named barrier");
      // The barrier that ends an inlined grid.sync() is part of it.
      if (gridSyncEnds.contains(&c))
        return true;
      barrier = true;
      // Inlined grid.sync(): the grid barrier; its arrival's atomics and
      // wait are skipped (gridSyncOf).
      auto [it, fresh] = gridSyncAt.try_emplace(&c, false);
      if (fresh)
        if (std::optional<InlinedGridSync> g = inlinedGridSync(c)) {
          it->second = true;
          gridSyncs.push_back(std::move(*g));
          for (const BasicBlock *bb : gridSyncs.back().blocks)
            gridSyncOf[bb] = &gridSyncs.back();
          gridSyncEnds.insert(gridSyncs.back().end);
        }
      t.atGridSync = it->second;
      return true;
    }
    case Intrinsic::nvvm_membar_cta:
    case Intrinsic::nvvm_membar_gl:
    case Intrinsic::nvvm_membar_sys:
      // Threads run one at a time: every access is seen in program order.
      return true;
    case Intrinsic::assume:
      if (!(arg(0).bits & 1))
        assumeViolated = true;
      return true;
    case Intrinsic::trap:
      // The launch fails: not an input the kernel is defined on (the
      // lowering takes the paths to a trap as not taken).
      assumeViolated = true;
      return true;
    case Intrinsic::smax:
      return set(Val{APIntOps::smax(ap(0), ap(1)).getZExtValue()});
    case Intrinsic::smin:
      return set(Val{APIntOps::smin(ap(0), ap(1)).getZExtValue()});
    case Intrinsic::umax:
      return set(Val{APIntOps::umax(ap(0), ap(1)).getZExtValue()});
    case Intrinsic::umin:
      return set(Val{APIntOps::umin(ap(0), ap(1)).getZExtValue()});
    case Intrinsic::abs:
      return set(Val{ap(0).abs().getZExtValue()});
    case Intrinsic::ctpop:
      return set(Val{(uint64_t)ap(0).popcount()});
    case Intrinsic::ctlz:
      return set(Val{(uint64_t)ap(0).countl_zero()});
    case Intrinsic::cttz:
      return set(Val{(uint64_t)ap(0).countr_zero()});
    case Intrinsic::bitreverse:
      return set(Val{ap(0).reverseBits().getZExtValue()});
    case Intrinsic::bswap:
      return set(Val{ap(0).byteSwap().getZExtValue()});
    case Intrinsic::nvvm_mul24_i:
    case Intrinsic::nvvm_mul24_ui:
    case Intrinsic::nvvm_sad_i:
    case Intrinsic::nvvm_sad_ui:
    case Intrinsic::nvvm_prmt: {
      SmallVector<APInt, 3> ops;
      for (unsigned i = 0; i < c.arg_size(); ++i)
        ops.push_back(ap(i));
      std::string why;
      std::optional<APInt> r = executor::nativeApply(
          ("__nv_" + ptxIntegerName(id)).str(), ops, w, why);
      if (!r)
        return fail("cannot run '" + callee->getName() + "'");
      return set(Val{r->getZExtValue()});
    }
    case Intrinsic::fshl:
    case Intrinsic::fshr: {
      APInt hi = ap(0), lo = ap(1);
      unsigned s = (unsigned)ap(2).urem(w);
      APInt r = id == Intrinsic::fshl ? (s ? hi.shl(s) | lo.lshr(w - s) : hi)
                                      : (s ? hi.shl(w - s) | lo.lshr(s) : lo);
      return set(Val{r.getZExtValue()});
    }
    default:
      break;
    }
  }
  // libdevice asks NVVMReflect for the target's settings.
  if (callee->getName() == "__nvvm_reflect") {
    StringRef what;
    if (!getConstantStringInfo(c.getArgOperand(0), what))
      return fail("__nvvm_reflect of a string that is not a constant");
    return set(Val{(uint64_t)nvvmReflect(what, *c.getFunction()) &
                   maskOf(c.getType()->getIntegerBitWidth())});
  }
  if (callee->getName() == "__assertfail") {
    // A failed assert: the launch fails, as at a trap.
    assumeViolated = true;
    return true;
  }
  if (callee->isDeclaration() || callee->isIntrinsic()) {
    // Math intrinsics and PTX conversions, computed as the kv executor
    // computes them; anything else (libdevice without its bodies) is not
    // run.
    SmallVector<Val, 3> args;
    SmallVector<Type *, 3> types;
    for (unsigned i = 0; i < c.arg_size(); ++i) {
      args.push_back(arg(i));
      types.push_back(c.getArgOperand(i)->getType());
    }
    Val out;
    if (failed || !apply(callee->getName(), args, types, c.getType(), out))
      return false;
    return set(out);
  }
  // libdevice's integer functions as the kv executor computes them (both
  // exact), not their bodies: __nv_ffs's is inline PTX.
  if (callee->getName().starts_with("__nv_") && c.getType()->isIntegerTy() &&
      all_of(c.args(),
             [](const Use &a) { return a->getType()->isIntegerTy(); })) {
    SmallVector<APInt, 3> ops;
    for (unsigned i = 0; i < c.arg_size(); ++i)
      ops.push_back(APInt(c.getArgOperand(i)->getType()->getIntegerBitWidth(),
                          arg(i).bits));
    std::string why;
    if (std::optional<APInt> r = executor::nativeApply(
            callee->getName(), ops, c.getType()->getIntegerBitWidth(), why))
      return set(Val{r->getZExtValue()});
  }
  if (t.stack.size() > 64)
    return fail("call nesting deeper than 64");
  SmallVector<Val, 8> args;
  for (unsigned i = 0; i < c.arg_size(); ++i)
    args.push_back(arg(i));
  if (failed)
    return false;
  enter(t, *callee, args, &c);
  entered = true;
  return true;
}

bool IRRunner::print(ThreadState &t, const CallBase &c) {
  if (!in.printStream)
    return fail("printf, which the model does not print");
  std::optional<StringRef> fmt = printfFormat(c);
  std::string why;
  std::optional<std::vector<PrintfField>> fields;
  if (fmt)
    fields = printfFields(*fmt, why);
  if (!fields)
    return fail("printf of " + (fmt ? why : "a format that is not constant"));
  std::vector<uint64_t> line{printfFormatId(*fmt)};
  Val buffer = get(t, c.getArgOperand(1));
  for (const PrintfField &fd : *fields) {
    Val p = buffer;
    p.bits += fd.offset;
    if (fd.isString) {
      Val str;
      if (!load(t, PointerType::get(kernel.getContext(), 0), p, str))
        return false;
      std::optional<StringRef> text;
      for (auto &[gv, obj] : globals)
        if (obj == str.obj && str.obj >= 0)
          text = constantCString(*gv, str.bits);
      if (!text)
        return fail("printf of a string (%s) that is not a constant");
      line.push_back(printfFormatId(*text));
      continue;
    }
    uint8_t bytes[8] = {0};
    if (overlapsOpaque(p, fd.bytes))
      return fail("printf of a value the run does not know");
    if (!readBytes(p, fd.bytes, bytes))
      return false;
    uint64_t v = 0;
    for (unsigned i = 0; i < fd.bytes; ++i)
      v |= uint64_t(bytes[i]) << (8 * i);
    line.push_back(v);
  }
  printed.push_back(std::move(line));
  return true;
}

} // namespace irexec
} // namespace kv
