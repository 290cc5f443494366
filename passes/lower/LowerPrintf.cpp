//===- LowerPrintf.cpp - printf as a stream of records per thread ---------===//
//
// CUDA's printf is clang's `vprintf(format, buffer)`, the values packed in a
// private buffer. What a launch prints is the records of its threads; the
// order between threads is the schedule's, a thread's own is program order.
// The model writes each thread's records to the array kPrintStream, record
// n of the thread at cells 16n.. (the format's id, then the values): two
// kernels that make the same records in every thread print the same lines.
//
//===----------------------------------------------------------------------===//
#include "passes/lower/Lowerer.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/SaveAndRestore.h"

namespace kv {

bool isPrintfCall(const llvm::CallBase &call) {
  const llvm::Function *callee = call.getCalledFunction();
  return callee && callee->getName() == "vprintf" && call.arg_size() == 2;
}

std::optional<llvm::StringRef> printfFormat(const llvm::CallBase &call) {
  const auto *gv = llvm::dyn_cast<llvm::GlobalVariable>(
      call.getArgOperand(0)->stripPointerCasts());
  if (!gv)
    return std::nullopt;
  return constantCString(*gv, 0);
}

std::optional<llvm::StringRef> constantCString(const llvm::GlobalVariable &gv,
                                               uint64_t offset) {
  if (!gv.isConstant() || !gv.hasDefinitiveInitializer())
    return std::nullopt;
  const auto *data =
      llvm::dyn_cast<llvm::ConstantDataSequential>(gv.getInitializer());
  if (!data || !data->isString() || data->getElementByteSize() != 1)
    return std::nullopt;
  llvm::StringRef raw = data->getRawDataValues();
  if (offset >= raw.size())
    return std::nullopt;
  raw = raw.drop_front(offset);
  size_t end = raw.find('\0');
  if (end == llvm::StringRef::npos)
    return std::nullopt;
  return raw.take_front(end);
}

std::optional<std::vector<PrintfField>> printfFields(llvm::StringRef fmt,
                                                     std::string &why) {
  std::vector<PrintfField> out;
  uint64_t off = 0;
  auto add = [&](unsigned bytes, bool isFloat) {
    off = llvm::alignTo(off, bytes);
    out.push_back({off, bytes, isFloat});
    off += bytes;
  };
  size_t i = 0, n = fmt.size();
  // A width or precision: digits, or `*` (an int argument).
  auto count = [&] {
    if (i < n && fmt[i] == '*') {
      add(4, false);
      ++i;
    }
    while (i < n && llvm::isDigit(fmt[i]))
      ++i;
  };
  while (i < n) {
    if (fmt[i++] != '%')
      continue;
    if (i < n && fmt[i] == '%') {
      ++i;
      continue;
    }
    while (i < n && llvm::StringRef("-+ #0'").contains(fmt[i]))
      ++i;
    count();
    if (i < n && fmt[i] == '.') {
      ++i;
      count();
    }
    bool wide = false, longDouble = false;
    while (i < n && llvm::StringRef("hljztqL").contains(fmt[i])) {
      wide |= llvm::StringRef("ljztq").contains(fmt[i]);
      longDouble |= fmt[i] == 'L';
      ++i;
    }
    if (i == n) {
      why = "a format that ends inside a conversion";
      return std::nullopt;
    }
    char c = fmt[i++];
    if (llvm::StringRef("diuoxXc").contains(c)) {
      add(wide ? 8 : 4, false);
    } else if (llvm::StringRef("fFeEgGaA").contains(c) && !longDouble) {
      add(8, true);
    } else if (c == 's') {
      add(8, false);
      out.back().isString = true;
    } else {
      why =
          c == 'p' ? "an address (%p)" : "the conversion %" + std::string(1, c);
      return std::nullopt;
    }
  }
  return out;
}

uint64_t printfFormatId(llvm::StringRef fmt) {
  // FNV-1a: stable across runs and builds, unlike a pointer or std::hash.
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : fmt) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

namespace lowering {

bool Lowerer::callsPrintf(const llvm::Function &fn,
                          llvm::SmallPtrSetImpl<const llvm::Function *> &seen) {
  if (!seen.insert(&fn).second)
    return false;
  for (const llvm::BasicBlock &bb : fn)
    for (const llvm::Instruction &inst : bb)
      if (const auto *call = dyn_cast<llvm::CallBase>(&inst)) {
        if (isPrintfCall(*call))
          return true;
        if (const llvm::Function *g = call->getCalledFunction())
          if (!g->isDeclaration() && callsPrintf(*g, seen))
            return true;
      }
  return false;
}

std::optional<llvm::StringRef> Lowerer::constantString(const SymVal &p) {
  if (p.kind != SymVal::PrivPtr || !p.off.terms.empty() || p.off.constant < 0)
    return std::nullopt;
  for (auto &[gv, obj] : constTables)
    if (obj == p.obj)
      return constantCString(*gv, (uint64_t)p.off.constant);
  return std::nullopt;
}

void Lowerer::execPrintf(const llvm::CallBase &call, State &s) {
  if (!call.use_empty())
    return fail("printf whose result is used");
  std::optional<llvm::StringRef> fmt = printfFormat(call);
  if (!fmt)
    return fail("printf of a format that is not a constant string");
  std::string why;
  std::optional<std::vector<PrintfField>> fields = printfFields(*fmt, why);
  if (!fields)
    return fail("printf of " + why);
  if (fields->size() >= kPrintRecordCells)
    return fail("printf of more than " + llvm::Twine(kPrintRecordCells - 1) +
                " values");
  // A loop with a symbolic trip count is one iteration of the model: its
  // records would need a count per thread the model does not keep.
  if (!symLoops.empty())
    return fail("printf in a loop whose trip count is not a constant");
  if (!printCounter.obj)
    return fail("internal error: printf without its record counter");
  Type i64 = b.getI64Type();
  llvm::LLVMContext &lc = f.getContext();
  llvm::Type *i64Ty = llvm::Type::getInt64Ty(lc);
  std::vector<Value> record{cst(i64, (int64_t)printfFormatId(*fmt))};
  SymVal buffer = eval(call.getArgOperand(1), s);
  for (const PrintfField &fd : *fields) {
    SymVal p = buffer;
    p.off.constant += (int64_t)fd.offset;
    if (fd.isString) {
      std::optional<llvm::StringRef> text =
          constantString(loadFrom(p, llvm::PointerType::get(lc, 0), s));
      if (failed)
        return;
      if (!text)
        return fail("printf of a string (%s) that is not a constant");
      record.push_back(cst(i64, (int64_t)printfFormatId(*text)));
      continue;
    }
    llvm::Type *ty = fd.isFloat ? llvm::Type::getDoubleTy(lc)
                                : llvm::Type::getIntNTy(lc, 8 * fd.bytes);
    SymVal v = loadFrom(p, ty, s);
    if (failed || failUnknown(v, "printed"))
      return;
    if (v.kind != SymVal::Scalar)
      return fail("printf of a value that is not a number");
    record.push_back(toI64(v.scalar, /*isSigned=*/false));
  }
  Value n;
  {
    llvm::SaveAndRestore internal(internalRead, true);
    n = loadPrivate(printCounter, i64Ty, s).scalar;
  }
  if (failed || !n)
    return;
  if (!printArray) {
    printArray = newGlobalArray(kPrintStream.str(), i64);
    arrayElemSize[printArray] = 8;
  }
  if (isFalse(s.guard))
    return;
  Value base =
      b.createOrFold<arith::MulIOp>(loc, n, cst(i64, kPrintRecordCells));
  for (auto [j, v] : llvm::enumerate(record)) {
    Value idx = b.createOrFold<arith::AddIOp>(loc, base, cst(i64, j));
    WriteOp::create(b, loc, printArray, idx, v, s.guard);
  }
  storeTo(printCounter,
          scalar(b.createOrFold<arith::AddIOp>(loc, n, cst(i64, 1))), i64Ty, s);
}

} // namespace lowering
} // namespace kv
