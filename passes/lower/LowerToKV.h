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
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/InstrTypes.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/Support/MathExtras.h"
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class BasicBlock;
class BranchInst;
class FCmpInst;
} // namespace llvm

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
  /// With unrollBound: the bound is proved, not assumed. Each entry of such
  /// a loop is unrolled at most unrollBound times and the exit after the
  /// last iteration is a kv.prove (the loop has left by then), so the model
  /// is exact wherever the checker proves it: tree reductions over
  /// blockDim.x, a halving counter over an int.
  bool exactUnroll = false;
  /// Assume that `nsw` arithmetic does not overflow (C's signed overflow is
  /// undefined). Right for source kernels; not for optimized IR, where a
  /// flag may sit on speculated code.
  bool assumeNoSignedOverflow = false;
  /// The kernel is the after kernel: an undefined value (undef, poison)
  /// is any value the GPU chooses, per thread, not one the proof picks (the
  /// before kernel's is 0, a choice the proof may make).
  bool target = false;
  /// A case of a case split: values of launch dimensions ("blockDim.x",
  /// "gridDim.y") and integer scalar parameters (by source name) that the
  /// lowering folds in as constants, so that loops whose trip counts they
  /// fix unroll. The model is then valid only under these values: the
  /// caller must assume them in the check.
  std::map<std::string, int64_t> pins;
  /// The element size in bytes of arrays (key: "#N" for parameter N, the
  /// variable's name for a __shared__ or __device__ array): a wider access
  /// is split into elements. Set where an access narrower than the first
  /// one restarts the lowering, and from the other kernel of a pair, so
  /// that both give an array one element type.
  std::map<std::string, unsigned> elemBytes;
  /// Stop at the first loop exit whose condition is symbolic but depends
  /// only on launch dimensions and scalar parameters, and name those in
  /// Unsupported::splitOn: a caller that can enumerate their values splits
  /// on them instead of giving up at maxBlockVisits.
  bool reportSplit = false;
  /// Test only (--test-break-lowering=shl): lower `x << c` as x * 2^(c+1),
  /// a deliberate lowering bug that the replay on the LLVM IR must catch.
  bool testBreakShl = false;
  /// Model loops with several or data-dependent exits with kv.break
  /// (passes/lower/LowerBreakLoops.cpp); off, they are unrolled or split on.
  bool breakLoops = true;
  /// Lower the signature only: the parameters and the __shared__ variables
  /// the kernel and its callees use, element sizes from the IR's accesses,
  /// an empty body. Runs of the LLVM IR itself need no more (when the
  /// kernel's model is out of reach).
  bool signatureOnly = false;
  /// Model every loop as one symbolic iteration (kv.iter), also where its
  /// exit test folds to a constant: a loop of K iterations stays one loop
  /// rather than K copies, so that a constant K and a parameter K give the
  /// same model (index maps, sums). A loop the model does not take is
  /// unrolled as before.
  bool modelConstantLoops = false;
};

/// Set on a kernel lowered with LowerOptions::modelConstantLoops where a
/// loop of constant trip count was unrolled after all (its model failed).
inline constexpr llvm::StringLiteral kConstantLoopsUnrolledAttr =
    "kv.constant_loops_unrolled";

/// Set on a kv.prove that only says a shared access is within its array
/// (the array's argument number, -1 if unknown): where the kernels are
/// assumed free of out-of-bounds shared accesses (the plugin), it holds by
/// that assumption; elsewhere it failing is such an access.
inline constexpr llvm::StringLiteral kProveInBoundsAttr = "kv.in_bounds";

/// Why a kernel could not be lowered: the construct and where it is.
struct Unsupported {
  std::string construct;
  std::string location;
  /// With LowerOptions::reportSplit: the launch dimensions and scalars that
  /// fix the trip count of the loop that stopped the lowering. The kernel
  /// then is kept as `signature` (its parameters, an empty body), owned by
  /// the caller.
  std::vector<std::string> splitOn;
  KernelOp signature;
  /// An array accessed with a narrower element than its first access: the
  /// lowering can restart with this element size (LowerOptions::elemBytes).
  std::string retypeKey;
  unsigned retypeBytes = 0;
  std::string str() const { return location + ": " + construct; }
};

/// Lower kernel \p f into a new kv.kernel at the end of \p module.
mlir::FailureOr<KernelOp> lowerKernel(llvm::Function &f, mlir::ModuleOp module,
                                      Unsupported &why,
                                      const LowerOptions &opts = {});

/// The element sizes of \p k's arrays, keyed as LowerOptions::elemBytes
/// (\p numParams: the parameters of the function it was lowered from).
std::map<std::string, unsigned> arrayElemBytes(KernelOp k, unsigned numParams);

/// Source location of an instruction ("file:line:col"), or the function name
/// and the instruction when there is no debug info.
std::string describeLocation(const llvm::Instruction *inst,
                             bool outermost = true);

/// One scalar a by-value struct or array parameter passes: its byte offset
/// in the parameter, its type, and its name's suffix (".1", ".2.0": the
/// field and element indices from the outermost type in).
struct ByValLeaf {
  uint64_t offset;
  llvm::Type *type;
  std::string path;
};
/// The field names of a struct type, or none (its fields are numbered).
using FieldNames = std::function<std::vector<std::string>(llvm::StructType *)>;
/// The scalars (integers, floats, pointers) of \p a's by-value type, in
/// offset order: the kv parameters it is. None when \p a is not `byval`;
/// empty when its type has a scalar of another kind, or more than 64.
std::optional<std::vector<ByValLeaf>>
byValLeaves(const llvm::Argument &a, const FieldNames &fields = nullptr);
/// The field names of the structs \p f's source file defines (`struct P {
/// float a, b; int n[4]; };`), looked up by the struct type's name.
FieldNames sourceFieldNames(const llvm::Function &f);
/// The kv parameter \p a is (its first, for a by-value aggregate).
unsigned kvParamIndex(const llvm::Argument &a);
/// How many kv parameters \p f's parameters are.
unsigned kvParamCount(const llvm::Function &f);

/// The source-level name of a (possibly mangled) function: for C++ names the
/// qualified function name with template arguments, without parameters.
std::string sourceName(llvm::StringRef mangled);

/// The source names of \p f's parameters (IR names, else debug info, else
/// "argN"), as the lowered kernel's arg_names gives them.
std::vector<std::string> parameterNames(const llvm::Function &f);

/// The name a __shared__ or __device__ variable's array has in kv (its
/// unqualified source name).
std::string globalArrayName(llvm::StringRef mangled);

/// Whether \p f is a CUDA kernel (ptx_kernel calling convention).
bool isKernel(const llvm::Function &f);

/// The `.sync` vote a legacy one (`__any`, `__all`, `__ballot`: a vote of
/// the warp's lanes that execute it, its predicate the only operand) is
/// with a mask of all lanes, which the model and the replay take as the
/// lanes that execute it; not_intrinsic for the others.
inline llvm::Intrinsic::ID syncVoteOfLegacy(llvm::Intrinsic::ID id) {
  switch (id) {
  case llvm::Intrinsic::nvvm_vote_any:
    return llvm::Intrinsic::nvvm_vote_any_sync;
  case llvm::Intrinsic::nvvm_vote_all:
    return llvm::Intrinsic::nvvm_vote_all_sync;
  case llvm::Intrinsic::nvvm_vote_uni:
    return llvm::Intrinsic::nvvm_vote_uni_sync;
  case llvm::Intrinsic::nvvm_vote_ballot:
    return llvm::Intrinsic::nvvm_vote_ballot_sync;
  default:
    return llvm::Intrinsic::not_intrinsic;
  }
}

/// The libdevice name of a PTX integer intrinsic whose result PTX defines
/// bit for bit (sad, mul24, prmt), as the lowering and both executors model
/// it; empty for the others.
inline llvm::StringRef ptxIntegerName(llvm::Intrinsic::ID id) {
  switch (id) {
  case llvm::Intrinsic::nvvm_mul24_i:
    return "mul24";
  case llvm::Intrinsic::nvvm_mul24_ui:
    return "umul24";
  case llvm::Intrinsic::nvvm_sad_i:
    return "sad";
  case llvm::Intrinsic::nvvm_sad_ui:
    return "usad";
  case llvm::Intrinsic::nvvm_prmt:
    return "prmt";
  default:
    return "";
  }
}

/// The warp shuffles (shfl.sync up, down, butterfly, indexed; i32 and f32).
inline bool isShuffleSyncIntrinsic(llvm::Intrinsic::ID id) {
  switch (id) {
  case llvm::Intrinsic::nvvm_shfl_sync_up_i32:
  case llvm::Intrinsic::nvvm_shfl_sync_up_f32:
  case llvm::Intrinsic::nvvm_shfl_sync_down_i32:
  case llvm::Intrinsic::nvvm_shfl_sync_down_f32:
  case llvm::Intrinsic::nvvm_shfl_sync_bfly_i32:
  case llvm::Intrinsic::nvvm_shfl_sync_bfly_f32:
  case llvm::Intrinsic::nvvm_shfl_sync_idx_i32:
  case llvm::Intrinsic::nvvm_shfl_sync_idx_f32:
    return true;
  default:
    return false;
  }
}

/// The integer warp reductions (redux.sync), which the lowering and the IR
/// replay model alike.
inline bool isReduxIntrinsic(llvm::Intrinsic::ID id) {
  switch (id) {
  case llvm::Intrinsic::nvvm_redux_sync_add:
  case llvm::Intrinsic::nvvm_redux_sync_min:
  case llvm::Intrinsic::nvvm_redux_sync_max:
  case llvm::Intrinsic::nvvm_redux_sync_umin:
  case llvm::Intrinsic::nvvm_redux_sync_umax:
  case llvm::Intrinsic::nvvm_redux_sync_and:
  case llvm::Intrinsic::nvvm_redux_sync_or:
  case llvm::Intrinsic::nvvm_redux_sync_xor:
    return true;
  default:
    return false;
  }
}

/// Cooperative groups' grid-wide barrier: `grid_group::sync()` or the
/// helper it calls (`details::grid::sync(unsigned *)`), by mangled name. The
/// lowering, the IR replay and the relational proof take a call to either
/// as one barrier of the grid rather than run its body.
inline bool isGridSyncName(llvm::StringRef name) {
  return (name.starts_with("_ZNK18cooperative_groups") &&
          name.ends_with("10grid_group4syncEv")) ||
         (name.starts_with("_ZN18cooperative_groups") &&
          name.contains("7details4grid") && name.contains("4syncEPj"));
}

/// grid.sync() after inlining (passes/lower/GridSync.cpp), from the block
/// barrier that starts it: the blocks up to the block barrier that ends
/// it, where thread 0 of each block arrives and waits and the others pass.
/// The model takes the start as the grid barrier and the end as part of
/// it; in `blocks`, inline assembly with effects (the arrival's atomics) is
/// skipped and a branch on its result leaves the wait.
struct InlinedGridSync {
  const llvm::CallBase *end = nullptr;
  llvm::SmallPtrSet<const llvm::BasicBlock *, 8> blocks;
  /// Where a branch in `blocks` on the arrival's result goes: the end's
  /// block where it is a successor, else on in the arrival (null: neither).
  const llvm::BasicBlock *exitTo(const llvm::BranchInst &br) const;
};
std::optional<InlinedGridSync> inlinedGridSync(const llvm::CallBase &bar);
/// The check that the grid workspace is not null, which inlined grid.sync()
/// makes before it (a cooperative launch has one): the successor taken when
/// \p br is that check, else null.
const llvm::BasicBlock *gridWorkspaceCheck(const llvm::BranchInst &br);

/// A special register that inline assembly reads with one `mov` (as
/// cooperative groups do): the lane and the lane masks.
enum class LaneRegister { Lane, MaskEq, MaskLt, MaskLe, MaskGt, MaskGe };
std::optional<LaneRegister> laneRegisterAsm(const llvm::CallBase &call);
/// Its value from the lane and `1 << lane` (\p eq), as PTX defines it: for
/// integers and for solver terms alike.
template <typename T>
T laneRegisterFrom(LaneRegister r, const T &lane, const T &eq, const T &one) {
  T lt = eq - one, le = lt | eq;
  switch (r) {
  case LaneRegister::Lane:
    return lane;
  case LaneRegister::MaskEq:
    return eq;
  case LaneRegister::MaskLt:
    return lt;
  case LaneRegister::MaskLe:
    return le;
  case LaneRegister::MaskGt:
    return ~le;
  default:
    return ~lt;
  }
}
/// Its value in lane \p lane.
inline uint32_t laneRegisterValue(LaneRegister r, uint32_t lane) {
  return laneRegisterFrom<uint32_t>(r, lane, 1u << lane, 1u);
}

/// Inline PTX of a 32x32+32-bit multiply-add with a 64-bit result, in the
/// two halves {lo, hi} (libdevice's sinf/cosf argument reduction:
/// `mad.lo.cc.u32 $0, $2, $3, $4; madc.hi.u32 $1, $2, $3, 0;`), which
/// kvalidate models exactly.
bool isWideMadInlinePtx(const llvm::CallBase &call);

/// Inline PTX of one texture fetch (`tex.2d.v4.f32.f32 {$0, $1, $2, $3},
/// [$4, {$5, $6}];`, as clang's texture headers write it; `tld4.*`) that
/// LLVM takes as a pure function of its operands (no side effects, no
/// memory access): a texture is read-only while a kernel runs.
bool isTextureFetchAsm(const llvm::CallBase &call);

/// The LLVM (or model) operation NVPTX's instcombine makes of an exact PTX
/// one (`llvm.nvvm.fma.rn.f` is `llvm.fma.f32`), else \p name.
llvm::StringRef exactNvvmName(llvm::StringRef name);

/// The model's name of \p cmp: "fcmp.PRED", or "fcmp.ftz.PRED" where \p cmp's
/// function flushes subnormal float inputs (`setp.ftz`).
std::string floatCompareName(const llvm::FCmpInst &cmp);

/// What `__nvvm_reflect(what)` in \p fn answers, as LLVM's NVVMReflect
/// pass does: the module's flags, the target's SM version, else 0.
int64_t nvvmReflect(llvm::StringRef what, const llvm::Function &fn);

/// Inline PTX of one integer instruction that kvalidate models exactly
/// (libdevice's __nv_ffs is `bfind.shiftamt.u32 $0, $1;`): its opcode with
/// suffixes ("bfind.shiftamt.u32", "popc.b32", "clz.b32", "brev.b32"), or
/// empty.
llvm::StringRef exactInlinePtx(const llvm::CallBase &call);
/// Its value for operand \p a, as PTX defines it.
inline uint32_t exactInlinePtxValue(llvm::StringRef op, uint32_t a) {
  if (op == "popc.b32")
    return llvm::popcount(a);
  if (op == "clz.b32")
    return llvm::countl_zero(a);
  if (op == "brev.b32")
    return llvm::reverseBits(a);
  // bfind: the most significant bit that is not a sign bit (its position,
  // or with .shiftamt the left shift that makes it the top bit); ~0 if none.
  if (op.ends_with(".s32") && (int32_t)a < 0)
    a = ~a;
  if (a == 0)
    return ~0u;
  return op.contains(".shiftamt") ? llvm::countl_zero(a)
                                  : 31 - llvm::countl_zero(a);
}

/// One value a printf call passes in vprintf's buffer: its byte offset
/// there, its size, whether it is a double (a float argument, promoted) or
/// a string's address (%s: the record holds printfFormatId of the text).
struct PrintfField {
  uint64_t offset;
  unsigned bytes;
  bool isFloat, isString = false;
};
/// Whether \p call is CUDA's printf (clang's `vprintf(format, buffer)`).
bool isPrintfCall(const llvm::CallBase &call);
/// The format of printf call \p call when it is a constant string.
std::optional<llvm::StringRef> printfFormat(const llvm::CallBase &call);
/// The values format \p fmt prints, where clang packs them in vprintf's
/// buffer (each at its natural alignment; an int conversion 4 bytes, 8
/// with l, ll, j, z or t; a floating one a double; `*` a width or precision
/// int, %s a pointer); none, with \p why set, for a conversion whose text
/// is not a value's (%p, %n, long double).
std::optional<std::vector<PrintfField>> printfFields(llvm::StringRef fmt,
                                                     std::string &why);
/// The id of a format, or of a string a %s prints, in the printf stream
/// (kPrintStream): two texts that are the same have the same id.
uint64_t printfFormatId(llvm::StringRef fmt);
/// The C string at byte \p offset of constant \p gv, if it holds one.
std::optional<llvm::StringRef> constantCString(const llvm::GlobalVariable &gv,
                                               uint64_t offset);

} // namespace kv

#endif
