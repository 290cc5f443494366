//===- LowerAggregates.cpp - Structs, arrays and memory intrinsics -------===//
//
// Aggregate values of the symbolic execution: constant structs and arrays,
// insertvalue/extractvalue, and memcpy/memset/memmove between private
// objects and arrays, scalar by scalar.
//
//===----------------------------------------------------------------------===//
#include "passes/lower/Lowerer.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"

namespace kv {
namespace lowering {

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
  // A length the kernel computes: each scalar of the private object copied
  // to or from is copied where the length covers it, as the copy's loop
  // would (`len` is then the most the object allows).
  Value lenV;
  SymVal lenS;
  if (!lenC) {
    lenS = eval(mi.getLength(), s);
    if (failed)
      return;
    if (lenS.kind != SymVal::Scalar)
      return fail(what + " of a length the model does not compute");
    lenV = lenS.scalar;
  }
  uint64_t len = lenC ? lenC->getZExtValue() : 0;
  SymVal dst = eval(mi.getDest(), s);
  SymVal src;
  if (auto *mt = dyn_cast<llvm::MemTransferInst>(&mi))
    src = eval(mt->getSource(), s);
  if (failed || (lenC && !len))
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
    if (lenV) {
      uint64_t size = dl.getTypeAllocSize(it->second);
      if (from > size)
        return fail(what + " past the end of a private object");
      len = size - from;
      // A scalar partly covered is not modelled: where the scalars are of
      // one size, aligned to it, the checker proves the length a multiple
      // of it; other shapes are not modelled under a computed length.
      uint64_t unit = 0;
      for (auto [off, ty] : leaves) {
        if (off < from || off >= from + len)
          continue;
        uint64_t size = dl.getTypeStoreSize(ty);
        if (unit && size != unit)
          return fail(what + " of a length that is not a constant, over "
                             "scalars of different sizes");
        unit = size;
        if ((off - from) % size)
          return fail(what +
                      " of a length that is not a constant, from "
                      "within a " +
                      typeName(ty));
      }
      Type lenTy = lenV.getType();
      if (unit > 1)
        ProveOp::create(
            b, loc,
            b.createOrFold<arith::OrIOp>(
                loc, notI1(s.guard),
                eq(b.createOrFold<arith::RemUIOp>(
                       loc, lenV,
                       arith::ConstantOp::create(
                           b, loc, lenTy, IntegerAttr::get(lenTy, unit))),
                   arith::ConstantOp::create(b, loc, lenTy,
                                             IntegerAttr::get(lenTy, 0)))),
            b.getStringAttr(what + " of whole scalars"));
      // Past the object the copy is undefined: the checker proves it is not.
      Value most = arith::ConstantOp::create(
          b, loc, lenV.getType(), IntegerAttr::get(lenV.getType(), len));
      ProveOp::create(b, loc,
                      b.createOrFold<arith::OrIOp>(
                          loc, notI1(s.guard),
                          b.createOrFold<arith::CmpIOp>(
                              loc, arith::CmpIPredicate::ule, lenV, most)),
                      b.getStringAttr(what + " within its private object"));
    }
  } else if (lenV) {
    return fail(what + " of a length that is not a constant between arrays "
                       "(no private object bounds it)");
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
    // (Under a computed length, this scalar's copy is guarded by the
    // length covering it.)
    Value outer = s.guard;
    auto restore = llvm::make_scope_exit([&] { s.guard = outer; });
    if (lenV) {
      Value end = arith::ConstantOp::create(
          b, loc, lenV.getType(), IntegerAttr::get(lenV.getType(), rel + size));
      s.guard = andI1(outer, b.createOrFold<arith::CmpIOp>(
                                 loc, arith::CmpIPredicate::ule, end, lenV));
    }
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

/// The names' suffixes of scalarLeaves(\p t)'s leaves, in the same order:
/// a struct's fields by \p fields' names where it has them.
static void leafPaths(llvm::Type *t, const std::string &prefix,
                      const FieldNames &fields, std::vector<std::string> &out) {
  if (auto *st = llvm::dyn_cast<llvm::StructType>(t)) {
    std::vector<std::string> names;
    if (fields)
      names = fields(st);
    if (names.size() != st->getNumElements())
      names.clear();
    for (unsigned i = 0; i < st->getNumElements(); ++i)
      leafPaths(st->getElementType(i),
                prefix + "." + (names.empty() ? std::to_string(i) : names[i]),
                fields, out);
    return;
  }
  uint64_t n = 0;
  llvm::Type *e = nullptr;
  if (auto *at = llvm::dyn_cast<llvm::ArrayType>(t))
    n = at->getNumElements(), e = at->getElementType();
  else if (auto *vt = llvm::dyn_cast<llvm::FixedVectorType>(t))
    n = vt->getNumElements(), e = vt->getElementType();
  if (!e) {
    out.push_back(prefix);
    return;
  }
  for (uint64_t i = 0; i < n && out.size() <= 64; ++i)
    leafPaths(e, prefix + "." + std::to_string(i), fields, out);
}

std::optional<std::vector<ByValLeaf>> byValLeaves(const llvm::Argument &a,
                                                  const FieldNames &fields) {
  if (!a.hasByValAttr())
    return std::nullopt;
  llvm::Type *t = a.getParamByValType();
  const llvm::DataLayout &dl = a.getParent()->getParent()->getDataLayout();
  llvm::SmallVector<std::pair<uint64_t, llvm::Type *>> leaves;
  std::vector<std::string> paths;
  std::vector<ByValLeaf> out;
  if (!lowering::scalarLeaves(t, 0, dl, leaves, 64))
    return out;
  leafPaths(t, "", fields, paths);
  if (paths.size() != leaves.size())
    return out;
  for (size_t i = 0; i < leaves.size(); ++i) {
    llvm::Type *lt = leaves[i].second;
    bool scalar = lt->isPointerTy() || lt->isFloatTy() || lt->isDoubleTy() ||
                  (lt->isIntegerTy() && lt->getIntegerBitWidth() <= 64);
    if (!scalar)
      return std::vector<ByValLeaf>();
    out.push_back({leaves[i].first, lt, paths[i]});
  }
  return out;
}

unsigned kvParamIndex(const llvm::Argument &a) {
  unsigned n = 0;
  for (const llvm::Argument &b : a.getParent()->args()) {
    if (&b == &a)
      break;
    auto leaves = byValLeaves(b);
    n += leaves && !leaves->empty() ? leaves->size() : 1;
  }
  return n;
}

unsigned kvParamCount(const llvm::Function &f) {
  unsigned n = 0;
  for (const llvm::Argument &b : f.args()) {
    auto leaves = byValLeaves(b);
    n += leaves && !leaves->empty() ? leaves->size() : 1;
  }
  return n;
}

} // namespace kv
