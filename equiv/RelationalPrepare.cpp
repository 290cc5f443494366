//===- RelationalPrepare.cpp - shared symbols, a kernel prepared -*- C++
//-*-===//

#include "equiv/RelationalInternal.h"
#include "passes/lower/LowerToKV.h"

#include "llvm/ADT/PostOrderIterator.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
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
#include "llvm/Transforms/Scalar/LoopPassManager.h"
#include "llvm/Transforms/Scalar/LoopUnrollPass.h"
#include "llvm/Transforms/Scalar/SROA.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/Mem2Reg.h"

using namespace llvm;

namespace kv::rel {

//===----------------------------------------------------------------------===//
// Shared symbols
//===----------------------------------------------------------------------===//

z3::expr Shared::arg(unsigned i, unsigned bits) {
  std::string n = "arg" + std::to_string(i) + "_" + std::to_string(bits);
  auto it = syms.find(n);
  if (it == syms.end())
    it = syms.emplace(n, ctx.bv_const(n.c_str(), bits)).first;
  return it->second;
}

z3::expr Shared::sreg(const std::string &name) {
  auto it = syms.find(name);
  if (it == syms.end())
    it = syms.emplace(name, ctx.bv_const(name.c_str(), 32)).first;
  return it->second;
}

z3::expr Shared::global(const std::string &name, uint64_t size) {
  std::string n = "@" + name;
  auto it = syms.find(n);
  if (it == syms.end()) {
    it = syms.emplace(n, ctx.bv_const(n.c_str(), 64)).first;
    globalSizes[n] = size;
  }
  return it->second;
}

z3::expr Shared::apply(const std::string &fn, const std::vector<z3::expr> &args,
                       unsigned bits) {
  std::string key = fn + "/" + std::to_string(bits);
  for (const z3::expr &a : args)
    key += "," + std::to_string(a.get_sort().bv_size());
  auto it = fns.find(key);
  if (it == fns.end()) {
    z3::sort_vector dom(ctx);
    for (const z3::expr &a : args)
      dom.push_back(a.get_sort());
    it = fns.emplace(key, ctx.function(key.c_str(), dom, ctx.bv_sort(bits)))
             .first;
  }
  z3::expr_vector av(ctx);
  for (const z3::expr &a : args)
    av.push_back(a);
  return it->second(av);
}

z3::expr Shared::facts() {
  z3::expr f = ctx.bool_val(true);
  static const char *axes[] = {"x", "y", "z"};
  for (int i = 0; i < 3; ++i) {
    z3::expr tid = sreg(std::string("tid.") + axes[i]);
    z3::expr ntid = sreg(std::string("ntid.") + axes[i]);
    z3::expr ctaid = sreg(std::string("ctaid.") + axes[i]);
    z3::expr nctaid = sreg(std::string("nctaid.") + axes[i]);
    f = f && z3::ult(tid, ntid) && z3::ult(ctaid, nctaid) &&
        z3::ule(ntid, ctx.bv_val(i == 2 ? 64 : 1024, 32)) &&
        z3::ule(nctaid, ctx.bv_val(i == 0 ? 0x7fffffff : 65535, 32));
    // (Not the product of the three: 64-bit products are costly, and the
    // proofs have not needed it.)
    f = f && z3::ugt(ntid, ctx.bv_val(0, 32)) &&
        z3::ugt(nctaid, ctx.bv_val(0, 32));
  }
  // Globals are disjoint objects that do not wrap around the address space.
  std::vector<std::pair<z3::expr, uint64_t>> gs;
  gs.reserve(globalSizes.size());
  for (auto &[n, size] : globalSizes)
    gs.push_back({syms.at(n), size});
  for (size_t i = 0; i < gs.size(); ++i) {
    z3::expr b = gs[i].first;
    z3::expr e = b + ctx.bv_val(gs[i].second, 64);
    f = f && z3::ule(b, e) && b != ctx.bv_val(0, 64);
    for (size_t j = i + 1; j < gs.size(); ++j) {
      z3::expr b2 = gs[j].first;
      z3::expr e2 = b2 + ctx.bv_val(gs[j].second, 64);
      f = f && (z3::ule(e, b2) || z3::ule(e2, b));
    }
  }
  return f;
}

//===----------------------------------------------------------------------===//
// Preparation
//===----------------------------------------------------------------------===//

static bool isBarrierCall(const Instruction &i) {
  auto *c = dyn_cast<CallBase>(&i);
  if (!c || !c->getCalledFunction())
    return false;
  switch (c->getCalledFunction()->getIntrinsicID()) {
  case Intrinsic::nvvm_barrier_cta_sync_aligned_all:
  case Intrinsic::nvvm_barrier_cta_sync_all:
    return isa<ConstantInt>(c->getArgOperand(0)) &&
           cast<ConstantInt>(c->getArgOperand(0))->isZero();
  default:
    return false;
  }
}

bool isExchangeCall(const Instruction &i) {
  auto *c = dyn_cast<CallBase>(&i);
  if (!c || !c->getCalledFunction())
    return false;
  Intrinsic::ID id = c->getCalledFunction()->getIntrinsicID();
  if (isReduxIntrinsic(id) || isShuffleSyncIntrinsic(id))
    return true;
  switch (id) {
  case Intrinsic::nvvm_vote_ballot_sync:
  case Intrinsic::nvvm_vote_any_sync:
  case Intrinsic::nvvm_vote_all_sync:
  case Intrinsic::nvvm_vote_uni_sync:
    return true;
  default:
    return false;
  }
}

std::string Side::where(const Instruction &i) {
  if (const DebugLoc &dl = i.getDebugLoc())
    return dl->getFilename().str() + ":" + std::to_string(dl.getLine());
  return i.getFunction()->getName().str();
}

/// The most instructions a kernel may grow to by inlining its calls.
static constexpr unsigned maxInlinedInstructions = 20000;

/// Loops unrolled in full before the proof: at most this many iterations,
/// and at most this many instructions once unrolled.
static constexpr unsigned maxFullUnrollTrips = 32;
static constexpr unsigned maxFullUnrollSize = 1200;

/// Marks for full unrolling the loops of \p f whose trip count is a small
/// constant. -O2 unrolls such loops (a per-thread register block, a fixed
/// stencil) and keeps what they index in registers; the source keeps the
/// loop and a private array. Unrolled in both kernels, the two have the
/// same shape whichever way the optimizer went, and the arrays promote.
/// (Full unrolling, like SROA and inlining, is trusted here: it is run on
/// the proof's copies, and the concrete runs compare the kernels as
/// compiled.)
static bool markSmallLoops(Function &f, FunctionAnalysisManager &fam) {
  LoopInfo &li = fam.getResult<LoopAnalysis>(f);
  ScalarEvolution &se = fam.getResult<ScalarEvolutionAnalysis>(f);
  LLVMContext &c = f.getContext();
  bool any = false;
  for (Loop *l : li.getLoopsInPreorder()) {
    unsigned trips = se.getSmallConstantTripCount(l);
    if (trips < 2 || trips > maxFullUnrollTrips)
      continue;
    unsigned size = 0;
    for (BasicBlock *bb : l->blocks())
      size += bb->size();
    if (size * trips > maxFullUnrollSize)
      continue;
    // A fresh loop id: the optimizer's "unroll disabled" on a loop it kept
    // must not keep this copy's loop.
    Metadata *ops[] = {
        nullptr, MDNode::get(c, MDString::get(c, "llvm.loop.unroll.full"))};
    MDNode *id = MDNode::getDistinct(c, ops);
    id->replaceOperandWith(0, id);
    l->setLoopID(id);
    any = true;
  }
  if (any)
    fam.invalidate(f, PreservedAnalyses::none());
  return any;
}

bool Side::prepare(const Function &f) {
  module = CloneModule(*f.getParent());
  fn = module->getFunction(f.getName());
  if (!fn || fn->isDeclaration())
    return fail("no body");
  // Calls to functions with bodies are inlined, as the optimizer would.
  for (unsigned round = 0;; ++round) {
    SmallVector<CallBase *, 8> calls;
    for (Instruction &i : instructions(*fn))
      if (auto *c = dyn_cast<CallBase>(&i))
        if (Function *g = c->getCalledFunction()) {
          // One symbolic thread of one block: no step crosses blocks.
          if (isGridSyncName(g->getName()))
            return fail("a grid-wide barrier (grid.sync()) at " + where(*c));
          if (!g->isDeclaration() && !g->isIntrinsic())
            calls.push_back(c);
        }
    if (calls.empty())
      break;
    if (round == 16)
      return fail("calls nested more than 16 deep");
    // Recursion (an interval Newton solver calling itself twice) doubles
    // the body each round: 16 rounds were gigabytes.
    if (fn->getInstructionCount() > maxInlinedInstructions)
      return fail("calls that inline to more than " +
                  std::to_string(maxInlinedInstructions) +
                  " instructions (recursion?)");
    for (CallBase *c : calls) {
      InlineFunctionInfo ifi;
      if (!InlineFunction(*c, ifi).isSuccess())
        return fail("a call that cannot be inlined at " + where(*c));
    }
  }
  // printf's records are compared thread by thread, which the steps do not.
  for (Instruction &i : instructions(*fn))
    if (auto *c = dyn_cast<CallBase>(&i); c && isPrintfCall(*c))
      return fail("printf at " + where(i));
  // The thread's own copy of a struct, which the steps do not model.
  for (const Argument &a : fn->args())
    if (a.hasByValAttr())
      return fail("a by-value struct parameter");
  // Private variables into registers (the source's are in memory), then
  // small loops of a constant trip count unrolled in full, in both kernels
  // alike, and what they kept in private arrays promoted too.
  {
    PassBuilder pb;
    LoopAnalysisManager lam;
    FunctionAnalysisManager fam;
    CGSCCAnalysisManager cgam;
    ModuleAnalysisManager mam;
    pb.registerModuleAnalyses(mam);
    pb.registerCGSCCAnalyses(cgam);
    pb.registerFunctionAnalyses(fam);
    pb.registerLoopAnalyses(lam);
    pb.crossRegisterProxies(lam, fam, cgam, mam);
    FunctionPassManager fpm;
    fpm.addPass(SROAPass(SROAOptions::ModifyCFG));
    fpm.addPass(PromotePass());
    fpm.run(*fn, fam);
    if (markSmallLoops(*fn, fam)) {
      FunctionPassManager unroll;
      unroll.addPass(createFunctionToLoopPassAdaptor(
          LoopFullUnrollPass(/*OptLevel=*/2, /*OnlyWhenForced=*/true)));
      unroll.addPass(SROAPass(SROAOptions::ModifyCFG));
      unroll.addPass(PromotePass());
      unroll.run(*fn, fam);
    }
  }
  for (Instruction &i : instructions(*fn))
    if (isa<AllocaInst>(i))
      return fail("private memory that stays in memory at " + where(i));
  // Each barrier starts a block; so does each warp exchange, in a block of
  // its own (never a loop header: the step from it starts with the
  // exchange, once).
  SmallVector<Instruction *, 8> barriers, exchanges;
  for (Instruction &i : instructions(*fn))
    if (isBarrierCall(i))
      barriers.push_back(&i);
    else if (isExchangeCall(i))
      exchanges.push_back(&i);
  for (Instruction *b : barriers)
    if (b != &*b->getParent()->getFirstNonPHIIt())
      SplitBlock(b->getParent(), b);
  for (Instruction *x : exchanges)
    SplitBlock(x->getParent(), x);
  dt = std::make_unique<DominatorTree>(*fn);
  li = std::make_unique<LoopInfo>(*dt);
  entry = &fn->getEntryBlock();
  auto addCut = [&](BasicBlock *bb) {
    if (isCut.insert(bb).second)
      cuts.push_back(bb);
  };
  addCut(entry);
  for (BasicBlock &bb : *fn) {
    if (li->isLoopHeader(&bb))
      addCut(&bb);
    if (isBarrierCall(*bb.getFirstNonPHIIt())) {
      addCut(&bb);
      isBarrier.insert(&bb);
    }
    if (isExchangeCall(*bb.getFirstNonPHIIt())) {
      addCut(&bb);
      isExchange.insert(&bb);
    }
  }
  // The blocks that run at most once, and only in the first step: those no
  // other cut reaches.
  DenseSet<BasicBlock *> later;
  SmallVector<BasicBlock *, 16> work;
  for (BasicBlock *c : cuts)
    if (c != entry)
      work.push_back(c);
  while (!work.empty()) {
    BasicBlock *bb = work.pop_back_val();
    if (later.insert(bb).second)
      for (BasicBlock *s : successors(bb))
        work.push_back(s);
  }
  for (BasicBlock &bb : *fn)
    if (!later.count(&bb))
      once.insert(&bb);
  for (Instruction &i : instructions(*fn))
    if (auto *cmp = dyn_cast<ICmpInst>(&i))
      for (Value *op : cmp->operands())
        if (auto *c = dyn_cast<ConstantInt>(op))
          if (c->getValue().ult(1u << 31) && c->getZExtValue() > 1)
            bounds.insert({c->getBitWidth(), c->getZExtValue()});
  computeLiveness();
  return true;
}

void Side::computeLiveness() {
  DenseMap<BasicBlock *, DenseSet<Value *>> in;
  auto tracked = [](Value *v) { return isa<Instruction>(v); };
  bool changed = true;
  while (changed) {
    changed = false;
    for (BasicBlock *bb : post_order(fn)) {
      DenseSet<Value *> s;
      for (BasicBlock *succ : successors(bb)) {
        for (Value *v : in[succ])
          if (!(isa<PHINode>(v) && cast<Instruction>(v)->getParent() == succ))
            s.insert(v);
        for (PHINode &phi : succ->phis()) {
          Value *v = phi.getIncomingValueForBlock(bb);
          if (tracked(v))
            s.insert(v);
        }
      }
      for (Instruction &i : llvm::reverse(*bb)) {
        s.erase(&i);
        if (isa<PHINode>(i))
          continue;
        for (Value *op : i.operands())
          if (tracked(op))
            s.insert(op);
      }
      for (PHINode &phi : bb->phis())
        s.insert(&phi);
      DenseSet<Value *> &old = in[bb];
      if (old.size() != s.size()) {
        old = std::move(s);
        changed = true;
      }
    }
  }
  // A deterministic order: by position in the function.
  DenseMap<Value *, unsigned> order;
  unsigned n = 0;
  for (Instruction &i : instructions(*fn))
    order[&i] = n++;
  for (BasicBlock *c : cuts) {
    std::vector<Value *> vs(in[c].begin(), in[c].end());
    llvm::sort(vs, [&](Value *a, Value *b) { return order[a] < order[b]; });
    live[c] = std::move(vs);
  }
}

unsigned Side::loopWork(BasicBlock *header) const {
  Loop *l = li->getLoopFor(header);
  if (!l || l->getHeader() != header)
    return 0;
  const DataLayout &dl = fn->getParent()->getDataLayout();
  unsigned n = 0;
  for (BasicBlock *bb : l->blocks())
    for (Instruction &i : *bb)
      if (auto *ld = dyn_cast<LoadInst>(&i))
        n += dl.getTypeStoreSize(ld->getType()).getFixedValue();
      else if (auto *st = dyn_cast<StoreInst>(&i))
        n += dl.getTypeStoreSize(st->getValueOperand()->getType())
                 .getFixedValue();
      else if (isBarrierCall(i))
        ++n;
  return n;
}

} // namespace kv::rel
