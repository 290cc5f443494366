//===- LowerMemory.cpp - Private memory and shared/global arrays ----------===//
//
// Memory of the symbolic execution: shared/global arrays (kernel pointer
// parameters and global variables, as kv.kernel arguments), element
// indices from byte offsets, kv.read/kv.write with the thread's own
// writes forwarded, and private memory resolved through the state's stores;
// the instructions that address and access memory: GEP (byte offsets as
// linear forms), load and store.
//
//===----------------------------------------------------------------------===//
#include "passes/lower/Lowerer.h"

#include "llvm/IR/DataLayout.h"
#include "llvm/IR/GetElementPtrTypeIterator.h"
#include "llvm/IR/Module.h"

#include <numeric>

namespace kv {
namespace lowering {

Value Lowerer::arrayFor(const llvm::Value *base) {
  auto it = argArrays.find(base);
  if (it != argArrays.end())
    return it->second;
  auto *gv = dyn_cast<llvm::GlobalVariable>(base);
  if (!gv)
    return {};
  // A global variable: shared memory (addrspace 3) or a __device__ /
  // __constant__ variable, which acts as a global-memory array.
  Block &blk = kernel.getBlock();
  std::string name = variableName(gv->getName());
  // Element type and size are fixed at the first access.
  Type placeholder;
  if (gv->getAddressSpace() == 3)
    placeholder = SharedArrayType::get(ctx, b.getI8Type(), 0);
  else
    placeholder = GlobalArrayType::get(ctx, b.getI8Type());
  unsigned pos = blk.getNumArguments();
  if (!isa<SharedArrayType>(placeholder)) {
    // Global arrays come before shared arrays.
    pos = 0;
    while (pos < blk.getNumArguments() &&
           !isa<SharedArrayType>(blk.getArgument(pos).getType()))
      ++pos;
  }
  Value a = blk.insertArgument(pos, placeholder, UnknownLoc::get(ctx));
  argNames.insert(argNames.begin() + pos, name);
  argArrays[base] = a;
  arrayKeys[a] = name;
  return a;
}

uint64_t Lowerer::elemSizeFor(Value array, uint64_t size) {
  auto it = arrayElemSize.find(array);
  if (it == arrayElemSize.end()) {
    uint64_t es = size;
    auto hint = opts.elemBytes.find(arrayKeys.lookup(array));
    if (hint != opts.elemBytes.end() && hint->second < size &&
        size % hint->second == 0)
      es = hint->second;
    else if (hint != opts.elemBytes.end() && hint->second != size) {
      // The hint does not divide this access: restart with a common one.
      why.retypeKey = arrayKeys.lookup(array);
      why.retypeBytes = std::gcd<uint64_t>(hint->second, size);
      fail("array accessed with elements of " + llvm::Twine(hint->second) +
           " and " + llvm::Twine(size) + " bytes");
      return 0;
    }
    arrayElemSize[array] = es;
    Type et = b.getIntegerType(8 * es);
    if (auto sh = dyn_cast<SharedArrayType>(array.getType()))
      array.setType(SharedArrayType::get(ctx, et, sh.getSize()));
    else
      array.setType(GlobalArrayType::get(ctx, et));
    return es;
  }
  uint64_t es = it->second;
  if (size % es == 0)
    return es;
  why.retypeKey = arrayKeys.lookup(array);
  why.retypeBytes = std::gcd<uint64_t>(es, size);
  fail("array accessed with elements of " + llvm::Twine(es) + " and " +
       llvm::Twine(size) + " bytes");
  return 0;
}

Value Lowerer::elementIndex(Value array, const Linear &off, llvm::Type *ty) {
  Type et = typeFor(ty);
  const llvm::DataLayout &dl = f.getParent()->getDataLayout();
  uint64_t size = dl.getTypeStoreSize(ty);
  // The element type was fixed by elemSizeFor at the first access.
  if (getArrayElementType(array.getType()) != et) {
    fail("array accessed with two element types (" + typeName(ty) + ")");
    return cst(b.getI64Type(), 0);
  }
  Linear idx;
  if (off.constant % (int64_t)size && off.terms.empty()) {
    fail("unaligned access into an array");
    return cst(b.getI64Type(), 0);
  }
  bool whole = off.constant % (int64_t)size == 0;
  for (auto &[v, c] : off.terms)
    whole &= c % (int64_t)size == 0;
  if (!whole) {
    // A byte offset the linear form cannot divide (`(k << 2) & 4`): divide
    // the value, and have the checker prove it a multiple of the element
    // size (an unaligned access is not modelled).
    Type i64 = b.getI64Type();
    Value bytes = materialize(off);
    Value rem = b.createOrFold<arith::RemSIOp>(loc, bytes, cst(i64, size));
    ProveOp::create(b, loc, eq(rem, cst(i64, 0)),
                    b.getStringAttr("array access aligned to its element"));
    return b.createOrFold<arith::DivSIOp>(loc, bytes, cst(i64, size));
  }
  idx.constant = off.constant / (int64_t)size;
  for (auto &[v, c] : off.terms)
    idx.addTerm(v, c / (int64_t)size);
  return materialize(idx);
}

Value Lowerer::loadArray(Value array, const Linear &off, llvm::Type *ty,
                         Value guard) {
  const llvm::DataLayout &dl = f.getParent()->getDataLayout();
  uint64_t size = dl.getTypeStoreSize(ty);
  uint64_t es = elemSizeFor(array, size);
  if (!es)
    return cst(typeFor(ty), 0);
  if (es < size) {
    // A wider access: its elements, little-endian.
    llvm::Type *ety = llvm::Type::getIntNTy(f.getContext(), 8 * es);
    Type wide = b.getIntegerType(8 * size);
    Value acc = cst(wide, 0);
    for (uint64_t k = 0; k < size / es; ++k) {
      Linear o = off;
      o.constant += k * es;
      Value part = b.createOrFold<arith::ExtUIOp>(
          loc, wide, loadArray(array, o, ety, guard));
      if (k)
        part = b.createOrFold<arith::ShLIOp>(loc, part, cst(wide, 8 * es * k));
      acc = b.createOrFold<arith::OrIOp>(loc, acc, part);
    }
    Type t = typeFor(ty);
    return t == wide ? acc : b.createOrFold<arith::TruncIOp>(loc, t, acc);
  }
  Value idx = elementIndex(array, off, ty);
  if (failed)
    return cst(typeFor(ty), 0);
  if (stagedDone.contains(array)) {
    fail("read of a shared array after a barrier loop that stages it (the "
         "model does not keep its contents past the loop)");
    return cst(typeFor(ty), 0);
  }
  for (SymLoop &l : symLoops) {
    auto st = l.staged.find(array);
    if (st == l.staged.end())
      continue;
    if (st->second == l.phase) {
      fail("read of a shared array in the barrier interval in which a loop "
           "with a symbolic trip count writes it");
      return cst(typeFor(ty), 0);
    }
    l.stagedReads.push_back({array, l.phase});
    // Resolved when the loop's body is complete: the private variables it
    // does not change are then their values before it (thread ids, say).
    auto ph = UnrealizedConversionCastOp::create(b, loc, TypeRange{typeFor(ty)},
                                                 ValueRange{idx, guard});
    l.pending.push_back({ph, array});
    return ph.getResult(0);
  }
  if (loopWritten.contains(array)) {
    fail("read of an array that a loop with a symbolic trip count writes "
         "in the same barrier interval");
    return cst(typeFor(ty), 0);
  }
  for (SymLoop &l : symLoops)
    l.read[array].push_back(idx);
  Value v = ReadOp::create(b, loc, typeFor(ty), array, idx, guard);
  // Forward this thread's own earlier writes in the barrier interval: a
  // kv.read sees the array as it stood when the interval began.
  for (const OwnWrite &w : ownWrites) {
    if (w.array != array)
      continue;
    if (w.atomic) {
      fail("read of an array after this thread's atomic update of it in "
           "the same barrier interval (the value depends on the other "
           "threads' updates)");
      return v;
    }
    Value hit = andI1(w.guard, eq(w.index, idx));
    v = select(hit, w.value, v);
  }
  return v;
}

void Lowerer::storeArray(Value array, const Linear &off, Value val,
                         llvm::Type *ty, State &s) {
  const llvm::DataLayout &dl = f.getParent()->getDataLayout();
  uint64_t size = dl.getTypeStoreSize(ty);
  uint64_t es = elemSizeFor(array, size);
  if (!es)
    return;
  if (es < size) {
    llvm::Type *ety = llvm::Type::getIntNTy(f.getContext(), 8 * es);
    Type wide = b.getIntegerType(8 * size);
    if (val.getType() != wide)
      val = b.createOrFold<arith::ExtUIOp>(loc, wide, val);
    for (uint64_t k = 0; k < size / es; ++k) {
      Linear o = off;
      o.constant += k * es;
      Value part =
          k ? b.createOrFold<arith::ShRUIOp>(loc, val, cst(wide, 8 * es * k))
            : val;
      part =
          b.createOrFold<arith::TruncIOp>(loc, b.getIntegerType(8 * es), part);
      storeArray(array, o, part, ety, s);
      if (failed)
        return;
    }
    return;
  }
  Value idx = elementIndex(array, off, ty);
  if (failed)
    return;
  if (isFalse(s.guard))
    return;
  for (SymLoop &l : symLoops)
    if (l.staged.contains(array))
      return fail("write to a shared array that a barrier loop stages, in "
                  "another of its barrier intervals");
  auto write = WriteOp::create(b, loc, array, idx, val, s.guard);
  if (!symLoops.empty()) {
    SymLoop &l = symLoops.back();
    if (isa<SharedArrayType>(array.getType()))
      l.sharedWrites[array].push_back({idx, val, s.guard, write, l.phase});
    else
      l.globalWrite = true;
    // Written once per iteration: a later read cannot be forwarded.
    for (SymLoop &l : symLoops)
      l.written[array].push_back(idx);
    loopWritten.insert(array);
    return;
  }
  ownWrites.push_back({array, idx, val, s.guard});
}

SymVal Lowerer::loadPrivate(const SymVal &p, llvm::Type *ty, State &s) {
  const llvm::DataLayout &dl = f.getParent()->getDataLayout();
  uint64_t size = dl.getTypeStoreSize(ty);
  // Walk the stores to this object from the latest; an exact hit under a
  // true guard ends the walk.
  std::vector<std::pair<Value, SymVal>> hits; // condition, value
  bool complete = false;
  for (auto it = s.stores.rbegin(); it != s.stores.rend(); ++it) {
    if (it->obj != p.obj)
      continue;
    if (it->anywhere) {
      SymVal unknown;
      unknown.kind = SymVal::LoopResult;
      return unknown;
    }
    Linear diff = it->off;
    diff.add(p.off, -1);
    if (diff.terms.empty()) {
      int64_t d = diff.constant;
      if (d == 0 && it->size == size) {
        hits.push_back({it->guard, it->val});
        // A store of the loop body at its top level is unconditional
        // within the iteration, and one made under the reading path's own
        // guard (or one of its conjuncts: an unrolled loop's earlier
        // iteration) happened on that path (a counter inside an if stays a
        // constant, so a loop there keeps its constant trip count).
        if (isTrue(it->guard) || conjunctOf(it->guard, s.guard) ||
            (!symLoops.empty() && it->guard == symLoops.back().guard)) {
          complete = true;
          break;
        }
        continue;
      }
      // Disjoint byte ranges do not matter.
      if (d >= (int64_t)size || -d >= (int64_t)it->size)
        continue;
      fail("private memory accessed with overlapping sizes");
      return scalar(cst(b.getI32Type(), 0));
    }
    if (it->size != size) {
      fail("private memory accessed with overlapping sizes");
      return scalar(cst(b.getI32Type(), 0));
    }
    Value same = eq(materialize(it->off), materialize(p.off));
    hits.push_back({andI1(it->guard, same), it->val});
  }
  SymVal result;
  if (complete) {
    result = hits.back().second;
    hits.pop_back();
  } else if (!hits.empty()) {
    // Reading a private location on a path where it may be uninitialized:
    // its content is indeterminate, so any value (here the oldest store) is
    // a valid refinement.
    result = hits.back().second;
    hits.pop_back();
  } else {
    if (ty->isPointerTy()) {
      fail("read of an uninitialized private pointer");
      return scalar(cst(b.getI32Type(), 0));
    }
    result = scalar(cst(typeFor(ty), 0));
  }
  for (auto it = hits.rbegin(); it != hits.rend(); ++it)
    result = mergeVal(it->second, result, it->first);
  return result;
}

void Lowerer::execGEP(const llvm::GetElementPtrInst *gep, State &s) {
  auto set = [&](SymVal v) { s.vals[gep] = v; };
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

SymVal Lowerer::loadFrom(const SymVal &p, llvm::Type *ty, State &s) {
  if (ty->isAggregateType()) {
    SymVal r;
    r.kind = SymVal::Aggregate;
    for (auto [off, leaf] : aggregateLeaves(ty)) {
      SymVal q = p;
      q.off.constant += off;
      r.parts.push_back(loadFrom(q, leaf, s));
    }
    return r;
  }
  if (p.kind == SymVal::PrivPtr)
    return loadPrivate(p, ty, s);
  if (p.kind == SymVal::ArrayPtr) {
    if (ty->isPointerTy())
      fail("pointer loaded from shared/global memory");
    else
      return scalar(loadArray(p.array, p.off, ty, s.guard));
  }
  if (!failed)
    fail("load through an unknown pointer");
  return scalar(cst(b.getI32Type(), 0));
}

void Lowerer::storeTo(const SymVal &p, const SymVal &v, llvm::Type *ty,
                      State &s) {
  if (failed)
    return;
  if (ty->isAggregateType()) {
    auto leaves = aggregateLeaves(ty);
    if (v.kind != SymVal::Aggregate || v.parts.size() != leaves.size())
      return fail("aggregate value of an unknown shape stored");
    for (size_t i = 0; i < leaves.size(); ++i) {
      SymVal q = p;
      q.off.constant += leaves[i].first;
      storeTo(q, v.parts[i], leaves[i].second, s);
    }
    return;
  }
  if (p.kind == SymVal::PrivPtr) {
    const llvm::DataLayout &dl = f.getParent()->getDataLayout();
    PrivStore ps;
    ps.obj = p.obj;
    ps.off = p.off;
    ps.size = dl.getTypeStoreSize(ty);
    ps.val = v;
    ps.guard = s.guard;
    s.stores.push_back(ps);
    return;
  }
  if (p.kind == SymVal::ArrayPtr) {
    if (v.kind == SymVal::LoopResult)
      return fail("value computed in a loop with a symbolic trip count, "
                  "stored after the loop");
    if (v.kind != SymVal::Scalar)
      return fail("pointer stored to shared/global memory");
    return storeArray(p.array, p.off, v.scalar, ty, s);
  }
  return fail("store through an unknown pointer");
}

void Lowerer::execLoad(const llvm::LoadInst *ld, State &s) {
  if (ld->isAtomic())
    return fail("atomic load");
  SymVal p = eval(ld->getPointerOperand(), s);
  SymVal v = loadFrom(p, ld->getType(), s);
  if (!failed)
    s.vals[ld] = v;
}

void Lowerer::execStore(const llvm::StoreInst *st, State &s) {
  if (st->isAtomic())
    return fail("atomic store");
  SymVal p = eval(st->getPointerOperand(), s);
  SymVal v = eval(st->getValueOperand(), s);
  if (failed)
    return;
  storeTo(p, v, st->getValueOperand()->getType(), s);
}

void Lowerer::execAtomicRMW(const llvm::AtomicRMWInst *rmw, State &s) {
  using Bin = llvm::AtomicRMWInst::BinOp;
  std::string what =
      ("'atomicrmw " +
       llvm::AtomicRMWInst::getOperationName(rmw->getOperation()) + "'")
          .str();
  std::optional<RmwKind> kind;
  switch (rmw->getOperation()) {
  case Bin::Add:
  case Bin::Sub:
    kind = RmwKind::add;
    break;
  case Bin::And:
    kind = RmwKind::and_;
    break;
  case Bin::Or:
    kind = RmwKind::or_;
    break;
  case Bin::Xor:
    kind = RmwKind::xor_;
    break;
  case Bin::Min:
    kind = RmwKind::smin;
    break;
  case Bin::Max:
    kind = RmwKind::smax;
    break;
  case Bin::UMin:
    kind = RmwKind::umin;
    break;
  case Bin::UMax:
    kind = RmwKind::umax;
    break;
  default:
    break;
  }
  // Exchange, increment with wrap-around, float add (rounded in the
  // threads' order): the final value depends on the order of the threads.
  if (!kind)
    return fail("atomic operation " + what +
                " (its result depends on the order of the threads)");
  llvm::Type *ty = rmw->getValOperand()->getType();
  SymVal p = eval(rmw->getPointerOperand(), s);
  SymVal v = eval(rmw->getValOperand(), s);
  if (failed)
    return;
  if (p.kind != SymVal::ArrayPtr)
    return fail("atomic operation " + what +
                " on private memory or through an unknown pointer");
  if (v.kind != SymVal::Scalar)
    return fail("atomic operation " + what + " on a value of unknown shape");
  uint64_t size = f.getParent()->getDataLayout().getTypeStoreSize(ty);
  uint64_t es = elemSizeFor(p.array, size);
  if (!es)
    return;
  if (es != size)
    return fail("atomic operation " + what +
                " on part of an array element or several elements");
  Value idx = elementIndex(p.array, p.off, ty);
  if (failed || isFalse(s.guard))
    return;
  Value val = v.scalar;
  if (rmw->getOperation() == Bin::Sub)
    val = b.createOrFold<arith::SubIOp>(loc, cst(val.getType(), 0), val);
  WriteOp::create(b, loc, p.array, idx, val, s.guard,
                  RmwKindAttr::get(b.getContext(), *kind));
  ownWrites.push_back({p.array, idx, val, s.guard, /*atomic=*/true});
  // The old value depends on the order of the threads: a placeholder that
  // fails the lowering if it reaches anything but dead code (at -O0 it is
  // stored to a temporary nobody reads).
  // The op records its atomic by index: a loop the lowering unrolls and
  // then models instead erases the ops of the attempt.
  auto old = ApplyOp::create(b, loc, typeFor(ty), "atomic.old", ValueRange{});
  old->setAttr("kv.atomic_old", b.getI64IntegerAttr(atomicOlds.size()));
  atomicOlds.push_back({rmw, callStack});
  s.vals[rmw] = scalar(old);
}

void Lowerer::checkAtomicOlds(Block &body) {
  llvm::SmallVector<std::pair<Operation *, const AtomicOld *>> olds;
  for (Operation &op : body)
    if (auto n = op.getAttrOfType<IntegerAttr>("kv.atomic_old"))
      if (n.getInt() >= 0 && (size_t)n.getInt() < atomicOlds.size())
        olds.push_back({&op, &atomicOlds[n.getInt()]});
  for (auto [placeholder, a] : olds) {
    const llvm::AtomicRMWInst *inst = a->inst;
    llvm::SmallVector<Operation *> work{placeholder};
    llvm::DenseSet<Operation *> seen;
    while (!work.empty() && !failed) {
      Operation *op = work.pop_back_val();
      if (!seen.insert(op).second)
        continue;
      if (!isPure(op)) {
        curInst = inst;
        callStack = a->callStack;
        return fail(
            ("use of the old value that atomic operation 'atomicrmw " +
             llvm::AtomicRMWInst::getOperationName(inst->getOperation()) +
             "' returns (it depends on the order of the threads)")
                .str());
      }
      for (Operation *u : op->getUsers())
        work.push_back(u);
    }
  }
}

/// The scalars of \p t with their byte offsets from \p base, in order
/// (false past \p limit of them).
static bool
scalarLeaves(llvm::Type *t, uint64_t base, const llvm::DataLayout &dl,
             llvm::SmallVectorImpl<std::pair<uint64_t, llvm::Type *>> &out,
             size_t limit) {
  if (auto *st = dyn_cast<llvm::StructType>(t)) {
    const llvm::StructLayout *sl = dl.getStructLayout(st);
    for (unsigned i = 0; i < st->getNumElements(); ++i)
      if (!scalarLeaves(st->getElementType(i), base + sl->getElementOffset(i),
                        dl, out, limit))
        return false;
    return true;
  }
  if (auto *at = dyn_cast<llvm::ArrayType>(t)) {
    uint64_t stride = dl.getTypeAllocSize(at->getElementType());
    for (uint64_t i = 0; i < at->getNumElements(); ++i)
      if (!scalarLeaves(at->getElementType(), base + i * stride, dl, out,
                        limit))
        return false;
    return true;
  }
  if (auto *vt = dyn_cast<llvm::FixedVectorType>(t)) {
    uint64_t stride = dl.getTypeStoreSize(vt->getElementType());
    for (unsigned i = 0; i < vt->getNumElements(); ++i)
      out.push_back({base + i * stride, vt->getElementType()});
    return out.size() <= limit;
  }
  out.push_back({base, t});
  return out.size() <= limit;
}

llvm::SmallVector<std::pair<uint64_t, llvm::Type *>>
Lowerer::aggregateLeaves(llvm::Type *t) {
  llvm::SmallVector<std::pair<uint64_t, llvm::Type *>> leaves;
  if (!scalarLeaves(t, 0, f.getParent()->getDataLayout(), leaves, 4096))
    fail("aggregate of more than 4096 scalars");
  return leaves;
}

SymVal Lowerer::constantAggregate(const llvm::Constant *c, State &s) {
  SymVal r;
  r.kind = SymVal::Aggregate;
  const llvm::DataLayout &dl = f.getParent()->getDataLayout();
  for (auto [off, leaf] : aggregateLeaves(c->getType())) {
    // The constant scalar at byte offset off: walk down the aggregate.
    const llvm::Constant *e = c;
    uint64_t at = off;
    while (e && e->getType()->isAggregateType()) {
      llvm::Type *t = e->getType();
      unsigned idx;
      if (auto *st = dyn_cast<llvm::StructType>(t)) {
        const llvm::StructLayout *sl = dl.getStructLayout(st);
        idx = sl->getElementContainingOffset(at);
        at -= sl->getElementOffset(idx);
      } else {
        uint64_t stride =
            dl.getTypeAllocSize(cast<llvm::ArrayType>(t)->getElementType());
        idx = at / stride;
        at -= idx * stride;
      }
      e = e->getAggregateElement(idx);
    }
    if (auto *vt = e ? dyn_cast<llvm::FixedVectorType>(e->getType()) : nullptr)
      e = e->getAggregateElement(
          unsigned(at / dl.getTypeStoreSize(vt->getElementType())));
    if (!e) {
      fail("aggregate constant");
      return r;
    }
    r.parts.push_back(eval(e, s));
  }
  return r;
}

/// The byte offset and type of the member of \p t at \p indices.
static std::pair<uint64_t, llvm::Type *>
memberAt(llvm::Type *t, llvm::ArrayRef<unsigned> indices,
         const llvm::DataLayout &dl) {
  uint64_t off = 0;
  for (unsigned i : indices) {
    if (auto *st = dyn_cast<llvm::StructType>(t)) {
      off += dl.getStructLayout(st)->getElementOffset(i);
      t = st->getElementType(i);
    } else {
      llvm::Type *et = cast<llvm::ArrayType>(t)->getElementType();
      off += i * dl.getTypeAllocSize(et);
      t = et;
    }
  }
  return {off, t};
}

void Lowerer::execAggregateOp(const llvm::Instruction &inst, State &s) {
  const llvm::DataLayout &dl = f.getParent()->getDataLayout();
  bool extract = isa<llvm::ExtractValueInst>(inst);
  llvm::Type *aggTy = inst.getOperand(0)->getType();
  llvm::ArrayRef<unsigned> indices =
      extract ? cast<llvm::ExtractValueInst>(inst).getIndices()
              : cast<llvm::InsertValueInst>(inst).getIndices();
  SymVal agg = eval(inst.getOperand(0), s);
  if (failed)
    return;
  auto leaves = aggregateLeaves(aggTy);
  if (agg.kind != SymVal::Aggregate || agg.parts.size() != leaves.size())
    return fail("aggregate value of an unknown shape");
  auto [off, memberTy] = memberAt(aggTy, indices, dl);
  uint64_t end = off + dl.getTypeAllocSize(memberTy);
  // The member's scalars: those whose offsets fall within it.
  size_t first = 0;
  while (first < leaves.size() && leaves[first].first < off)
    ++first;
  size_t last = first;
  while (last < leaves.size() && leaves[last].first < end)
    ++last;
  if (extract) {
    if (!memberTy->isAggregateType()) {
      if (last != first + 1)
        return fail("aggregate member of an unknown shape");
      s.vals[&inst] = agg.parts[first];
      return;
    }
    SymVal r;
    r.kind = SymVal::Aggregate;
    r.parts.assign(agg.parts.begin() + first, agg.parts.begin() + last);
    s.vals[&inst] = r;
    return;
  }
  SymVal v = eval(inst.getOperand(1), s);
  if (failed)
    return;
  if (memberTy->isAggregateType()) {
    if (v.kind != SymVal::Aggregate || v.parts.size() != last - first)
      return fail("aggregate member of an unknown shape");
    std::copy(v.parts.begin(), v.parts.end(), agg.parts.begin() + first);
  } else {
    if (last != first + 1)
      return fail("aggregate member of an unknown shape");
    agg.parts[first] = v;
  }
  s.vals[&inst] = agg;
}

void Lowerer::execMemIntrinsic(const llvm::MemIntrinsic &mi, State &s) {
  const llvm::DataLayout &dl = f.getParent()->getDataLayout();
  llvm::StringRef what = isa<llvm::MemSetInst>(mi) ? "memset" : "memcpy";
  auto *lenC = dyn_cast<llvm::ConstantInt>(mi.getLength());
  if (!lenC)
    return fail(what + " of a length that is not a constant");
  uint64_t len = lenC->getZExtValue();
  SymVal dst = eval(mi.getDest(), s);
  SymVal src;
  if (auto *mt = dyn_cast<llvm::MemTransferInst>(&mi))
    src = eval(mt->getSource(), s);
  if (failed || !len)
    return;
  auto *set = dyn_cast<llvm::MemSetInst>(&mi);
  if (!set && src.kind == dst.kind && src.obj == dst.obj &&
      src.array == dst.array &&
      (dst.kind == SymVal::PrivPtr || dst.kind == SymVal::ArrayPtr))
    return fail(what + " within one array or object");

  // The scalars the bytes cover: those of a private object's type, or the
  // elements of an array (32-bit words while its type is not yet known).
  constexpr size_t maxScalars = 4096;
  llvm::SmallVector<std::pair<uint64_t, llvm::Type *>> leaves;
  const SymVal *typed = dst.kind == SymVal::PrivPtr   ? &dst
                        : src.kind == SymVal::PrivPtr ? &src
                                                      : nullptr;
  uint64_t from = 0;
  if (typed) {
    auto it = objTypes.find(typed->obj);
    if (it == objTypes.end() || !typed->off.terms.empty())
      return fail(what + " of private memory at an offset that is not a "
                         "constant");
    if (!scalarLeaves(it->second, 0, dl, leaves, maxScalars))
      return fail(what + " of more than 4096 scalars");
    from = typed->off.constant;
  } else {
    uint64_t size = 4;
    for (const SymVal *p : {&dst, &src})
      if (p->kind == SymVal::ArrayPtr) {
        auto it = arrayElemSize.find(p->array);
        if (it != arrayElemSize.end()) {
          size = it->second;
          break;
        }
      }
    if (len % size || len / size > maxScalars)
      return fail(what + " of " + llvm::Twine(len) +
                  " bytes, not a whole number of array elements");
    llvm::Type *word = llvm::Type::getIntNTy(f.getContext(), 8 * size);
    for (uint64_t o = 0; o < len; o += size)
      leaves.push_back({o, word});
  }
  // Byte offsets relative to the destination (and the source).
  unsigned covered = 0;
  for (auto [off, ty] : leaves) {
    uint64_t size = dl.getTypeStoreSize(ty);
    if (off + size <= from || off >= from + len)
      continue;
    if (off < from || off + size > from + len)
      return fail(what + " that covers part of a " + typeName(ty));
    uint64_t rel = off - from;
    SymVal v;
    if (set) {
      auto *byte = dyn_cast<llvm::ConstantInt>(set->getValue());
      if (!byte)
        return fail("memset of a value that is not a constant");
      if (ty->isPointerTy()) {
        if (!byte->isZero())
          return fail("memset of a pointer to a value other than 0");
        v.kind = SymVal::NullPtr;
      } else {
        unsigned bits = dl.getTypeStoreSizeInBits(ty);
        llvm::APInt splat =
            llvm::APInt::getSplat(bits, byte->getValue().zextOrTrunc(8));
        Type t = typeFor(ty);
        v = scalar(arith::ConstantOp::create(
            b, loc, t,
            IntegerAttr::get(t, splat.trunc(t.getIntOrFloatBitWidth()))));
      }
    } else {
      SymVal sp = src;
      sp.off.constant += rel;
      v = loadFrom(sp, ty, s);
    }
    SymVal dp = dst;
    dp.off.constant += rel;
    storeTo(dp, v, ty, s);
    if (failed)
      return;
    ++covered;
  }
  if (!covered)
    return fail(what + " that covers no whole scalar");
}

} // namespace lowering
} // namespace kv
