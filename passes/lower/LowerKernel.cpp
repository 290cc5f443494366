//===- LowerKernel.cpp - Entry point and instructions ---------------------===//
//
// The entry point lowerKernel: the kv.kernel and its arguments, the run of
// the kernel's entry block, and the clean-up after it; and the execution
// of one instruction (exec, which hands arithmetic to LowerValues.cpp,
// integer functions and bit intrinsics to LowerIntegers.cpp,
// memory accesses to LowerMemory.cpp and calls to LowerCalls.cpp).
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
    return setS(floatOp(floatCompareName(*fc), {l, r}, b.getI1Type()));
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
    return fail("atomicCAS (its result depends on the order of the threads)");
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
  llvm::SmallPtrSet<const llvm::Function *, 8> seen;
  bool prints = !failed && callsPrintf(f, seen);
  if (!failed && opts.signatureOnly) {
    if (prints)
      printArray = newGlobalArray(kPrintStream.str(), b.getI64Type());
    // A pointer parameter compared with null may be null in a run.
    for (const llvm::Instruction &inst : llvm::instructions(f))
      if (auto *cmp = dyn_cast<llvm::ICmpInst>(&inst);
          cmp && !nullArray && cmp->isEquality() &&
          llvm::any_of(cmp->operands(),
                       [](const llvm::Use &u) {
                         return isa<llvm::ConstantPointerNull>(u.get());
                       }) &&
          llvm::any_of(cmp->operands(), [](const llvm::Use &u) {
            return isa<llvm::Argument>(u.get()->stripPointerCasts());
          }))
        nullArray = newGlobalArray(kNullParams.str(), b.getI8Type());
    for (const llvm::GlobalVariable *gv : sharedVariablesOf(f))
      arrayFor(gv);
  } else if (!failed) {
    State s;
    s.guard = i1(true);
    // A kernel that prints counts its records from 0.
    if (prints) {
      printCounter.kind = SymVal::PrivPtr;
      printCounter.obj = nextObj++;
      objTypes[printCounter.obj] = llvm::Type::getInt64Ty(f.getContext());
      PrivStore ps;
      ps.obj = printCounter.obj;
      ps.size = 8;
      ps.val = scalar(cst(b.getI64Type(), 0));
      byValCopies.push_back(ps);
    }
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
