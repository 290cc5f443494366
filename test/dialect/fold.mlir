// kv.carry and kv.fold (a left fold over a kv.iter loop) print and parse
// back to the same thing, custom and generic.
// RUN: %kv-opt %s | %kv-opt | FileCheck %s
// RUN: %kv-opt %s --mlir-print-op-generic | %kv-opt | FileCheck %s
// RUN: %kv-opt %s | %kv-opt --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// CHECK-LABEL: kv.kernel @hash attributes {arg_names = ["out", "in", "n"]} {
// CHECK:         %[[K:.*]] = kv.iter from %{{.*}} step %{{.*}} while slt %n if %{{.*}}
// CHECK-NEXT:    %[[H:.*]] = kv.carry %{{.*}} over %[[K]] : i32
// CHECK-NEXT:    %[[X:.*]] = kv.read %in[%[[K]]] if %{{.*}} : !kv.global<i32>, i64 -> i32
// CHECK-NEXT:    %[[M:.*]] = arith.muli %[[H]], %{{.*}} : i32
// CHECK-NEXT:    %[[N:.*]] = arith.addi %[[M]], %[[X]] : i32
// CHECK-NEXT:    %[[R:.*]] = kv.fold %[[H]] = %[[N]] : i32
// CHECK-NEXT:    kv.write %out[%{{.*}}] = %[[R]] if %{{.*}} : !kv.global<i32>, i64, i32

// GENERIC: "kv.carry"(%{{.*}}, %{{.*}}) : (i32, i64) -> i32
// GENERIC: "kv.fold"(%{{.*}}, %{{.*}}) : (i32, i32) -> i32

kv.kernel @hash attributes {arg_names = ["out", "in", "n"]} {
^bb0(%out: !kv.global<i32>, %in: !kv.global<i32>, %n: i64):
  %true = arith.constant true
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %c7 = arith.constant 7 : i32
  %c31 = arith.constant 31 : i32
  %k = kv.iter from %c0 step %c1 while slt %n if %true
  %h = kv.carry %c7 over %k : i32
  %x = kv.read %in[%k] if %true : !kv.global<i32>, i64 -> i32
  %m = arith.muli %h, %c31 : i32
  %next = arith.addi %m, %x : i32
  %r = kv.fold %h = %next : i32
  kv.write %out[%c0] = %r if %true : !kv.global<i32>, i64, i32
}
