// kv.break and kv.last (a loop with breaks) print and parse back to the
// same thing, custom and generic.
// RUN: %kv-opt %s | %kv-opt | FileCheck %s
// RUN: %kv-opt %s --mlir-print-op-generic | %kv-opt | FileCheck %s
// RUN: %kv-opt %s | %kv-opt --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// CHECK-LABEL: kv.kernel @find attributes {arg_names = ["out", "in", "n", "key"]} {
// CHECK:         %[[K:.*]] = kv.iter from %{{.*}} step %{{.*}} while slt %{{.*}} if %{{.*}}
// CHECK:         kv.break %[[K]] if %{{.*}}
// CHECK-NEXT:    kv.break %[[K]] if %{{.*}}
// CHECK-NEXT:    %[[L:.*]] = kv.last %{{.*}} over %[[K]] : i32
// CHECK-NEXT:    kv.write %out[%{{.*}}] = %[[L]] if %{{.*}} : !kv.global<i32>, i64, i32

// GENERIC: "kv.break"(%{{.*}}, %{{.*}}) : (i64, i1) -> ()
// GENERIC: "kv.last"(%{{.*}}, %{{.*}}) : (i32, i64) -> i32

kv.kernel @find attributes {arg_names = ["out", "in", "n", "key"]} {
^bb0(%out: !kv.global<i32>, %in: !kv.global<i32>, %n: i32, %key: i32):
  %true = arith.constant true
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %max = arith.constant 2147483648 : i64
  %k = kv.iter from %c0 step %c1 while slt %max if %true
  %k32 = arith.trunci %k : i64 to i32
  %done = arith.cmpi sge, %k32, %n : i32
  %go = arith.xori %done, %true : i1
  %x = kv.read %in[%k] if %go : !kv.global<i32>, i64 -> i32
  %hit = arith.cmpi eq, %x, %key : i32
  %found = arith.andi %go, %hit : i1
  kv.break %k if %done
  kv.break %k if %found
  %r = kv.last %k32 over %k : i32
  kv.write %out[%c0] = %r if %true : !kv.global<i32>, i64, i32
}
