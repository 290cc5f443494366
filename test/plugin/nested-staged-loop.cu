// A barrier loop of symbolic trip count around a loop of constant trip count
// that -O2 unrolls by two: the lowering first unrolls the inner loop inside
// the outer loop's model, then starts it over as a loop model. Starting
// over must also forget the reads it recorded in the outer loop: they named
// operations it erased (a use after free; clang reported that kvalidate
// had crashed).
//
// REQUIRES: long
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate \
// RUN:   -mllvm -kvalidate-timeout=30 -mllvm -kvalidate-report=%t.jsonl \
// RUN:   -mllvm "-kvalidate-assume=blockDim.x == 16 && blockDim.y == 1 && blockDim.z == 1" \
// RUN:   %s -o %t.s 2>&1 | FileCheck %s --implicit-check-not=crashed
// CHECK: remark: kvalidate: kernel 'weigh':
// RUN: FileCheck %s --check-prefix=REPORT < %t.jsonl
// REPORT: "kernel":"weigh"

#define W 16

__global__ void weigh(int *out, const int *w, const int *v, int tiles) {
  __shared__ int vs[W];
  int me = blockIdx.x * W + threadIdx.x;
  int acc = 1;
  for (int t = 0; t < tiles; t++) {
    vs[threadIdx.x] = v[t * W + threadIdx.x];
    __syncthreads();
    for (int k = 0; k < W; k++)
      acc += w[me * tiles * W + t * W + k] * vs[k];
    __syncthreads();
  }
  out[me] = acc;
}
