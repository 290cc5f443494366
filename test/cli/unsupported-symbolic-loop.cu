// A loop that walks a pointer kept in a private variable has no model: the
// verdict is "unsupported" (exit 2) with the loop's file:line, on stdout,
// and in the JSON reason.
//
// RUN: %expect-exit 2 %kvalidate --hunt=0 %s:walk_row %s:walk_row | FileCheck %s
// CHECK: verdict: unsupported
// CHECK-NEXT: reason: before kernel: {{.*}}unsupported-symbolic-loop.cu:25:{{[0-9]+}}: loop whose trip count is not a constant{{.*}}; as a loop model: pointer stored to a private variable in a loop with a symbolic trip count
// CHECK-NOT: counterexample (
//
// With a kernel it differs from, the bounded search that follows (--hunt)
// would find a counterexample; without it the reason is the loop's.
// RUN: %expect-exit 2 %kvalidate --hunt=0 --run-first=0 --json %inputs/misc.cu:copy %s:walk_row | FileCheck %s --check-prefix=JSON
// JSON: "reason":"after kernel: {{.*}}unsupported-symbolic-loop.cu:25:{{[0-9]+}}: loop whose trip count is not a constant{{.*}}","time_ms":{{[0-9]+}},"verdict":"unsupported"}
//
// A loop whose trip count depends on the thread and a parameter, through
// two exit tests, is a loop with breaks (loops/breaks.test): proved against
// itself for every n.
// RUN: %expect-exit 0 %kvalidate %s:sum_prefix %s:sum_prefix | FileCheck %s --check-prefix=PREFIX
// PREFIX:      verdict: equivalent
// PREFIX-NEXT:   proof: loops aligned: 1 loop with breaks

__global__ void walk_row(int *out, const int *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int acc = 0;
  for (const int *p = in; p != in + n; ++p)
    acc += *p;
  out[i] = acc;
}

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
