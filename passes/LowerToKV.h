//===- LowerToKV.h - nvptx LLVM IR to the kv kernel model -------*- C++ -*-===//
//
// Lowers one CUDA kernel (nvptx LLVM IR, at the start of the pipeline or after
// -O2) into a kv.kernel by symbolic execution of a single parameterized
// thread: private values and private memory are resolved symbolically, loops
// with constant trip counts are unrolled, calls to defined functions are
// inlined, and what remains are conditional assignments to shared/global
// arrays per barrier interval.
//
//===----------------------------------------------------------------------===//
#ifndef KV_PASSES_LOWERTOKV_H
#define KV_PASSES_LOWERTOKV_H

#include "kv/KVDialect.h"
#include "llvm/IR/Function.h"
#include <string>

namespace kv {

struct LowerOptions {
  /// How many times one basic block may be entered before the loop around
  /// it is declared to have a symbolic trip count.
  unsigned maxBlockVisits = 1024;
  unsigned maxInlineDepth = 16;
  /// --unroll=N: a loop whose exit test is symbolic runs at most N
  /// iterations; longer executions are assumed away (kv.assume {bound}), so
  /// verdicts are bounded. 0: such loops are unsupported.
  unsigned unrollBound = 0;
  /// Assume that `nsw` arithmetic does not overflow (C's signed overflow is
  /// undefined). Right for source kernels; not for optimized IR, where a
  /// flag may sit on speculated code.
  bool assumeNoSignedOverflow = false;
};

/// Why a kernel could not be lowered: the construct and where it is.
struct Unsupported {
  std::string construct;
  std::string location;
  std::string str() const { return location + ": " + construct; }
};

/// Lower kernel \p f into a new kv.kernel at the end of \p module.
mlir::FailureOr<KernelOp> lowerKernel(llvm::Function &f, mlir::ModuleOp module,
                                      Unsupported &why,
                                      const LowerOptions &opts = {});

/// Source location of an instruction ("file:line:col"), or the function name
/// and the instruction when there is no debug info.
std::string describeLocation(const llvm::Instruction *inst,
                             bool outermost = true);

/// The source-level name of a (possibly mangled) function: for C++ names the
/// qualified function name with template arguments, without parameters.
std::string sourceName(llvm::StringRef mangled);

/// Whether \p f is a CUDA kernel (ptx_kernel calling convention).
bool isKernel(const llvm::Function &f);

} // namespace kv

#endif
