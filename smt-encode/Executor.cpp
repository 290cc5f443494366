//===- Executor.cpp - concrete execution of kv kernels --------------------===//
//
// The kernel body is compiled once into a flat instruction list per barrier
// interval whose operands are slot numbers, so the per-thread loop neither
// walks MLIR use lists nor hashes Values. A thread's slots live in one
// scratch vector reused by every thread; only values defined in one interval
// and used in a later one are saved per thread between intervals. A kv.iter
// runs its range, the instructions after it up to the last one that depends
// on it, once per iteration.
//
//===----------------------------------------------------------------------===//
#include "smt-encode/Executor.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>
#include <optional>
#include <unordered_map>
#include <vector>

using namespace mlir;
using llvm::APInt;

namespace kv {

unsigned modelWidth(unsigned width, unsigned bits) {
  // i1 stays i1; 64-bit values (addresses, sizes) stay exact so that cells
  // 2^32 elements apart are never merged.
  if (width <= 1 || width >= 64)
    return width;
  return std::min(width, bits);
}

namespace {

enum class Kind : uint8_t {
  SReg,
  NoWrap,
  Read,
  Write,
  Assume,
  Prove,
  Apply,
  AddI,
  SubI,
  MulI,
  DivUI,
  DivSI,
  RemUI,
  RemSI,
  AndI,
  OrI,
  XOrI,
  ShLI,
  ShRUI,
  ShRSI,
  CmpI,
  Select,
  ExtUI,
  ExtSI,
  TruncI,
  MaxSI,
  MinSI,
  MaxUI,
  MinUI,
  /// kv.iter: runs the instructions up to `iterEnd` once per iteration.
  Iter,
  /// kv.sum: adds its term in each iteration of its loop (zeroed on entry).
  Sum,
};

/// Special registers; the value is group * 3 + dimension (x, y, z).
enum SRegGroup : uint8_t { Tid = 0, Bid = 1, BDim = 2, GDim = 3 };

enum class FloatFn : uint8_t { None, Add, Sub, Mul, Div, Neg, Cmp };

/// LLVM fcmp predicates, as named by CmpInst::getPredicateName.
enum class FPred : uint8_t {
  False,
  OEQ,
  OGT,
  OGE,
  OLT,
  OLE,
  ONE,
  ORD,
  UNO,
  UEQ,
  UGT,
  UGE,
  ULT,
  ULE,
  UNE,
  True,
};

struct Instr {
  Kind kind;
  /// CmpI: the arith::CmpIPredicate; SReg: group * 3 + dimension.
  uint8_t aux = 0;
  /// Apply: how to compute it natively, if at all.
  FloatFn floatFn = FloatFn::None;
  FPred fpred = FPred::False;
  /// Apply: operand width of a natively computed float operation (32/64).
  unsigned floatWidth = 0;
  /// Model width of the result (Write: of the stored value).
  unsigned width = 0;
  unsigned result = 0;
  /// Read/Write: the array's kernel argument number.
  unsigned argNo = 0;
  bool shared = false;
  /// Slots of the scalar operands (Read: index, guard; Write: index, value,
  /// guard).
  llvm::SmallVector<unsigned, 3> ops;
  Operation *op = nullptr;
  /// Iter: one past the last instruction of the interval that depends on
  /// the iteration number; [this + 1, iterEnd) is the loop's range.
  unsigned iterEnd = 0;
  /// Iter: the (pure) instructions of the range that do not depend on it.
  /// They run with every iteration, and once if there is none: a later
  /// instruction may use their values.
  std::vector<unsigned> independent;
};

struct Interval {
  std::vector<Instr> instrs;
  /// (slot, persistent index): values this interval uses from earlier ones.
  std::vector<std::pair<unsigned, unsigned>> imports;
  /// (slot, persistent index): values later intervals use from this one.
  std::vector<std::pair<unsigned, unsigned>> exports;
};

struct PendingWrite {
  unsigned argNo;
  bool shared;
  uint64_t index;
  APInt value;
};

// SMT-LIB bit-vector division and remainder, total at a zero divisor.
APInt bvudiv(const APInt &a, const APInt &b) {
  if (b.isZero())
    return APInt::getAllOnes(a.getBitWidth());
  return a.udiv(b);
}

APInt bvurem(const APInt &a, const APInt &b) {
  if (b.isZero())
    return a;
  return a.urem(b);
}

APInt bvsdiv(const APInt &a, const APInt &b) {
  bool ns = a.isNegative(), nt = b.isNegative();
  if (!ns && !nt)
    return bvudiv(a, b);
  if (ns && !nt)
    return -bvudiv(-a, b);
  if (!ns && nt)
    return -bvudiv(a, -b);
  return bvudiv(-a, -b);
}

APInt bvsrem(const APInt &a, const APInt &b) {
  bool ns = a.isNegative(), nt = b.isNegative();
  if (!ns && !nt)
    return bvurem(a, b);
  if (ns && !nt)
    return -bvurem(-a, b);
  if (!ns && nt)
    return bvurem(a, -b);
  return -bvurem(-a, -b);
}

template <typename T> bool fcmp(FPred p, T x, T y) {
  // C++ comparisons with a NaN are false (except !=), as the ordered
  // predicates require.
  bool uno = std::isnan(x) || std::isnan(y);
  switch (p) {
  case FPred::False:
    return false;
  case FPred::OEQ:
    return !uno && x == y;
  case FPred::OGT:
    return !uno && x > y;
  case FPred::OGE:
    return !uno && x >= y;
  case FPred::OLT:
    return !uno && x < y;
  case FPred::OLE:
    return !uno && x <= y;
  case FPred::ONE:
    return !uno && x != y;
  case FPred::ORD:
    return !uno;
  case FPred::UNO:
    return uno;
  case FPred::UEQ:
    return uno || x == y;
  case FPred::UGT:
    return uno || x > y;
  case FPred::UGE:
    return uno || x >= y;
  case FPred::ULT:
    return uno || x < y;
  case FPred::ULE:
    return uno || x <= y;
  case FPred::UNE:
    return uno || x != y;
  case FPred::True:
    return true;
  }
  return false;
}

/// IEEE arithmetic on bit patterns: T is float or double, U the unsigned
/// integer of the same size.
template <typename T, typename U>
APInt floatOp(const Instr &in, const APInt &a, const APInt *b) {
  constexpr unsigned w = sizeof(U) * 8;
  if (in.floatFn == FloatFn::Neg)
    // LLVM's fneg flips the sign bit only, NaN payload included.
    return a ^ APInt::getSignMask(w);
  T x = llvm::bit_cast<T>(static_cast<U>(a.getZExtValue()));
  T y = llvm::bit_cast<T>(static_cast<U>(b->getZExtValue()));
  T r = 0;
  switch (in.floatFn) {
  case FloatFn::Add:
    r = x + y;
    break;
  case FloatFn::Sub:
    r = x - y;
    break;
  case FloatFn::Mul:
    r = x * y;
    break;
  case FloatFn::Div:
    r = x / y;
    break;
  case FloatFn::Cmp:
    return APInt(1, fcmp(in.fpred, x, y));
  case FloatFn::Neg:
  case FloatFn::None:
    break;
  }
  return APInt(w, llvm::bit_cast<U>(r));
}

class Executor {
public:
  Executor(KernelOp kernel, const LaunchConfig &cfg, const ExecInputs &in,
           ExecResult &res)
      : kernel(kernel), cfg(cfg), in(in), res(res) {}

  bool compile();
  bool run(uint64_t maxThreads);
  /// Instructions left before the run gives up (0: no limit).
  uint64_t stepsLeft = 0;
  uint64_t maxSteps = 0;

private:
  KernelOp kernel;
  const LaunchConfig &cfg;
  const ExecInputs &in;
  ExecResult &res;

  std::vector<Interval> intervals;
  /// Slot contents every thread starts with: scalar arguments, constants.
  std::vector<APInt> initialSlots;
  unsigned numPersistent = 0;
  /// Model width of the elements of each array argument (0: not an array).
  std::vector<unsigned> elemWidth;
  std::vector<bool> isShared;

  // Execution state.
  std::vector<APInt> slots;
  uint64_t bid[3] = {0, 0, 0}, tid[3] = {0, 0, 0};
  /// Per argument number: the cells of a global array read or written so
  /// far in this run, and of a shared array in the current block.
  std::vector<std::unordered_map<uint64_t, APInt>> global, shared;
  std::vector<PendingWrite> pending;

  bool outOfWork() {
    res.tooMuchWork = true;
    return fail("the run exceeds " + llvm::Twine(maxSteps) +
                " instructions (the replay's work limit)");
  }
  bool fail(const llvm::Twine &msg) {
    res.ok = false;
    res.error = msg.str();
    return false;
  }
  bool compileOp(Operation &op, unsigned intervalNo,
                 llvm::DenseMap<Value, unsigned> &slotOf,
                 std::vector<int> &defInterval);
  bool checkWidths(const Instr &i) const;
  void classifyApply(ApplyOp a, Instr &i) const;
  unsigned slotWidth(unsigned s) const { return initialSlots[s].getBitWidth(); }
  bool exec(const Instr &i);
  /// Run instructions [from, to) of \p iv for the current thread.
  bool runRange(const Interval &iv, unsigned from, unsigned to);
  /// Run the range of the kv.iter at \p n of \p iv once per live iteration.
  bool runLoop(const Interval &iv, unsigned n);
  bool compileLoops(Interval &iv, unsigned intervalNo,
                    const std::vector<int> &defInterval,
                    std::vector<llvm::SmallVector<unsigned, 1>> &slotLoops);
  bool arrayIndex(const APInt &v, uint64_t &index);
  bool load(const Instr &i, uint64_t index, APInt &out);
  bool apply(const Instr &i);
};

} // namespace

//===----------------------------------------------------------------------===//
// Compilation
//===----------------------------------------------------------------------===//

static std::optional<unsigned> intWidth(Type t, unsigned bits) {
  if (auto it = dyn_cast<IntegerType>(t))
    return modelWidth(it.getWidth(), bits);
  return std::nullopt;
}

/// Special register name to group * 3 + dimension.
static std::optional<uint8_t> parseSReg(llvm::StringRef name) {
  auto [group, dim] = name.split('.');
  std::optional<uint8_t> g = llvm::StringSwitch<std::optional<uint8_t>>(group)
                                 .Case("tid", Tid)
                                 .Case("bid", Bid)
                                 .Case("bdim", BDim)
                                 .Case("gdim", GDim)
                                 .Default(std::nullopt);
  std::optional<uint8_t> d = llvm::StringSwitch<std::optional<uint8_t>>(dim)
                                 .Case("x", 0)
                                 .Case("y", 1)
                                 .Case("z", 2)
                                 .Default(std::nullopt);
  if (!g || !d)
    return std::nullopt;
  return *g * 3 + *d;
}

static std::optional<FPred> parseFPred(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<FPred>>(name)
      .Case("false", FPred::False)
      .Case("oeq", FPred::OEQ)
      .Case("ogt", FPred::OGT)
      .Case("oge", FPred::OGE)
      .Case("olt", FPred::OLT)
      .Case("ole", FPred::OLE)
      .Case("one", FPred::ONE)
      .Case("ord", FPred::ORD)
      .Case("uno", FPred::UNO)
      .Case("ueq", FPred::UEQ)
      .Case("ugt", FPred::UGT)
      .Case("uge", FPred::UGE)
      .Case("ult", FPred::ULT)
      .Case("ule", FPred::ULE)
      .Case("une", FPred::UNE)
      .Case("true", FPred::True)
      .Default(std::nullopt);
}

/// The arith ops evaluated elementwise on their operands in order.
static std::optional<Kind> arithKind(Operation &op) {
  return llvm::TypeSwitch<Operation *, std::optional<Kind>>(&op)
      .Case([](arith::AddIOp) { return Kind::AddI; })
      .Case([](arith::SubIOp) { return Kind::SubI; })
      .Case([](arith::MulIOp) { return Kind::MulI; })
      .Case([](arith::DivUIOp) { return Kind::DivUI; })
      .Case([](arith::DivSIOp) { return Kind::DivSI; })
      .Case([](arith::RemUIOp) { return Kind::RemUI; })
      .Case([](arith::RemSIOp) { return Kind::RemSI; })
      .Case([](arith::AndIOp) { return Kind::AndI; })
      .Case([](arith::OrIOp) { return Kind::OrI; })
      .Case([](arith::XOrIOp) { return Kind::XOrI; })
      .Case([](arith::ShLIOp) { return Kind::ShLI; })
      .Case([](arith::ShRUIOp) { return Kind::ShRUI; })
      .Case([](arith::ShRSIOp) { return Kind::ShRSI; })
      .Case([](arith::ExtUIOp) { return Kind::ExtUI; })
      .Case([](arith::ExtSIOp) { return Kind::ExtSI; })
      .Case([](arith::TruncIOp) { return Kind::TruncI; })
      .Case([](arith::MaxSIOp) { return Kind::MaxSI; })
      .Case([](arith::MinSIOp) { return Kind::MinSI; })
      .Case([](arith::MaxUIOp) { return Kind::MaxUI; })
      .Case([](arith::MinUIOp) { return Kind::MinUI; })
      .Default([](Operation *) { return std::nullopt; });
}

void Executor::classifyApply(ApplyOp a, Instr &i) const {
  llvm::StringRef fn = a.getFn();
  FloatFn f = llvm::StringSwitch<FloatFn>(fn)
                  .Case("fadd", FloatFn::Add)
                  .Case("fsub", FloatFn::Sub)
                  .Case("fmul", FloatFn::Mul)
                  .Case("fdiv", FloatFn::Div)
                  .Case("fneg", FloatFn::Neg)
                  .StartsWith("fcmp.", FloatFn::Cmp)
                  .Default(FloatFn::None);
  std::optional<FPred> pred;
  if (f == FloatFn::Cmp) {
    pred = parseFPred(fn.drop_front(strlen("fcmp.")));
    if (!pred)
      return;
  }
  if (f == FloatFn::None ||
      a.getOperands().size() != (f == FloatFn::Neg ? 1 : 2))
    return;
  // Computed natively only on whole floats or doubles: a model width below
  // the type's has lost bits of the pattern.
  unsigned fw = 0;
  for (Value v : a.getOperands()) {
    unsigned w = cast<IntegerType>(v.getType()).getWidth();
    if ((fw && w != fw) || modelWidth(w, in.bits) != w)
      return;
    fw = w;
  }
  unsigned resultType = cast<IntegerType>(a.getType()).getWidth();
  if ((fw != 32 && fw != 64) || i.width != resultType ||
      i.width != (f == FloatFn::Cmp ? 1 : fw))
    return;
  i.floatFn = f;
  i.fpred = pred.value_or(FPred::False);
  i.floatWidth = fw;
}

bool Executor::compile() {
  if (in.bits == 0)
    return fail("the model width must be at least 1 bit");
  if (!kernel || kernel.getBody().empty())
    return fail("no kernel body to execute");
  Block &body = kernel.getBlock();
  llvm::DenseMap<Value, unsigned> slotOf;
  // Interval that defines each slot; -1 for argument and constant slots.
  std::vector<int> defInterval;
  unsigned numArgs = body.getNumArguments();
  elemWidth.assign(numArgs, 0);
  isShared.assign(numArgs, false);
  for (BlockArgument a : body.getArguments()) {
    unsigned argNo = a.getArgNumber();
    Type t = a.getType();
    if (isArrayType(t)) {
      std::optional<unsigned> w = intWidth(getArrayElementType(t), in.bits);
      if (!w)
        return fail("array argument #" + llvm::Twine(argNo) +
                    " has a non-integer element type");
      elemWidth[argNo] = *w;
      isShared[argNo] = isa<SharedArrayType>(t);
      if (!isShared[argNo])
        res.written[argNo]; // every global array gets an entry
      continue;
    }
    std::optional<unsigned> w = intWidth(t, in.bits);
    if (!w)
      return fail("argument #" + llvm::Twine(argNo) +
                  " is neither an integer nor an array");
    APInt v = in.scalar ? in.scalar(argNo) : APInt(*w, 0);
    if (v.getBitWidth() != *w)
      return fail("value of argument #" + llvm::Twine(argNo) + " has " +
                  llvm::Twine(v.getBitWidth()) + " bits, expected " +
                  llvm::Twine(*w));
    slotOf[a] = initialSlots.size();
    initialSlots.push_back(std::move(v));
    defInterval.push_back(-1);
  }

  intervals.emplace_back();
  for (Operation &op : body) {
    if (isa<BarrierOp>(op)) {
      intervals.emplace_back();
      continue;
    }
    if (!compileOp(op, intervals.size() - 1, slotOf, defInterval))
      return false;
  }

  // Per slot, the kv.iter instructions (indices in the defining interval)
  // its value depends on.
  std::vector<llvm::SmallVector<unsigned, 1>> slotLoops(initialSlots.size());
  for (unsigned n = 0; n < intervals.size(); ++n)
    if (!compileLoops(intervals[n], n, defInterval, slotLoops))
      return false;

  // Values used outside the interval that defines them survive barriers in
  // per-thread storage.
  std::vector<int> persistentIdx(initialSlots.size(), -1);
  for (unsigned n = 0; n < intervals.size(); ++n) {
    Interval &iv = intervals[n];
    llvm::DenseSet<unsigned> imported;
    for (const Instr &i : iv.instrs)
      for (unsigned s : i.ops) {
        int d = defInterval[s];
        if (d < 0 || (unsigned)d == n || !imported.insert(s).second)
          continue;
        if (persistentIdx[s] < 0) {
          persistentIdx[s] = numPersistent++;
          intervals[d].exports.push_back({s, persistentIdx[s]});
        }
        iv.imports.push_back({s, persistentIdx[s]});
      }
  }
  return true;
}

/// "kv.iter at FILE:LINE:COL", for error messages.
static std::string describe(Operation *op) {
  std::string s = op->getName().getStringRef().str();
  if (auto l = op->getLoc()->findInstanceOf<FileLineColLoc>())
    s += " at " + l.getFilename().str() + ":" + std::to_string(l.getLine()) +
         ":" + std::to_string(l.getColumn());
  return s;
}

// The instructions that depend on a kv.iter run once per iteration: its range
// reaches the last of them. An instruction of the range that does not
// depend on it runs once per iteration too, which only pure ones tolerate.
bool Executor::compileLoops(
    Interval &iv, unsigned intervalNo, const std::vector<int> &defInterval,
    std::vector<llvm::SmallVector<unsigned, 1>> &slotLoops) {
  std::vector<llvm::SmallVector<unsigned, 1>> loopsOf(iv.instrs.size());
  for (unsigned n = 0; n < iv.instrs.size(); ++n) {
    Instr &i = iv.instrs[n];
    llvm::SmallVector<unsigned, 1> &deps = loopsOf[n];
    for (unsigned o : i.ops) {
      if (slotLoops[o].empty())
        continue;
      // Iterations end at the barrier; per-thread storage keeps one value.
      if (defInterval[o] != (int)intervalNo)
        return fail(describe(i.op) + " uses a value that depends on a "
                                     "kv.iter before a barrier");
      for (unsigned l : slotLoops[o])
        if (!llvm::is_contained(deps, l))
          deps.push_back(l);
    }
    if (i.kind == Kind::Iter)
      deps.push_back(n);
    for (unsigned l : deps)
      iv.instrs[l].iterEnd = n + 1;
    if (i.op->getNumResults() == 1)
      slotLoops[i.result] = deps;
    // A sum runs in its loop's range, but its value is the loop's total.
    if (i.kind == Kind::Sum)
      llvm::erase_if(slotLoops[i.result], [&](unsigned l) {
        return iv.instrs[l].result == i.ops[1];
      });
  }
  for (unsigned n = 0; n < iv.instrs.size(); ++n) {
    Instr &i = iv.instrs[n];
    if (i.kind != Kind::Iter)
      continue;
    for (unsigned m = n + 1; m < i.iterEnd; ++m) {
      if (llvm::is_contained(loopsOf[m], n))
        continue;
      // A write or assume would happen once per iteration instead of once;
      // an independent kv.iter's range would not nest in this one.
      const Instr &j = iv.instrs[m];
      if (j.kind == Kind::Write || j.kind == Kind::Assume ||
          j.kind == Kind::Prove || j.kind == Kind::Iter)
        return fail(describe(j.op) + " inside the range of the " +
                    describe(i.op) + " does not depend on it");
      i.independent.push_back(m);
    }
  }
  return true;
}

bool Executor::compileOp(Operation &op, unsigned intervalNo,
                         llvm::DenseMap<Value, unsigned> &slotOf,
                         std::vector<int> &defInterval) {
  llvm::StringRef name = op.getName().getStringRef();
  if (op.getNumRegions() != 0 || op.getNumResults() > 1)
    return fail("unsupported operation '" + name + "'");
  std::optional<unsigned> resultWidth;
  if (op.getNumResults() == 1) {
    resultWidth = intWidth(op.getResult(0).getType(), in.bits);
    if (!resultWidth)
      return fail("operation '" + name + "' has a non-integer result");
  }

  // Constants are the same for every thread: fold them into the slots each
  // thread starts with.
  if (auto c = dyn_cast<arith::ConstantOp>(op)) {
    auto attr = dyn_cast<IntegerAttr>(c.getValue());
    if (!attr || !resultWidth)
      return fail("non-integer arith.constant");
    slotOf[c.getResult()] = initialSlots.size();
    initialSlots.push_back(attr.getValue().zextOrTrunc(*resultWidth));
    defInterval.push_back(-1);
    return true;
  }

  Instr i;
  i.op = &op;
  i.width = resultWidth.value_or(0);
  // Array operands (read/write) are not slots.
  auto addOperand = [&](Value v) -> bool {
    auto it = slotOf.find(v);
    if (it != slotOf.end()) {
      i.ops.push_back(it->second);
      return true;
    }
    if (isArrayType(v.getType()))
      return fail("operation '" + name + "' uses an array as a value");
    return fail("operation '" + name +
                "' uses a value that is not computed before it");
  };
  auto addArray = [&](Value v) -> bool {
    auto a = dyn_cast<BlockArgument>(v);
    if (!a || a.getOwner() != &kernel.getBlock() || !isArrayType(a.getType()))
      return fail("operation '" + name +
                  "' does not access a kernel array argument");
    i.argNo = a.getArgNumber();
    i.shared = isShared[i.argNo];
    return true;
  };
  bool known = true;
  bool ok =
      llvm::TypeSwitch<Operation *, bool>(&op)
          .Case([&](SRegOp s) {
            i.kind = Kind::SReg;
            std::optional<uint8_t> reg = parseSReg(s.getName());
            if (!reg)
              return fail("unknown special register '" + s.getName() + "'");
            i.aux = *reg;
            return true;
          })
          .Case([&](ReadOp r) {
            i.kind = Kind::Read;
            return addArray(r.getArray()) && addOperand(r.getIndex()) &&
                   addOperand(r.getGuard());
          })
          .Case([&](WriteOp w) {
            i.kind = Kind::Write;
            if (!addArray(w.getArray()) || !addOperand(w.getIndex()) ||
                !addOperand(w.getValue()) || !addOperand(w.getGuard()))
              return false;
            i.width = elemWidth[i.argNo];
            return true;
          })
          .Case([&](AssumeOp a) {
            i.kind = Kind::Assume;
            return addOperand(a.getCond());
          })
          .Case([&](ProveOp p) {
            i.kind = Kind::Prove;
            return addOperand(p.getCond());
          })
          .Case([&](IterOp it) {
            i.kind = Kind::Iter;
            return addOperand(it.getLb()) && addOperand(it.getStep()) &&
                   addOperand(it.getBound()) && addOperand(it.getGuard());
          })
          .Case([&](SumOp sum) {
            i.kind = Kind::Sum;
            return addOperand(sum.getTerm()) && addOperand(sum.getIter());
          })
          .Case([&](ApplyOp a) {
            i.kind = Kind::Apply;
            for (Value v : a.getOperands())
              if (!addOperand(v))
                return false;
            classifyApply(a, i);
            return true;
          })
          .Case([&](NoWrapOp n) {
            i.kind = Kind::NoWrap;
            i.aux = n.getKind() == "add" ? 0 : n.getKind() == "sub" ? 1 : 2;
            // At a narrower model width the check says nothing.
            unsigned natural = n.getLhs().getType().getIntOrFloatBitWidth();
            if (modelWidth(natural, in.bits) != natural)
              i.aux |= 4;
            return addOperand(n.getLhs()) && addOperand(n.getRhs());
          })
          .Case([&](arith::CmpIOp c) {
            i.kind = Kind::CmpI;
            i.aux = static_cast<uint8_t>(c.getPredicate());
            return addOperand(c.getLhs()) && addOperand(c.getRhs());
          })
          .Case([&](arith::SelectOp s) {
            i.kind = Kind::Select;
            return addOperand(s.getCondition()) &&
                   addOperand(s.getTrueValue()) &&
                   addOperand(s.getFalseValue());
          })
          .Default([&](Operation *) {
            std::optional<Kind> k = arithKind(op);
            if (!k) {
              known = false;
              return false;
            }
            i.kind = *k;
            for (Value v : op.getOperands())
              if (!addOperand(v))
                return false;
            return true;
          });
  if (!known)
    return fail("unsupported operation '" + name + "'");
  if (!ok)
    return false;
  if (!checkWidths(i))
    return fail("operation '" + name + "' has operands of unexpected widths");
  if (op.getNumResults() == 1) {
    i.result = initialSlots.size();
    slotOf[op.getResult(0)] = i.result;
    // The slot's template value only fixes its width; threads overwrite it.
    initialSlots.push_back(APInt(i.width, 0));
    defInterval.push_back(intervalNo);
  }
  intervals.back().instrs.push_back(std::move(i));
  return true;
}

bool Executor::checkWidths(const Instr &i) const {
  auto w = [&](unsigned n) { return slotWidth(i.ops[n]); };
  size_t n = i.ops.size();
  switch (i.kind) {
  case Kind::SReg:
    return n == 0;
  case Kind::Read:
    return n == 2 && w(1) == 1 && i.width == elemWidth[i.argNo];
  case Kind::Write:
    return n == 3 && w(1) == i.width && w(2) == 1;
  case Kind::Assume:
  case Kind::Prove:
    return n == 1 && w(0) == 1;
  case Kind::Iter:
    return n == 4 && w(0) == 64 && w(1) == 64 && w(2) == 64 && w(3) == 1 &&
           i.width == 64;
  case Kind::Apply:
    return true;
  case Kind::Sum:
    return n == 2 && w(0) == i.width && w(1) == 64;
  case Kind::CmpI:
  case Kind::NoWrap:
    return n == 2 && w(0) == w(1) && i.width == 1;
  case Kind::Select:
    return n == 3 && w(0) == 1 && w(1) == i.width && w(2) == i.width;
  case Kind::ExtUI:
  case Kind::ExtSI:
  case Kind::TruncI:
    return n == 1;
  default:
    return n == 2 && w(0) == i.width && w(1) == i.width;
  }
}

//===----------------------------------------------------------------------===//
// Execution
//===----------------------------------------------------------------------===//

bool Executor::run(uint64_t maxThreads) {
  bool overflow = false;
  uint64_t blockThreads = 1, blocks = 1;
  for (unsigned d = 0; d < 3; ++d) {
    if (cfg.grid[d] == 0 || cfg.block[d] == 0)
      return fail("grid and block dimensions must be positive");
    blockThreads =
        llvm::SaturatingMultiply(blockThreads, cfg.block[d], &overflow);
    blocks = llvm::SaturatingMultiply(blocks, cfg.grid[d], &overflow);
  }
  uint64_t total = llvm::SaturatingMultiply(blocks, blockThreads, &overflow);
  if (overflow || total > maxThreads)
    return fail(
        "launch of " +
        (overflow ? llvm::Twine("more than 2^64") : llvm::Twine(total)) +
        " threads exceeds the limit of " + llvm::Twine(maxThreads) +
        " threads");

  unsigned numArgs = elemWidth.size();
  global.assign(numArgs, {});
  shared.assign(numArgs, {});
  slots = initialSlots;
  // Saved values cost 16 bytes each; refuse rather than die in the allocator.
  uint64_t numSaved =
      llvm::SaturatingMultiply<uint64_t>(blockThreads, numPersistent);
  if (numSaved > (uint64_t(1) << 26))
    return fail("blocks of " + llvm::Twine(blockThreads) + " threads keep " +
                llvm::Twine(numPersistent) +
                " values each across barriers: too much state");
  std::vector<APInt> persistent(numSaved);
  for (bid[2] = 0; bid[2] < cfg.grid[2]; ++bid[2])
    for (bid[1] = 0; bid[1] < cfg.grid[1]; ++bid[1])
      for (bid[0] = 0; bid[0] < cfg.grid[0]; ++bid[0]) {
        for (auto &cells : shared)
          cells.clear();
        for (const Interval &iv : intervals) {
          pending.clear();
          APInt *saved = persistent.data();
          for (tid[2] = 0; tid[2] < cfg.block[2]; ++tid[2])
            for (tid[1] = 0; tid[1] < cfg.block[1]; ++tid[1])
              for (tid[0] = 0; tid[0] < cfg.block[0]; ++tid[0]) {
                for (auto [s, k] : iv.imports)
                  slots[s] = saved[k];
                if (!runRange(iv, 0, iv.instrs.size()))
                  return false;
                // Not a valid launch: the caller discards the result.
                if (res.assumeViolated)
                  return true;
                for (auto [s, k] : iv.exports)
                  saved[k] = slots[s];
                saved += numPersistent;
              }
          // Writes take effect at the barrier, in thread then program order.
          for (PendingWrite &w : pending) {
            if (!w.shared)
              res.written[w.argNo].insert_or_assign(w.index, w.value);
            (w.shared ? shared : global)[w.argNo].insert_or_assign(
                w.index, std::move(w.value));
          }
        }
      }
  return true;
}

bool Executor::runRange(const Interval &iv, unsigned from, unsigned to) {
  for (unsigned n = from; n < to; ++n) {
    const Instr &i = iv.instrs[n];
    if (i.kind == Kind::Iter) {
      if (!runLoop(iv, n))
        return false;
      n = i.iterEnd - 1;
    } else if (!exec(i)) {
      return false;
    }
    if (res.assumeViolated)
      return true;
  }
  return true;
}

bool Executor::runLoop(const Interval &iv, unsigned n) {
  const Instr &i = iv.instrs[n];
  // Nothing depends on the iteration number: no iteration is observable.
  if (i.iterEnd == n + 1)
    return true;
  auto it = cast<IterOp>(i.op);
  for (unsigned m = n + 1; m < i.iterEnd; ++m)
    if (iv.instrs[m].kind == Kind::Sum && iv.instrs[m].ops[1] == i.result)
      slots[iv.instrs[m].result] = APInt(iv.instrs[m].width, 0);
  uint64_t k = 0;
  if (!slots[i.ops[3]].isZero()) {
    // Exact arithmetic: |lb + k * step| < 2^129 for any k <= 2^20.
    const unsigned w = 130;
    bool sgn = it.isSigned();
    auto ext = [&](unsigned o) {
      const APInt &v = slots[i.ops[o]];
      return sgn ? v.sext(w) : v.zext(w);
    };
    APInt x = ext(0), step = ext(1), bound = ext(2);
    // Extended unsigned operands are non-negative: signed order fits both.
    auto live = [&](const APInt &v) {
      return it.isStrict() ? v.slt(bound) : v.sle(bound);
    };
    // Live iterations are a prefix only for a positive step (the checker
    // proves it wherever the loop is entered).
    if (!step.isStrictlyPositive() &&
        (live(x) || (it.getDoWhile() && live(x + step))))
      return fail("the loop of " + describe(i.op) +
                  " does not terminate (step <= 0)");
    const uint64_t maxIterations = 1u << 20;
    for (; live(x) || (k == 0 && it.getDoWhile()); ++k, x += step) {
      if (k == maxIterations)
        return fail("the loop of " + describe(i.op) + " runs more than " +
                    llvm::Twine(maxIterations) + " iterations");
      slots[i.result] = APInt(64, k);
      if (!runRange(iv, n + 1, i.iterEnd))
        return false;
      if (res.assumeViolated)
        return true;
    }
  }
  // No iteration: later instructions may still use the independent values.
  if (k == 0)
    for (unsigned m : i.independent)
      if (!exec(iv.instrs[m]))
        return false;
  return true;
}

bool Executor::arrayIndex(const APInt &v, uint64_t &index) {
  std::optional<uint64_t> x = v.zextOrTrunc(64).tryZExtValue();
  if (!x)
    return fail("array index does not fit in 64 bits");
  index = *x;
  return true;
}

bool Executor::load(const Instr &i, uint64_t index, APInt &out) {
  auto &cells = (i.shared ? shared : global)[i.argNo];
  auto it = cells.find(index);
  if (it != cells.end()) {
    out = it->second;
    return true;
  }
  // Cache the initial content: the callbacks need not be cheap (the
  // checker's looks the cell up in the solver's model, and a map insertion
  // follows): the work limit counts a fetch as several instructions.
  const uint64_t fetchSteps = 64;
  if (maxSteps) {
    if (stepsLeft < fetchSteps)
      return outOfWork();
    stepsLeft -= fetchSteps;
  }
  APInt v;
  if (i.shared)
    v = in.sharedInitial ? in.sharedInitial(i.argNo, bid, index)
                         : APInt(i.width, 0);
  else
    v = in.initial ? in.initial(i.argNo, index) : APInt(i.width, 0);
  if (v.getBitWidth() != i.width)
    return fail("initial content of array argument #" + llvm::Twine(i.argNo) +
                " has " + llvm::Twine(v.getBitWidth()) + " bits, expected " +
                llvm::Twine(i.width));
  out = v;
  cells.emplace(index, std::move(v));
  return true;
}

bool Executor::apply(const Instr &i) {
  if (i.floatFn != FloatFn::None) {
    const APInt &a = slots[i.ops[0]];
    const APInt *b = i.ops.size() > 1 ? &slots[i.ops[1]] : nullptr;
    slots[i.result] = i.floatWidth == 32 ? floatOp<float, uint32_t>(i, a, b)
                                         : floatOp<double, uint64_t>(i, a, b);
    return true;
  }
  llvm::StringRef fn = cast<ApplyOp>(i.op).getFn();
  if (in.apply) {
    llvm::SmallVector<APInt, 4> args;
    for (unsigned s : i.ops)
      args.push_back(slots[s]);
    if (std::optional<APInt> r = in.apply(fn, args, i.width)) {
      if (r->getBitWidth() != i.width)
        return fail("result of '" + fn + "' has " +
                    llvm::Twine(r->getBitWidth()) + " bits, expected " +
                    llvm::Twine(i.width));
      slots[i.result] = std::move(*r);
      return true;
    }
  }
  return fail("cannot replay uninterpreted operation '" + fn + "'");
}

bool Executor::exec(const Instr &i) {
  if (maxSteps && !stepsLeft--)
    return outOfWork();
  auto arg = [&](unsigned n) -> const APInt & { return slots[i.ops[n]]; };
  auto set = [&](APInt v) {
    slots[i.result] = std::move(v);
    return true;
  };
  switch (i.kind) {
  case Kind::SReg: {
    unsigned dim = i.aux % 3;
    uint64_t v = 0;
    switch (i.aux / 3) {
    case Tid:
      v = tid[dim];
      break;
    case Bid:
      v = bid[dim];
      break;
    case BDim:
      v = cfg.block[dim];
      break;
    default:
      v = cfg.grid[dim];
      break;
    }
    return set(APInt(64, v).zextOrTrunc(i.width));
  }
  case Kind::Read: {
    uint64_t index;
    return arrayIndex(arg(0), index) && load(i, index, slots[i.result]);
  }
  case Kind::Write: {
    if (arg(2).isZero())
      return true;
    uint64_t index;
    if (!arrayIndex(arg(0), index))
      return false;
    pending.push_back({i.argNo, i.shared, index, arg(1)});
    return true;
  }
  case Kind::Assume:
    if (arg(0).isZero())
      res.assumeViolated = true;
    return true;
  case Kind::Prove:
    // The checker proved it for every valid launch; failing here means the
    // launch is not one (an assumption fails later) or the model is wrong.
    if (arg(0).isZero())
      return fail("model condition '" +
                  cast<ProveOp>(i.op).getWhat().str() + "' fails at " +
                  describe(i.op));
    return true;
  case Kind::Apply:
    return apply(i);
  case Kind::Iter:
    return fail("internal error: kv.iter outside runRange");
  case Kind::Sum:
    slots[i.result] += arg(0);
    return true;
  case Kind::NoWrap: {
    if (i.aux & 4)
      return set(APInt(1, 1));
    bool ov = false;
    if ((i.aux & 3) == 0)
      (void)arg(0).sadd_ov(arg(1), ov);
    else if ((i.aux & 3) == 1)
      (void)arg(0).ssub_ov(arg(1), ov);
    else
      (void)arg(0).smul_ov(arg(1), ov);
    return set(APInt(1, ov ? 0 : 1));
  }
  case Kind::AddI:
    return set(arg(0) + arg(1));
  case Kind::SubI:
    return set(arg(0) - arg(1));
  case Kind::MulI:
    return set(arg(0) * arg(1));
  case Kind::DivUI:
    return set(bvudiv(arg(0), arg(1)));
  case Kind::DivSI:
    return set(bvsdiv(arg(0), arg(1)));
  case Kind::RemUI:
    return set(bvurem(arg(0), arg(1)));
  case Kind::RemSI:
    return set(bvsrem(arg(0), arg(1)));
  case Kind::AndI:
    return set(arg(0) & arg(1));
  case Kind::OrI:
    return set(arg(0) | arg(1));
  case Kind::XOrI:
    return set(arg(0) ^ arg(1));
  // Shift amounts of at least the width shift everything out, as in SMT-LIB.
  case Kind::ShLI:
    if (arg(1).uge(i.width))
      return set(APInt::getZero(i.width));
    return set(arg(0).shl(arg(1).getZExtValue()));
  case Kind::ShRUI:
    if (arg(1).uge(i.width))
      return set(APInt::getZero(i.width));
    return set(arg(0).lshr(arg(1).getZExtValue()));
  case Kind::ShRSI:
    if (arg(1).uge(i.width))
      return set(arg(0).isNegative() ? APInt::getAllOnes(i.width)
                                     : APInt::getZero(i.width));
    return set(arg(0).ashr(arg(1).getZExtValue()));
  case Kind::CmpI: {
    const APInt &a = arg(0), &b = arg(1);
    bool r = false;
    switch (static_cast<arith::CmpIPredicate>(i.aux)) {
    case arith::CmpIPredicate::eq:
      r = a == b;
      break;
    case arith::CmpIPredicate::ne:
      r = a != b;
      break;
    case arith::CmpIPredicate::slt:
      r = a.slt(b);
      break;
    case arith::CmpIPredicate::sle:
      r = a.sle(b);
      break;
    case arith::CmpIPredicate::sgt:
      r = a.sgt(b);
      break;
    case arith::CmpIPredicate::sge:
      r = a.sge(b);
      break;
    case arith::CmpIPredicate::ult:
      r = a.ult(b);
      break;
    case arith::CmpIPredicate::ule:
      r = a.ule(b);
      break;
    case arith::CmpIPredicate::ugt:
      r = a.ugt(b);
      break;
    case arith::CmpIPredicate::uge:
      r = a.uge(b);
      break;
    }
    return set(APInt(1, r));
  }
  case Kind::Select:
    slots[i.result] = arg(0).isZero() ? arg(2) : arg(1);
    return true;
  // Casts go between model widths, which may be equal (identity) even when
  // the types differ.
  case Kind::ExtUI:
  case Kind::TruncI:
    return set(arg(0).zextOrTrunc(i.width));
  case Kind::ExtSI:
    return set(arg(0).sextOrTrunc(i.width));
  case Kind::MaxSI:
    return set(llvm::APIntOps::smax(arg(0), arg(1)));
  case Kind::MinSI:
    return set(llvm::APIntOps::smin(arg(0), arg(1)));
  case Kind::MaxUI:
    return set(llvm::APIntOps::umax(arg(0), arg(1)));
  case Kind::MinUI:
    return set(llvm::APIntOps::umin(arg(0), arg(1)));
  }
  return fail("internal error: unknown instruction kind");
}

ExecResult execute(KernelOp kernel, const LaunchConfig &cfg,
                   const ExecInputs &in, uint64_t maxThreads,
                   uint64_t maxSteps) {
  ExecResult res;
  Executor ex(kernel, cfg, in, res);
  ex.maxSteps = ex.stepsLeft = maxSteps;
  if (ex.compile() && ex.run(maxThreads))
    res.ok = true;
  return res;
}

} // namespace kv
