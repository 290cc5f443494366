//===- EncoderInternal.h - shared by the Encoder's files --------*- C++ -*-===//
//
// Private to smt-encode: what several of the files that implement Encoder
// need.
//
//===----------------------------------------------------------------------===//
#ifndef KV_SMTENCODE_ENCODERINTERNAL_H
#define KV_SMTENCODE_ENCODERINTERNAL_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

namespace kv {

/// The function of abstracted integer products (NonLinear.cpp).
inline constexpr const char productName[] = "abs.arith.muli";

/// The axes of thread and block coordinates, as symbols' names spell them.
inline constexpr const char *axes[3] = {"x", "y", "z"};

/// Whether \p v is computed from a result of an op \p isTarget accepts.
/// Array reads count as anything.
bool reaches(mlir::Value v,
             llvm::function_ref<bool(mlir::Operation *)> isTarget);

/// \p v under its integer extensions (which are injective: where the
/// extended value is a cell, this one is the cell's low bits); the
/// extended values, outermost first, into \p wider.
mlir::Value
underExtensions(mlir::Value v,
                llvm::SmallVectorImpl<mlir::Value> *wider = nullptr);

} // namespace kv

#endif
