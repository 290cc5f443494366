// Float data is kept as bit patterns (i32 arrays), and float arithmetic as
// uninterpreted functions (kv.apply), so a*x+y is the same term in both
// kernels but no algebra is assumed.
//
// RUN: %expect-exit 0 %kvalidate --emit-kv %s:saxpy %s:saxpy | FileCheck %s
// CHECK-LABEL: kv.kernel @_Z5saxpyPfPKffi attributes {arg_names = ["y", "x", "a", "n"], source_name = "saxpy"}
// CHECK-NEXT: ^bb0(%y: !kv.global<i32>, %x: !kv.global<i32>, %a: i32, %n: i32):
// CHECK: %[[X:.*]] = kv.read %x[%{{.*}}] if %[[G:.*]] : !kv.global<i32>, i64 -> i32
// CHECK: %[[AX:.*]] = kv.apply "fmul"(%a, %[[X]]) : (i32, i32) -> i32
// CHECK: %[[Y:.*]] = kv.read %y[%{{.*}}] if %[[G]] : !kv.global<i32>, i64 -> i32
// CHECK: %[[S:.*]] = kv.apply "fadd"(%[[AX]], %[[Y]]) : (i32, i32) -> i32
// CHECK: kv.write %y[%{{.*}}] = %[[S]] if %[[G]] : !kv.global<i32>, i64, i32

__global__ void saxpy(float *y, const float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}
