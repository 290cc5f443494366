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
  std::string name = variableName(gv->getName());
  // Element type and size are fixed at the first access.
  Value a;
  if (gv->getAddressSpace() == 3) {
    Block &blk = kernel.getBlock();
    unsigned pos = blk.getNumArguments();
    a = blk.insertArgument(pos, SharedArrayType::get(ctx, b.getI8Type(), 0),
                           UnknownLoc::get(ctx));
    argNames.insert(argNames.begin() + pos, name);
    arrayKeys[a] = name;
  } else {
    a = newGlobalArray(name);
  }
  argArrays[base] = a;
  return a;
}

Value Lowerer::newGlobalArray(const std::string &name, Type elem) {
  Block &blk = kernel.getBlock();
  unsigned pos = 0;
  while (pos < blk.getNumArguments() &&
         !isa<SharedArrayType>(blk.getArgument(pos).getType()))
    ++pos;
  Value a = blk.insertArgument(
      pos, GlobalArrayType::get(ctx, elem ? elem : b.getI8Type()),
      UnknownLoc::get(ctx));
  argNames.insert(argNames.begin() + pos, name);
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

bool Lowerer::storeOnPath(Value guard, const State &s) {
  // A store of the loop body at its top level is unconditional within the
  // iteration, and one made under the reading path's own guard (or one of
  // its conjuncts: an unrolled loop's earlier iteration) happened on that
  // path (a counter inside an if stays a constant, so a loop there keeps
  // its constant trip count).
  return isTrue(guard) || conjunctOf(guard, s.guard) ||
         (!symLoops.empty() && guard == symLoops.back().guard);
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
        if (storeOnPath(it->guard, s)) {
          complete = true;
          break;
        }
        continue;
      }
      // Disjoint byte ranges do not matter.
      if (d >= (int64_t)size || -d >= (int64_t)it->size)
        continue;
      return loadPrivateBytes(p, ty, s);
    }
    if (it->size != size) {
      fail("private memory accessed with overlapping sizes");
      return scalar(cst(b.getI32Type(), 0));
    }
    Value same = eq(materialize(it->off), materialize(p.off));
    hits.push_back({andI1(it->guard, same), it->val});
  }
  SymVal result;
  // Where no store on the walk is on every path, the location may be
  // uninitialized: its content is indeterminate. In the before kernel any
  // value (here the oldest store's) is a valid refinement; in the after
  // kernel it is the GPU's. (Not where the lowering reads for itself, a
  // loop's carried values at its entry and exits; nor yet inside a loop
  // kept symbolic, where the GPU's value would be opaque and stores under
  // complementary branch conditions common.)
  if (uninitializedIsGPUs(complete) && !ty->isPointerTy()) {
    result = undefinedValue(ty);
  } else if (!hits.empty()) {
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

SymVal Lowerer::loadPrivateBytes(const SymVal &p, llvm::Type *ty, State &s) {
  // A read that overlaps stores of other sizes (a bitfield's byte stores
  // under a struct's word, a union): byte by byte, each the latest store's
  // that covers it under the path's guards, as loadPrivate does for whole
  // values.
  const llvm::DataLayout &dl = f.getParent()->getDataLayout();
  uint64_t size = dl.getTypeStoreSize(ty);
  // What the bytes do not determine (a pointer's bytes, a store at an
  // offset only known symbolically) is unknown: moving it is
  // fine (a struct copied whole), any use fails.
  auto overlap = [&] {
    SymVal unknown;
    unknown.kind = SymVal::Opaque;
    unknown.origin = curInst;
    return unknown;
  };
  if (size > 8)
    return overlap();
  Type wide = b.getIntegerType(size * 8), byteTy = b.getI8Type();
  Value result = cst(wide, 0);
  for (uint64_t k = 0; k < size; ++k) {
    std::vector<std::pair<Value, Value>> hits; // condition, byte
    bool complete = false;
    for (auto it = s.stores.rbegin(); it != s.stores.rend() && !complete;
         ++it) {
      if (it->obj != p.obj)
        continue;
      if (it->anywhere) {
        SymVal unknown;
        unknown.kind = SymVal::LoopResult;
        return unknown;
      }
      Linear diff = p.off;
      diff.add(it->off, -1);
      if (!diff.terms.empty())
        return overlap();
      int64_t at = diff.constant + (int64_t)k; // the byte within the store
      if (at < 0 || at >= (int64_t)it->size)
        continue;
      if (it->val.kind == SymVal::Opaque || it->val.kind == SymVal::LoopResult)
        return it->val;
      if (it->val.kind != SymVal::Scalar)
        return overlap();
      Value v = it->val.scalar;
      auto vt = dyn_cast<IntegerType>(v.getType());
      if (!vt)
        return overlap();
      if (vt.getWidth() < 8 * it->size)
        v = b.createOrFold<arith::ExtUIOp>(loc, b.getIntegerType(8 * it->size),
                                           v);
      if (at)
        v = b.createOrFold<arith::ShRUIOp>(loc, v, cst(v.getType(), 8 * at));
      if (v.getType() != byteTy)
        v = b.createOrFold<arith::TruncIOp>(loc, byteTy, v);
      hits.push_back({it->guard, v});
      complete = storeOnPath(it->guard, s);
    }
    // A byte no store covers on some path is indeterminate: 0 refines it
    // in the before kernel, the GPU's byte in the after kernel.
    Value byte = cst(byteTy, 0);
    if (uninitializedIsGPUs(complete)) {
      SymVal any = undefinedValue(llvm::IntegerType::get(f.getContext(), 8));
      if (any.kind != SymVal::Scalar)
        return any;
      byte = any.scalar;
    } else if (!hits.empty()) {
      byte = hits.back().second;
      hits.pop_back();
    }
    for (auto it = hits.rbegin(); it != hits.rend(); ++it)
      byte = select(it->first, it->second, byte);
    Value part = byte;
    if (wide != byteTy)
      part = b.createOrFold<arith::ExtUIOp>(loc, wide, part);
    if (k)
      part = b.createOrFold<arith::ShLIOp>(loc, part, cst(wide, 8 * k));
    result = k ? b.createOrFold<arith::OrIOp>(loc, result, part) : part;
  }
  // A pointer read from integer bytes (a union's other member) is those
  // bits: data to move and store, not an address (no GEP or access takes
  // a scalar).
  Type t = ty->isPointerTy() ? wide : typeFor(ty);
  if (t != wide)
    result = b.createOrFold<arith::TruncIOp>(loc, t, result);
  return scalar(result);
}

void Lowerer::execGEP(const llvm::GetElementPtrInst *gep, State &s) {
  auto set = [&](SymVal v) { s.vals[gep] = std::move(v); };
  SymVal p = eval(gep->getPointerOperand(), s);
  // An address within an unknown pointer is unknown, an error only where
  // used (grid.sync()'s workspace, which only the arrival the model takes
  // as a barrier uses).
  if (p.kind == SymVal::Opaque)
    return set(p);
  if (!p.isPtr() || p.kind == SymVal::NullPtr || p.kind == SymVal::FnPtr)
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
    if (failUnknown(v, "stored"))
      return;
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

/// The CUDA function that makes atomic operation \p rmw (atomicInc for
/// `atomicrmw uinc_wrap`), for messages in the source's terms.
static std::string cudaAtomicName(const llvm::AtomicRMWInst &rmw) {
  using Bin = llvm::AtomicRMWInst::BinOp;
  switch (rmw.getOperation()) {
  case Bin::Xchg:
    return "atomicExch";
  case Bin::Add:
    return "atomicAdd";
  case Bin::Sub:
    return "atomicSub";
  case Bin::And:
    return "atomicAnd";
  case Bin::Or:
    return "atomicOr";
  case Bin::Xor:
    return "atomicXor";
  case Bin::Min:
  case Bin::UMin:
  case Bin::FMin:
    return "atomicMin";
  case Bin::Max:
  case Bin::UMax:
  case Bin::FMax:
    return "atomicMax";
  case Bin::UIncWrap:
    return "atomicInc";
  case Bin::UDecWrap:
    return "atomicDec";
  case Bin::FAdd:
    return "atomicAdd of a float";
  case Bin::FSub:
    return "atomicSub of a float";
  default:
    return ("atomicrmw " +
            llvm::AtomicRMWInst::getOperationName(rmw.getOperation()))
        .str();
  }
}

void Lowerer::execAtomicRMW(const llvm::AtomicRMWInst *rmw, State &s) {
  using Bin = llvm::AtomicRMWInst::BinOp;
  std::string what = cudaAtomicName(*rmw);
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
  // An exchange whose value every thread has alike (`atomicExch(&found,
  // 1)`) leaves that value whatever the order: a plain write, whose equal
  // values the race check tolerates. The old value is still the order's.
  if (rmw->getOperation() == Bin::Xchg && rmw->getType()->isIntegerTy()) {
    SymVal p = eval(rmw->getPointerOperand(), s);
    SymVal v = eval(rmw->getValOperand(), s);
    if (failed)
      return;
    if (p.kind == SymVal::ArrayPtr && v.kind == SymVal::Scalar &&
        !sliceHas(v.scalar, [](Operation *op) {
          if (auto r = dyn_cast<SRegOp>(op))
            return r.getGroup() == SRegGroup::Tid ||
                   r.getGroup() == SRegGroup::Bid;
          return isa<ReadOp, ShuffleOp, BallotOp, LaneOp, IterOp, ApplyOp,
                     CarryOp, FoldOp, SumOp, LastOp,
                     UnrealizedConversionCastOp>(op);
        })) {
      storeArray(p.array, p.off, v.scalar, rmw->getType(), s);
      return oldValuePlaceholder(rmw, s);
    }
  }
  // Exchange, increment with wrap-around, float add (rounded in the
  // threads' order): the final value depends on the order of the threads.
  if (!kind)
    return fail(what + " (its result depends on the order of the threads)");
  llvm::Type *ty = rmw->getValOperand()->getType();
  SymVal p = eval(rmw->getPointerOperand(), s);
  SymVal v = eval(rmw->getValOperand(), s);
  if (failed)
    return;
  if (p.kind != SymVal::ArrayPtr)
    return fail(what + " on private memory or through an unknown pointer");
  if (v.kind != SymVal::Scalar)
    return fail(what + " on a value of unknown shape");
  uint64_t size = f.getParent()->getDataLayout().getTypeStoreSize(ty);
  uint64_t es = elemSizeFor(p.array, size);
  if (!es)
    return;
  if (es != size)
    return fail(what + " on part of an array element or several elements");
  Value idx = elementIndex(p.array, p.off, ty);
  if (failed || isFalse(s.guard))
    return;
  Value val = v.scalar;
  if (rmw->getOperation() == Bin::Sub)
    val = b.createOrFold<arith::SubIOp>(loc, cst(val.getType(), 0), val);
  WriteOp::create(b, loc, p.array, idx, val, s.guard,
                  RmwKindAttr::get(b.getContext(), *kind));
  ownWrites.push_back({p.array, idx, val, s.guard, /*atomic=*/true});
  oldValuePlaceholder(rmw, s);
}

void Lowerer::oldValuePlaceholder(const llvm::AtomicRMWInst *rmw, State &s) {
  // The old value depends on the order of the threads: a placeholder that
  // fails the lowering if it reaches anything but dead code (at -O0 it is
  // stored to a temporary nobody reads).
  // The op records its atomic by index: a loop the lowering unrolls and
  // then models instead erases the ops of the attempt.
  auto old = ApplyOp::create(b, loc, typeFor(rmw->getType()), "atomic.old",
                             ValueRange{});
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
        return fail("use of the old value that " + cudaAtomicName(*inst) +
                    " returns (it depends on the order of the threads)");
      }
      for (Operation *u : op->getUsers())
        work.push_back(u);
    }
  }
}

} // namespace lowering
} // namespace kv
