// A mat-vec whose x is staged through shared memory T elements per tile, for
// n / T tiles (the inner loop over a tile is unrolled by -O2; the tile loop
// stays, with its barriers): proved by the plugin with no assumptions, for
// every n and every grid. The kernels state their block shape, as they must
// (a thread stages one element of each tile). The float dot product is
// aligned iteration by iteration (a fold in column order); the int one is a
// sum. (Both were unknown: the comparison of one tile's eight terms timed
// out before it compared their indices.)
//
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate -mllvm -kvalidate-cache= \
// RUN:   %s -o %t.s 2>&1 | FileCheck %s --implicit-check-not=warning: --implicit-check-not=error:
// CHECK-DAG: remark: kvalidate: kernel 'matvec_tiled_f': equivalent ({{[0-9]+}} ms) [assumptions: {{.*}}the before kernel reaches no __builtin_unreachable() (undefined behaviour)
// CHECK-DAG: remark: kvalidate: kernel 'matvec_tiled_i': equivalent ({{[0-9]+}} ms) [assumptions: {{.*}}the before kernel reaches no __builtin_unreachable() (undefined behaviour)

#define T 8
#define BLOCK_IS_ONE_TILE()                                                    \
  if (blockDim.x != T || blockDim.y != 1 || blockDim.z != 1 ||                 \
      gridDim.y != 1 || gridDim.z != 1)                                        \
  __builtin_unreachable()

// y = A x for a rows x n row-major A, one row per thread.
template <typename V>
__device__ void matvec_tiled(V *y, const V *A, const V *x, int rows, int n) {
  BLOCK_IS_ONE_TILE();
  __shared__ V xs[T];
  int r = blockIdx.x * T + threadIdx.x;
  V acc = 0;
  for (int t = 0; t < n / T; ++t) {
    xs[threadIdx.x] = x[t * T + threadIdx.x];
    __syncthreads();
    for (int j = 0; j < T; ++j)
      acc += A[r * n + t * T + j] * xs[j];
    __syncthreads();
  }
  if (r < rows)
    y[r] = acc;
}

__global__ void matvec_tiled_f(float *y, const float *A, const float *x,
                               int rows, int n) {
  matvec_tiled(y, A, x, rows, n);
}

__global__ void matvec_tiled_i(int *y, const int *A, const int *x, int rows,
                               int n) {
  matvec_tiled(y, A, x, rows, n);
}
