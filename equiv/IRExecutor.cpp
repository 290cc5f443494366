//===- IRExecutor.cpp - concrete execution of a kernel's LLVM IR ----------===//
//
// An interpreter for the LLVM IR of nvptx kernels, as clang emits them
// before and after optimization: integers up to 64 bits, float and double,
// pointers into objects, structs and arrays as values, calls, the PTX
// special registers, barriers and the intrinsics the kv lowering accepts.
// Floating-point results are computed as the kv executor computes them
// (executor::nativeApply, canonical NaN), since the point is to check the
// lowering, not the host's float unit.
//
//===----------------------------------------------------------------------===//
#include "equiv/IRExecutor.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/GetElementPtrTypeIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Operator.h"
#include "llvm/Support/MathExtras.h"

#include "llvm/ADT/bit.h"
#include <cmath>
#include <deque>
#include <map>
#include <unordered_map>

using namespace llvm;

namespace kv {

namespace {

/// A value: an integer or float's bits (zero-extended), a pointer (object
/// and byte offset) or an aggregate (an entry of the thread's pool).
struct Val {
  uint64_t bits = 0;
  int32_t obj = Scalar;
  static constexpr int32_t Scalar = -1, Null = -2, Agg = -3;
  bool isPtr() const { return obj >= 0 || obj == Null; }
};

/// A memory object. Dense: private memory, constant globals and __shared__
/// variables the model has no array for (bytes, plus the pointers stored in
/// them). Sparse: an array of the kv model, cells of its element size,
/// initialized on first touch by the caller's callbacks.
struct Obj {
  bool sparse = false, readOnly = false;
  SmallVector<uint8_t, 16> bytes;
  std::map<int64_t, Val> ptrs;
  unsigned arr = 0, elem = 0;
  bool shared = false;
  uint64_t bid[3] = {0, 0, 0};
  struct Cell {
    uint64_t v = 0;
    bool written = false;
  };
  std::unordered_map<int64_t, Cell> cells;
};

struct FnInfo {
  DenseMap<const Value *, unsigned> slots;
  unsigned n = 0;
};

struct Frame {
  const Function *fn;
  const FnInfo *info;
  const BasicBlock *bb;
  BasicBlock::const_iterator pc;
  /// Where the frame's values start in the thread's register file.
  size_t base;
  const CallBase *site = nullptr;
};

struct ThreadState {
  uint64_t tid[3] = {0, 0, 0};
  std::vector<Frame> stack;
  std::vector<Val> regs;
  std::vector<std::vector<Val>> aggs;
  bool done = false;
};

uint64_t maskOf(unsigned w) { return w >= 64 ? ~0ull : ((1ull << w) - 1); }

int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

/// IR type names as the kv lowering spells them in kv.apply names.
std::string typeName(Type *t) {
  if (t->isFloatTy())
    return "float";
  if (t->isDoubleTy())
    return "double";
  if (t->isIntegerTy())
    return "i" + std::to_string(t->getIntegerBitWidth());
  return "?";
}

template <typename T> bool fcmpHost(CmpInst::Predicate p, T x, T y) {
  bool uno = std::isnan(x) || std::isnan(y);
  switch (p) {
  case CmpInst::FCMP_FALSE:
    return false;
  case CmpInst::FCMP_OEQ:
    return !uno && x == y;
  case CmpInst::FCMP_OGT:
    return !uno && x > y;
  case CmpInst::FCMP_OGE:
    return !uno && x >= y;
  case CmpInst::FCMP_OLT:
    return !uno && x < y;
  case CmpInst::FCMP_OLE:
    return !uno && x <= y;
  case CmpInst::FCMP_ONE:
    return !uno && x != y;
  case CmpInst::FCMP_ORD:
    return !uno;
  case CmpInst::FCMP_UNO:
    return uno;
  case CmpInst::FCMP_UEQ:
    return uno || x == y;
  case CmpInst::FCMP_UGT:
    return uno || x > y;
  case CmpInst::FCMP_UGE:
    return uno || x >= y;
  case CmpInst::FCMP_ULT:
    return uno || x < y;
  case CmpInst::FCMP_ULE:
    return uno || x <= y;
  case CmpInst::FCMP_UNE:
    return uno || x != y;
  default:
    return true;
  }
}

template <typename T, typename U>
uint64_t floatArith(unsigned opc, uint64_t a, uint64_t b) {
  T x = llvm::bit_cast<T>(static_cast<U>(a));
  T y = llvm::bit_cast<T>(static_cast<U>(b));
  T r = 0;
  switch (opc) {
  case Instruction::FAdd:
    r = x + y;
    break;
  case Instruction::FSub:
    r = x - y;
    break;
  case Instruction::FMul:
    r = x * y;
    break;
  default:
    r = x / y;
    break;
  }
  // The GPU's canonical NaN, as the kv executor computes it.
  if (r != r)
    return sizeof(T) == 4 ? 0x7fffffffull : 0x7fffffffffffffffull;
  return static_cast<U>(llvm::bit_cast<U>(r));
}

class IRRunner {
public:
  IRRunner(const Function &kernel, const LaunchConfig &cfg,
           const IRInputs &in, uint64_t maxSteps)
      : kernel(kernel), cfg(cfg), in(in), maxSteps(maxSteps),
        dl(kernel.getParent()->getDataLayout()) {}

  ExecResult run(uint64_t maxThreads);

private:
  enum class Stop { Go, Barrier, Done, Error };

  bool fail(const Twine &why) {
    if (!failed) {
      failed = true;
      error = why.str();
      if (cur)
        if (const DebugLoc &loc = cur->getDebugLoc())
          error += " (" + loc->getFilename().str() + ":" +
                   std::to_string(loc.getLine()) + ")";
    }
    return false;
  }

  const FnInfo &infoFor(const Function &f);
  Val get(ThreadState &t, const Value *v);
  Val constant(ThreadState &t, const Constant *c);
  Val zeroOf(ThreadState &t, Type *ty);
  Val aggregate(ThreadState &t, std::vector<Val> parts) {
    t.aggs.push_back(std::move(parts));
    return Val{t.aggs.size() - 1, Val::Agg};
  }
  int32_t objectOf(const GlobalVariable &gv);
  int32_t newDense(uint64_t size, bool readOnly = false) {
    objs.emplace_back();
    objs.back().bytes.assign(size, 0);
    objs.back().readOnly = readOnly;
    return (int32_t)objs.size() - 1;
  }
  bool constantBytes(const Constant *c, int32_t obj, uint64_t off);

  Obj::Cell &cell(Obj &o, int64_t e);
  bool readBytes(Val p, uint64_t n, uint8_t *out);
  bool writeBytes(Val p, uint64_t n, const uint8_t *src);
  bool load(ThreadState &t, Type *ty, Val p, Val &out);
  bool store(ThreadState &t, Type *ty, Val p, Val v);
  bool memIntrinsic(ThreadState &t, const MemIntrinsic &mi);

  bool binary(unsigned opc, Type *ty, Val a, Val b, Val &out);
  bool convert(unsigned opc, Type *from, Type *to, Val a, Val &out);
  bool gep(ThreadState &t, const GEPOperator &g, Val &out);
  bool evalOp(ThreadState &t, const Operator &op, Val &out);
  bool apply(StringRef fn, ArrayRef<Val> args, ArrayRef<Type *> types,
             Type *ret, Val &out);

  void enter(ThreadState &t, const Function &f, ArrayRef<Val> args,
             const CallBase *site);
  void jump(ThreadState &t, const BasicBlock *to);
  Stop step(ThreadState &t);
  Stop runThread(ThreadState &t);
  bool call(ThreadState &t, const CallBase &c, bool &barrier, bool &entered);

  const Function &kernel;
  const LaunchConfig &cfg;
  const IRInputs &in;
  uint64_t maxSteps, steps = 0;
  const DataLayout &dl;
  uint64_t bid[3] = {0, 0, 0};
  std::deque<Obj> objs;
  std::map<const Function *, FnInfo> infos;
  std::map<const GlobalVariable *, int32_t> globals, sharedGlobals;
  std::vector<int32_t> paramObjs;
  const Instruction *cur = nullptr;
  bool failed = false, assumeViolated = false, tooMuchWork = false;
  std::string error;
};

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
    uint64_t bits = isa<ConstantInt>(c)
                        ? cast<ConstantInt>(c)->getZExtValue()
                        : cast<ConstantFP>(c)
                              ->getValueAPF()
                              .bitcastToAPInt()
                              .getZExtValue();
    uint64_t n = dl.getTypeStoreSize(ty);
    for (uint64_t i = 0; i < n && i < 8; ++i)
      objs[obj].bytes[off + i] = (bits >> (8 * i)) & 0xff;
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
    std::copy(bid, bid + 3, ob.bid);
    o = (int32_t)objs.size() - 1;
  } else if (shared) {
    // Uninitialized shared memory reads as 0, as `kvalidate replay` has it.
    o = newDense(dl.getTypeAllocSize(gv.getValueType()));
  } else if (gv.hasInitializer()) {
    o = newDense(dl.getTypeAllocSize(gv.getValueType()), gv.isConstant());
    if (!constantBytes(gv.getInitializer(), o, 0))
      return -1;
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
    return true;
  }
  if (off % (int64_t)o.elem == 0 && n == o.elem) {
    uint64_t v = cell(o, off / (int64_t)o.elem).v;
    for (uint64_t i = 0; i < n; ++i)
      out[i] = (v >> (8 * i)) & 0xff;
    return true;
  }
  for (uint64_t i = 0; i < n; ++i) {
    int64_t b = off + (int64_t)i, e = floorDiv(b, o.elem);
    out[i] = (cell(o, e).v >> (8 * (b - e * o.elem))) & 0xff;
  }
  return true;
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
    std::copy_n(src, n, o.bytes.begin() + off);
    // Bytes that held a pointer no longer do.
    o.ptrs.erase(o.ptrs.lower_bound(off - 7), o.ptrs.lower_bound(off + n));
    return true;
  }
  if (off % (int64_t)o.elem == 0 && n == o.elem) {
    uint64_t v = 0;
    for (uint64_t i = 0; i < n; ++i)
      v |= (uint64_t)src[i] << (8 * i);
    Obj::Cell &c = o.cells[off / (int64_t)o.elem];
    c.v = v;
    c.written = true;
    return true;
  }
  for (uint64_t i = 0; i < n; ++i) {
    int64_t b = off + (int64_t)i, e = floorDiv(b, o.elem);
    unsigned sh = 8 * (b - e * o.elem);
    Obj::Cell &c = cell(o, e);
    c.v = (c.v & ~(0xffull << sh)) | ((uint64_t)src[i] << sh);
    c.written = true;
  }
  return true;
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
      if (!load(t, at->getElementType(), Val{p.bits + i * es, p.obj},
                parts[i]))
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
    uint8_t b[8];
    if (!readBytes(p, 8, b))
      return false;
    if (std::any_of(b, b + 8, [](uint8_t x) { return x; }))
      return fail("pointer made from an integer");
    out = Val{0, Val::Null};
    return true;
  }
  if (!ty->isIntegerTy() && !ty->isFloatTy() && !ty->isDoubleTy())
    return fail("load of type '" + typeName(ty) + "'");
  uint64_t n = dl.getTypeStoreSize(ty);
  if (n > 8)
    return fail("integer wider than 64 bits");
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
  if (!readBytes(src, n, b.data()))
    return false;
  // Pointers stored in the source move with their bytes.
  std::vector<std::pair<int64_t, Val>> moved;
  if (src.obj >= 0 && !objs[src.obj].sparse) {
    Obj &s = objs[src.obj];
    for (auto it = s.ptrs.lower_bound((int64_t)src.bits);
         it != s.ptrs.end() && it->first < (int64_t)(src.bits + n); ++it)
      moved.push_back({it->first - (int64_t)src.bits, it->second});
  }
  if (!writeBytes(dst, n, b.data()))
    return false;
  for (auto &[off, p] : moved) {
    if (objs[dst.obj].sparse)
      return fail("pointer stored to shared/global memory");
    objs[dst.obj].ptrs[(int64_t)dst.bits + off] = p;
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Operations
//===----------------------------------------------------------------------===//

bool IRRunner::binary(unsigned opc, Type *ty, Val a, Val b, Val &out) {
  if (ty->isFloatTy() || ty->isDoubleTy()) {
    bool f = ty->isFloatTy();
    if (opc == Instruction::FRem) {
      std::string why;
      unsigned w = f ? 32 : 64;
      std::optional<APInt> r = executor::nativeApply(
          "frem", {APInt(w, a.bits), APInt(w, b.bits)}, w, why);
      if (!r)
        return fail("frem");
      out = Val{r->getZExtValue()};
      return true;
    }
    out = Val{f ? floatArith<float, uint32_t>(opc, a.bits, b.bits)
                : floatArith<double, uint64_t>(opc, a.bits, b.bits)};
    return true;
  }
  if (!ty->isIntegerTy() || ty->getIntegerBitWidth() > 64)
    return fail("operation on type '" + typeName(ty) + "'");
  unsigned w = ty->getIntegerBitWidth();
  uint64_t m = maskOf(w), x = a.bits & m, y = b.bits & m;
  APInt ax(w, x), ay(w, y);
  uint64_t r = 0;
  switch (opc) {
  case Instruction::Add:
    r = x + y;
    break;
  case Instruction::Sub:
    r = x - y;
    break;
  case Instruction::Mul:
    r = x * y;
    break;
  case Instruction::And:
    r = x & y;
    break;
  case Instruction::Or:
    r = x | y;
    break;
  case Instruction::Xor:
    r = x ^ y;
    break;
  // Division by zero and over-wide shifts: SMT-LIB's results, as the kv
  // executor computes them (LLVM leaves them undefined).
  case Instruction::UDiv:
    r = y ? x / y : m;
    break;
  case Instruction::URem:
    r = y ? x % y : x;
    break;
  case Instruction::SDiv:
    r = y ? ax.sdiv(ay).getZExtValue() : (ax.isNegative() ? 1 : m);
    break;
  case Instruction::SRem:
    r = y ? ax.srem(ay).getZExtValue() : x;
    break;
  case Instruction::Shl:
    r = y >= w ? 0 : ax.shl((unsigned)y).getZExtValue();
    break;
  case Instruction::LShr:
    r = y >= w ? 0 : ax.lshr((unsigned)y).getZExtValue();
    break;
  case Instruction::AShr:
    r = ax.ashr(y >= w ? w - 1 : (unsigned)y).getZExtValue();
    break;
  default:
    return fail(Twine("instruction '") + Instruction::getOpcodeName(opc) +
                "'");
  }
  out = Val{r & m};
  return true;
}

bool IRRunner::convert(unsigned opc, Type *from, Type *to, Val a, Val &out) {
  switch (opc) {
  case Instruction::Trunc:
    out = Val{a.bits & maskOf(to->getIntegerBitWidth())};
    return true;
  case Instruction::ZExt:
    out = Val{a.bits};
    return true;
  case Instruction::SExt: {
    unsigned fw = from->getIntegerBitWidth(), tw = to->getIntegerBitWidth();
    out = Val{APInt(fw, a.bits).sext(tw).getZExtValue()};
    return true;
  }
  case Instruction::BitCast:
  case Instruction::AddrSpaceCast:
    if (from->isPointerTy() != to->isPointerTy())
      return fail("bitcast between a pointer and a number");
    out = a;
    return true;
  case Instruction::SIToFP:
  case Instruction::UIToFP:
  case Instruction::FPToSI:
  case Instruction::FPToUI:
  case Instruction::FPExt:
  case Instruction::FPTrunc: {
    std::string fn = (Twine(Instruction::getOpcodeName(opc)) + "." +
                      typeName(from) + "." + typeName(to))
                         .str();
    return apply(fn, {a}, {from}, to, out);
  }
  default:
    return fail(Twine("cast '") + Instruction::getOpcodeName(opc) + "'");
  }
}

bool IRRunner::apply(StringRef fn, ArrayRef<Val> args, ArrayRef<Type *> types,
                     Type *ret, Val &out) {
  SmallVector<APInt, 3> ops;
  for (unsigned i = 0; i < args.size(); ++i) {
    if (!types[i]->isIntegerTy() && !types[i]->isFloatTy() &&
        !types[i]->isDoubleTy())
      return fail("cannot run '" + fn + "'");
    ops.push_back(APInt(types[i]->getPrimitiveSizeInBits(), args[i].bits));
  }
  std::string why;
  std::optional<APInt> r = executor::nativeApply(
      fn, ops, ret->getPrimitiveSizeInBits(), why);
  if (!r)
    return fail("cannot run '" + fn + "'" + (why.empty() ? "" : ": " + why));
  out = Val{r->getZExtValue()};
  return true;
}

bool IRRunner::gep(ThreadState &t, const GEPOperator &g, Val &out) {
  Val base = get(t, g.getPointerOperand());
  if (failed)
    return false;
  int64_t off = 0;
  for (gep_type_iterator it = gep_type_begin(&g), e = gep_type_end(&g);
       it != e; ++it) {
    Val idx = get(t, it.getOperand());
    unsigned w = it.getOperand()->getType()->getIntegerBitWidth();
    int64_t i = APInt(w, idx.bits).getSExtValue();
    if (StructType *st = it.getStructTypeOrNull())
      off += dl.getStructLayout(st)->getElementOffset((unsigned)i);
    else
      off += i * (int64_t)it.getSequentialElementStride(dl).getFixedValue();
  }
  if (!base.isPtr())
    return fail("getelementptr on a non-pointer");
  out = Val{base.bits + (uint64_t)off, base.obj};
  return true;
}

/// An instruction or constant expression computing a value from operands.
bool IRRunner::evalOp(ThreadState &t, const Operator &op, Val &out) {
  unsigned opc = op.getOpcode();
  if (auto *g = dyn_cast<GEPOperator>(&op))
    return gep(t, *g, out);
  if (Instruction::isBinaryOp(opc)) {
    Val a = get(t, op.getOperand(0)), b = get(t, op.getOperand(1));
    return !failed && binary(opc, op.getType(), a, b, out);
  }
  if (Instruction::isCast(opc)) {
    Val a = get(t, op.getOperand(0));
    return !failed &&
           convert(opc, op.getOperand(0)->getType(), op.getType(), a, out);
  }
  return fail(Twine("instruction '") + Instruction::getOpcodeName(opc) + "'");
}

//===----------------------------------------------------------------------===//
// Control
//===----------------------------------------------------------------------===//

void IRRunner::enter(ThreadState &t, const Function &f, ArrayRef<Val> args,
                     const CallBase *site) {
  const FnInfo &info = infoFor(f);
  size_t base = t.regs.size();
  t.regs.resize(base + info.n);
  for (unsigned i = 0; i < args.size(); ++i)
    t.regs[base + info.slots.lookup(f.getArg(i))] = args[i];
  t.stack.push_back(Frame{&f, &info, &f.getEntryBlock(),
                          f.getEntryBlock().begin(), base, site});
}

void IRRunner::jump(ThreadState &t, const BasicBlock *to) {
  Frame &f = t.stack.back();
  const BasicBlock *from = f.bb;
  // All phis read their incoming values before any is set.
  SmallVector<std::pair<unsigned, Val>, 8> phis;
  for (const PHINode &phi : to->phis())
    phis.push_back({f.info->slots.lookup(&phi),
                    get(t, phi.getIncomingValueForBlock(from))});
  for (auto &[slot, v] : phis)
    t.regs[f.base + slot] = v;
  f.bb = to;
  f.pc = to->getFirstNonPHIIt();
}

bool IRRunner::call(ThreadState &t, const CallBase &c, bool &barrier,
                    bool &entered) {
  const Function *callee = c.getCalledFunction();
  if (!callee)
    return fail(c.isInlineAsm() ? "inline assembly" : "indirect call");
  auto set = [&](Val v) {
    Frame &f = t.stack.back();
    t.regs[f.base + f.info->slots.lookup(&c)] = v;
    return true;
  };
  auto arg = [&](unsigned i) { return get(t, c.getArgOperand(i)); };
  if (callee->isIntrinsic()) {
    Intrinsic::ID id = callee->getIntrinsicID();
    switch (id) {
    case Intrinsic::nvvm_read_ptx_sreg_tid_x:
    case Intrinsic::nvvm_read_ptx_sreg_tid_y:
    case Intrinsic::nvvm_read_ptx_sreg_tid_z:
      return set(Val{t.tid[id - Intrinsic::nvvm_read_ptx_sreg_tid_x]});
    case Intrinsic::nvvm_read_ptx_sreg_ntid_x:
    case Intrinsic::nvvm_read_ptx_sreg_ntid_y:
    case Intrinsic::nvvm_read_ptx_sreg_ntid_z:
      return set(Val{cfg.block[id - Intrinsic::nvvm_read_ptx_sreg_ntid_x]});
    case Intrinsic::nvvm_read_ptx_sreg_ctaid_x:
    case Intrinsic::nvvm_read_ptx_sreg_ctaid_y:
    case Intrinsic::nvvm_read_ptx_sreg_ctaid_z:
      return set(Val{bid[id - Intrinsic::nvvm_read_ptx_sreg_ctaid_x]});
    case Intrinsic::nvvm_read_ptx_sreg_nctaid_x:
    case Intrinsic::nvvm_read_ptx_sreg_nctaid_y:
    case Intrinsic::nvvm_read_ptx_sreg_nctaid_z:
      return set(Val{cfg.grid[id - Intrinsic::nvvm_read_ptx_sreg_nctaid_x]});
    case Intrinsic::nvvm_read_ptx_sreg_warpsize:
      return set(Val{32});
    default:
      if (callee->getName().starts_with("llvm.nvvm.read.ptx.sreg."))
        return fail("special register '" + callee->getName() + "'");
      break;
    }
    if (auto *mi = dyn_cast<MemIntrinsic>(&c))
      return memIntrinsic(t, *mi);
    unsigned w = c.getType()->isIntegerTy() ? c.getType()->getIntegerBitWidth()
                                            : 0;
    auto ap = [&](unsigned i) {
      return APInt(c.getArgOperand(i)->getType()->getIntegerBitWidth(),
                   arg(i).bits);
    };
    switch (id) {
    case Intrinsic::nvvm_barrier_cta_sync_aligned_all:
    case Intrinsic::nvvm_barrier_cta_sync_all:
      if (arg(0).bits != 0)
        return fail("named barrier");
      barrier = true;
      return true;
    case Intrinsic::lifetime_start:
    case Intrinsic::lifetime_end:
    case Intrinsic::dbg_declare:
    case Intrinsic::dbg_value:
    case Intrinsic::dbg_label:
    case Intrinsic::donothing:
    case Intrinsic::experimental_noalias_scope_decl:
      return true;
    case Intrinsic::assume:
      if (!(arg(0).bits & 1))
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
    case Intrinsic::fshl:
    case Intrinsic::fshr: {
      APInt hi = ap(0), lo = ap(1);
      unsigned s = (unsigned)ap(2).urem(w);
      APInt r = id == Intrinsic::fshl
                    ? (s ? hi.shl(s) | lo.lshr(w - s) : hi)
                    : (s ? hi.shl(w - s) | lo.lshr(s) : lo);
      return set(Val{r.getZExtValue()});
    }
    default:
      break;
    }
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

IRRunner::Stop IRRunner::step(ThreadState &t) {
  Frame &f = t.stack.back();
  const Instruction &inst = *f.pc;
  cur = &inst;
  if (maxSteps && ++steps > maxSteps) {
    tooMuchWork = true;
    fail("the run exceeds the replay's work limit");
    return Stop::Error;
  }
  auto set = [&](Val v) { t.regs[f.base + f.info->slots.lookup(&inst)] = v; };
  auto next = [&] {
    ++f.pc;
    return failed ? Stop::Error : Stop::Go;
  };
  if (inst.getType()->isVectorTy()) {
    fail("vector operation");
    return Stop::Error;
  }
  switch (inst.getOpcode()) {
  case Instruction::Br: {
    auto &br = cast<BranchInst>(inst);
    const BasicBlock *to = br.getSuccessor(0);
    if (br.isConditional() && !(get(t, br.getCondition()).bits & 1))
      to = br.getSuccessor(1);
    jump(t, to);
    return failed ? Stop::Error : Stop::Go;
  }
  case Instruction::Switch: {
    auto &sw = cast<SwitchInst>(inst);
    uint64_t v = get(t, sw.getCondition()).bits;
    const BasicBlock *to = sw.getDefaultDest();
    for (auto &cs : sw.cases())
      if (cs.getCaseValue()->getZExtValue() == v)
        to = cs.getCaseSuccessor();
    jump(t, to);
    return failed ? Stop::Error : Stop::Go;
  }
  case Instruction::Ret: {
    auto &ret = cast<ReturnInst>(inst);
    Val rv = ret.getReturnValue() ? get(t, ret.getReturnValue()) : Val{};
    const CallBase *site = f.site;
    t.regs.resize(f.base);
    t.stack.pop_back();
    if (t.stack.empty()) {
      t.done = true;
      return Stop::Done;
    }
    Frame &caller = t.stack.back();
    if (site && !site->getType()->isVoidTy())
      t.regs[caller.base + caller.info->slots.lookup(site)] = rv;
    ++caller.pc;
    return failed ? Stop::Error : Stop::Go;
  }
  case Instruction::Unreachable:
    fail("unreachable executed");
    return Stop::Error;
  case Instruction::ICmp: {
    auto &cmp = cast<ICmpInst>(inst);
    Val a = get(t, cmp.getOperand(0)), b = get(t, cmp.getOperand(1));
    Type *ty = cmp.getOperand(0)->getType();
    if (ty->isPointerTy()) {
      if (a.obj != b.obj && !cmp.isEquality()) {
        fail("comparison of pointers into different objects");
        return Stop::Error;
      }
      set(Val{(uint64_t)(cmp.isEquality()
                             ? ((a.obj == b.obj && a.bits == b.bits) ==
                                (cmp.getPredicate() == CmpInst::ICMP_EQ))
                             : ICmpInst::compare(APInt(64, a.bits),
                                                 APInt(64, b.bits),
                                                 cmp.getPredicate()))});
      return next();
    }
    unsigned w = ty->getIntegerBitWidth();
    set(Val{(uint64_t)ICmpInst::compare(APInt(w, a.bits), APInt(w, b.bits),
                                        cmp.getPredicate())});
    return next();
  }
  case Instruction::FCmp: {
    auto &cmp = cast<FCmpInst>(inst);
    Val a = get(t, cmp.getOperand(0)), b = get(t, cmp.getOperand(1));
    bool r = cmp.getOperand(0)->getType()->isFloatTy()
                 ? fcmpHost(cmp.getPredicate(),
                            llvm::bit_cast<float>((uint32_t)a.bits),
                            llvm::bit_cast<float>((uint32_t)b.bits))
                 : fcmpHost(cmp.getPredicate(), llvm::bit_cast<double>(a.bits),
                            llvm::bit_cast<double>(b.bits));
    set(Val{(uint64_t)r});
    return next();
  }
  case Instruction::FNeg: {
    Val a = get(t, inst.getOperand(0));
    unsigned w = inst.getType()->getPrimitiveSizeInBits();
    set(Val{a.bits ^ (1ull << (w - 1))});
    return next();
  }
  case Instruction::Select: {
    auto &sel = cast<SelectInst>(inst);
    set(get(t, sel.getCondition()).bits & 1 ? get(t, sel.getTrueValue())
                                            : get(t, sel.getFalseValue()));
    return next();
  }
  case Instruction::Freeze:
    set(get(t, inst.getOperand(0)));
    return next();
  case Instruction::Alloca: {
    auto &al = cast<AllocaInst>(inst);
    uint64_t n = 1;
    if (al.isArrayAllocation())
      n = get(t, al.getArraySize()).bits;
    uint64_t size = dl.getTypeAllocSize(al.getAllocatedType()) * n;
    if (size > (uint64_t(1) << 24)) {
      fail("private array of " + Twine(size) + " bytes");
      return Stop::Error;
    }
    set(Val{0, newDense(size)});
    return next();
  }
  case Instruction::Load: {
    Val p = get(t, inst.getOperand(0)), v;
    if (!failed && load(t, inst.getType(), p, v))
      set(v);
    return next();
  }
  case Instruction::Store: {
    auto &st = cast<StoreInst>(inst);
    Val v = get(t, st.getValueOperand()), p = get(t, st.getPointerOperand());
    if (!failed)
      store(t, st.getValueOperand()->getType(), p, v);
    return next();
  }
  case Instruction::ExtractValue: {
    auto &ev = cast<ExtractValueInst>(inst);
    Val a = get(t, ev.getAggregateOperand());
    for (unsigned i : ev.indices()) {
      if (a.obj != Val::Agg) {
        fail("extractvalue of a non-aggregate");
        return Stop::Error;
      }
      a = t.aggs[a.bits][i];
    }
    set(a);
    return next();
  }
  case Instruction::InsertValue: {
    auto &iv = cast<InsertValueInst>(inst);
    Val a = get(t, iv.getAggregateOperand());
    Val v = get(t, iv.getInsertedValueOperand());
    // Copy on write, level by level.
    std::function<Val(Val, ArrayRef<unsigned>)> ins =
        [&](Val agg, ArrayRef<unsigned> idx) -> Val {
      if (idx.empty())
        return v;
      std::vector<Val> parts = t.aggs[agg.bits];
      parts[idx[0]] = ins(parts[idx[0]], idx.drop_front());
      return aggregate(t, std::move(parts));
    };
    if (a.obj != Val::Agg) {
      fail("insertvalue into a non-aggregate");
      return Stop::Error;
    }
    set(ins(a, iv.getIndices()));
    return next();
  }
  case Instruction::Call: {
    bool barrier = false, entered = false;
    if (!call(t, cast<CallBase>(inst), barrier, entered))
      return Stop::Error;
    if (entered)
      return Stop::Go; // on in the callee
    ++f.pc;
    return barrier ? Stop::Barrier : Stop::Go;
  }
  case Instruction::PHI:
    ++f.pc;
    return Stop::Go;
  default: {
    Val v;
    if (auto *op = dyn_cast<Operator>(&inst); op && evalOp(t, *op, v))
      set(v);
    else
      fail(Twine("instruction '") + inst.getOpcodeName() + "'");
    return next();
  }
  }
}

/// Runs \p t to its next barrier (Barrier) or to its end (Done).
IRRunner::Stop IRRunner::runThread(ThreadState &t) {
  Stop s;
  while ((s = step(t)) == Stop::Go)
    ;
  return s;
}

ExecResult IRRunner::run(uint64_t maxThreads) {
  ExecResult r;
  uint64_t threads = 1;
  for (const uint64_t *d : {cfg.grid, cfg.block})
    for (int i = 0; i < 3; ++i)
      if (__builtin_mul_overflow(threads, d[i], &threads))
        threads = ~0ull;
  if (threads > maxThreads) {
    r.error = "launch of " + std::to_string(threads) +
              " threads exceeds the limit of " + std::to_string(maxThreads);
    return r;
  }
  // Pointer parameter #i is kv array #i, one object for the whole launch.
  std::vector<Val> params;
  for (const Argument &a : kernel.args()) {
    unsigned i = a.getArgNo();
    if (a.getType()->isPointerTy()) {
      if (a.hasByValAttr() || i >= in.elemBytes.size() || !in.elemBytes[i] ||
          in.elemBytes[i] > 8) {
        r.error = "parameter #" + std::to_string(i) + " is not a kv array";
        return r;
      }
      objs.emplace_back();
      objs.back().sparse = true;
      objs.back().arr = i;
      objs.back().elem = in.elemBytes[i];
      params.push_back(Val{0, (int32_t)objs.size() - 1});
    } else if (a.getType()->isIntegerTy() &&
               a.getType()->getIntegerBitWidth() <= 64) {
      params.push_back(Val{in.scalar(i).getZExtValue() &
                           maskOf(a.getType()->getIntegerBitWidth())});
    } else if (a.getType()->isFloatTy() || a.getType()->isDoubleTy()) {
      params.push_back(Val{in.scalar(i).getZExtValue()});
    } else {
      r.error = "parameter #" + std::to_string(i) + " of type " +
                typeName(a.getType());
      return r;
    }
  }
  uint64_t bdim[3] = {cfg.block[0], cfg.block[1], cfg.block[2]};
  uint64_t perBlock = bdim[0] * bdim[1] * bdim[2];
  // One set of threads, reused by every block.
  std::vector<ThreadState> ts(perBlock);
  for (bid[2] = 0; bid[2] < cfg.grid[2]; ++bid[2])
    for (bid[1] = 0; bid[1] < cfg.grid[1]; ++bid[1])
      for (bid[0] = 0; bid[0] < cfg.grid[0]; ++bid[0]) {
        size_t mark = objs.size();
        sharedGlobals.clear();
        for (uint64_t l = 0; l < perBlock; ++l) {
          ts[l].stack.clear();
          ts[l].regs.clear();
          ts[l].aggs.clear();
          ts[l].done = false;
          ts[l].tid[0] = l % bdim[0];
          ts[l].tid[1] = (l / bdim[0]) % bdim[1];
          ts[l].tid[2] = l / (bdim[0] * bdim[1]);
          enter(ts[l], kernel, params, nullptr);
        }
        bool waiting = true;
        while (waiting) {
          waiting = false;
          for (ThreadState &t : ts) {
            if (t.done)
              continue;
            Stop s = runThread(t);
            if (s == Stop::Error) {
              r.error = error;
              r.tooMuchWork = tooMuchWork;
              return r;
            }
            if (s == Stop::Barrier)
              waiting = true;
          }
        }
        // The block's private and shared objects end with it; global
        // objects it made first stay (they sit below later blocks' ones
        // only if made in block 0, so keep everything that is global).
        if (globals.empty() || std::all_of(globals.begin(), globals.end(),
                                           [&](auto &g) {
                                             return g.second < (int32_t)mark;
                                           }))
          objs.resize(mark);
      }
  for (Obj &o : objs)
    if (o.sparse && !o.shared)
      for (auto &[e, c] : o.cells)
        if (c.written)
          r.written[o.arr].insert_or_assign(
              (uint64_t)e, APInt(8 * o.elem, c.v & maskOf(8 * o.elem)));
  r.ok = true;
  r.assumeViolated = assumeViolated;
  return r;
}

} // namespace

ExecResult executeIR(const Function &kernel, const LaunchConfig &cfg,
                     const IRInputs &in, uint64_t maxThreads,
                     uint64_t maxSteps) {
  IRRunner runner(kernel, cfg, in, maxSteps);
  return runner.run(maxThreads);
}

} // namespace kv
