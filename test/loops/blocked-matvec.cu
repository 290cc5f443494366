// Rewrites that give a thread more work per cell: register blocking (three
// rows per thread, their sums in registers) and double buffering (the next
// tile staged while this one is read). The writer of a cell in one kernel
// is found from the other's cell; each write's value is encoded where it
// hits the cell (its index the cell itself), so both kernels' reads of
// their inputs are the same terms, and a test the loop repeats under the
// write's own guard folds away.
// The solver-heavy lane (test/lit.cfg.py).
// REQUIRES: long
//
// RUN: %expect-exit 0 %kvalidate --cuda-path= --timeout=60 \
// RUN:   --assume='blockDim.x == 64 && blockDim.y == 1 && blockDim.z == 1 && gridDim.y == 1 && gridDim.z == 1 && rows > 0 && rows <= 65536 && gridDim.x * blockDim.x >= rows && gridDim.x * blockDim.x < rows + blockDim.x' \
// RUN:   %s:rows_naive %s:rows_blocked | FileCheck %s --check-prefix=EQ
// RUN: %expect-exit 0 %kvalidate --cuda-path= --timeout=60 \
// RUN:   --assume='blockDim.x == 16 && blockDim.y == 1 && blockDim.z == 1 && gridDim.y == 1 && gridDim.z == 1' \
// RUN:   %s:staged %s:double_buffered | FileCheck %s --check-prefix=EQ
// EQ: verdict: equivalent
//
// A third row one block too far, a prefetch of the tile after next:
// counterexamples the kernels' own code produces.
// RUN: %expect-exit 1 %kvalidate --cuda-path= --timeout=60 \
// RUN:   --assume='blockDim.x == 64 && blockDim.y == 1 && blockDim.z == 1 && gridDim.y == 1 && gridDim.z == 1 && rows > 0 && rows <= 65536 && gridDim.x * blockDim.x >= rows && gridDim.x * blockDim.x < rows + blockDim.x' \
// RUN:   %s:rows_naive %s:rows_blocked_gap | FileCheck %s --check-prefix=NE
// RUN: %expect-exit 1 %kvalidate --cuda-path= --timeout=60 \
// RUN:   --assume='blockDim.x == 16 && blockDim.y == 1 && blockDim.z == 1 && gridDim.y == 1 && gridDim.z == 1' \
// RUN:   %s:staged %s:double_buffered_ahead | FileCheck %s --check-prefix=NE
// NE: verdict: not-equivalent
// NE: counterexample (replayed)

#define COLS 24

// Each thread one row of a row-major matrix times a vector.
__global__ void rows_naive(const float *w, const float *v, float *out,
                           int rows) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows)
    return;
  float s = 0.0f;
  for (int c = 0; c < COLS; ++c)
    s += w[r * COLS + c] * v[c];
  out[r] = s;
}

// Three rows per thread, blockDim.x apart, their sums in registers and each
// v[c] loaded once for the three.
__global__ void rows_blocked(const float *w, const float *v, float *out,
                             int rows) {
  int base = blockIdx.x * blockDim.x * 3 + threadIdx.x;
  float s[3] = {0.0f, 0.0f, 0.0f};
  for (int c = 0; c < COLS; ++c) {
    float vc = v[c];
    for (int i = 0; i < 3; ++i) {
      int r = base + i * blockDim.x;
      if (r < rows)
        s[i] += w[r * COLS + c] * vc;
    }
  }
  for (int i = 0; i < 3; ++i) {
    int r = base + i * blockDim.x;
    if (r < rows)
      out[r] = s[i];
  }
}

// The third row one block further than the first thread of the next: rows
// skipped, others written twice.
__global__ void rows_blocked_gap(const float *w, const float *v, float *out,
                                 int rows) {
  int base = blockIdx.x * blockDim.x * 3 + threadIdx.x;
  float s[3] = {0.0f, 0.0f, 0.0f};
  for (int c = 0; c < COLS; ++c) {
    float vc = v[c];
    for (int i = 0; i < 3; ++i) {
      int r = base + i * blockDim.x + (i == 2 ? blockDim.x : 0);
      if (r < rows)
        s[i] += w[r * COLS + c] * vc;
    }
  }
  for (int i = 0; i < 3; ++i) {
    int r = base + i * blockDim.x + (i == 2 ? blockDim.x : 0);
    if (r < rows)
      out[r] = s[i];
  }
}

#define TILE 16
#define LEN 48

// y = A x for a LEN-column matrix, x staged through shared memory one tile
// at a time, two barriers per tile.
__global__ void staged(const int *A, const int *x, int *y) {
  __shared__ int xs[TILE];
  int row = blockIdx.x * TILE + threadIdx.x;
  int acc = 0;
  for (int t = 0; t < LEN; t += TILE) {
    xs[threadIdx.x] = x[t + threadIdx.x];
    __syncthreads();
    for (int j = 0; j < TILE; ++j)
      acc += A[row * LEN + t + j] * xs[j];
    __syncthreads();
  }
  y[row] = acc;
}

// Double buffered: the next tile is loaded into the other half while this
// one is used, one barrier per tile.
__global__ void double_buffered(const int *A, const int *x, int *y) {
  __shared__ int xs[2 * TILE];
  int row = blockIdx.x * TILE + threadIdx.x;
  int acc = 0;
  xs[threadIdx.x] = x[threadIdx.x];
  __syncthreads();
  int cur = 0;
  for (int t = 0; t < LEN; t += TILE) {
    if (t + TILE < LEN)
      xs[(cur ^ 1) * TILE + threadIdx.x] = x[t + TILE + threadIdx.x];
    for (int j = 0; j < TILE; ++j)
      acc += A[row * LEN + t + j] * xs[cur * TILE + j];
    cur ^= 1;
    __syncthreads();
  }
  y[row] = acc;
}

// The prefetch reads the tile after next.
__global__ void double_buffered_ahead(const int *A, const int *x, int *y) {
  __shared__ int xs[2 * TILE];
  int row = blockIdx.x * TILE + threadIdx.x;
  int acc = 0;
  xs[threadIdx.x] = x[threadIdx.x];
  __syncthreads();
  int cur = 0;
  for (int t = 0; t < LEN; t += TILE) {
    if (t + TILE < LEN)
      xs[(cur ^ 1) * TILE + threadIdx.x] = x[(t + 2 * TILE) % LEN + threadIdx.x];
    for (int j = 0; j < TILE; ++j)
      acc += A[row * LEN + t + j] * xs[cur * TILE + j];
    cur ^= 1;
    __syncthreads();
  }
  y[row] = acc;
}
