//===- KVEnums.td - enums of the kv dialect ----------------*- tablegen -*-===//
//
// The values kv ops store as enum attributes (see KVOps.td for the
// attributes). Each case's string is its keyword in the textual form.
//
//===----------------------------------------------------------------------===//

#ifndef KV_ENUMS_TD
#define KV_ENUMS_TD

include "mlir/IR/EnumAttr.td"

// threadIdx (tid), blockIdx (bid), blockDim (bdim) and gridDim (gdim), each
// along x, y or z. The value of a case is group * 3 + axis (x, y, z = 0, 1,
// 2), the group one of kv::SRegGroup (KVDialect.h): sregGroup() and
// sregAxis() take it apart, makeSReg() puts it together.
def KV_SReg : I32Enum<"SReg", "a kv.sreg special register", [
    I32EnumCase<"tid_x", 0, "tid.x">,
    I32EnumCase<"tid_y", 1, "tid.y">,
    I32EnumCase<"tid_z", 2, "tid.z">,
    I32EnumCase<"bid_x", 3, "bid.x">,
    I32EnumCase<"bid_y", 4, "bid.y">,
    I32EnumCase<"bid_z", 5, "bid.z">,
    I32EnumCase<"bdim_x", 6, "bdim.x">,
    I32EnumCase<"bdim_y", 7, "bdim.y">,
    I32EnumCase<"bdim_z", 8, "bdim.z">,
    I32EnumCase<"gdim_x", 9, "gdim.x">,
    I32EnumCase<"gdim_y", 10, "gdim.y">,
    I32EnumCase<"gdim_z", 11, "gdim.z">]> {
  let cppNamespace = "::kv";
}

// Signed (s) or unsigned (u), strict (lt) or not (le).
def KV_IterPred : I32Enum<"IterPred", "a kv.iter predicate", [
    I32EnumCase<"slt", 0>,
    I32EnumCase<"sle", 1>,
    I32EnumCase<"ult", 2>,
    I32EnumCase<"ule", 3>]> {
  let cppNamespace = "::kv";
}

def KV_NoWrapKind : I32Enum<"NoWrapKind", "a kv.nowrap operation", [
    I32EnumCase<"add", 0>,
    I32EnumCase<"sub", 1>,
    I32EnumCase<"mul", 2>]> {
  let cppNamespace = "::kv";
}

// The read-modify-write of an atomic update (kv.write atomic KIND): each
// commutes with itself, so the cell's final value does not depend on the
// order of the threads that update it with the same kind. Subtraction is an
// add of the negated value.
def KV_RmwKind : I32Enum<"RmwKind", "a kv.write atomic update", [
    I32EnumCase<"add", 0>,
    I32EnumCase<"and_", 1, "and">,
    I32EnumCase<"or_", 2, "or">,
    I32EnumCase<"xor_", 3, "xor">,
    I32EnumCase<"smin", 4>,
    I32EnumCase<"smax", 5>,
    I32EnumCase<"umin", 6>,
    I32EnumCase<"umax", 7>]> {
  let cppNamespace = "::kv";
}

#endif // KV_ENUMS_TD
