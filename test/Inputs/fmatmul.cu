// Float matrix multiply C = A * B (n x n, row-major), one output cell per
// thread, written for kvalidate's loop alignment tests
// (test/loops/fold-tiled.test):
//
//   fmm_naive      acc += a[row,k] * b[k,col] for k = 0 .. n-1, in floats
//   fmm_tiled      the same over TILE x TILE shared-memory tiles: a barrier
//                  loop over n / TILE tiles, an inner loop over the tile
//                  (n a multiple of TILE): the same additions in the same
//                  order, bit for bit
//   fmm_tiled_rev  the inner loop reversed: other roundings
#ifndef TILE
#define TILE 16
#endif

__global__ void fmm_naive(float *c, const float *a, const float *b, int n) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < n && col < n) {
    float acc = 0.0f;
    for (int k = 0; k < n; ++k)
      acc += a[row * n + k] * b[k * n + col];
    c[row * n + col] = acc;
  }
}

__global__ void fmm_tiled(float *c, const float *a, const float *b, int n) {
  __shared__ float as[TILE][TILE];
  __shared__ float bs[TILE][TILE];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * TILE + ty;
  int col = blockIdx.x * TILE + tx;
  float acc = 0.0f;
  for (int t = 0; t < n / TILE; ++t) {
    as[ty][tx] = a[row * n + t * TILE + tx];
    bs[ty][tx] = b[(t * TILE + ty) * n + col];
    __syncthreads();
    for (int k = 0; k < TILE; ++k)
      acc += as[ty][k] * bs[k][tx];
    __syncthreads();
  }
  c[row * n + col] = acc;
}

__global__ void fmm_tiled_rev(float *c, const float *a, const float *b, int n) {
  __shared__ float as[TILE][TILE];
  __shared__ float bs[TILE][TILE];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * TILE + ty;
  int col = blockIdx.x * TILE + tx;
  float acc = 0.0f;
  for (int t = 0; t < n / TILE; ++t) {
    as[ty][tx] = a[row * n + t * TILE + tx];
    bs[ty][tx] = b[(t * TILE + ty) * n + col];
    __syncthreads();
    for (int k = TILE - 1; k >= 0; --k)
      acc += as[ty][k] * bs[k][tx];
    __syncthreads();
  }
  c[row * n + col] = acc;
}
