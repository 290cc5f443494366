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

// A counter stored under the guard of an enclosing if stays a constant on
// that path: with n pinned by the assumption, the loop inside the if is
// unrolled four times (it ran into the 1024-visit limit when the counter
// was merged with its value from before the if). The loop walks a pointer,
// which the loop model does not carry, so the case split on n applies.
// RUN: %expect-exit 0 %kvalidate --emit-kv --assume='n == 4' %s:guarded_sum %s:guarded_sum \
// RUN:   | FileCheck %s --check-prefix=GUARDED
// RUN: %expect-exit 0 %kvalidate --assume='n == 4' %s:guarded_sum %s:guarded_sum \
// RUN:   | FileCheck %s --check-prefix=GUARDED-EQ
// GUARDED-LABEL: kv.kernel @_Z11guarded_sumPiPKii
// GUARDED-COUNT-4: kv.read %in[
// GUARDED-NOT: kv.read %in[
// GUARDED-LABEL: kv.kernel @_Z11guarded_sumPiPKii.1
// GUARDED-EQ: verdict: equivalent

__global__ void guarded_sum(int *out, const int *in, int n) {
  int r = threadIdx.x;
  if (r < 8) {
    int s = 0;
    const int *p = in + r * n;
    for (int k = 0; k < n; ++k)
      s = 3 * s + *p++;
    out[r] = s;
  }
}
