// __syncthreads() that only some threads may reach (barrier divergence) is
// outside the model: "unsupported" (exit 2) at the barrier's file:line.
//
// RUN: %expect-exit 2 %kvalidate %s:cond_barrier %s:cond_barrier | FileCheck %s
// CHECK: verdict: unsupported
// CHECK-NEXT: reason: before kernel: {{.*}}unsupported-conditional-barrier.cu:[[@LINE+7]]:{{[0-9]+}}: __syncthreads() under a condition

__global__ void cond_barrier(int *out, const int *in, int n) {
  __shared__ int s[64];
  int t = threadIdx.x;
  s[t] = in[t];
  if (t < n)
    __syncthreads();
  out[t] = s[63 - t];
}
