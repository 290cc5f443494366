// A loop with a break and a loop whose exit tests a loaded value: kv.iter
// from 0 with no bound but 2^31, a kv.break per exit (its condition the
// path to the exit), kv.last for the value that leaves the loop, and a fold
// for the value carried around it that is not an induction variable.
// RUN: %kvalidate --emit-kv %inputs/breaks.cu:find %inputs/breaks.cu:chase | FileCheck %s

// CHECK-LABEL: kv.kernel @{{.*}}find
// CHECK:         %[[K:.*]] = kv.iter from %c0_i64 step %c1_i64 while slt %c2147483648_i64 if %{{.*}}
// CHECK-NOT:     kv.carry
// CHECK:         kv.read %in
// CHECK:         kv.break %[[K]] if %{{.*}}
// CHECK-NEXT:    kv.break %[[K]] if %{{.*}}
// CHECK-NEXT:    %[[L:.*]] = kv.last %{{.*}} over %[[K]] : i32
// CHECK:         kv.write %out[%{{.*}}] = %[[L]]

// CHECK-LABEL: kv.kernel @{{.*}}chase
// CHECK:         %[[K2:.*]] = kv.iter from %c0_i64 step %c1_i64 while slt %c2147483648_i64 if %{{.*}}
// CHECK:         %[[X:.*]] = kv.carry %{{.*}} over %[[K2]] : i32
// CHECK:         %[[NX:.*]] = kv.read %next[%{{.*}}] if %{{.*}}
// CHECK:         kv.break %[[K2]] if %{{.*}}
// CHECK-NEXT:    %[[L2:.*]] = kv.last %[[X]] over %[[K2]] : i32
// CHECK-NEXT:    kv.fold %[[X]] = %[[NX]] : i32
// CHECK:         kv.write %out[%{{.*}}] = %[[L2]]
