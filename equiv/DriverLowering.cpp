//===- DriverLowering.cpp - the pair's kv models for the driver -----------===//
//
// Lowering both kernels into one scratch module: element types agreed
// between them, __device__/__constant__ arrays in one order, signatures for
// the IR runs, and whether modelling constant loops changes the models.
//
//===----------------------------------------------------------------------===//
#include "equiv/Driver.h"
#include "passes/lower/LowerToKV.h"
#include "smt-encode/KernelModel.h"
#include "smt-encode/Stats.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/IR/Function.h"

#include <set>

using namespace llvm;

namespace kv {
/// Give \p k a symbol name not yet used in \p module.
static void uniquifySymbol(KernelOp k, mlir::ModuleOp module) {
  std::string base = k.getSymName().str(), name = base;
  auto taken = [&](StringRef n) {
    for (KernelOp o : module.getOps<KernelOp>())
      if (o != k && o.getSymName() == n)
        return true;
    return false;
  };
  for (unsigned i = 1; taken(name); ++i)
    name = base + "." + std::to_string(i);
  if (name != base)
    k.setSymName(name);
}

mlir::FailureOr<KernelOp> lowerFunction(
    Function &function, mlir::ModuleOp into, bool isSource, unsigned unroll,
    const Case &pins, bool reportSplit, Unsupported &split, std::string &why,
    bool exactUnroll, const std::map<std::string, unsigned> &elemBytes,
    const std::string &brokenRule, bool breakLoops, bool modelConstantLoops) {
  std::string firstDiag;
  mlir::ScopedDiagnosticHandler handler(into.getContext(),
                                        [&](mlir::Diagnostic &d) {
                                          if (firstDiag.empty())
                                            firstDiag = d.str();
                                          return mlir::success();
                                        });
  LowerOptions lo;
  lo.assumeNoSignedOverflow = isSource;
  lo.target = !isSource;
  lo.unrollBound = unroll;
  lo.exactUnroll = exactUnroll;
  lo.reportSplit = reportSplit;
  lo.elemBytes = elemBytes;
  lo.testBreakShl = brokenRule == "shl";
  lo.breakLoops = breakLoops;
  lo.modelConstantLoops = modelConstantLoops;
  for (auto &[name, value] : pins)
    lo.pins[name] = value;
  Unsupported u;
  mlir::FailureOr<KernelOp> k = lowerKernel(function, into, u, lo);
  if (mlir::failed(k)) {
    if (reportSplit && !u.splitOn.empty()) {
      split = u;
      return mlir::failure();
    }
    why = !u.construct.empty() ? u.str()
          : !firstDiag.empty() ? firstDiag
                               : "lowering to kv failed";
    return mlir::failure();
  }
  // A malformed model must not reach the checker.
  if (mlir::failed(mlir::verify(*k))) {
    why = "internal error: lowered kernel does not verify" +
          (firstDiag.empty() ? std::string() : ": " + firstDiag);
    k->erase();
    return mlir::failure();
  }
  return k;
}

/// The __device__/__constant__ arrays of a kernel: its global arrays after
/// its \p np parameters, by name.
static std::vector<std::pair<std::string, mlir::Type>>
globalArrays(KernelOp k, unsigned np) {
  std::vector<std::pair<std::string, mlir::Type>> out;
  mlir::Block &blk = k.getBlock();
  for (unsigned i = np; i < blk.getNumArguments(); ++i)
    if (isa<GlobalArrayType>(blk.getArgument(i).getType()))
      out.push_back({k.getArgName(i).str(), blk.getArgument(i).getType()});
  return out;
}

/// Where a pointer parameter may be null (kNullParams), no access goes
/// through it when it is: the before kernel's precondition (an access
/// through null is undefined), a condition the checker proves of the
/// after kernel.
static void guardNullAccesses(KernelOp k, unsigned np, bool trusted,
                              const std::set<unsigned> &nullable) {
  std::optional<unsigned> nulls = nullParamsArg(k);
  if (!nulls || nullable.empty())
    return;
  mlir::Value flags = k.getBlock().getArgument(*nulls);
  llvm::SmallVector<mlir::Operation *> accesses;
  k.walk([&](mlir::Operation *op) {
    if (isa<ReadOp, WriteOp>(op))
      accesses.push_back(op);
  });
  for (mlir::Operation *op : accesses) {
    mlir::Value array = isa<ReadOp>(op) ? cast<ReadOp>(op).getArray()
                                        : cast<WriteOp>(op).getArray();
    mlir::Value guard = isa<ReadOp>(op) ? cast<ReadOp>(op).getGuard()
                                        : cast<WriteOp>(op).getGuard();
    auto arg = dyn_cast<mlir::BlockArgument>(array);
    if (!arg || arg.getArgNumber() >= np || !nullable.count(arg.getArgNumber()))
      continue;
    mlir::OpBuilder b(op);
    mlir::Location loc = op->getLoc();
    mlir::Type i8 = b.getI8Type(), i1 = b.getI1Type();
    mlir::Value idx = mlir::arith::ConstantOp::create(
        b, loc, b.getI64Type(), b.getI64IntegerAttr(arg.getArgNumber()));
    mlir::Value yes =
        mlir::arith::ConstantOp::create(b, loc, i1, b.getIntegerAttr(i1, 1));
    mlir::Value flag = ReadOp::create(b, loc, i8, flags, idx, yes);
    mlir::Value zero =
        mlir::arith::ConstantOp::create(b, loc, i8, b.getIntegerAttr(i8, 0));
    mlir::Value nonNull = mlir::arith::CmpIOp::create(
        b, loc, mlir::arith::CmpIPredicate::eq, flag, zero);
    mlir::Value off = mlir::arith::XOrIOp::create(b, loc, guard, yes);
    mlir::Value ok = mlir::arith::OrIOp::create(b, loc, off, nonNull);
    if (trusted)
      AssumeOp::create(b, loc, ok, /*bound=*/nullptr, b.getUnitAttr())
          ->setAttr("null", b.getUnitAttr());
    else
      ProveOp::create(b, loc, ok,
                      b.getStringAttr("no access through a null pointer "
                                      "parameter"));
  }
}

/// Give \p k the global arrays \p order after its \p np parameters, in
/// that order: its own moved into place, the others added unused (an input
/// only the other kernel reads).
static void placeGlobalArrays(
    KernelOp k, unsigned np,
    const std::vector<std::pair<std::string, mlir::Type>> &order) {
  mlir::Block &blk = k.getBlock();
  std::vector<mlir::Attribute> names(k.getArgNames().begin(),
                                     k.getArgNames().end());
  auto nameAt = [&](unsigned i) {
    return cast<mlir::StringAttr>(names[i]).getValue();
  };
  for (unsigned j = 0; j < order.size(); ++j) {
    unsigned want = np + j;
    std::optional<unsigned> have;
    for (unsigned i = want; i < blk.getNumArguments(); ++i)
      if (isa<GlobalArrayType>(blk.getArgument(i).getType()) &&
          nameAt(i) == order[j].first)
        have = i;
    if (have && *have == want)
      continue;
    mlir::Type t = have ? blk.getArgument(*have).getType() : order[j].second;
    mlir::BlockArgument arg =
        blk.insertArgument(want, t, mlir::UnknownLoc::get(k.getContext()));
    names.insert(names.begin() + want,
                 mlir::StringAttr::get(k.getContext(), order[j].first));
    if (have) {
      unsigned old = *have + 1;
      blk.getArgument(old).replaceAllUsesWith(arg);
      blk.eraseArgument(old);
      names.erase(names.begin() + old);
    }
  }
  k.setArgNamesAttr(mlir::ArrayAttr::get(k.getContext(), names));
}

/// Give both kernels the global arrays either has, matched by name, in
/// one order (the before kernel's first).
static void alignGlobalArrays(KernelOp before, unsigned nb, KernelOp after,
                              unsigned na) {
  auto order = globalArrays(before, nb);
  for (auto &g : globalArrays(after, na))
    if (llvm::none_of(order, [&](auto &o) { return o.first == g.first; }))
      order.push_back(g);
  placeGlobalArrays(before, nb, order);
  placeGlobalArrays(after, na, order);
}

/// The pins of one kernel's lowering, in its own names. Where the after
/// kernel has a launch of its own, its dimensions are after.blockDim.x, ...
/// to the cases and blockDim.x, ... to its lowering.
Case Driver::pinsOf(const Case &pins, bool isBefore) const {
  Case mine;
  for (auto &[name, value] : pins) {
    bool dim = isLaunchDimension(name),
         afterDim = StringRef(name).starts_with("after.");
    if (ownLaunches() && (isBefore ? afterDim : dim))
      continue;
    mine.push_back({isBefore   ? name
                    : afterDim ? name.substr(6)
                               : translateName(name, true),
                    value});
  }
  return mine;
}

std::optional<LoweredPair> Driver::lowerPair(const Case &pins, unsigned unroll,
                                             bool reportSplit,
                                             std::vector<std::string> &splitOn,
                                             KernelOp &signature,
                                             CheckResult &failure, bool exact) {
  stats::Scoped timer("lowering");
  LoweredPair out;
  for (KernelInput *in : {&before, &after}) {
    bool isBefore = in == &before;
    KernelOp &slot = isBefore ? out.before : out.after;
    bool useKernel =
        in->kernel &&
        (!in->function || (pins.empty() && !exact && !noBreakLoops &&
                           !modelConstantLoops && unroll == in->kernelUnroll));
    if (useKernel) {
      slot = cast<KernelOp>(in->kernel->clone());
      slot.walk([&](BreakOp) { sawBreakLoops = true; });
      scratch.push_back(slot);
      uniquifySymbol(slot, scratch);
      continue;
    }
    Case myPins = pinsOf(pins, isBefore);
    Unsupported split;
    std::string why;
    // The after kernel's arrays take the before kernel's element types
    // where its accesses allow (an optimized struct copy loads 8 bytes where
    // the source read 4-byte fields).
    std::map<std::string, unsigned> hints;
    if (!isBefore && out.before)
      hints = arrayElemBytes(out.before, kvParamCount(*in->function));
    mlir::FailureOr<KernelOp> k = lowerFunction(
        *in->function, scratch, in->isSource, unroll, myPins, reportSplit,
        split, why, exact, hints, opts.testBreakLowering, !noBreakLoops,
        modelConstantLoops);
    if (mlir::succeeded(k)) {
      slot = *k;
      slot.walk([&](BreakOp) { sawBreakLoops = true; });
      uniquifySymbol(slot, scratch);
      if (isBefore || !before.function)
        continue;
      // And the other way round, where the after kernel reads narrower
      // elements than the before kernel did.
      unsigned np = kvParamCount(*in->function);
      std::map<std::string, unsigned> bw = arrayElemBytes(out.before, np),
                                      aw = arrayElemBytes(slot, np);
      bool narrower = false;
      for (auto &[key, bytes] : aw)
        if (bw.count(key) && bw[key] > bytes) {
          bw[key] = bytes;
          narrower = true;
        }
      if (!narrower)
        continue;
      Unsupported split2;
      std::string why2;
      mlir::FailureOr<KernelOp> kb = lowerFunction(
          *before.function, scratch, before.isSource, unroll,
          pinsOf(pins, true),
          /*reportSplit=*/false, split2, why2, exact, bw,
          opts.testBreakLowering, !noBreakLoops, modelConstantLoops);
      if (mlir::succeeded(kb)) {
        out.before.erase();
        out.before = *kb;
        uniquifySymbol(out.before, scratch);
      }
      continue;
    }
    if (!split.splitOn.empty()) {
      // The before kernel's parameters name the cases.
      std::vector<std::string> names;
      names.reserve(split.splitOn.size());
      for (const std::string &n : split.splitOn)
        names.push_back(isBefore ? n
                        : ownLaunches() && isLaunchDimension(n)
                            ? "after." + n
                            : translateName(n, false));
      requestSplit(names, split.signature, out, splitOn, signature);
      return std::nullopt;
    }
    if (out.before)
      out.before.erase();
    failure.verdict = Verdict::Unsupported;
    failure.reason = in->label + ": " + why;
    return std::nullopt;
  }
  // The two kernels' __device__/__constant__ arrays are matched by name:
  // the same arrays, in the same order, in both (the before kernel's
  // first), whichever of them each kernel reads and in what order.
  if (before.function && after.function) {
    unsigned nb = kvParamCount(*before.function),
             na = kvParamCount(*after.function);
    alignGlobalArrays(out.before, nb, out.after, na);
    // The pointer parameters either kernel compares with null.
    std::set<unsigned> nullable;
    for (KernelOp k : {out.before, out.after})
      if (std::optional<unsigned> nulls = nullParamsArg(k))
        k.walk([&](ReadOp r) {
          llvm::APInt c;
          if (r.getArray() == k.getBlock().getArgument(*nulls) &&
              mlir::matchPattern(r.getIndex(), mlir::m_ConstantInt(&c)))
            nullable.insert((unsigned)c.getZExtValue());
        });
    guardNullAccesses(out.before, nb, /*trusted=*/true, nullable);
    guardNullAccesses(out.after, na, /*trusted=*/false, nullable);
  }
  if (ownLaunches())
    out.after->setAttr(kAfterLaunchAttr,
                       mlir::UnitAttr::get(out.after->getContext()));
  return out;
}

std::optional<LoweredPair> Driver::lowerOnce(unsigned unroll,
                                             CheckResult &failure) {
  // Loops whose trip count the assumptions fix to one value are unrolled
  // for it.
  std::vector<std::string> splitOn;
  KernelOp signature;
  CheckOptions o = checkOptionsFor(opts);
  Case pins;
  std::optional<LoweredPair> pair;
  while (!(pair = lowerPair(pins, unroll, true, splitOn, signature, failure)) &&
         !splitOn.empty()) {
    std::string why;
    auto cases = enumerateCases(signature, splitOn, pins, o, 1, why);
    signature.erase();
    if (!cases || cases->empty())
      break;
    pins = cases->front();
    splitOn.clear();
  }
  if (!pair && !splitOn.empty())
    pair = lowerPair(pins, unroll, false, splitOn, signature, failure);
  return pair;
}

bool Driver::irSignatures(ScratchKernels &sig) {
  if (!before.function || !after.function)
    return false;
  llvm::Function *fns[2] = {before.function, after.function};
  for (int i = 0; i < 2; ++i) {
    Unsupported why;
    LowerOptions lo;
    lo.signatureOnly = true;
    mlir::FailureOr<KernelOp> k = lowerKernel(*fns[i], scratch, why, lo);
    if (mlir::failed(k))
      return false;
    sig.k[i] = *k;
    uniquifySymbol(sig.k[i], scratch);
  }
  // The printf stream and the null pointer flags (the signatures' only
  // global arrays): both kernels get those either has, so that runs
  // compare what both print and pass both the same null pointers.
  alignGlobalArrays(sig.k[0], kvParamCount(*fns[0]), sig.k[1],
                    kvParamCount(*fns[1]));
  return matchParams(sig.k[0], sig.k[1]).empty();
}

bool Driver::constantLoopsModelled() {
  // Stores whose index depends on a loop's iteration: a loop that stores is
  // where unrolling defeats the index maps; one that only accumulates (a
  // bit count, a short sum) is cheaper unrolled, its terms exact.
  auto iters = [](const LoweredPair &p) {
    unsigned n = 0;
    for (KernelOp k : {p.before, p.after})
      k.walk([&](WriteOp w) {
        llvm::SmallVector<mlir::Value> work{w.getIndex()};
        llvm::DenseSet<mlir::Value> seen;
        while (!work.empty()) {
          mlir::Value v = work.pop_back_val();
          mlir::Operation *d = v.getDefiningOp();
          if (!d || !seen.insert(v).second)
            continue;
          if (isa<IterOp>(d)) {
            ++n;
            return;
          }
          work.append(d->operand_begin(), d->operand_end());
        }
      });
    return n;
  };
  std::optional<unsigned> counts[2];
  for (bool model : {false, true}) {
    modelConstantLoops = model;
    std::vector<std::string> splitOn;
    KernelOp signature;
    CheckResult failure;
    if (std::optional<LoweredPair> p =
            lowerPair({}, opts.unroll, /*reportSplit=*/false, splitOn,
                      signature, failure)) {
      counts[model] = iters(*p);
      // A kernel whose constant loops stayed unrolled against one whose
      // loops are modelled: the two do not correspond (8 writes against a
      // loop of one), and the attempt would only spend its time.
      if (model && (p->before->hasAttr(kConstantLoopsUnrolledAttr) ||
                    p->after->hasAttr(kConstantLoopsUnrolledAttr)))
        counts[model].reset();
      p->before.erase();
      p->after.erase();
    } else if (signature) {
      signature.erase();
    }
  }
  modelConstantLoops = false;
  return counts[1] && (!counts[0] || *counts[1] > *counts[0]);
}

} // namespace kv
