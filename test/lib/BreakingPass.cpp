//===- BreakingPass.cpp - a wrong pass, for tests only --------------------===//
//
// libkvalidate-test-break.so: a pass plugin whose one pass is wrong on
// purpose, so that tests can show -kvalidate-per-pass naming it among a
// real -O2 pipeline. In each CUDA kernel it adds one to the constant operand
// of the first `add` (once per kernel). It runs at the scalar optimizer's
// late extension point of -O1..-O3, and as `kv-test-break` in
// opt -passes=.
//
//===----------------------------------------------------------------------===//
#include "llvm/IR/Constants.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Plugins/PassPlugin.h"

using namespace llvm;

namespace {

struct KVTestBreakPass : PassInfoMixin<KVTestBreakPass> {
  PreservedAnalyses run(Function &F, FunctionAnalysisManager &) {
    if (F.getCallingConv() != CallingConv::PTX_Kernel ||
        F.hasFnAttribute("kv-test-broken"))
      return PreservedAnalyses::all();
    for (Instruction &I : instructions(F)) {
      auto *Add = dyn_cast<BinaryOperator>(&I);
      if (!Add || Add->getOpcode() != Instruction::Add)
        continue;
      auto *C = dyn_cast<ConstantInt>(Add->getOperand(1));
      if (!C)
        continue;
      Add->setOperand(1, ConstantInt::get(C->getType(), C->getValue() + 1));
      Add->setHasNoSignedWrap(false);
      Add->setHasNoUnsignedWrap(false);
      F.addFnAttr("kv-test-broken");
      return PreservedAnalyses::none();
    }
    return PreservedAnalyses::all();
  }
  static bool isRequired() { return true; }
};

} // namespace

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "kvalidate-test-break", "0.1",
          [](PassBuilder &PB) {
            PB.registerScalarOptimizerLateEPCallback(
                [](FunctionPassManager &FPM, OptimizationLevel) {
                  FPM.addPass(KVTestBreakPass());
                });
            PB.registerPipelineParsingCallback(
                [](StringRef Name, FunctionPassManager &FPM,
                   ArrayRef<PassBuilder::PipelineElement>) {
                  if (Name != "kv-test-break")
                    return false;
                  FPM.addPass(KVTestBreakPass());
                  return true;
                });
          }};
}
