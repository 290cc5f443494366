//===- KVDialect.h - the kv kernel model dialect ----------------*- C++ -*-===//
#ifndef KV_KVDIALECT_H
#define KV_KVDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <optional>

#include "kv/KVEnums.h.inc"
#include "kv/KVOpsDialect.h.inc"

namespace kv {
/// The groups of special registers (kv::SReg is group * 3 + axis).
enum class SRegGroup : uint32_t { Tid = 0, Bid = 1, BDim = 2, GDim = 3 };
inline SRegGroup sregGroup(SReg r) {
  return static_cast<SRegGroup>(static_cast<uint32_t>(r) / 3);
}
/// 0, 1, 2 for x, y, z.
inline unsigned sregAxis(SReg r) { return static_cast<uint32_t>(r) % 3; }
/// The register of \p group along \p axis (0, 1, 2 for x, y, z).
inline SReg makeSReg(SRegGroup group, unsigned axis) {
  return static_cast<SReg>(static_cast<uint32_t>(group) * 3 + axis);
}
} // namespace kv

#define GET_ATTRDEF_CLASSES
#include "kv/KVOpsAttrs.h.inc"
#define GET_TYPEDEF_CLASSES
#include "kv/KVOpsTypes.h.inc"
#define GET_OP_CLASSES
#include "kv/KVOps.h.inc"

namespace kv {
/// Element type of a !kv.global or !kv.shared array type.
mlir::Type getArrayElementType(mlir::Type arrayType);
bool isArrayType(mlir::Type t);
/// The global array that holds what a kernel prints with printf: each
/// thread's records in the order it prints them, record n at cells
/// kPrintRecordCells * n onwards (the format's id, then the values, each
/// 64 bits). It is compared thread by thread and never read; a run lays
/// the launch's records out sorted (ExecResult). Not a C identifier, so
/// no variable of a kernel is named so.
inline constexpr llvm::StringLiteral kPrintStream = "printf output";
inline constexpr unsigned kPrintRecordCells = 16;
/// The argument number of \p k's printf stream, if it has one.
std::optional<unsigned> printStreamArg(KernelOp k);
/// The input array that says which pointer parameters are null, for a
/// kernel that compares one with null: cell i (i8) is nonzero where
/// parameter i is null. Runs start it 0 (no null pointer) unless a solver's
/// model says otherwise.
inline constexpr llvm::StringLiteral kNullParams = "null pointers";
std::optional<unsigned> nullParamsArg(KernelOp k);
/// Register every dialect a kv module uses (kv, arith).
void registerKVDialects(mlir::DialectRegistry &registry);
} // namespace kv

#endif
