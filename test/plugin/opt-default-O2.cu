// opt -load-pass-plugin runs the same validation around default<O2> on the
// IR clang produces before its own optimizer (-Xclang -disable-llvm-passes);
// -pass-remarks=kvalidate shows one remark per kernel.
//
// RUN: %clang-cuda -O2 -Xclang -disable-llvm-passes -S -emit-llvm %s -o %t.ll
// RUN: %opt -load-pass-plugin=%plugin -passes='default<O2>' -pass-remarks=kvalidate \
// RUN:   %t.ll -S -o %t.opt.ll 2>&1 | FileCheck %s --implicit-check-not=warning:
// CHECK-DAG: remark: kvalidate: kernel 'copy': equivalent ({{[0-9]+}} ms)
// CHECK-DAG: remark: kvalidate: kernel 'scale2': equivalent ({{[0-9]+}} ms)
// CHECK-NOT: remark:
//
// The optimized IR is what clang -O2 would produce.
// RUN: FileCheck %s --check-prefix=IR < %t.opt.ll
// IR: define {{.*}}ptx_kernel void @_Z4copyPiPKii(
// IR: call {{.*}}i32 @llvm.nvvm.read.ptx.sreg.tid.x()
//
// The explicit passes delimit what is validated; the extension-point passes
// inside default<O2> then stay quiet, so there is still one remark per kernel.
// RUN: %opt -load-pass-plugin=%plugin \
// RUN:   -passes='kvalidate-start,default<O2>,kvalidate-check' -pass-remarks=kvalidate \
// RUN:   %t.ll -disable-output 2>&1 | FileCheck %s --implicit-check-not=warning:
//
// Without -pass-remarks nothing is printed.
// RUN: %opt -load-pass-plugin=%plugin -passes='default<O2>' %t.ll -disable-output 2>&1 | count 0
//
// A pipeline with nothing in it between start and check: still equivalent.
// RUN: %opt -load-pass-plugin=%plugin -passes='kvalidate-start,kvalidate-check' \
// RUN:   -pass-remarks=kvalidate %t.ll -disable-output 2>&1 | FileCheck %s --implicit-check-not=warning:

__global__ void copy(int *out, const int *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i];
}

__global__ void scale2(int *out, const int *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i] * 2;
}
