// Thread coarsening of a row-major 2-D kernel (`out[y * w + x]`) under one
// launch: each thread of the coarsened kernels covers C columns or rows a
// block apart. The writer of a cell is found by solving the other kernel's
// write index for one axis's coordinate (the `x` of `y * w + x`, or the `y`
// under the product with the width) and taking the coordinate apart into
// block id, loop iteration and thread id by their scales.
//
// REQUIRES: long
// The proofs take 12-22 s on an idle machine (a query whose refinement
// makes 76 products exact), within the modelled-loops attempt's share of
// the budget: a budget of 240 s (60 s for it) under load.
// RUN: %expect-exit 0 %kvalidate --cuda-path= --timeout=240 \
// RUN:   --assume='w > 0 && h > 0 && w <= 4096 && h <= 4096 && gridDim.x * blockDim.x >= w && gridDim.x * blockDim.x < w + blockDim.x && gridDim.y * blockDim.y >= h && gridDim.y * blockDim.y < h + blockDim.y' \
// RUN:   %s:blend %s:blend_cols | FileCheck %s --check-prefix=EQ
// RUN: %expect-exit 0 %kvalidate --cuda-path= --timeout=240 \
// RUN:   --assume='w > 0 && h > 0 && w <= 4096 && h <= 4096 && gridDim.x * blockDim.x >= w && gridDim.x * blockDim.x < w + blockDim.x && gridDim.y * blockDim.y >= h && gridDim.y * blockDim.y < h + blockDim.y' \
// RUN:   %s:offset %s:offset_rows | FileCheck %s --check-prefix=EQ
// RUN: %expect-exit 0 %kvalidate --cuda-path= --timeout=240 \
// RUN:   --assume='blockDim.x == 16 && blockDim.y == 16 && w > 0 && h > 0 && w <= 4096 && h <= 4096 && gridDim.x * blockDim.x >= w && gridDim.x * blockDim.x < w + blockDim.x && gridDim.y * blockDim.y >= h && gridDim.y * blockDim.y < h + blockDim.y' \
// RUN:   %s:offset %s:offset_rows | FileCheck %s --check-prefix=EQ
// EQ: verdict: equivalent
//
// Rows a block and one apart: a cell written twice, another not at all.
// RUN: %expect-exit 1 %kvalidate --cuda-path= --timeout=240 \
// RUN:   --assume='w > 0 && h > 0 && w <= 4096 && h <= 4096 && gridDim.x * blockDim.x >= w && gridDim.x * blockDim.x < w + blockDim.x && gridDim.y * blockDim.y >= h && gridDim.y * blockDim.y < h + blockDim.y' \
// RUN:   %s:offset %s:offset_rows_skewed | FileCheck %s --check-prefix=NE
// NE: verdict: not-equivalent
// NE: (replayed)

__global__ void blend(const float *a, float *out, int w, int h) {
  int col = threadIdx.x + blockDim.x * blockIdx.x;
  int row = threadIdx.y + blockDim.y * blockIdx.y;
  if (row < h && col < w)
    out[row * w + col] = 0.25f * a[row * w + col] + 1.0f;
}

// Two columns per thread, a block apart.
__global__ void blend_cols(const float *a, float *out, int w, int h) {
  int row = threadIdx.y + blockDim.y * blockIdx.y;
  for (int j = 0; j < 2; ++j) {
    int col = 2 * blockDim.x * blockIdx.x + j * blockDim.x + threadIdx.x;
    if (row < h && col < w)
      out[row * w + col] = 0.25f * a[row * w + col] + 1.0f;
  }
}

__global__ void offset(const int *a, int *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h)
    out[y * w + x] = a[y * w + x] - x;
}

// Four rows per thread, a block apart.
__global__ void offset_rows(const int *a, int *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int first = blockIdx.y * blockDim.y * 4 + threadIdx.y;
  for (int r = 0; r < 4; ++r) {
    int y = first + r * blockDim.y;
    if (x < w && y < h)
      out[y * w + x] = a[y * w + x] - x;
  }
}

__global__ void offset_rows_skewed(const int *a, int *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int first = blockIdx.y * blockDim.y * 4 + threadIdx.y;
  for (int r = 0; r < 4; ++r) {
    int y = first + r * (blockDim.y + 1);
    if (x < w && y < h)
      out[y * w + x] = a[y * w + x] - x;
  }
}
