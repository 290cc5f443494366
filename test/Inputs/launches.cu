// Kernel pairs whose rewrite changes the launch: each kernel is compared at
// a launch of its own (--launch-before, --launch-after).

// One thread per element, and its coarsened twin: two elements per thread,
// launched with half the grid.
__global__ void scale(int *y, const int *x, int a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i];
}

__global__ void scale_coarse(int *y, const int *x, int a, int n) {
  int i = 2 * (blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n)
    y[i] = a * x[i];
  if (i + 1 < n)
    y[i + 1] = a * x[i + 1];
}

// The coarsened kernel with its two elements a block apart (coalesced):
// thread t of block b writes 2 * b * blockDim.x + t and that plus
// blockDim.x. Its parameters have names of their own.
__global__ void scale_strided(int *out, const int *in, int k, int len) {
  int i = 2 * blockIdx.x * blockDim.x + threadIdx.x;
  if (i < len)
    out[i] = k * in[i];
  if (i + blockDim.x < len)
    out[i + blockDim.x] = k * in[i + blockDim.x];
}

// An element-wise sum of matrices in 2-D blocks of 16 x 16 and in one
// dimension of 256 threads: the same element per thread, numbered
// differently (threadIdx.x / 16 is the row in the tile, % 16 the column).
__global__ void add2d(float *c, const float *a, const float *b, int n) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < n && col < n)
    c[row * n + col] = a[row * n + col] + b[row * n + col];
}

__global__ void add1d(float *c, const float *a, const float *b, int n) {
  int row = blockIdx.y * 16 + threadIdx.x / 16;
  int col = blockIdx.x * 16 + threadIdx.x % 16;
  if (row < n && col < n)
    c[row * n + col] = a[row * n + col] + b[row * n + col];
}

// The same in tiles of 32 x 8: a block of 256 threads, four warps along
// the row.
__global__ void add1d_wide(float *c, const float *a, const float *b, int n) {
  int row = blockIdx.y * 8 + threadIdx.x / 32;
  int col = blockIdx.x * 32 + threadIdx.x % 32;
  if (row < n && col < n)
    c[row * n + col] = a[row * n + col] + b[row * n + col];
}

// A naive integer matrix multiply in 16 x 16 blocks and its twin with 256
// threads in one dimension, each thread a row of the block's tile.
__global__ void mm_naive(int *c, const int *a, const int *b, int n) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < n && col < n) {
    int s = 0;
    for (int k = 0; k < n; ++k)
      s += a[row * n + k] * b[k * n + col];
    c[row * n + col] = s;
  }
}

__global__ void mm_flat(int *c, const int *a, const int *b, int n) {
  int row = blockIdx.y * 16 + threadIdx.x / 16;
  int col = blockIdx.x * 16 + threadIdx.x % 16;
  if (row < n && col < n) {
    int s = 0;
    for (int k = 0; k < n; ++k)
      s += a[row * n + k] * b[k * n + col];
    c[row * n + col] = s;
  }
}
