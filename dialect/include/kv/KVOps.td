//===- KVOps.td - the kv kernel model dialect --------------*- tablegen -*-===//
//
// The kernel model of PUG_para: one parameterized thread, a kernel body cut
// into barrier intervals by `kv.barrier`, and conditional assignments
// `kv.write` whose guard, index and value are expressions (arith ops) over
// thread/block ids, launch dimensions, scalar parameters and `kv.read`s.
// A `kv.read` sees the array as it stood at the start of its barrier
// interval: the lowering forwards a thread's own earlier writes explicitly.
//
//===----------------------------------------------------------------------===//

#ifndef KV_OPS_TD
#define KV_OPS_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "kv/KVEnums.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def KV_Dialect : Dialect {
  let name = "kv";
  let cppNamespace = "::kv";
  let summary = "GPU kernel model for parameterized equivalence checking";
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

class KV_Type<string name, string typeMnemonic> : TypeDef<KV_Dialect, name> {
  let mnemonic = typeMnemonic;
}

def KV_GlobalArray : KV_Type<"GlobalArray", "global"> {
  let summary = "a global-memory array reached through a kernel pointer parameter";
  let parameters = (ins "::mlir::Type":$elementType);
  let assemblyFormat = "`<` $elementType `>`";
}

def KV_SharedArray : KV_Type<"SharedArray", "shared"> {
  let summary = "a per-block shared-memory array; size 0 means extern (dynamic)";
  let parameters = (ins "::mlir::Type":$elementType, "int64_t":$size);
  let assemblyFormat = "`<` $elementType `,` $size `>`";
}

def KV_AnyArray : AnyTypeOf<[KV_GlobalArray, KV_SharedArray]>;

//===----------------------------------------------------------------------===//
// Enums. Each is stored in a kv attribute (generic form `#kv<sreg tid.x>`);
// an op's custom form spells it as a bare keyword through
// custom<EnumKeyword> (`kv.sreg tid.x`; the attribute's own printer would
// put a second space before it).
//===----------------------------------------------------------------------===//

def KV_SRegAttr : EnumAttr<KV_Dialect, KV_SReg, "sreg">;
def KV_IterPredAttr : EnumAttr<KV_Dialect, KV_IterPred, "iter_pred">;
def KV_NoWrapKindAttr : EnumAttr<KV_Dialect, KV_NoWrapKind, "nowrap_kind">;
def KV_RmwKindAttr : EnumAttr<KV_Dialect, KV_RmwKind, "rmw_kind">;

class KV_Op<string mnemonic, list<Trait> traits = []> :
    Op<KV_Dialect, mnemonic, traits>;

def KV_KernelOp : KV_Op<"kernel", [Symbol, NoTerminator, IsolatedFromAbove,
    SingleBlock, DeclareOpInterfaceMethods<OpAsmOpInterface,
                                           ["getAsmBlockArgumentNames"]>]> {
  let summary = "a kernel: parameters and shared arrays as block arguments";
  let description = [{
    Entry block arguments are the kernel's parameters (integer scalars and
    `!kv.global` arrays) followed by its `!kv.shared` arrays; `arg_names`
    gives their source names and `unsigned_params` the scalars whose C type
    is unsigned (their comparisons in `--assume` are unsigned). The body is
    straight-line: barrier intervals separated by `kv.barrier`, each holding
    conditional assignments.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, StrArrayAttr:$arg_names,
                       OptionalAttr<StrAttr>:$source_name,
                       OptionalAttr<StrArrayAttr>:$unsigned_params);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$sym_name attr-dict-with-keyword $body";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    mlir::Block &getBlock() { return getBody().front(); }
    llvm::StringRef getArgName(unsigned i) {
      return llvm::cast<mlir::StringAttr>(getArgNames()[i]).getValue();
    }
    /// Whether the C type of parameter \p name is unsigned.
    bool isUnsignedParam(llvm::StringRef name) {
      if (auto u = getUnsignedParams())
        for (mlir::Attribute a : *u)
          if (llvm::cast<mlir::StringAttr>(a).getValue() == name)
            return true;
      return false;
    }
    /// Source-level name (demangled) if known, else the symbol name.
    llvm::StringRef getDisplayName() {
      if (auto s = getSourceName()) return *s;
      return getSymName();
    }
  }];
}

def KV_SRegOp : KV_Op<"sreg", [Pure]> {
  let summary = "a thread/block id or launch dimension";
  let description = [{
    `%x = kv.sreg tid.x : i32`: `name` is one of tid.{x,y,z} (threadIdx),
    bid.{x,y,z} (blockIdx), bdim.{x,y,z} (blockDim), gdim.{x,y,z} (gridDim).
  }];
  let arguments = (ins KV_SRegAttr:$name);
  let results = (outs I32:$result);
  let assemblyFormat = "custom<EnumKeyword>($name) attr-dict `:` type($result)";
  let extraClassDeclaration = [{
    /// The register's group (thread id, block id, block or grid dimension).
    SRegGroup getGroup() { return sregGroup(getName()); }
    /// The register's axis: 0, 1, 2 for x, y, z.
    unsigned getAxis() { return sregAxis(getName()); }
  }];
}

def KV_IterOp : KV_Op<"iter"> {
  let summary = "the iteration number of a loop with a symbolic trip count";
  let description = [{
    `%k = kv.iter from %lb step %step while slt %bound if %g` stands for
    every iteration number 0 <= k < 2^31 of a loop that a thread enters when
    `g` holds and runs while `lb + k * step` compares true with `bound`
    (`pred`: slt, sle, ult, ule; computed exactly, the operands signed for
    slt/sle and unsigned for ult/ule); `do_while` runs k == 0 in any case.
    An op that depends on %k is performed once per such k, in increasing
    order. This is the loop's set of iterations when `step` is positive and
    iteration 2^31 does not run, which the checker proves wherever `g`
    holds; the lowering's operands are extended from at most 32 bits, so
    the SMT encoding's 64-bit arithmetic is exact for them. Two iterations of one thread must not write
    the same cell: the race check treats them as two accesses. With
    `width`, the source's induction variable has that many bits and wraps:
    the model is exact when the first value past `bound` still fits, which
    the checker proves as well. With `from_ne`, the source loop runs while
    its variable is not equal to `bound` (as -O2 writes it); the model's
    `ult` is the same when the first value tested is at most `bound` and
    `bound` is reached exactly, which the checker proves. Not pure: two
    loops with the same bounds are still two loops.

    With `uncounted` (set by the checker where those conditions may fail,
    on loops with a signed test whose iterations nothing else counts), the
    model is exact only where they hold. Elsewhere iterations k >= 1 run
    by an uninterpreted predicate of (lb, step, bound, k), shared by the
    loops with the same pred and width: a loop's real iterations are a
    function of those values (its variable wrapping included), so two such
    loops with equal bounds run the same iterations.
  }];
  let arguments = (ins I64:$lb, I64:$step, I64:$bound, I1:$guard,
                       KV_IterPredAttr:$pred, UnitAttr:$do_while,
                       OptionalAttr<I64Attr>:$width, UnitAttr:$from_ne,
                       UnitAttr:$uncounted);
  let results = (outs I64:$k);
  let assemblyFormat = [{
    `from` $lb `step` $step `while` custom<EnumKeyword>($pred) $bound `if` $guard (`do_while` $do_while^)? (`uncounted` $uncounted^)? attr-dict
  }];
  let extraClassDeclaration = [{
    bool isSigned() {
      return getPred() == IterPred::slt || getPred() == IterPred::sle;
    }
    bool isStrict() {
      return getPred() == IterPred::slt || getPred() == IterPred::ult;
    }
  }];
}

def KV_ReadOp : KV_Op<"read", [Pure]> {
  let summary = "read an array as it stood at the start of the interval";
  let description = [{
    The value is defined for every thread; `guard` says when the thread
    actually performs the access (used by the race and bounds checks).
  }];
  let arguments = (ins KV_AnyArray:$array, AnySignlessInteger:$index,
                       I1:$guard);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $array `[` $index `]` `if` $guard attr-dict `:` type($array) `,` type($index) `->` type($result)
  }];
  let hasVerifier = 1;
}

def KV_WriteOp : KV_Op<"write"> {
  let summary = "a conditional assignment: if guard then array[index] := value";
  let description = [{
    With `atomic KIND` (`kv.write atomic add %a[%i] = %v if %g`), an atomic
    read-modify-write whose old value the kernel does not use:
    `array[index] := array[index] KIND value`. The updates of one interval
    to a cell with one kind commute, so their effect does not depend on
    the order of the threads; the race check reports an atomic update that
    meets a plain access or an update of another kind. Its effect is seen
    from the next barrier interval on, like a plain write's.
  }];
  let arguments = (ins KV_AnyArray:$array, AnySignlessInteger:$index,
                       AnyType:$value, I1:$guard,
                       OptionalAttr<KV_RmwKindAttr>:$rmw);
  let assemblyFormat = [{
    custom<RmwArray>($rmw, $array) `[` $index `]` `=` $value `if` $guard attr-dict `:` type($array) `,` type($index) `,` type($value)
  }];
  let builders = [
    OpBuilder<(ins "::mlir::Value":$array, "::mlir::Value":$index,
                   "::mlir::Value":$value, "::mlir::Value":$guard), [{
      build($_builder, $_state, array, index, value, guard, /*rmw=*/nullptr);
    }]>
  ];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Whether this is an atomic read-modify-write.
    bool isAtomic() { return getRmwAttr() != nullptr; }
  }];
}

def KV_LaneOp : KV_Op<"lane", [Pure]> {
  let summary = "the thread's lane: its linear id in the block mod 32";
  let description = [{
    `%l = kv.lane : i32` is (tid.x + bdim.x * (tid.y + bdim.y * tid.z)) mod
    32, PTX's %laneid: the thread's place in its warp.
  }];
  let results = (outs I32:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def KV_ShuffleOp : KV_Op<"shuffle", [Pure, AllTypesMatch<["value", "result"]>]> {
  let summary = "a value another lane of the thread's warp holds (shfl.sync)";
  let description = [{
    `%r = kv.shuffle %v lane %j mask %m if %g : i32` is the value `%v` has
    at this op in the thread of the same warp whose lane is `%j` (0 to 31).
    A warp is 32 threads of consecutive linear ids in a block (tid.x +
    bdim.x * (tid.y + bdim.y * tid.z)), a thread's lane its linear id mod
    32. The lowering computes `%j` from the shuffle's mode (up, down, xor,
    index), offset and width as PTX's shfl.sync does, its own lane where
    the source is outside the segment. `%g` is whether the thread executes
    the shuffle, `%m` its member mask: the checker reports a shuffle whose
    mask leaves out its own lane or its source lane, or whose source lane
    does not execute it.
  }];
  let arguments = (ins AnySignlessInteger:$value, I32:$lane, I32:$mask,
                       I1:$guard);
  let results = (outs AnySignlessInteger:$result);
  let assemblyFormat = [{
    $value `lane` $lane `mask` $mask `if` $guard attr-dict `:` type($result)
  }];
}

def KV_BallotOp : KV_Op<"ballot", [Pure]> {
  let summary = "the lanes of the thread's warp whose predicate holds (vote)";
  let description = [{
    `%b = kv.ballot %p mask %m if %g : i32` has bit i set when lane i of the
    thread's warp is in the block and in `%m`, executes the vote (`%g`) and
    has `%p` true there: __ballot_sync. The lowering writes __any_sync,
    __all_sync and __activemask with it. The checker reports a vote whose
    mask leaves out the lane that executes it.
  }];
  let arguments = (ins I1:$pred, I32:$mask, I1:$guard);
  let results = (outs I32:$result);
  let assemblyFormat = [{
    $pred `mask` $mask `if` $guard attr-dict `:` type($result)
  }];
}

def KV_BarrierOp : KV_Op<"barrier", [AttrSizedOperandSegments]> {
  let summary = "__syncthreads(): ends one barrier interval, starts the next";
  let description = [{
    A barrier reached only under a condition carries it as `guard`; the
    checker proves that every thread of a block agrees on it (else the
    kernel has barrier divergence).
    With `warp` (`kv.barrier if %g warp mask %m`: __syncwarp(m)) it orders
    only the threads of one warp that both reach it: the race check treats
    accesses it separates as ordered for two such threads alone, which is
    what makes the model's intervals exact for a race-free kernel.
    With `grid` (cooperative groups' `this_grid().sync()`) it is also a
    barrier of the whole grid: global memory written before it by any
    block is seen after it by every block, and every thread of the grid
    reaches it (the checker proves the guard uniform over the grid).
  }];
  let arguments = (ins Optional<I1>:$guard, UnitAttr:$warp,
                       Optional<I32>:$mask, UnitAttr:$grid);
  let assemblyFormat = [{
    (`if` $guard^)? (`warp` $warp^ `mask` $mask)? (`grid` $grid^)? attr-dict
  }];
  let builders = [
    OpBuilder<(ins "::mlir::Value":$guard), [{
      build($_builder, $_state, guard, /*warp=*/false, /*mask=*/nullptr,
            /*grid=*/false);
    }]>,
    OpBuilder<(ins "::mlir::Value":$guard, "bool":$warp,
                   "::mlir::Value":$mask), [{
      build($_builder, $_state, guard, warp, mask, /*grid=*/false);
    }]>
  ];
  let hasVerifier = 1;
}

def KV_AssumeOp : KV_Op<"assume"> {
  let summary = "a precondition every thread of a valid launch satisfies";
  let description = [{
    `kv.assume %c`: the checker may take `c` as given for every thread of
    every launch it considers. Two kinds are marked, for the checker to
    treat apart from the launch preconditions:

    - `{bound = N : i64}`: the lowering cut a loop after `N` iterations
      (`--unroll=N`); `c` says that no thread runs more than that. A
      verdict that relies on it holds only for launches within the bound.
    - `{ub}`: `c` is C's rule that signed overflow is undefined (a `nsw`
      operation of the source does not wrap), not a fact about the launch.
  }];
  let arguments = (ins I1:$cond,
      Arg<OptionalAttr<I64Attr>,
          "the --unroll bound of the loop whose cut this assumes">:$bound,
      Arg<UnitAttr, "the assumption is C's signed-overflow rule">:$ub);
  let assemblyFormat = "$cond attr-dict";
  let builders = [
    OpBuilder<(ins "::mlir::Value":$cond), [{
      build($_builder, $_state, cond, /*bound=*/nullptr, /*ub=*/false);
    }]>
  ];
}

def KV_ProveOp : KV_Op<"prove"> {
  let summary = "a condition of the model that the checker proves";
  let description = [{
    `kv.prove %c, "what"`: the lowering relies on `c` holding for every
    thread of every valid launch (at every iteration of the loops it
    depends on), e.g. that a shared-memory read inside a barrier loop is
    served by a writer the lowering picked. The checker proves it before
    any verdict that uses the model; where it cannot, the verdict is not
    `equivalent`.
  }];
  let arguments = (ins I1:$cond, StrAttr:$what);
  let assemblyFormat = "$cond `,` $what attr-dict";
}

def KV_NoWrapOp : KV_Op<"nowrap", [Pure, SameTypeOperands]> {
  let summary = "true when a signed add/sub/mul does not overflow";
  let description = [{
    `%ok = kv.nowrap add %a, %b : i32` (`kind`: add, sub, mul) carries C's
    rule that signed overflow is undefined: the lowering asserts `kv.assume`
    of it (marked `ub`) for every `nsw` operation of a source kernel.
  }];
  let arguments = (ins KV_NoWrapKindAttr:$kind, AnySignlessInteger:$lhs,
                       AnySignlessInteger:$rhs);
  let results = (outs I1:$result);
  let assemblyFormat = "custom<EnumKeyword>($kind) $lhs `,` $rhs attr-dict `:` type($lhs)";
}

def KV_ApplyOp : KV_Op<"apply", [Pure]> {
  let summary = "a deterministic operation kept uninterpreted (e.g. float add)";
  let description = [{
    Both kernels of a pair compute the same value when they apply the same
    `fn` to the same operands; nothing else is assumed about it.
  }];
  let arguments = (ins StrAttr:$fn, Variadic<AnyType>:$operands);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$fn `(` $operands `)` attr-dict `:` functional-type($operands, $result)";
}

def KV_SumOp : KV_Op<"sum", [Pure, AllTypesMatch<["term", "result"]>]> {
  let summary = "the sum of a value over the iterations of a kv.iter loop";
  let description = [{
    `%s = kv.sum %term over %k : i32` is the wrapping sum of `term` over the
    iterations k of the loop of `%k` (a `kv.iter`) that run: an accumulator
    `s += term` whose loop has a symbolic trip count, with the initial value
    added by the lowering. Integer + is associative and commutative, so the
    order of the terms does not matter. The result does not depend on `%k`;
    `term` may. Its reads must see arrays the kernel has not written yet.

    `{group = U}` marks the sum of a loop unrolled U times (U terms added
    per iteration, a remainder loop after it). It is a hint only: the
    checker then tries to prove the sum plus a remainder sum equal to a
    sum of single terms, and proves that before it uses it.
  }];
  let arguments = (ins AnySignlessInteger:$term, I64:$iter,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntMinValue<2>]>>:$group);
  let results = (outs AnySignlessInteger:$result);
  let assemblyFormat = "$term `over` $iter attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def KV_CarryOp : KV_Op<"carry", [AllTypesMatch<["init", "result"]>]> {
  let summary = "an accumulator's value at the start of a loop iteration";
  let description = [{
    `%acc = kv.carry %init over %k : i32` is the value of a variable carried
    around the loop of `%k` (a `kv.iter`) at the start of iteration k:
    `init` at k = 0, else what the `kv.fold` naming `%acc` computed in
    iteration k - 1. Together they are a left fold of the loop's body over
    its iterations, in order: `h = h * 31 + c`, `m = max(m, x)`, or a float
    `acc += a[k] * b[k]` (kept uninterpreted, so no reassociation is
    assumed). Not pure: two accumulators with the same start are two.
  }];
  let arguments = (ins AnySignlessInteger:$init, I64:$iter);
  let results = (outs AnySignlessInteger:$result);
  let assemblyFormat = "$init `over` $iter attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def KV_FoldOp : KV_Op<"fold", [AllTypesMatch<["acc", "next", "result"]>]> {
  let summary = "an accumulator's value after its loop";
  let description = [{
    `%r = kv.fold %acc = %next : i32`: `%acc` is a `kv.carry`, `%next` the
    value the body computes from it in an iteration. The result is the
    carry's `init` when no iteration runs, else `%next` of the last
    iteration that runs. Like `kv.sum`, the result does not depend on the
    loop's iteration number.
  }];
  let arguments = (ins AnySignlessInteger:$acc, AnySignlessInteger:$next);
  let results = (outs AnySignlessInteger:$result);
  let assemblyFormat = "$acc `=` $next attr-dict `:` type($result)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    CarryOp getCarry() { return getAcc().getDefiningOp<CarryOp>(); }
  }];
}

def KV_BreakOp : KV_Op<"break"> {
  let summary = "an exit from the middle or the test of a loop";
  let description = [{
    `kv.break %k if %c`: when `c` holds at iteration k of the loop of `%k`
    (a `kv.iter`), k is the loop's last iteration: no later one runs. `c`
    includes the path to the exit, so ops of iteration k after the exit
    carry its negation in their guards. A loop with breaks runs iterations
    0 .. T-1 where T - 1 is the first iteration whose break holds (or whose
    kv.iter test fails at T): a `while (x < n) x = next[x]` loop, a search
    loop with `break`. No trip count is computed; two such loops are
    aligned when the checker proves that they start alike, break alike and
    update alike at every iteration, or that one is the other rotated (as
    -O2 rotates a loop: its `header` exits, or those `first` in the
    iteration, tested before the loop and at the end of each iteration).
  }];
  let arguments = (ins I64:$iter, I1:$cond,
      Arg<UnitAttr, "the exit is in the loop's header block">:$header,
      Arg<UnitAttr, "no write or private store of the iteration comes before "
                    "it">:$first);
  let assemblyFormat = [{
    $iter `if` $cond (`header` $header^)? (`first` $first^)? attr-dict
  }];
  let hasVerifier = 1;
}

def KV_LastOp : KV_Op<"last", [Pure, AllTypesMatch<["value", "result"]>]> {
  let summary = "a value at the last iteration of a loop with breaks";
  let description = [{
    `%r = kv.last %v over %k : i32` is the value `%v` has at the last
    iteration that runs of the loop of `%k`: what leaves a loop with
    breaks along the exit it takes (the lowering selects among the exits
    by their conditions). Like `kv.fold`, the result does not depend on the
    loop's iteration number; it is unspecified when no iteration runs.
  }];
  let arguments = (ins AnyType:$value, I64:$iter);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$value `over` $iter attr-dict `:` type($result)";
  let hasVerifier = 1;
}

#endif // KV_OPS_TD
