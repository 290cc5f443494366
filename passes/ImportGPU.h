//===- ImportGPU.h - gpu-dialect kernels as nvptx LLVM IR -------*- C++ -*-===//
//
// The MLIR front door's first step: a module's gpu.module kernels
// (gpu.func ... kernel), lowered by upstream conversions (affine and scf to
// control flow, gpu to nvvm with memrefs passed as bare pointers) and
// translated to LLVM IR with their MLIR locations as debug locations. The
// nvptx lowering into kv then reads them as it reads clang's output.
//
//===----------------------------------------------------------------------===//
#ifndef KV_PASSES_IMPORTGPU_H
#define KV_PASSES_IMPORTGPU_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

#include <memory>
#include <string>

namespace kv {

/// The dialects a gpu-dialect input may use, and their translations to
/// LLVM IR.
void registerGPUImportDialects(mlir::DialectRegistry &registry);

/// Whether \p module has gpu.module kernels.
bool hasGPUKernels(mlir::ModuleOp module);

/// The kernels of \p module's gpu.modules as one LLVM module (\p module is
/// left as it is). Null with \p err when a construct has no lowering (its
/// location and the conversion's message) or two kernels share a name.
std::unique_ptr<llvm::Module> gpuKernelsToLLVM(mlir::ModuleOp module,
                                               llvm::LLVMContext &llvmCtx,
                                               std::string &err);

/// Names \p m's kernel parameters after their gpu.func arguments in
/// \p module's source (`%out` -> `out`; a descriptor's parts `out.offset`,
/// `out.size0`, ...), where the source file can be read.
void nameParameters(mlir::ModuleOp module, llvm::Module &m);

} // namespace kv

#endif
