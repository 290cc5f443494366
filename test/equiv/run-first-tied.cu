// The runs before the proof draw launches value by value; where the
// assumptions tie two values together (square blocks: blockDim.x ==
// blockDim.y), a value drawn for one alone is rejected, and is tried for
// the other one as well. Without that, every launch drawn here had one
// thread per block, where these two kernels agree.
//
// RUN: %expect-exit 1 %kvalidate --cuda-path= --assume='blockDim.x == blockDim.y && blockDim.x <= 16 && blockDim.z == 1 && gridDim.x <= 1024 && gridDim.y == 1 && gridDim.z == 1' \
// RUN:   %s:flip_rows %s:flip_cols | FileCheck %s
// CHECK:      verdict: not-equivalent
// CHECK-NEXT:   found by: running both kernels' LLVM IR on pseudo-random inputs ({{[0-9]+}} run{{s?}} on small launches the assumptions admit), before any solver query
// CHECK:        counterexample (replayed):
// CHECK-NEXT:     gridDim  = ({{[0-9]+}}, 1, 1)
// CHECK-NEXT:     blockDim = ([[B:[0-9]*[02-9]]], [[B]], 1)
// CHECK:          mismatch: out[{{[0-9]+}}]
//
// A size tied to the launch (one thread per element, no block past the
// last one's): one grid per size, so a grid drawn alone is rejected; the
// size then follows the grid, to one of its edges. Without that, every
// launch drawn had one block, where the coarsened copy that drops its
// second cell agrees (its first cells cover the grid's one block).
// RUN: %expect-exit 1 %kvalidate --cuda-path= --timeout=20 --assume='n > 0 && n <= 4096 && gridDim.x * blockDim.x >= n && gridDim.x * blockDim.x < n + blockDim.x && blockDim.y == 1 && blockDim.z == 1 && gridDim.y == 1 && gridDim.z == 1' \
// RUN:   %s:one_each %s:two_each_short | FileCheck %s --check-prefix=SIZE
// SIZE:      verdict: not-equivalent
// SIZE-NEXT:   found by: running both kernels' LLVM IR on pseudo-random inputs ({{[0-9]+}} run{{s?}} on small launches the assumptions admit), before any solver query
// SIZE:        counterexample (replayed):
// SIZE-NEXT:     gridDim  = ({{[2-9]|[1-9][0-9]+}}, 1, 1)
// SIZE:          mismatch: out[{{[0-9]+}}]

// Each block copies its square of cells; the second one transposed.
__global__ void flip_rows(int *out, const int *in) {
  unsigned base = blockIdx.x * blockDim.x * blockDim.y;
  out[base + threadIdx.y * blockDim.x + threadIdx.x] =
      in[base + threadIdx.y * blockDim.x + threadIdx.x];
}
__global__ void flip_cols(int *out, const int *in) {
  unsigned base = blockIdx.x * blockDim.x * blockDim.y;
  out[base + threadIdx.y * blockDim.x + threadIdx.x] =
      in[base + threadIdx.x * blockDim.y + threadIdx.y];
}

// One cell per thread; then two per thread, blockDim.x apart, the loop
// stopping after the first.
__global__ void one_each(int *out, const int *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i] - 5;
}
__global__ void two_each_short(int *out, const int *in, int n) {
  int first = blockIdx.x * blockDim.x * 2 + threadIdx.x;
  for (int c = 0; c < 1; ++c) {
    int i = first + c * blockDim.x;
    if (i < n)
      out[i] = in[i] - 5;
  }
}
