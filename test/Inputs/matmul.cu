// Integer matrix multiply C = A * B for n x n row-major matrices: one
// output cell per thread, naive and shared-memory tiled (TILE x TILE tiles,
// n a multiple of TILE, one thread per cell of a tile). -DTILE=N changes
// the tile.
#ifndef TILE
#define TILE 16
#endif
// -DSTATE_BLOCK: the tiled kernels state the block shape they need, as a
// precondition the compiler reads (reaching `unreachable` is undefined).
#ifdef STATE_BLOCK
#define BLOCK_IS_TILE()                                                        \
  if (blockDim.x != TILE || blockDim.y != TILE)                                \
  __builtin_unreachable()
#else
#define BLOCK_IS_TILE()
#endif

__global__ void matmul_naive(int *c, const int *a, const int *b, int n) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < n && col < n) {
    int sum = 0;
    for (int k = 0; k < n; ++k)
      sum += a[row * n + k] * b[k * n + col];
    c[row * n + col] = sum;
  }
}

__global__ void matmul_tiled(int *c, const int *a, const int *b, int n) {
  BLOCK_IS_TILE();
  __shared__ int as[TILE][TILE];
  __shared__ int bs[TILE][TILE];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * TILE + ty;
  int col = blockIdx.x * TILE + tx;
  int sum = 0;
  for (int t = 0; t < n / TILE; ++t) {
    as[ty][tx] = a[row * n + t * TILE + tx];
    bs[ty][tx] = b[(t * TILE + ty) * n + col];
    __syncthreads();
    for (int k = 0; k < TILE; ++k)
      sum += as[ty][k] * bs[k][tx];
    __syncthreads();
  }
  c[row * n + col] = sum;
}

// Off by one: the last tile is never added.
__global__ void matmul_tiled_short(int *c, const int *a, const int *b, int n) {
  BLOCK_IS_TILE();
  __shared__ int as[TILE][TILE];
  __shared__ int bs[TILE][TILE];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * TILE + ty;
  int col = blockIdx.x * TILE + tx;
  int sum = 0;
  for (int t = 0; t < n / TILE - 1; ++t) {
    as[ty][tx] = a[row * n + t * TILE + tx];
    bs[ty][tx] = b[(t * TILE + ty) * n + col];
    __syncthreads();
    for (int k = 0; k < TILE; ++k)
      sum += as[ty][k] * bs[k][tx];
    __syncthreads();
  }
  c[row * n + col] = sum;
}
