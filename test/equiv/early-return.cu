// The common CUDA idiom "if (i >= n) return;" (at -O0 and in the IR at the
// start of clang's pipeline it is a cleanup switch) is the same as guarding
// the body.
//
// RUN: %expect-exit 0 %kvalidate %s:copy %s:copy_early_return | FileCheck %s
// RUN: %expect-exit 0 %kvalidate %s:copy %s:copy_early_return_local | FileCheck %s
// CHECK: verdict: equivalent
//
// An early return that skips a thread's write when it should not.
// RUN: %expect-exit 1 %kvalidate %s:copy %s:copy_early_return_wrong | FileCheck %s --check-prefix=NE
// NE: verdict: not-equivalent
// NE: counterexample (replayed):

__global__ void copy(int *out, const int *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i];
}

__global__ void copy_early_return(int *out, const int *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  out[i] = in[i];
}

__global__ void copy_early_return_local(int *out, const int *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  int v = in[i];
  out[i] = v;
}

__global__ void copy_early_return_wrong(int *out, const int *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n - 1)
    return;
  out[i] = in[i];
}

// The solver-heavy lane (test/lit.cfg.py).
// REQUIRES: long
