// A __syncthreads() under a condition that is the same for every thread of
// a block but may be false (here n > 8) is outside the model: no barrier
// divergence, but no single barrier sequence either. "unsupported" (exit 2)
// at the barrier's file:line. (A condition that differs between threads is
// barrier divergence, exit 4: equiv/safety.test.) Without the barrier each
// thread reads its own cell: reading another's would race for n <= 8.
//
// RUN: %expect-exit 2 %kvalidate --assume='blockDim.x <= 64 && %{1D}' \
// RUN:   %s:cond_barrier %s:cond_barrier | FileCheck %s
// CHECK: verdict: unsupported
// CHECK-NEXT: reason: before kernel: {{.*}}unsupported-conditional-barrier.cu:[[@LINE+7]]:{{[0-9]+}}: __syncthreads() under a condition

__global__ void cond_barrier(int *out, const int *in, int n) {
  __shared__ int s[64];
  int t = threadIdx.x;
  s[t] = in[t];
  if (n > 8)
    __syncthreads();
  out[t] = s[n > 8 ? 63 - t : t];
}
