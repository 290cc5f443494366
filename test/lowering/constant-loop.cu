// Loops with a constant trip count are unrolled: four guarded kv.write ops,
// one per iteration, each with its own guard, and no barrier.
//
// RUN: %expect-exit 0 %kvalidate --emit-kv %s:unroll4 %s:unroll4 | FileCheck %s

// CHECK-LABEL: kv.kernel @_Z7unroll4PiPKii attributes {arg_names = ["out", "in", "n"], source_name = "unroll4"}
// CHECK-NOT: kv.barrier
// CHECK-COUNT-4: kv.write %out[%{{.*}}] = %{{.*}} if %{{.*}} : !kv.global<i32>, i64, i32
// CHECK-NOT: kv.write
// CHECK-LABEL: kv.kernel @_Z7unroll4PiPKii.1

__global__ void unroll4(int *out, const int *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int j = 0; j < 4; ++j)
    if (4 * i + j < n)
      out[4 * i + j] = in[4 * i + j] + j;
}
