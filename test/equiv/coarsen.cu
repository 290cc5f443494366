// Thread coarsening under one launch: each thread of the coarsened kernels
// covers C cells, contiguous (`gid * C + c`) or a block apart
// (`blockIdx.x * blockDim.x * C + threadIdx.x + c * blockDim.x`), so the
// writer of a cell is in another block than the one-cell kernel's. Its
// candidate comes from solving the write index for the axis's coordinate
// (the global id, split by blockDim, symbolic or fixed) or for the block id,
// a factor C of 3 under a symbolic blockDim included, contiguous or a
// block apart (the quotient by 3 * blockDim multiplies as the kernel does,
// (q * blockDim) * 3). 2-D: coarsen-2d.cu.
//
// REQUIRES: long
// The after kernels' writes are told apart without a race query: their
// index is a mixed-radix number of the ids and the iteration.
// RUN: %expect-exit 0 %kvalidate --cuda-path= --timeout=60 \
// RUN:   --assume='n > 0 && n <= 1048576 && gridDim.x * blockDim.x >= n && gridDim.x * blockDim.x < n + blockDim.x && blockDim.y == 1 && blockDim.z == 1 && gridDim.y == 1 && gridDim.z == 1' \
// RUN:   %s:affine %s:contiguous | FileCheck %s --check-prefix=EQ
// RUN: %expect-exit 0 %kvalidate --cuda-path= --timeout=60 \
// RUN:   --assume='n > 0 && n <= 1048576 && blockDim.x == 64 && gridDim.x * blockDim.x >= n && gridDim.x * blockDim.x < n + blockDim.x && blockDim.y == 1 && blockDim.z == 1 && gridDim.y == 1 && gridDim.z == 1' \
// RUN:   %s:affine %s:cyclic | FileCheck %s --check-prefix=EQ
// RUN: %expect-exit 0 %kvalidate --cuda-path= --timeout=60 \
// RUN:   --assume='n > 0 && n <= 1048576 && blockDim.x == 96 && gridDim.x * blockDim.x >= n && gridDim.x * blockDim.x < n + blockDim.x && blockDim.y == 1 && blockDim.z == 1 && gridDim.y == 1 && gridDim.z == 1' \
// RUN:   %s:affine_f %s:contiguous_f | FileCheck %s --check-prefix=EQ
// RUN: %expect-exit 0 %kvalidate --cuda-path= --timeout=60 \
// RUN:   --assume='n > 0 && n <= 1048576 && gridDim.x * blockDim.x >= n && gridDim.x * blockDim.x < n + blockDim.x && blockDim.y == 1 && blockDim.z == 1 && gridDim.y == 1 && gridDim.z == 1' \
// RUN:   %s:affine %s:cyclic3 | FileCheck %s --check-prefix=EQ
// RUN: %expect-exit 0 %kvalidate --cuda-path= --timeout=60 \
// RUN:   --assume='n > 0 && n <= 1048576 && gridDim.x * blockDim.x >= n && gridDim.x * blockDim.x < n + blockDim.x && blockDim.y == 1 && blockDim.z == 1 && gridDim.y == 1 && gridDim.z == 1' \
// RUN:   %s:affine %s:contiguous3 | FileCheck %s --check-prefix=EQ
// EQ: verdict: equivalent
//
// Each thread's four (three) cells, one of them left out.
// RUN: %expect-exit 1 %kvalidate --cuda-path= --timeout=60 \
// RUN:   --assume='n > 0 && n <= 1048576 && gridDim.x * blockDim.x >= n && gridDim.x * blockDim.x < n + blockDim.x && blockDim.y == 1 && blockDim.z == 1 && gridDim.y == 1 && gridDim.z == 1' \
// RUN:   %s:affine %s:contiguous_gap | FileCheck %s --check-prefix=NE
// RUN: %expect-exit 1 %kvalidate --cuda-path= --timeout=60 \
// RUN:   --assume='n > 0 && n <= 1048576 && gridDim.x * blockDim.x >= n && gridDim.x * blockDim.x < n + blockDim.x && blockDim.y == 1 && blockDim.z == 1 && gridDim.y == 1 && gridDim.z == 1' \
// RUN:   %s:affine %s:contiguous3_gap | FileCheck %s --check-prefix=NE
// NE: verdict: not-equivalent
// NE: (replayed)

__global__ void affine(const int *src, int *dst, int n) {
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  if (g < n)
    dst[g] = 5 * src[g] - 7;
}

__global__ void contiguous(const int *src, int *dst, int n) {
  int first = 4 * (threadIdx.x + blockIdx.x * blockDim.x);
  for (int c = 0; c < 4; ++c)
    if (first + c < n)
      dst[first + c] = 5 * src[first + c] - 7;
}

__global__ void contiguous_gap(const int *src, int *dst, int n) {
  int first = 4 * (threadIdx.x + blockIdx.x * blockDim.x);
  for (int c = 0; c < 3; ++c)
    if (first + c < n)
      dst[first + c] = 5 * src[first + c] - 7;
}

__global__ void cyclic(const int *src, int *dst, int n) {
  int start = blockIdx.x * blockDim.x * 2 + threadIdx.x;
  for (int c = 0; c < 2; ++c) {
    int g = start + c * blockDim.x;
    if (g < n)
      dst[g] = 5 * src[g] - 7;
  }
}

__global__ void affine_f(const float *src, float *dst, int n) {
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  if (g < n)
    dst[g] = src[g] * 0.5f + 2.0f;
}

__global__ void contiguous_f(const float *src, float *dst, int n) {
  int first = (blockIdx.x * blockDim.x + threadIdx.x) * 2;
  if (first < n)
    dst[first] = src[first] * 0.5f + 2.0f;
  if (first + 1 < n)
    dst[first + 1] = src[first + 1] * 0.5f + 2.0f;
}

// Three cells per thread under a symbolic blockDim: a block apart, and
// contiguous.
__global__ void cyclic3(const int *src, int *dst, int n) {
  int base = 3 * blockDim.x * blockIdx.x + threadIdx.x;
  for (int c = 0; c < 3; ++c) {
    int g = base + c * blockDim.x;
    if (g < n)
      dst[g] = 5 * src[g] - 7;
  }
}

__global__ void contiguous3(const int *src, int *dst, int n) {
  int first = (blockIdx.x * blockDim.x + threadIdx.x) * 3;
  for (int c = 0; c < 3; ++c)
    if (first + c < n)
      dst[first + c] = 5 * src[first + c] - 7;
}

__global__ void contiguous3_gap(const int *src, int *dst, int n) {
  int first = (blockIdx.x * blockDim.x + threadIdx.x) * 3;
  for (int c = 0; c < 2; ++c)
    if (first + c < n)
      dst[first + c] = 5 * src[first + c] - 7;
}
