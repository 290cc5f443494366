//===- IRExecutorMemory.cpp - the LLVM IR interpreter's memory ------------===//
//
// Values (slots, constants, globals made objects, initializers spelled out
// as bytes) and memory: loads and stores on byte-addressed objects and on
// the kv model's arrays, memset and memcpy.
//
//===----------------------------------------------------------------------===//
#include "equiv/IRExecutorInternal.h"

#include <cmath>

namespace kv {
namespace irexec {

const FnInfo &IRRunner::infoFor(const Function &f) {
  auto [it, fresh] = infos.try_emplace(&f);
  if (fresh) {
    for (const Argument &a : f.args())
      it->second.slots[&a] = it->second.n++;
    for (const BasicBlock &bb : f)
      for (const Instruction &i : bb)
        it->second.slots[&i] = it->second.n++;
  }
  return it->second;
}

Val IRRunner::zeroOf(ThreadState &t, Type *ty) {
  if (ty->isStructTy() || ty->isArrayTy()) {
    std::vector<Val> parts;
    if (auto *st = dyn_cast<StructType>(ty))
      for (Type *e : st->elements())
        parts.push_back(zeroOf(t, e));
    else
      for (uint64_t i = 0; i < ty->getArrayNumElements(); ++i)
        parts.push_back(zeroOf(t, ty->getArrayElementType()));
    return aggregate(t, std::move(parts));
  }
  if (ty->isPointerTy())
    return Val{0, Val::Null};
  return Val{};
}

Val IRRunner::constant(ThreadState &t, const Constant *c) {
  if (auto *ci = dyn_cast<ConstantInt>(c)) {
    if (ci->getBitWidth() > 64)
      fail("integer wider than 64 bits");
    return Val{ci->getZExtValue()};
  }
  if (auto *cf = dyn_cast<ConstantFP>(c))
    return Val{cf->getValueAPF().bitcastToAPInt().getZExtValue()};
  if (isa<ConstantPointerNull>(c))
    return Val{0, Val::Null};
  if (isa<UndefValue>(c) || isa<ConstantAggregateZero>(c))
    return zeroOf(t, c->getType());
  if (auto *fn = dyn_cast<Function>(c))
    return Val{(uint64_t)(uintptr_t)fn, Val::Fn};
  if (auto *gv = dyn_cast<GlobalVariable>(c)) {
    int32_t o = objectOf(*gv);
    return o < 0 ? Val{} : Val{0, o};
  }
  if (auto *ce = dyn_cast<ConstantExpr>(c)) {
    Val out;
    if (!evalOp(t, *cast<Operator>(ce), out))
      return Val{};
    return out;
  }
  if (isa<ConstantStruct>(c) || isa<ConstantArray>(c) ||
      isa<ConstantDataSequential>(c)) {
    std::vector<Val> parts;
    for (unsigned i = 0, n = c->getType()->isStructTy()
                                 ? c->getType()->getStructNumElements()
                                 : c->getType()->getArrayNumElements();
         i < n; ++i)
      parts.push_back(constant(t, c->getAggregateElement(i)));
    return aggregate(t, std::move(parts));
  }
  fail("constant '" + c->getNameOrAsOperand() + "'");
  return Val{};
}

Val IRRunner::get(ThreadState &t, const Value *v) {
  if (auto *c = dyn_cast<Constant>(v))
    return constant(t, c);
  Frame &f = t.stack.back();
  auto it = f.info->slots.find(v);
  if (it == f.info->slots.end()) {
    fail("value from another function");
    return Val{};
  }
  return t.regs[f.base + it->second];
}

/// The bytes of constant \p c at \p off in dense object \p obj.
bool IRRunner::constantBytes(const Constant *c, int32_t obj, uint64_t off) {
  Type *ty = c->getType();
  if (isa<ConstantAggregateZero>(c) || isa<UndefValue>(c) ||
      isa<ConstantPointerNull>(c))
    return true; // already zero
  if (isa<ConstantInt>(c) || isa<ConstantFP>(c)) {
    uint64_t bits = isa<ConstantInt>(c) ? cast<ConstantInt>(c)->getZExtValue()
                                        : cast<ConstantFP>(c)
                                              ->getValueAPF()
                                              .bitcastToAPInt()
                                              .getZExtValue();
    uint64_t n = dl.getTypeStoreSize(ty);
    for (uint64_t i = 0; i < n && i < 8; ++i)
      objs[obj].bytes[off + i] = (bits >> (8 * i)) & 0xff;
    return true;
  }
  // A function's address: a pointer the object holds, as a stored one is.
  if (auto *fn = dyn_cast<Function>(c)) {
    objs[obj].ptrs[(int64_t)off] = Val{(uint64_t)(uintptr_t)fn, Val::Fn};
    return true;
  }
  if (auto *st = dyn_cast<StructType>(ty)) {
    const StructLayout *sl = dl.getStructLayout(st);
    for (unsigned i = 0; i < st->getNumElements(); ++i)
      if (!constantBytes(c->getAggregateElement(i), obj,
                         off + sl->getElementOffset(i)))
        return false;
    return true;
  }
  if (auto *at = dyn_cast<ArrayType>(ty)) {
    uint64_t es = dl.getTypeAllocSize(at->getElementType());
    for (uint64_t i = 0; i < at->getNumElements(); ++i)
      if (!constantBytes(c->getAggregateElement(i), obj, off + i * es))
        return false;
    return true;
  }
  return fail("initializer '" + c->getNameOrAsOperand() + "'");
}

int32_t IRRunner::objectOf(const GlobalVariable &gv) {
  bool shared = gv.getAddressSpace() == 3;
  auto &table = shared ? sharedGlobals : globals;
  auto it = table.find(&gv);
  if (it != table.end())
    return it->second;
  int32_t o;
  if (std::optional<unsigned> arr =
          in.globalArray ? in.globalArray(gv) : std::nullopt;
      arr && *arr < in.elemBytes.size() && in.elemBytes[*arr] &&
      in.elemBytes[*arr] <= 8) {
    objs.emplace_back();
    Obj &ob = objs.back();
    ob.sparse = true;
    ob.arr = *arr;
    ob.elem = in.elemBytes[*arr];
    ob.shared = shared;
    if (shared)
      ob.length = dl.getTypeAllocSize(gv.getValueType()) / ob.elem;
    std::copy(bid, bid + 3, ob.bid);
    o = (int32_t)objs.size() - 1;
  } else if (shared) {
    // Uninitialized shared memory reads as 0, as `kvalidate replay` has it.
    o = newDense(dl.getTypeAllocSize(gv.getValueType()));
    objs[o].common = true;
  } else if (gv.hasInitializer()) {
    o = newDense(dl.getTypeAllocSize(gv.getValueType()), gv.isConstant());
    objs[o].common = true;
    if (!constantBytes(gv.getInitializer(), o, 0))
      return -1;
  } else if (auto *st = dyn_cast<StructType>(gv.getValueType());
             st && st->hasName() &&
             st->getName().starts_with("struct.__cuda_builtin_")) {
    // CUDA's builtin variables (threadIdx, blockDim: empty C++ structs whose
    // members read special registers) have an address that cooperative
    // groups pass around; their one byte is padding.
    o = newDense(dl.getTypeAllocSize(st), /*readOnly=*/true);
  } else {
    fail("global variable '" + gv.getName() + "' without a definition");
    return -1;
  }
  table[&gv] = o;
  return o;
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

Obj::Cell &IRRunner::cell(Obj &o, int64_t e) {
  auto [it, fresh] = o.cells.try_emplace(e);
  if (fresh) {
    APInt v = o.shared ? in.sharedInitial(o.arr, o.bid, (uint64_t)e)
                       : in.initial(o.arr, (uint64_t)e);
    it->second.v = v.getBitWidth() <= 64 ? v.getZExtValue() : 0;
  }
  return it->second;
}

bool IRRunner::readBytes(Val p, uint64_t n, uint8_t *out) {
  if (p.obj < 0)
    return fail(p.obj == Val::Null ? "load through a null pointer"
                                   : "load through a non-pointer");
  Obj &o = objs[p.obj];
  int64_t off = (int64_t)p.bits;
  if (!o.sparse) {
    if (off < 0 || (uint64_t)off + n > o.bytes.size())
      return fail("access outside an object of " + Twine(o.bytes.size()) +
                  " bytes (offset " + Twine(off) + ")");
    std::copy_n(o.bytes.begin() + off, n, out);
    if (!o.unset.empty() &&
        std::any_of(o.unset.begin() + off, o.unset.begin() + off + n,
                    [](bool b) { return b; }))
      readUnset = true;
    return true;
  }
  if (off % (int64_t)o.elem == 0 && n == o.elem) {
    int64_t e = off / (int64_t)o.elem;
    Obj::Cell &c = cell(o, e);
    access(o, e, c, /*write=*/false);
    for (uint64_t i = 0; i < n; ++i)
      out[i] = (c.v >> (8 * i)) & 0xff;
    return true;
  }
  for (uint64_t i = 0; i < n; ++i) {
    int64_t b = off + (int64_t)i, e = floorDiv(b, o.elem);
    Obj::Cell &c = cell(o, e);
    access(o, e, c, /*write=*/false);
    out[i] = (c.v >> (8 * (b - e * o.elem))) & 0xff;
  }
  return true;
}

const Instruction *IRRunner::userSite() const {
  auto system = [](const Instruction *i) {
    const DebugLoc &loc = i->getDebugLoc();
    return loc && loc->getFilename().starts_with("/usr/");
  };
  const Instruction *at = cur;
  if (!curState || !at)
    return at;
  for (size_t f = curState->stack.size(); at && system(at) && f > 1; --f)
    at = curState->stack[f - 1].site;
  return at ? at : cur;
}

RunDefect::Site IRRunner::siteOf(int64_t blk, int64_t tid,
                                 const Instruction *at, bool write) const {
  RunDefect::Site s;
  uint64_t b = (uint64_t)blk, t = (uint64_t)tid;
  for (int d = 0; d < 3; ++d) {
    s.block[d] = b % cfg.grid[d];
    b /= cfg.grid[d];
    s.thread[d] = t % cfg.block[d];
    t /= cfg.block[d];
  }
  s.write = write;
  if (at)
    if (const DebugLoc &loc = at->getDebugLoc())
      s.location = loc->getFilename().str() + ":" +
                   std::to_string(loc.getLine()) + ":" +
                   std::to_string(loc.getCol());
  return s;
}

void IRRunner::noteDefect(RunDefect d) {
  if (in.stopAt && in.stopAt(d))
    fail("stopped at the defect it was run to show");
  // One per kind and array; a race of different values replaces one of
  // equal values (which the static check tolerates).
  for (RunDefect &x : defects)
    if (x.kind == d.kind && x.arg == d.arg) {
      if (x.sameValue && !d.sameValue)
        x = std::move(d);
      return;
    }
  if (defects.size() < 16)
    defects.push_back(std::move(d));
}

void IRRunner::access(Obj &o, int64_t e, Obj::Cell &c, bool write, bool same) {
  using Cell = Obj::Cell;
  if (o.shared && (!o.length || e < 0 || (uint64_t)e >= o.length)) {
    notClean(o.length ? "a __shared__ access out of bounds"
                      : "a __shared__ array of unknown size");
    if (o.length) {
      RunDefect d;
      d.kind = RunDefect::OutOfBounds;
      d.arg = (int)o.arr;
      d.cell = e;
      d.first = siteOf(curBlock, curThread, userSite(), write);
      d.what = "a __shared__ index out of bounds";
      noteDefect(std::move(d));
    }
  }
  if (trace) {
    int64_t me = launchThread();
    if (write)
      c.lastWriter = me;
    else if (c.lastWriter != Cell::None)
      trace->readFrom(me, c.lastWriter);
    else if (!o.shared)
      trace->inputs[me].push_back({o.arr, e});
  }
  if (c.epoch != epoch) {
    c.epoch = epoch;
    c.writer = c.reader = Cell::None;
    c.writerAt = c.readerAt = nullptr;
  }
  if (c.gridEpoch != gridEpoch) {
    c.gridEpoch = gridEpoch;
    c.blockWriter = c.blockReader = Cell::None;
    c.blockWriterAt = c.blockReaderAt = nullptr;
  }
  auto other = [](int64_t who, int64_t me) {
    return who != Cell::None && who != me;
  };
  auto mark = [&](int64_t &who, const Instruction *&at, int64_t &first,
                  int8_t &rmw, int64_t me) {
    if (who == Cell::None) {
      at = userSite();
      first = me;
      rmw = (int8_t)curRmw;
    }
    who = who == Cell::None || who == me ? me : Cell::Many;
  };
  // A race between the access and an earlier one: \p wrote says whether
  // that one was a write. Many accessors: the first one's site stands for
  // one of them (another thread than this one accessed the cell).
  auto race = [&](int64_t blk, int64_t tid, const Instruction *at, bool wrote,
                  int8_t rmw, const char *what) {
    // Two atomic updates of one kind are ordered by the hardware.
    if (curRmw >= 0 && rmw == curRmw)
      return;
    RunDefect d;
    d.kind = RunDefect::Race;
    d.arg = (int)o.arr;
    d.cell = e;
    d.first = siteOf(blk, tid, at, wrote);
    d.first.atomic = rmw >= 0;
    d.second = siteOf(curBlock, curThread, userSite(), write);
    d.second.atomic = curRmw >= 0;
    d.sameValue = wrote && write && same;
    d.what = what;
    noteDefect(std::move(d));
  };
  // Within an interval, threads of one block; across the launch, blocks
  // (which no barrier orders). Equal values written twice count too: the
  // static check, which tolerates them, decides such runs.
  if (other(c.writer, curThread) || (write && other(c.reader, curThread))) {
    notClean("two threads of a barrier interval access one cell, one of "
             "them writing",
             /*race=*/true);
    // The first accessor's site, where that is another thread (with
    // several, the one that is this thread does not count).
    bool byWriter = other(c.writer, curThread);
    int64_t who = byWriter ? c.writerTid : c.readerTid;
    if (who != curThread)
      race(curBlock, who, byWriter ? c.writerAt : c.readerAt, byWriter,
           byWriter ? c.writerRmw : c.readerRmw,
           "two threads of a block access one cell in one barrier interval");
  }
  if (write)
    mark(c.writer, c.writerAt, c.writerTid, c.writerRmw, curThread);
  else
    mark(c.reader, c.readerAt, c.readerTid, c.readerRmw, curThread);
  if (o.shared)
    return;
  if (other(c.blockWriter, curBlock) ||
      (write && other(c.blockReader, curBlock))) {
    notClean("two blocks access one cell, one of them writing",
             /*race=*/true);
    bool byWriter = other(c.blockWriter, curBlock);
    int64_t blk = byWriter ? c.blockWriterBlk : c.blockReaderBlk;
    if (blk != curBlock)
      race(blk, byWriter ? c.blockWriterTid : c.blockReaderTid,
           byWriter ? c.blockWriterAt : c.blockReaderAt, byWriter,
           byWriter ? c.blockWriterRmw : c.blockReaderRmw,
           "threads of two blocks access one cell");
  }
  int64_t &bw = write ? c.blockWriter : c.blockReader;
  if (bw == Cell::None) {
    (write ? c.blockWriterTid : c.blockReaderTid) = curThread;
    (write ? c.blockWriterBlk : c.blockReaderBlk) = curBlock;
    (write ? c.blockWriterAt : c.blockReaderAt) = userSite();
    (write ? c.blockWriterRmw : c.blockReaderRmw) = (int8_t)curRmw;
  }
  bw = bw == Cell::None || bw == curBlock ? curBlock : Cell::Many;
}

bool IRRunner::writeBytes(Val p, uint64_t n, const uint8_t *src) {
  if (p.obj < 0)
    return fail(p.obj == Val::Null ? "store through a null pointer"
                                   : "store through a non-pointer");
  Obj &o = objs[p.obj];
  int64_t off = (int64_t)p.bits;
  if (o.readOnly)
    return fail("store to a constant");
  if (!o.sparse) {
    if (off < 0 || (uint64_t)off + n > o.bytes.size())
      return fail("access outside an object of " + Twine(o.bytes.size()) +
                  " bytes (offset " + Twine(off) + ")");
    if (o.common)
      notClean("a write to memory the model has no array for");
    std::copy_n(src, n, o.bytes.begin() + off);
    if (!o.unset.empty())
      std::fill_n(o.unset.begin() + off, n, false);
    // Bytes that held a pointer no longer do.
    o.ptrs.erase(o.ptrs.lower_bound(off - 7), o.ptrs.lower_bound(off + n));
    return true;
  }
  if (off % (int64_t)o.elem == 0 && n == o.elem) {
    uint64_t v = 0;
    for (uint64_t i = 0; i < n; ++i)
      v |= (uint64_t)src[i] << (8 * i);
    int64_t e = off / (int64_t)o.elem;
    Obj::Cell &c = o.cells[e];
    bool same = c.written && c.v == v && c.range < 0;
    if (c.written && c.range >= 0 && (o.elem == 4 || o.elem == 8)) {
      // Over an approximate value: the same where it may be (storeRange).
      double x = floatValue(v, o.elem == 4);
      same = !std::isnan(x) && cellMayHold(c, o.elem, Range{x, x, o.elem == 4});
      if (same)
        notClean("two writes of a cell, one approximate, that may be equal",
                 /*race=*/true);
    }
    access(o, e, c, /*write=*/true, same);
    c.v = v;
    c.written = true;
    c.range = -1;
    return true;
  }
  for (uint64_t i = 0; i < n; ++i) {
    int64_t b = off + (int64_t)i, e = floorDiv(b, o.elem);
    unsigned sh = 8 * (b - e * o.elem);
    Obj::Cell &c = cell(o, e);
    access(o, e, c, /*write=*/true,
           /*same=*/c.written && ((c.v >> sh) & 0xff) == src[i]);
    c.v = (c.v & ~(0xffull << sh)) | ((uint64_t)src[i] << sh);
    c.written = true;
    c.range = -1;
  }
  return true;
}

bool IRRunner::overlapsOpaque(Val p, uint64_t n) {
  if ((!opaqueSeen && !approxSeen) || p.obj < 0 || objs[p.obj].sparse)
    return false;
  auto &ptrs = objs[p.obj].ptrs;
  int64_t off = (int64_t)p.bits;
  // An approximate result's bytes are not known either.
  for (auto it = ptrs.lower_bound(off - 7);
       it != ptrs.end() && it->first < off + (int64_t)n; ++it)
    if (it->second.obj == Val::Opaque || it->second.obj == Val::Approx)
      return true;
  return false;
}

bool IRRunner::load(ThreadState &t, Type *ty, Val p, Val &out) {
  if (auto *st = dyn_cast<StructType>(ty)) {
    const StructLayout *sl = dl.getStructLayout(st);
    std::vector<Val> parts(st->getNumElements());
    for (unsigned i = 0; i < st->getNumElements(); ++i)
      if (!load(t, st->getElementType(i),
                Val{p.bits + sl->getElementOffset(i), p.obj}, parts[i]))
        return false;
    out = aggregate(t, std::move(parts));
    return true;
  }
  if (auto *at = dyn_cast<ArrayType>(ty)) {
    uint64_t es = dl.getTypeAllocSize(at->getElementType());
    std::vector<Val> parts(at->getNumElements());
    for (uint64_t i = 0; i < at->getNumElements(); ++i)
      if (!load(t, at->getElementType(), Val{p.bits + i * es, p.obj}, parts[i]))
        return false;
    out = aggregate(t, std::move(parts));
    return true;
  }
  if (ty->isPointerTy()) {
    if (p.obj < 0 || objs[p.obj].sparse)
      return fail("pointer loaded from shared/global memory");
    Obj &o = objs[p.obj];
    auto it = o.ptrs.find((int64_t)p.bits);
    if (it != o.ptrs.end()) {
      out = it->second;
      return true;
    }
    if (overlapsOpaque(p, 8)) {
      out = opaque();
      return true;
    }
    uint8_t b[8];
    if (!readBytes(p, 8, b))
      return false;
    if (std::any_of(b, b + 8, [](uint8_t x) { return x; })) {
      // Integer bytes read as a pointer (a union's other member, a struct
      // copied whole): those bits, which no access takes as an address.
      uint64_t bits = 0;
      for (int i = 0; i < 8; ++i)
        bits |= (uint64_t)b[i] << (8 * i);
      out = Val{bits};
      return true;
    }
    out = Val{0, Val::Null};
    return true;
  }
  if (!ty->isIntegerTy() && !ty->isFloatTy() && !ty->isDoubleTy())
    return fail("load of type '" + typeName(ty) + "'");
  uint64_t n = dl.getTypeStoreSize(ty);
  if (n > 8)
    return fail("integer wider than 64 bits");
  bool isRange = false;
  if (!loadRange(p, n, ty, out, isRange))
    return false;
  if (isRange) {
    uint8_t b[8];
    return readBytes(p, n, b); // the access, for the race check
  }
  if (overlapsOpaque(p, n)) {
    out = opaque();
    return true;
  }
  uint8_t b[8] = {0};
  if (!readBytes(p, n, b))
    return false;
  uint64_t v = 0;
  for (uint64_t i = 0; i < n; ++i)
    v |= (uint64_t)b[i] << (8 * i);
  out = Val{v & maskOf(ty->getPrimitiveSizeInBits())};
  return true;
}

bool IRRunner::store(ThreadState &t, Type *ty, Val p, Val v) {
  if (auto *st = dyn_cast<StructType>(ty)) {
    if (v.obj != Val::Agg)
      return fail("store of a non-aggregate as a struct");
    const StructLayout *sl = dl.getStructLayout(st);
    std::vector<Val> parts = t.aggs[v.bits];
    for (unsigned i = 0; i < st->getNumElements(); ++i)
      if (!store(t, st->getElementType(i),
                 Val{p.bits + sl->getElementOffset(i), p.obj}, parts[i]))
        return false;
    return true;
  }
  if (auto *at = dyn_cast<ArrayType>(ty)) {
    if (v.obj != Val::Agg)
      return fail("store of a non-aggregate as an array");
    uint64_t es = dl.getTypeAllocSize(at->getElementType());
    std::vector<Val> parts = t.aggs[v.bits];
    for (uint64_t i = 0; i < at->getNumElements(); ++i)
      if (!store(t, at->getElementType(), Val{p.bits + i * es, p.obj},
                 parts[i]))
        return false;
    return true;
  }
  if (v.obj == Val::Approx)
    return storeRange(p, dl.getTypeStoreSize(ty), v);
  if (v.obj == Val::Opaque && !ty->isPointerTy()) {
    // Kept as a marker over zero bytes, as a pointer is.
    if (p.obj < 0 || objs[p.obj].sparse)
      return fail("the result of inline assembly stored to shared/global "
                  "memory");
    uint8_t zero[8] = {0};
    uint64_t n = dl.getTypeStoreSize(ty);
    if (n > 8 || !writeBytes(p, n, zero))
      return n > 8 ? fail("integer wider than 64 bits") : false;
    objs[p.obj].ptrs[(int64_t)p.bits] = v;
    return true;
  }
  if (ty->isPointerTy()) {
    if (p.obj < 0 || objs[p.obj].sparse)
      return fail("pointer stored to shared/global memory");
    uint8_t b[8] = {0};
    for (int i = 0; i < 8; ++i)
      b[i] = (v.bits >> (8 * i)) & 0xff;
    if (!writeBytes(p, 8, b))
      return false;
    objs[p.obj].ptrs[(int64_t)p.bits] = v;
    return true;
  }
  if (!ty->isIntegerTy() && !ty->isFloatTy() && !ty->isDoubleTy())
    return fail("store of type '" + typeName(ty) + "'");
  uint64_t n = dl.getTypeStoreSize(ty);
  if (n > 8)
    return fail("integer wider than 64 bits");
  uint8_t b[8];
  for (uint64_t i = 0; i < n; ++i)
    b[i] = (v.bits >> (8 * i)) & 0xff;
  return writeBytes(p, n, b);
}

bool IRRunner::memIntrinsic(ThreadState &t, const MemIntrinsic &mi) {
  Val dst = get(t, mi.getDest()), len = get(t, mi.getLength());
  if (failed)
    return false;
  uint64_t n = len.bits;
  if (n > (uint64_t(1) << 24))
    return fail("memory intrinsic of " + Twine(n) + " bytes");
  if (auto *ms = dyn_cast<MemSetInst>(&mi)) {
    Val v = get(t, ms->getValue());
    std::vector<uint8_t> b(n, (uint8_t)v.bits);
    return writeBytes(dst, n, b.data());
  }
  Val src = get(t, cast<MemTransferInst>(mi).getSource());
  if (failed)
    return false;
  std::vector<uint8_t> b(n);
  // A copy moves unset bytes (a struct's padding) without reading them.
  bool wasUnset = readUnset;
  if (!readBytes(src, n, b.data()))
    return false;
  readUnset = wasUnset;
  std::vector<bool> unset;
  if (src.obj >= 0 && !objs[src.obj].unset.empty())
    unset.assign(objs[src.obj].unset.begin() + src.bits,
                 objs[src.obj].unset.begin() + src.bits + n);
  if (approxSeen && src.obj >= 0 && objs[src.obj].sparse) {
    Obj &s = objs[src.obj];
    for (int64_t e = floorDiv((int64_t)src.bits, s.elem);
         e <= floorDiv((int64_t)(src.bits + n) - 1, s.elem); ++e)
      if (auto it = s.cells.find(e);
          it != s.cells.end() && it->second.range >= 0)
        return fail("a copy of an approximate result in shared/global memory");
  }
  // Pointers (and approximate results) stored in the source move with
  // their bytes.
  std::vector<std::pair<int64_t, Val>> moved;
  if (src.obj >= 0 && !objs[src.obj].sparse) {
    Obj &s = objs[src.obj];
    for (auto it = s.ptrs.lower_bound((int64_t)src.bits);
         it != s.ptrs.end() && it->first < (int64_t)(src.bits + n); ++it)
      moved.push_back({it->first - (int64_t)src.bits, it->second});
  }
  if (!writeBytes(dst, n, b.data()))
    return false;
  if (Obj &d = objs[dst.obj]; !unset.empty() && !d.unset.empty())
    std::copy(unset.begin(), unset.end(), d.unset.begin() + dst.bits);
  for (auto &[off, p] : moved) {
    if (objs[dst.obj].sparse)
      return fail(p.obj == Val::Approx
                      ? "an approximate result copied to shared/global memory"
                      : "pointer stored to shared/global memory");
    objs[dst.obj].ptrs[(int64_t)dst.bits + off] = p;
  }
  return true;
}

} // namespace irexec
} // namespace kv
