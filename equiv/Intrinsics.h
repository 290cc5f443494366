//===- Intrinsics.h - what the executors know of NVVM intrinsics -*- C++
//-*-===//
//
// The special registers and the intrinsics without effect, shared by the
// concrete IR executor and the relational proof's symbolic steps.
//
//===----------------------------------------------------------------------===//

#ifndef KV_EQUIV_INTRINSICS_H
#define KV_EQUIV_INTRINSICS_H

#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/IntrinsicsNVPTX.h"

#include <optional>

namespace kv {

enum class SpecialReg { Tid, Ntid, Ctaid, Nctaid };

/// The special register \p id reads and its axis (0 = x, 1 = y, 2 = z).
inline std::optional<std::pair<SpecialReg, unsigned>>
specialRegister(llvm::Intrinsic::ID id) {
  using namespace llvm;
  switch (id) {
  case Intrinsic::nvvm_read_ptx_sreg_tid_x:
  case Intrinsic::nvvm_read_ptx_sreg_tid_y:
  case Intrinsic::nvvm_read_ptx_sreg_tid_z:
    return {{SpecialReg::Tid, id - Intrinsic::nvvm_read_ptx_sreg_tid_x}};
  case Intrinsic::nvvm_read_ptx_sreg_ntid_x:
  case Intrinsic::nvvm_read_ptx_sreg_ntid_y:
  case Intrinsic::nvvm_read_ptx_sreg_ntid_z:
    return {{SpecialReg::Ntid, id - Intrinsic::nvvm_read_ptx_sreg_ntid_x}};
  case Intrinsic::nvvm_read_ptx_sreg_ctaid_x:
  case Intrinsic::nvvm_read_ptx_sreg_ctaid_y:
  case Intrinsic::nvvm_read_ptx_sreg_ctaid_z:
    return {{SpecialReg::Ctaid, id - Intrinsic::nvvm_read_ptx_sreg_ctaid_x}};
  case Intrinsic::nvvm_read_ptx_sreg_nctaid_x:
  case Intrinsic::nvvm_read_ptx_sreg_nctaid_y:
  case Intrinsic::nvvm_read_ptx_sreg_nctaid_z:
    return {{SpecialReg::Nctaid, id - Intrinsic::nvvm_read_ptx_sreg_nctaid_x}};
  default:
    return std::nullopt;
  }
}

/// Markers that neither compute a value nor touch memory.
inline bool hasNoEffect(llvm::Intrinsic::ID id) {
  using namespace llvm;
  switch (id) {
  case Intrinsic::lifetime_start:
  case Intrinsic::lifetime_end:
  case Intrinsic::dbg_declare:
  case Intrinsic::dbg_value:
  case Intrinsic::dbg_label:
  case Intrinsic::donothing:
  case Intrinsic::experimental_noalias_scope_decl:
    return true;
  default:
    return false;
  }
}

} // namespace kv

#endif // KV_EQUIV_INTRINSICS_H
