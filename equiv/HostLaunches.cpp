//===- HostLaunches.cpp - what the MLIR front door left for the driver ----===//
//
// The MLIR front door marks the LLVM functions it made
// (passes/lower/ImportGPU.h): a kernel it could not model (kv-unsupported), and
// a host function's kernel with the kernels it launches (kv-host-launches),
// whose race freedom at the launch's sizes is what makes its loop nest their
// meaning. The driver reads those marks here, before any lowering.
//
//===----------------------------------------------------------------------===//
#include "equiv/Driver.h"
#include "passes/lower/ImportGPU.h"
#include "passes/lower/LowerToKV.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace kv {

std::optional<Validation> Driver::checkFrontDoorMarks() {
  for (const KernelInput *side : {&before, &after})
    if (side->function && side->function->hasFnAttribute(kUnsupportedAttr)) {
      Validation v;
      v.result.verdict = Verdict::Unsupported;
      v.result.reason = side->label + ": " +
                        side->function->getFnAttribute(kUnsupportedAttr)
                            .getValueAsString()
                            .str();
      return v;
    }
  for (const KernelInput *side : {&before, &after})
    if (std::optional<Validation> bad = checkHostLaunches(*side))
      return bad;
  return std::nullopt;
}

/// A host function's kernel (passes/lower/HostKernels.cpp) runs each kernel it
/// launches thread after thread, which is the launch's meaning only when
/// that kernel is race-free (and in bounds) at the launch's sizes: checked
/// here, each launched kernel against itself at those sizes. A defect
/// there is the pair's verdict; a launch that cannot be checked leaves it
/// unknown.
std::optional<Validation> Driver::checkHostLaunches(const KernelInput &side) {
  // With the safety checks off (the plugins' default) a source's defects
  // are assumed away, not those a pass may have made: the optimized side's
  // launches are checked in any case.
  if (!side.function || (!opts.safetyChecks && side.isSource))
    return std::nullopt;
  Attribute attr = side.function->getFnAttribute(kHostLaunchesAttr);
  if (!attr.isStringAttribute())
    return std::nullopt;
  SmallVector<StringRef> records;
  attr.getValueAsString().split(records, ';', -1, /*KeepEmpty=*/false);
  static const char *dims[] = {"gridDim.x",  "gridDim.y",  "gridDim.z",
                               "blockDim.x", "blockDim.y", "blockDim.z"};
  for (StringRef record : records) {
    auto [name, rest] = record.split('=');
    auto [values, loc] = rest.split('@');
    auto [sizesText, operandsText] = values.split('|');
    std::string what = "the launch of '" + name.str() + "' at " + loc.str() +
                       " (" + side.label + ")";
    Validation v;
    Function *kernel = side.function->getParent()->getFunction(name);
    SmallVector<StringRef> sizes;
    sizesText.split(sizes, ',');
    if (!kernel || sizes.size() != 6) {
      v.result.verdict = Verdict::Error;
      v.result.reason = what + ": the launched kernel is not in the module";
      return v;
    }
    // The host's assumptions name its own parameters, not the kernel's.
    Options o = opts;
    o.assumptions.clear();
    o.safetyChecks = true;
    bool exact = true;
    for (auto [dim, size] : llvm::zip(dims, sizes)) {
      if (size == "?")
        exact = false;
      else
        o.assumptions.push_back(std::string(dim) + " == " + size.str());
    }
    // The host's values of the kernel's integer parameters (one LLVM
    // parameter per operand: memrefs passed as bare pointers).
    SmallVector<StringRef> operands;
    operandsText.split(operands, ',', -1, /*KeepEmpty=*/false);
    bool positional = operands.size() == kernel->arg_size();
    std::vector<std::string> names = parameterNames(*kernel);
    for (auto [i, value] : llvm::enumerate(operands)) {
      if (value == "*")
        continue;
      // A host parameter: every value is an input of the host function,
      // unless the host's assumptions rule some out.
      if (value == "p") {
        exact &= opts.assumptions.empty();
        continue;
      }
      Argument *arg = positional ? kernel->getArg(i) : nullptr;
      if (value == "?" || !arg || !arg->getType()->isIntegerTy())
        exact = false;
      else
        o.assumptions.push_back(names[i] + " == " + value.str());
    }
    KernelInput in;
    in.function = kernel;
    in.label = "kernel '" + name.str() + "'";
    in.isSource = side.isSource;
    Driver d(in, in, scratch, o);
    v = d.validate();
    switch (v.result.verdict) {
    case Verdict::Equivalent:
    case Verdict::EquivalentForLaunch:
    case Verdict::EquivalentUpToBound:
    case Verdict::EquivalentOverReals:
      continue;
    case Verdict::Race:
    case Verdict::OutOfBounds:
    case Verdict::Divergence:
      if (exact) {
        v.result.reason = what + ": " + v.result.reason;
        return v;
      }
      v.result.reason = what + ": a " + verdictName(v.result.verdict) +
                        " for some sizes or parameters, and not all of "
                        "these are constants here; the loop nest that "
                        "models the launch may not be its meaning";
      v.result.verdict = Verdict::Unknown;
      v.result.defect.reset();
      return v;
    default:
      v.result.reason = what + ": its race check: " + v.result.reason;
      if (v.result.verdict == Verdict::NotEquivalent)
        v.result.verdict = Verdict::Unknown;
      v.result.counterexample.reset();
      return v;
    }
  }
  return std::nullopt;
}

} // namespace kv
