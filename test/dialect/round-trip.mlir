// Every kv op and type prints and parses back to the same thing: custom
// form, then the generic form, then custom again.
// RUN: %kv-opt %s | %kv-opt | FileCheck %s
// RUN: %kv-opt %s --mlir-print-op-generic | %kv-opt | FileCheck %s
// RUN: %kv-opt %s | %kv-opt --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// CHECK-LABEL: kv.kernel @transpose_tile attributes {arg_names = ["out", "in", "width", "tile"], source_name = "transpose_tile"} {
// CHECK-NEXT:  ^bb0(%out: !kv.global<i32>, %in: !kv.global<i32>, %width: i32, %tile: !kv.shared<i32, 256>):
// CHECK-DAG:     %[[TX:.*]] = kv.sreg tid.x : i32
// CHECK-DAG:     %[[TY:.*]] = kv.sreg tid.y : i32
// CHECK-DAG:     %[[BD:.*]] = kv.sreg bdim.x : i32
// CHECK-DAG:     %[[GD:.*]] = kv.sreg gdim.z : i32
// CHECK:         kv.assume %[[Z:.*]]
// CHECK-NEXT:    kv.prove %[[Z]], "a model condition"
// CHECK:         %[[V:.*]] = kv.read %in[%{{.*}}] if %[[G:.*]] : !kv.global<i32>, i64 -> i32
// CHECK:         kv.write %tile[%{{.*}}] = %[[V]] if %[[G]] : !kv.shared<i32, 256>, i64, i32
// CHECK-NEXT:    kv.barrier
// CHECK:         %[[T:.*]] = kv.read %tile[%{{.*}}] if %[[G]] : !kv.shared<i32, 256>, i64 -> i32
// CHECK:         %[[F:.*]] = kv.apply "fadd.f32"(%[[T]], %[[T]]) : (i32, i32) -> i32
// CHECK:         kv.write %out[%{{.*}}] = %[[F]] if %[[G]] : !kv.global<i32>, i64, i32
// CHECK-NEXT:  }

// A kernel without parameters, an 8-bit element type and an extern shared
// array (size 0).
// CHECK-LABEL: kv.kernel @empty attributes {arg_names = []} {
// CHECK-NEXT:  }
// CHECK-LABEL: kv.kernel @bytes attributes {arg_names = ["p", "dyn"]} {
// CHECK-NEXT:  ^bb0(%p: !kv.global<i8>, %dyn: !kv.shared<i8, 0>):

// kv.iter: nested loops, the inner one a do_while, the outer one with the
// source variable's width.
// CHECK-LABEL: kv.kernel @loops attributes {arg_names = ["out", "n"]} {
// CHECK:         %[[R:.*]] = kv.iter from %{{.*}} step %[[ST:.*]] while slt %[[N:.*]] if %true {width = 32 : i64}
// CHECK:         %[[G:.*]] = arith.cmpi slt, %{{.*}}, %[[N]] : i64
// CHECK-NEXT:    %[[C:.*]] = kv.iter from %[[R]] step %[[ST]] while ule %[[N]] if %[[G]] do_while
// CHECK-NEXT:    kv.write %out[%[[C]]] = %[[R]] if %[[G]] : !kv.global<i64>, i64, i64
// CHECK-NEXT:  }

// kv.sum over a rotated loop tested with != (from_ne).
// CHECK-LABEL: kv.kernel @total attributes {arg_names = ["out", "in", "n"], unsigned_params = ["n"]} {
// CHECK:         %[[K:.*]] = kv.iter from %{{.*}} step %{{.*}} while ult %{{.*}} if %{{.*}} do_while {from_ne, width = 32 : i64}
// CHECK:         %[[X:.*]] = kv.read %in[%[[K]]] if %{{.*}} : !kv.global<i32>, i64 -> i32
// CHECK-NEXT:    %[[S:.*]] = kv.sum %[[X]] over %[[K]] : i32
// CHECK-NEXT:    kv.write %out[%{{.*}}] = %[[S]] if %{{.*}} : !kv.global<i32>, i64, i32

// Atomic updates: `atomic KIND` before the array, each kind as its keyword
// (`and`, not the C++ enumerator's `and_`).
// CHECK-LABEL: kv.kernel @histogram attributes {arg_names = ["hist", "in"]} {
// CHECK:         kv.write atomic add %hist[%{{.*}}] = %{{.*}} if %{{.*}} : !kv.global<i32>, i64, i32
// CHECK-NEXT:    kv.write atomic and %hist[%{{.*}}] = %{{.*}} if %{{.*}} : !kv.global<i32>, i64, i32
// CHECK-NEXT:    kv.write atomic umax %hist[%{{.*}}] = %{{.*}} if %{{.*}} : !kv.global<i32>, i64, i32
// CHECK-NEXT:    kv.write %hist[%{{.*}}] = %{{.*}} if %{{.*}} : !kv.global<i32>, i64, i32

// A warp shuffle and the lane id.
// CHECK-LABEL: kv.kernel @warp attributes {arg_names = ["out", "in"]} {
// CHECK:         %[[L:.*]] = kv.lane : i32
// CHECK:         %[[S:.*]] = kv.shuffle %{{.*}} lane %[[L]] mask %{{.*}} if %{{.*}} : i32
// CHECK-NEXT:    kv.barrier if %{{.*}} warp mask %{{.*}}
// CHECK:         %[[B:.*]] = kv.ballot %{{.*}} mask %{{.*}} if %{{.*}} : i32
// CHECK-NEXT:    kv.write %out[%{{.*}}] = %[[S]] if %{{.*}} : !kv.global<i32>, i64, i32
// CHECK-NEXT:    kv.write %out[%{{.*}}] = %[[B]] if %{{.*}} : !kv.global<i32>, i64, i32

// kv.nowrap of each kind; kv.assume with its `ub` and `bound` attributes.
// Enum cases also parse as quoted strings ("bid.y", "sub"), and print bare.
// CHECK-LABEL: kv.kernel @overflow attributes {arg_names = ["a", "w"]} {
// CHECK:         %[[BY:.*]] = kv.sreg bid.y : i32
// CHECK-NEXT:    %[[ADD:.*]] = kv.nowrap add %a, %[[BY]] : i32
// CHECK-NEXT:    %[[SUB:.*]] = kv.nowrap sub %a, %[[BY]] : i32
// CHECK-NEXT:    %[[MUL:.*]] = kv.nowrap mul %w, %w : i64
// CHECK-NEXT:    kv.assume %[[ADD]] {ub}
// CHECK-NEXT:    kv.assume %[[SUB]] {bound = 16 : i64}
// CHECK-NEXT:    kv.assume %[[MUL]]{{$}}

// GENERIC: "kv.kernel"() <{arg_names = ["out", "in", "width", "tile"], source_name = "transpose_tile", sym_name = "transpose_tile"}> ({
// GENERIC: "kv.sreg"() <{name = #kv<sreg tid.x>}> : () -> i32
// GENERIC: "kv.read"(%{{.*}}, %{{.*}}, %{{.*}}) : (!kv.global<i32>, i64, i1) -> i32
// GENERIC: "kv.write"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (!kv.shared<i32, 256>, i64, i32, i1) -> ()
// GENERIC: "kv.barrier"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> ()
// GENERIC: "kv.apply"(%{{.*}}, %{{.*}}) <{fn = "fadd.f32"}> : (i32, i32) -> i32
// GENERIC: "kv.iter"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{pred = #kv<iter_pred slt>, width = 32 : i64}> : (i64, i64, i64, i1) -> i64
// GENERIC: "kv.iter"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{do_while, pred = #kv<iter_pred ule>}> : (i64, i64, i64, i1) -> i64
// GENERIC: "kv.iter"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{do_while, from_ne, pred = #kv<iter_pred ult>, width = 32 : i64}> : (i64, i64, i64, i1) -> i64
// GENERIC: "kv.sum"(%{{.*}}, %{{.*}}) : (i32, i64) -> i32
// GENERIC: "kv.write"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{rmw = #kv<rmw_kind add>}> : (!kv.global<i32>, i64, i32, i1) -> ()
// GENERIC: "kv.lane"() : () -> i32
// GENERIC: "kv.shuffle"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (i32, i32, i32, i1) -> i32
// GENERIC: "kv.barrier"(%{{.*}}, %{{.*}}) <{operandSegmentSizes = array<i32: 1, 1>, warp}> : (i1, i32) -> ()
// GENERIC: "kv.ballot"(%{{.*}}, %{{.*}}, %{{.*}}) : (i1, i32, i1) -> i32
// GENERIC: "kv.sreg"() <{name = #kv<sreg bid.y>}> : () -> i32
// GENERIC: "kv.nowrap"(%{{.*}}, %{{.*}}) <{kind = #kv<nowrap_kind add>}> : (i32, i32) -> i1
// GENERIC: "kv.nowrap"(%{{.*}}, %{{.*}}) <{kind = #kv<nowrap_kind sub>}> : (i32, i32) -> i1
// GENERIC: "kv.nowrap"(%{{.*}}, %{{.*}}) <{kind = #kv<nowrap_kind mul>}> : (i64, i64) -> i1
// GENERIC: "kv.assume"(%{{.*}}) <{ub}> : (i1) -> ()
// GENERIC: "kv.assume"(%{{.*}}) <{bound = 16 : i64}> : (i1) -> ()

kv.kernel @transpose_tile attributes {arg_names = ["out", "in", "width", "tile"], source_name = "transpose_tile"} {
^bb0(%out: !kv.global<i32>, %in: !kv.global<i32>, %width: i32, %tile: !kv.shared<i32, 256>):
  %tx = kv.sreg tid.x : i32
  %ty = kv.sreg tid.y : i32
  %bd = kv.sreg bdim.x : i32
  %gz = kv.sreg gdim.z : i32
  %c1 = arith.constant 1 : i32
  %c16 = arith.constant 16 : i32
  %zok = arith.cmpi eq, %gz, %c1 : i32
  kv.assume %zok
  kv.prove %zok, "a model condition"
  %g = arith.cmpi slt, %tx, %width : i32
  %row = arith.muli %ty, %bd : i32
  %idx = arith.addi %row, %tx : i32
  %idx64 = arith.extsi %idx : i32 to i64
  %v = kv.read %in[%idx64] if %g : !kv.global<i32>, i64 -> i32
  %t = arith.muli %ty, %c16 : i32
  %t1 = arith.addi %t, %tx : i32
  %t64 = arith.extsi %t1 : i32 to i64
  kv.write %tile[%t64] = %v if %g : !kv.shared<i32, 256>, i64, i32
  kv.barrier
  %r = arith.muli %tx, %c16 : i32
  %r1 = arith.addi %r, %ty : i32
  %r64 = arith.extsi %r1 : i32 to i64
  %tv = kv.read %tile[%r64] if %g : !kv.shared<i32, 256>, i64 -> i32
  %f = kv.apply "fadd.f32"(%tv, %tv) : (i32, i32) -> i32
  kv.write %out[%idx64] = %f if %g : !kv.global<i32>, i64, i32
}

kv.kernel @empty attributes {arg_names = []} {
}

kv.kernel @bytes attributes {arg_names = ["p", "dyn"]} {
^bb0(%p: !kv.global<i8>, %dyn: !kv.shared<i8, 0>):
  %true = arith.constant true
  %z = arith.constant 0 : i64
  %b = kv.read %dyn[%z] if %true : !kv.shared<i8, 0>, i64 -> i8
  kv.write %p[%z] = %b if %true : !kv.global<i8>, i64, i8
}

kv.kernel @loops attributes {arg_names = ["out", "n"]} {
^bb0(%out: !kv.global<i64>, %n: i64):
  %true = arith.constant true
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %r = kv.iter from %c0 step %c1 while slt %n if %true {width = 32 : i64}
  %x = arith.addi %r, %c0 : i64
  %g = arith.cmpi slt, %x, %n : i64
  %c = kv.iter from %r step %c1 while ule %n if %g do_while
  kv.write %out[%c] = %r if %g : !kv.global<i64>, i64, i64
}

kv.kernel @total attributes {arg_names = ["out", "in", "n"], unsigned_params = ["n"]} {
^bb0(%out: !kv.global<i32>, %in: !kv.global<i32>, %n: i32):
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %zero = arith.constant 0 : i32
  %ne = arith.extui %n : i32 to i64
  %g = arith.cmpi sgt, %n, %zero : i32
  %k = kv.iter from %c0 step %c1 while ult %ne if %g do_while {from_ne, width = 32 : i64}
  %x = kv.read %in[%k] if %g : !kv.global<i32>, i64 -> i32
  %s = kv.sum %x over %k : i32
  kv.write %out[%c0] = %s if %g : !kv.global<i32>, i64, i32
}

kv.kernel @histogram attributes {arg_names = ["hist", "in"]} {
^bb0(%hist: !kv.global<i32>, %in: !kv.global<i32>):
  %true = arith.constant true
  %t = kv.sreg tid.x : i32
  %t64 = arith.extui %t : i32 to i64
  %v = kv.read %in[%t64] if %true : !kv.global<i32>, i64 -> i32
  %b = arith.extui %v : i32 to i64
  %one = arith.constant 1 : i32
  kv.write atomic add %hist[%b] = %one if %true : !kv.global<i32>, i64, i32
  kv.write atomic and %hist[%b] = %v if %true : !kv.global<i32>, i64, i32
  kv.write atomic umax %hist[%b] = %v if %true : !kv.global<i32>, i64, i32
  kv.write %hist[%t64] = %one if %true : !kv.global<i32>, i64, i32
}

kv.kernel @warp attributes {arg_names = ["out", "in"]} {
^bb0(%out: !kv.global<i32>, %in: !kv.global<i32>):
  %true = arith.constant true
  %all = arith.constant -1 : i32
  %t = kv.sreg tid.x : i32
  %t64 = arith.extui %t : i32 to i64
  %v = kv.read %in[%t64] if %true : !kv.global<i32>, i64 -> i32
  %l = kv.lane : i32
  %s = kv.shuffle %v lane %l mask %all if %true : i32
  kv.barrier if %true warp mask %all
  %p = arith.cmpi slt, %v, %s : i32
  %b = kv.ballot %p mask %all if %true : i32
  kv.write %out[%t64] = %s if %true : !kv.global<i32>, i64, i32
  kv.write %out[%t64] = %b if %true : !kv.global<i32>, i64, i32
}

kv.kernel @overflow attributes {arg_names = ["a", "w"]} {
^bb0(%a: i32, %w: i64):
  %by = kv.sreg "bid.y" : i32
  %add = kv.nowrap add %a, %by : i32
  %sub = kv.nowrap "sub" %a, %by : i32
  %mul = kv.nowrap mul %w, %w : i64
  kv.assume %add {ub}
  kv.assume %sub {bound = 16 : i64}
  kv.assume %mul
}
