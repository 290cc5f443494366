//===- ImportGPU.cpp - gpu-dialect kernels as nvptx LLVM IR ---------------===//
#include "passes/ImportGPU.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVM.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVM.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/Transforms/Passes.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace kv {

void registerGPUImportDialects(DialectRegistry &registry) {
  registry.insert<affine::AffineDialect, arith::ArithDialect,
                  cf::ControlFlowDialect, func::FuncDialect, gpu::GPUDialect,
                  index::IndexDialect, LLVM::LLVMDialect, math::MathDialect,
                  memref::MemRefDialect, NVVM::NVVMDialect, scf::SCFDialect,
                  ub::UBDialect, vector::VectorDialect>();
  // What gpu-to-nvvm collects its patterns from (as mlir-opt registers it).
  arith::registerConvertArithToLLVMInterface(registry);
  cf::registerConvertControlFlowToLLVMInterface(registry);
  registerConvertFuncToLLVMInterface(registry);
  NVVM::registerConvertGpuToNVVMInterface(registry);
  index::registerConvertIndexToLLVMInterface(registry);
  registerConvertMathToLLVMInterface(registry);
  registerConvertMemRefToLLVMInterface(registry);
  registerConvertNVVMToLLVMInterface(registry);
  ub::registerConvertUBToLLVMInterface(registry);
  vector::registerConvertVectorToLLVMInterface(registry);
  registerBuiltinDialectTranslation(registry);
  registerGPUDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
}

bool hasGPUKernels(ModuleOp module) {
  bool found = false;
  module.walk([&](gpu::GPUFuncOp f) {
    found |= f.isKernel();
    return found ? WalkResult::interrupt() : WalkResult::advance();
  });
  return found;
}

std::unique_ptr<llvm::Module> gpuKernelsToLLVM(ModuleOp module,
                                               llvm::LLVMContext &llvmCtx,
                                               std::string &err) {
  MLIRContext *ctx = module.getContext();
  // The conversions' diagnostics become the error, first one first.
  std::string diags;
  llvm::raw_string_ostream os(diags);
  ScopedDiagnosticHandler handler(ctx, [&](Diagnostic &d) {
    if (d.getSeverity() != DiagnosticSeverity::Error)
      return success();
    if (!diags.empty())
      os << "\n";
    os << d.getLocation() << ": " << d;
    for (Diagnostic &note : d.getNotes())
      os << "\n  " << note.getLocation() << ": note: " << note;
    return success();
  });

  // A copy of the gpu.modules in a module of their own: the input is left
  // as it is (both sides may name the same file).
  OwningOpRef<ModuleOp> work = ModuleOp::create(module.getLoc());
  OpBuilder b(work->getBodyRegion());
  module.walk([&](gpu::GPUModuleOp g) { b.clone(*g.getOperation()); });

  for (auto g : work->getOps<gpu::GPUModuleOp>()) {
    PassManager pm(ctx, gpu::GPUModuleOp::getOperationName());
    pm.addPass(createLowerAffinePass());
    pm.addPass(createSCFToControlFlowPass());
    // Memrefs of static shape as bare pointers: a kernel's parameters are
    // then those of its CUDA twin (one pointer per array). A memref of
    // dynamic shape needs its descriptor (pointers, offset, sizes, strides
    // as parameters of their own), for the whole gpu.module.
    ConvertGpuOpsToNVVMOpsOptions toNVVM;
    toNVVM.useBarePtrCallConv = true;
    g.walk([&](gpu::GPUFuncOp f) {
      for (Type t : f.getArgumentTypes())
        if (auto m = dyn_cast<MemRefType>(t))
          if (!m.hasStaticShape() || !m.getLayout().isIdentity())
            toNVVM.useBarePtrCallConv = false;
    });
    pm.addPass(createConvertGpuOpsToNVVMOps(toNVVM));
    pm.addPass(createReconcileUnrealizedCastsPass());
    // Folds the memref descriptors' insert/extract pairs away.
    pm.addPass(createCanonicalizerPass());
    if (failed(pm.run(g))) {
      err = "the gpu kernels do not lower to LLVM"
            " (upstream gpu-to-nvvm conversion): " +
            (diags.empty() ? std::string("no diagnostic") : diags);
      return nullptr;
    }
  }

  // The gpu.modules' contents, side by side in one LLVM module.
  OwningOpRef<ModuleOp> flat = ModuleOp::create(module.getLoc());
  OpBuilder fb(flat->getBodyRegion());
  llvm::StringSet<> names;
  for (auto g : llvm::make_early_inc_range(work->getOps<gpu::GPUModuleOp>()))
    for (Operation &op : g.getBody()->without_terminator()) {
      if (auto sym =
              op.getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName()))
        if (!names.insert(sym.getValue()).second && isa<LLVM::LLVMFuncOp>(op) &&
            !cast<LLVM::LLVMFuncOp>(op).isExternal()) {
          err = "two gpu.modules define '" + sym.getValue().str() +
                "' (name the kernel in a file with one of them)";
          return nullptr;
        }
      if (auto f = dyn_cast<LLVM::LLVMFuncOp>(op);
          f && f.isExternal() && names.count(f.getName()) &&
          flat->lookupSymbol(f.getName()))
        continue;
      fb.clone(op);
    }
  // Debug locations from the MLIR ones: unsupported constructs are named
  // at their line in the .mlir file.
  PassManager di(ctx, ModuleOp::getOperationName());
  di.addPass(LLVM::createDIScopeForLLVMFuncOpPass());
  if (failed(di.run(*flat))) {
    err = "the gpu kernels' locations do not translate: " + diags;
    return nullptr;
  }
  std::unique_ptr<llvm::Module> m =
      translateModuleToLLVMIR(*flat, llvmCtx, "gpu-kernels");
  if (!m) {
    err = "the gpu kernels do not translate to LLVM IR: " +
          (diags.empty() ? std::string("no diagnostic") : diags);
    return nullptr;
  }
  return m;
}

} // namespace kv
