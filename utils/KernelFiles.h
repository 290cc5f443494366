//===- KernelFiles.h - the command line's input files ----------*- C++ -*-===//
//
// Reading FILE:KERNEL arguments: .cu sources compiled with clang (against a
// CUDA SDK or kvalidate's own definitions), .ll/.bc LLVM IR, .mlir kv
// modules, and finding the kernel a name means.
//
//===----------------------------------------------------------------------===//
#ifndef KV_UTILS_KERNELFILES_H
#define KV_UTILS_KERNELFILES_H

#include "kv/KVDialect.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kv {

struct KernelRef {
  std::string arg, file, kernel;
};

/// One loaded side: the kernel to check and what keeps it alive.
struct Input {
  KernelRef ref;
  // The module is owned here or by the other side's Input (same file).
  std::unique_ptr<llvm::Module> ownedLLVM;
  llvm::Module *llvmModule = nullptr;
  llvm::Function *function = nullptr;
  mlir::OwningOpRef<mlir::ModuleOp> ownedMLIR;
  mlir::ModuleOp mlirModule;
  KernelOp kernel;
};

/// How .cu inputs are compiled.
struct CudaFlags {
  std::vector<std::string> includeDirs, defines;
  /// --cuda-path: nullopt to look for /usr/local/cuda, "" for none.
  std::optional<std::string> cudaPath;
  /// --cache-dir: where the CUDA SDK headers' precompiled form is kept
  /// ("" for no cache).
  std::string cacheDir;
};

/// Split FILE:KERNEL into \p ref; false with \p err when FILE is missing.
bool splitArg(llvm::StringRef arg, KernelRef &ref, std::string &err);

/// Load \p in; reuse \p prev's module when both name the same file.
bool loadInput(Input &in, const Input *prev, llvm::LLVMContext &llvmCtx,
               mlir::MLIRContext &ctx, const CudaFlags &flags,
               std::string &err);

/// Remove the temporary files the inputs' compiles made (also done at
/// normal exit and on signals; call it before _Exit).
void removeTemporaryFiles();

} // namespace kv

#endif
