// A private variable a kernel may read before writing it: its value there is
// whatever the GPU has. In the after kernel that is a value no proof may fix,
// so the pair is not `equivalent` to a kernel that always reads 5: the runs
// of both kernels' code find a launch where it differs. In the before
// kernel any value is a valid refinement: against the kernel that always
// reads 5 the pair is `equivalent`.
// RUN: %expect-exit 1 %kvalidate %s:always_set %s:maybe_unset | FileCheck %s --check-prefix=AFTER
// AFTER: verdict: not-equivalent
// The solver finds it too, and the counterexample replays.
// RUN: %expect-exit 1 %kvalidate --run-first=0 --hunt=0 %s:always_set %s:maybe_unset | FileCheck %s --check-prefix=PROOF
// PROOF: verdict: not-equivalent
// PROOF: counterexample (replayed):
// RUN: %expect-exit 0 %kvalidate %s:maybe_unset %s:always_set | FileCheck %s --check-prefix=EQ
// So on one-dimensional launches, where the runs of both kernels' IR check
// themselves free of races: the before kernel's run reads the unset
// variable (as 0), which is no counterexample.
// RUN: %expect-exit 0 %kvalidate --assume='%{1D}' %s:maybe_unset %s:always_set | FileCheck %s --check-prefix=EQ
//
// Stored on every path that reads it (the read under the same condition as
// the store): equivalent.
// RUN: %expect-exit 0 %kvalidate %s:always_set %s:set_where_read | FileCheck %s --check-prefix=EQ
// EQ: verdict: equivalent

__global__ void always_set(int *out, const int *in) {
  int t = threadIdx.x;
  int x = 5;
  out[t] = x + in[t];
}

__global__ void maybe_unset(int *out, const int *in) {
  int t = threadIdx.x;
  int x;
  if (in[t] > 0)
    x = 5;
  out[t] = x + in[t];
}

__global__ void set_where_read(int *out, const int *in) {
  int t = threadIdx.x;
  int x;
  int v = in[t];
  if (v > 0)
    x = 5;
  if (v > 0)
    out[t] = x + v;
  else
    out[t] = 5 + v;
}
