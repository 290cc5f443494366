// Atomics are outside the kv model: "unsupported" (exit 2) with file:line.
// The __atomic builtin needs no CUDA SDK.
//
// RUN: %expect-exit 2 %kvalidate %s:count %s:count | FileCheck %s
// CHECK: verdict: unsupported
// CHECK-NEXT: reason: before kernel: {{.*}}unsupported-atomic.cu:14:3: atomic operation 'atomicrmw'
// CHECK-NOT: counterexample

__global__ void count(int *counter, const int *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n || in[i] == 0)
    return;
  // A relaxed atomic increment, as atomicAdd(counter, 1) would do.
  __atomic_fetch_add(counter, 1, __ATOMIC_RELAXED);
}
