//===- GridSync.cpp - cooperative groups' grid barrier, inlined -----------===//
//
// grid.sync() is a call before the optimizer runs and a few blocks after it
// inlines the call (CUDA 12-13's cooperative groups):
//
//   if (workspace == null) trap            ; is_valid()
//   __syncthreads()
//   if (thread 0 of the block) {
//     old = atom.add.release.gpu [workspace.barrier], delta
//     while (sign of ld.acquire.gpu [workspace.barrier] == sign of old) {}
//   }
//   __syncthreads()
//
// where the workspace pointer is read from %envreg1 and %envreg2 with
// inline assembly. The lowering and the IR replay take that shape as one
// grid barrier, as they take the call, so that a kernel and its -O2
// pipeline have the same model.
//
//===----------------------------------------------------------------------===//
#include "passes/lower/LowerToKV.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/BasicBlock.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"

using namespace llvm;

namespace kv {

static bool isEnvRegAsm(const Value *v) {
  const auto *c = dyn_cast<CallBase>(v);
  const auto *asmOp = c ? dyn_cast<InlineAsm>(c->getCalledOperand()) : nullptr;
  return asmOp && !asmOp->hasSideEffects() &&
         StringRef(asmOp->getAsmString()).contains("%envreg");
}

/// Whether \p v is computed from %envreg reads and constants alone, through
/// integer and pointer arithmetic and casts (the workspace pointer).
static bool fromEnvRegs(const Value *v, unsigned depth = 0) {
  if (depth > 12)
    return false;
  if (isEnvRegAsm(v))
    return true;
  if (isa<Constant>(v))
    return false;
  const auto *i = dyn_cast<Instruction>(v);
  if (!i || !(isa<CastInst, BinaryOperator, GetElementPtrInst>(i)))
    return false;
  bool any = false;
  for (const Use &u : i->operands()) {
    if (isa<Constant>(u.get()))
      continue;
    if (!fromEnvRegs(u.get(), depth + 1))
      return false;
    any = true;
  }
  return any;
}

const BasicBlock *gridWorkspaceCheck(const BranchInst &br) {
  if (!br.isConditional())
    return nullptr;
  const auto *cmp = dyn_cast<ICmpInst>(br.getCondition());
  if (!cmp || !cmp->isEquality())
    return nullptr;
  const Value *p = cmp->getOperand(0), *z = cmp->getOperand(1);
  if (isa<Constant>(p))
    std::swap(p, z);
  const auto *zc = dyn_cast<Constant>(z);
  if (!zc || !zc->isNullValue() || !fromEnvRegs(p))
    return nullptr;
  // The null side must only trap.
  const BasicBlock *null =
      br.getSuccessor(cmp->getPredicate() == ICmpInst::ICMP_EQ ? 0 : 1);
  const auto *trap = dyn_cast<IntrinsicInst>(null->getFirstNonPHIOrDbg());
  if (!trap || trap->getIntrinsicID() != Intrinsic::trap)
    return nullptr;
  return br.getSuccessor(null == br.getSuccessor(0) ? 1 : 0);
}

static bool isBlockBarrier(const Instruction &i) {
  const auto *c = dyn_cast<IntrinsicInst>(&i);
  if (!c)
    return false;
  switch (c->getIntrinsicID()) {
  case Intrinsic::nvvm_barrier_cta_sync_aligned_all:
  case Intrinsic::nvvm_barrier_cta_sync_all: {
    const auto *id = dyn_cast<ConstantInt>(c->getArgOperand(0));
    return id && id->isZero();
  }
  default:
    return false;
  }
}

/// An instruction of the arrival: no effect beyond the grid workspace.
static bool arrivalInstruction(const Instruction &i, bool &arrives) {
  if (const auto *c = dyn_cast<CallBase>(&i)) {
    if (const auto *asmOp = dyn_cast<InlineAsm>(c->getCalledOperand())) {
      StringRef text = StringRef(asmOp->getAsmString()).trim();
      if (!asmOp->hasSideEffects())
        return !c->mayReadOrWriteMemory();
      bool add = text.starts_with("atom.add.release.gpu") ||
                 text.starts_with("red.release.gpu") ||
                 text.starts_with("atom.add");
      bool load = text.starts_with("ld.acquire.gpu") ||
                  text.starts_with("ld.volatile") ||
                  text.starts_with("ld.relaxed.gpu");
      if (!add && !load)
        return false;
      // Every pointer operand is the workspace's.
      for (const Use &a : c->args())
        if (a->getType()->isPointerTy() && !fromEnvRegs(a.get()))
          return false;
      arrives |= add;
      return true;
    }
    const auto *ii = dyn_cast<IntrinsicInst>(c);
    if (!ii)
      return false;
    switch (ii->getIntrinsicID()) {
    case Intrinsic::nvvm_membar_gl:
    case Intrinsic::nvvm_membar_sys:
    case Intrinsic::nvvm_membar_cta:
      return true;
    default:
      return !ii->mayHaveSideEffects() && !ii->mayReadOrWriteMemory();
    }
  }
  if (isa<FenceInst>(i))
    return true;
  return !i.mayHaveSideEffects() && !i.mayReadOrWriteMemory();
}

std::optional<InlinedGridSync> inlinedGridSync(const CallBase &bar) {
  if (!isBlockBarrier(bar))
    return std::nullopt;
  const BasicBlock *a = bar.getParent();
  const auto *br = dyn_cast<BranchInst>(a->getTerminator());
  if (!br || !br->isConditional())
    return std::nullopt;
  bool arrives = false;
  for (const Instruction *i = bar.getNextNode(); i != br; i = i->getNextNode())
    if (!arrivalInstruction(*i, arrives) || arrives)
      return std::nullopt;
  // The blocks from the branch up to the next block barrier, on both sides:
  // the arrival and the other threads' way past it. Nothing in them but the
  // workspace's atomics and loads, fences and pure values.
  InlinedGridSync g;
  const BasicBlock *join = nullptr;
  SmallVector<const BasicBlock *, 8> todo(successors(a));
  while (!todo.empty()) {
    const BasicBlock *b = todo.pop_back_val();
    if (isBlockBarrier(*b->getFirstNonPHIOrDbg())) {
      if (join && join != b)
        return std::nullopt;
      join = b;
      continue;
    }
    if (b == a || !g.blocks.insert(b).second)
      continue;
    if (g.blocks.size() > 12 || !isa<BranchInst>(b->getTerminator()))
      return std::nullopt;
    for (const Instruction &i : *b)
      if (!i.isTerminator() && !arrivalInstruction(i, arrives))
        return std::nullopt;
    for (const BasicBlock *s : successors(b))
      todo.push_back(s);
  }
  if (!join || !arrives)
    return std::nullopt;
  for (const BasicBlock *p : predecessors(join))
    if (p != a && !g.blocks.contains(p))
      return std::nullopt;
  g.end = cast<CallBase>(join->getFirstNonPHIOrDbg());
  return g;
}

const BasicBlock *InlinedGridSync::exitTo(const BranchInst &br) const {
  const BasicBlock *join = end->getParent();
  for (const BasicBlock *s : successors(br.getParent()))
    if (s == join)
      return s;
  for (const BasicBlock *s : successors(br.getParent()))
    if (s != br.getParent() && blocks.contains(s))
      return s;
  return nullptr;
}

} // namespace kv
