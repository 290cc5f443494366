// -I and -D reach the compile of .cu inputs.
//
// With -DFACTOR=2, in[i] * FACTOR is in[i] + in[i]: equivalent (exit 0).
// RUN: %expect-exit 0 %kvalidate -I %inputs/include -DFACTOR=2 %s:scale_macro %s:scale_add \
// RUN:   | FileCheck %s --check-prefix=TWO
// TWO: verdict: equivalent
//
// -I also works in its joined form; -DFACTOR=3 makes them differ (exit 1).
// RUN: %expect-exit 1 %kvalidate -I%inputs/include -DFACTOR=3 %s:scale_macro %s:scale_add \
// RUN:   | FileCheck %s --check-prefix=THREE
// THREE: verdict: not-equivalent
// THREE: counterexample (replayed):
// THREE: mismatch: out[{{-?[0-9]+}}]: before = {{-?[0-9]+}}, after = {{-?[0-9]+}}
//
// Without the include directory the compile fails: exit 3 with clang's error.
// RUN: %expect-exit 3 %kvalidate -DFACTOR=2 %s:scale_macro %s:scale_add 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NOINC
// NOINC: kvalidate: error: cannot compile {{.*}}include-define.cu:
// NOINC: 'kv_factor.h' file not found
//
// Without the macro the header's #error fires.
// RUN: %expect-exit 3 %kvalidate -I %inputs/include %s:scale_macro %s:scale_add 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NODEF
// NODEF: error: "FACTOR is not defined: pass -DFACTOR=N"

#include "kv_factor.h"

__global__ void scale_macro(int *out, const int *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = TIMES_FACTOR(in[i]);
}

__global__ void scale_add(int *out, const int *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i] + in[i];
}

// The solver-heavy lane (test/lit.cfg.py).
// REQUIRES: long
