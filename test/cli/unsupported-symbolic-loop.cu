// A loop whose trip count depends on a parameter cannot be unrolled into the
// kv model: the verdict is "unsupported" (exit 2) with the loop's file:line,
// on stdout, and in the JSON reason.
//
// RUN: %expect-exit 2 %kvalidate %s:sum_prefix %s:sum_prefix | FileCheck %s
// CHECK: verdict: unsupported
// CHECK-NEXT: reason: before kernel: {{.*}}unsupported-symbolic-loop.cu:18:{{[0-9]+}}: loop whose trip count is not a constant
// CHECK-NOT: counterexample (
//
// With a kernel it differs from, the bounded search that follows (--hunt)
// would find a counterexample; without it the reason is the loop's.
// RUN: %expect-exit 2 %kvalidate --hunt=0 --json %inputs/misc.cu:copy %s:sum_prefix | FileCheck %s --check-prefix=JSON
// JSON: "reason":"after kernel: {{.*}}unsupported-symbolic-loop.cu:18:{{[0-9]+}}: loop whose trip count is not a constant{{.*}}","time_ms":{{[0-9]+}},"verdict":"unsupported"}

__global__ void sum_prefix(int *out, const int *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int acc = 0;
  for (int j = 0; j <= i && j < n; ++j)
    acc += in[j];
  if (i < n)
    out[i] = acc;
}

// The solver-heavy lane (test/lit.cfg.py).
// REQUIRES: long
