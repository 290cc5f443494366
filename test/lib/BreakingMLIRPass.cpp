//===- BreakingMLIRPass.cpp - a wrong MLIR pass, for tests only -----------===//
//
// libkvalidate-test-break-mlir.so: an mlir-opt pass plugin whose one pass,
// `kvalidate-test-break`, is wrong on purpose: in each gpu.func kernel it
// turns the first arith.addi into arith.subi, so that tests can show
// kvalidate-check catching it with a replayed counterexample.
//
//===----------------------------------------------------------------------===//
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"

using namespace mlir;

namespace {

struct BreakPass : public PassWrapper<BreakPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(BreakPass)
  StringRef getArgument() const override { return "kvalidate-test-break"; }
  StringRef getDescription() const override {
    return "Test only: make each gpu kernel's first addition a subtraction";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<arith::ArithDialect, gpu::GPUDialect>();
  }
  void runOnOperation() override {
    getOperation().walk([](gpu::GPUFuncOp f) {
      if (!f.isKernel())
        return;
      arith::AddIOp first;
      f.walk([&](arith::AddIOp a) {
        if (!first)
          first = a;
      });
      if (!first)
        return;
      OpBuilder b(first);
      Value sub = arith::SubIOp::create(b, first.getLoc(), first.getLhs(),
                                        first.getRhs());
      first.replaceAllUsesWith(sub);
      first.erase();
    });
  }
};

} // namespace

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "kvalidate-test-break", LLVM_VERSION_STRING,
          []() { PassRegistration<BreakPass>(); }};
}
