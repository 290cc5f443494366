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
