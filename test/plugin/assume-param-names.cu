// -kvalidate-assume may name the kernel's scalar parameters by their source
// names. clang discards IR value names by default, so the names have to come
// from somewhere else: with -fno-discard-value-names from the IR, with -g
// from the debug info.
//
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate -fno-discard-value-names \
// RUN:   -mllvm -kvalidate-assume='n > 0' %s -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --implicit-check-not=warning:
// RUN: %clang-cuda -O2 -g -S -fpass-plugin=%plugin -Rpass=kvalidate \
// RUN:   -mllvm -kvalidate-assume='n > 0' %s -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --implicit-check-not=warning:
// CHECK: remark: kvalidate: kernel 'copy_reset_empty': equivalent ({{[0-9]+}} ms) [assumptions: {{.*}}n > 0 (--assume)

__global__ void copy_reset_empty(int *out, const int *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i];
  if (i == 0 && n <= 0)
    out[0] = 0;
}
