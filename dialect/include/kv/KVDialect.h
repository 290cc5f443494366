//===- KVDialect.h - the kv kernel model dialect ----------------*- C++ -*-===//
#ifndef KV_KVDIALECT_H
#define KV_KVDIALECT_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"

#include "kv/KVOpsDialect.h.inc"
#define GET_TYPEDEF_CLASSES
#include "kv/KVOpsTypes.h.inc"
#define GET_OP_CLASSES
#include "kv/KVOps.h.inc"

namespace kv {
/// Element type of a !kv.global or !kv.shared array type.
mlir::Type getArrayElementType(mlir::Type arrayType);
bool isArrayType(mlir::Type t);
/// Register every dialect a kv module uses (kv, arith).
void registerKVDialects(mlir::DialectRegistry &registry);
} // namespace kv

#endif
