// clang -fpass-plugin=libkvalidate.so validates every kernel of the device
// compile; -Rpass=kvalidate shows one remark per kernel at its definition:
// "kvalidate: kernel 'NAME': equivalent (N ms)".
//
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate %s -o %t.s 2>&1 \
// RUN:   | FileCheck %s --implicit-check-not=warning: --implicit-check-not=error:
// CHECK: remark-clang.cu:[[@LINE+7]]:17: remark: kvalidate: kernel 'copy': equivalent ({{[0-9]+}} ms) [assumptions: {{.*}}] [-Rpass=kvalidate]
// CHECK-NOT: remark:
//
// The compile itself is not affected: PTX comes out.
// RUN: FileCheck %s --check-prefix=PTX < %t.s
// PTX: .visible .entry _Z4copyPiPKii(

__global__ void copy(int *out, const int *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i];
}

