// A kernel the model cannot express gets a warning with the reason and the
// construct's location; the compile succeeds and the PTX is produced.
//
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate %s -o %t.s 2>&1 | FileCheck %s
// (The source's loop is a sum; -O2 unrolls it at run time, which the model
// cannot express yet.)
// CHECK: unsupported-warning.cu:[[@LINE+10]]:17: warning: kvalidate: kernel 'sum_rows': unsupported: after optimization: {{.*}}unsupported-warning.cu:[[@LINE+13]]:{{[0-9]+}}: value computed in a loop with a symbolic trip count, used after the loop
// CHECK: remark: kvalidate: kernel 'copy': equivalent
// RUN: FileCheck %s --check-prefix=PTX < %t.s
// PTX: .visible .entry _Z8sum_rowsPiPKii(
//
// -kvalidate-werror turns only not-equivalent verdicts into errors.
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -mllvm -kvalidate-werror %s -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=WERROR
// WERROR: warning: kvalidate: kernel 'sum_rows': unsupported

__global__ void sum_rows(int *out, const int *in, int n) {
  int acc = 0;
  for (int j = 0; j < n; ++j)
    acc += in[j];
  out[threadIdx.x] = acc;
}

__global__ void copy(int *out, const int *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i];
}
