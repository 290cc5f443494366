// A launch precondition written in the kernel, the way a compiler reads it:
// `if (blockDim.x != T) __builtin_unreachable();` (__builtin_assume drops a
// blockDim read: it has side effects). Reaching `unreachable` is undefined
// behaviour, so the source kernel's path to it is never taken; -O2 keeps
// only an llvm.assume. No -kvalidate-assume: each pipeline is proved under
// the precondition, and the verdict names it. (It was a false
// not-equivalent: the source kernel stopped where the optimized one ran on.)
//
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate -mllvm -kvalidate-cache= \
// RUN:   %s -o %t.s 2>&1 | FileCheck %s --implicit-check-not=warning: --implicit-check-not=error:
// CHECK-DAG: remark: kvalidate: kernel 'scale_16': equivalent ({{[0-9]+}} ms) [assumptions: {{.*}}the before kernel reaches no __builtin_unreachable() (undefined behaviour)
// CHECK-DAG: remark: kvalidate: kernel 'tiled_sum': equivalent ({{[0-9]+}} ms) [assumptions: {{.*}}the before kernel reaches no __builtin_unreachable() (undefined behaviour)

__global__ void scale_16(int *out, const int *in) {
  if (blockDim.x != 16)
    __builtin_unreachable();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i] * 2;
}

// Correct only for 8 x 8 blocks: each thread sums one column of its block's
// tile, staged through shared memory, for n / 8 tiles.
#define T 8
__global__ void tiled_sum(int *out, const int *in, int n) {
  if (blockDim.x != T || blockDim.y != T)
    __builtin_unreachable();
  __shared__ int tile[T][T];
  int col = blockIdx.x * T + threadIdx.x;
  int acc = 0;
  for (int t = 0; t < n / T; ++t) {
    tile[threadIdx.y][threadIdx.x] = in[(t * T + threadIdx.y) * 1024 + col];
    __syncthreads();
    for (int k = 0; k < T; ++k)
      acc += tile[k][threadIdx.x];
    __syncthreads();
  }
  if (threadIdx.y == 0)
    out[col] = acc;
}
