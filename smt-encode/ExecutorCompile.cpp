//===- ExecutorCompile.cpp - kv ops to the executor's instructions --------===//
//
// Compilation of a kv.kernel into the flat instruction lists the executor
// runs: slots for arguments, constants and results, the range of each
// kv.iter, and the values that live across barriers.
//
//===----------------------------------------------------------------------===//
#include "smt-encode/ExecutorInternal.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cstring>
#include <optional>

using namespace mlir;
using llvm::APInt;

namespace kv::executor {

//===----------------------------------------------------------------------===//
// Compilation
//===----------------------------------------------------------------------===//

static std::optional<unsigned> intWidth(Type t, unsigned bits) {
  if (auto it = dyn_cast<IntegerType>(t))
    return modelWidth(it.getWidth(), bits);
  return std::nullopt;
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
  printArg = printStreamArg(kernel);
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
    if (auto b = dyn_cast<BarrierOp>(op)) {
      intervals.emplace_back();
      intervals.back().afterGridBarrier = b.getGrid();
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

std::string describe(Operation *op) {
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
    // A sum runs in its loop's range, but its value is the loop's total;
    // so does a fold.
    if (i.kind == Kind::Sum || i.kind == Kind::Fold || i.kind == Kind::Last) {
      unsigned iter = i.ops[i.kind == Kind::Fold ? 2 : 1];
      llvm::erase_if(slotLoops[i.result],
                     [&](unsigned l) { return iv.instrs[l].result == iter; });
    }
  }
  for (unsigned n = 0; n < iv.instrs.size(); ++n) {
    Instr &i = iv.instrs[n];
    if (i.kind != Kind::Iter)
      continue;
    for (unsigned m = n + 1; m < i.iterEnd; ++m) {
      if (llvm::is_contained(loopsOf[m], n))
        continue;
      // A write or assume would happen once per iteration instead of once;
      // an independent kv.iter's range would not nest in this one. (A
      // kv.prove only checks a condition: once per iteration is the same
      // check, and it is made once where the loop does not run.)
      const Instr &j = iv.instrs[m];
      if (j.kind == Kind::Write || j.kind == Kind::Assume ||
          j.kind == Kind::Iter)
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
            i.aux = static_cast<uint8_t>(s.getName());
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
          .Case([&](CarryOp c) {
            i.kind = Kind::Carry;
            return addOperand(c.getInit()) && addOperand(c.getIter());
          })
          .Case([&](FoldOp f) {
            i.kind = Kind::Fold;
            return addOperand(f.getAcc()) && addOperand(f.getNext()) &&
                   addOperand(f.getCarry().getIter());
          })
          .Case([&](BreakOp br) {
            i.kind = Kind::Break;
            return addOperand(br.getIter()) && addOperand(br.getCond());
          })
          .Case([&](LastOp l) {
            i.kind = Kind::Last;
            return addOperand(l.getValue()) && addOperand(l.getIter());
          })
          .Case([&](BallotOp bo) {
            i.kind = Kind::Ballot;
            return addOperand(bo.getPred()) && addOperand(bo.getMask()) &&
                   addOperand(bo.getGuard());
          })
          .Case([&](LaneOp) {
            i.kind = Kind::Lane;
            return true;
          })
          .Case([&](ShuffleOp sh) {
            i.kind = Kind::Shuffle;
            return addOperand(sh.getValue()) && addOperand(sh.getLane()) &&
                   addOperand(sh.getMask()) && addOperand(sh.getGuard());
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
            i.aux = static_cast<uint8_t>(n.getKind());
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
  case Kind::Carry:
    return n == 2 && w(0) == i.width && w(1) == 64;
  case Kind::Fold:
    return n == 3 && w(0) == i.width && w(1) == i.width && w(2) == 64;
  case Kind::Break:
    return n == 2 && w(0) == 64 && w(1) == 1;
  case Kind::Last:
    return n == 2 && w(0) == i.width && w(1) == 64;
  case Kind::Shuffle:
    return n == 4 && w(0) == i.width && w(3) == 1;
  case Kind::Lane:
    return n == 0;
  case Kind::Ballot:
    return n == 3 && w(0) == 1 && w(2) == 1;
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

} // namespace kv::executor
