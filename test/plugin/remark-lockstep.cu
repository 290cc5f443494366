// Without any -kvalidate-assume, a reduction's -O2 pipeline (levels
// unrolled from a template parameter, operands reordered, 64-bit indices)
// keeps its barriers and what each thread writes in each interval: the
// interval-by-interval proof settles it in seconds, where following each
// level's reads back through the tree outlasts any budget (timeout.cu).
//
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate -mllvm -kvalidate-timeout=60 \
// RUN:   %s -o /dev/null 2>&1 | FileCheck %s --implicit-check-not=warning: --implicit-check-not=error:
// CHECK-DAG: remark: kvalidate: kernel 'block_sum<128u>': equivalent ({{[0-9]+}} ms) [assumptions: pointer parameters src, partial point to distinct
// CHECK-DAG: remark: kvalidate: kernel 'prefix_steps': equivalent ({{[0-9]+}} ms)

// Two elements per thread, then a tree over dynamic shared memory; the
// levels above 32 depend on the template parameter.
template <unsigned Threads>
__global__ void block_sum(const int *src, int *partial, unsigned count) {
  extern __shared__ int acc[];
  unsigned lane = threadIdx.x;
  unsigned at = blockIdx.x * (2 * Threads) + lane;
  int v = at < count ? src[at] : 0;
  if (at + Threads < count)
    v += src[at + Threads];
  acc[lane] = v;
  __syncthreads();
  if (Threads >= 128) {
    if (lane < 64)
      acc[lane] = v = v + acc[lane + 64];
    __syncthreads();
  }
  for (unsigned half = 32; half > 0; half /= 2) {
    if (lane < half)
      acc[lane] = v = v + acc[lane + half];
    __syncthreads();
  }
  if (lane == 0)
    partial[blockIdx.x] = v;
}
template __global__ void block_sum<128>(const int *, int *, unsigned);

// An inclusive scan of 64 elements in one shared array, read and written in
// separate intervals of each step.
__global__ void prefix_steps(int *dst, const int *src) {
  __shared__ int line[64];
  int k = threadIdx.x;
  line[k] = src[blockIdx.x * 64 + k];
  __syncthreads();
  for (int gap = 1; gap < 64; gap <<= 1) {
    int add = k >= gap ? line[k - gap] : 0;
    __syncthreads();
    line[k] += add;
    __syncthreads();
  }
  dst[blockIdx.x * 64 + k] = line[k];
}
