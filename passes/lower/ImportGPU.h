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

#include <map>
#include <memory>
#include <string>
#include <vector>

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

/// Host functions (func.func) with `scf.parallel` loops or kernel launches,
/// as one-thread kernels of the same name in a gpu.module of \p work's own
/// (passes/lower/HostKernels.cpp): launches become loop nests over their blocks
/// and threads. \p launches receives, per host function, the records of
/// the kernels it launches for kHostLaunchesAttr; \p unsupported,
/// per host function that is not modelled (a launch whose threads are not
/// independent, say), why, for kUnsupportedAttr: its kernel is empty.
mlir::LogicalResult buildHostKernels(
    mlir::ModuleOp work, std::map<std::string, std::string> &launches,
    std::map<std::string, std::string> &unsupported, std::string &err);

/// The LLVM function attribute of a kernel the front door could not model,
/// with the construct and its location: the driver's verdict is then
/// `unsupported`.
inline constexpr const char *kUnsupportedAttr = "kv-unsupported";

/// The LLVM function attribute of a host function's kernel (the lowering
/// models its long loops early: one thread runs them all), listing the
/// kernels it launches: "KERNEL=gx,gy,gz,bx,by,bz|OPERANDS@LOCATION;...",
/// OPERANDS the kernel's arguments ('*' a memref, a number an integer
/// constant, 'p' a parameter of the host function), '?' for any other
/// value. The driver checks
/// each launched kernel for races with those sizes and values: the loop
/// nest means the launch only for a race-free kernel.
inline constexpr const char *kHostLaunchesAttr = "kv-host-launches";

/// Names \p m's kernel parameters after their gpu.func arguments in
/// \p module's source (`%out` -> `out`; a descriptor's parts `out.offset`,
/// `out.size0`, ...), where the source file can be read.
void nameParameters(mlir::ModuleOp module, llvm::Module &m);
/// A kernel lowered with memref descriptors, compared with one whose memrefs
/// are plain pointers (its CUDA twin): the descriptor parts \p f does not use
/// (the allocated pointer; the offset, sizes and strides of a layout known
/// statically) are dropped from its parameters, which changes nothing it
/// computes, so that the aligned pointers and scalars match the twin's by
/// position. \p f is replaced by the new function; returns the parts
/// dropped (by name), none where a part has no name or is used.
std::vector<std::string> dropUnusedDescriptorParts(llvm::Function *&f);

} // namespace kv

#endif
