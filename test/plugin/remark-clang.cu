// clang -fpass-plugin=libkvalidate.so validates every kernel of the device
// compile; -Rpass=kvalidate shows one remark per kernel at its definition:
// "kvalidate: kernel 'NAME': equivalent (N ms)".
//
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate %s -o %t.s 2>&1 \
// RUN:   | FileCheck %s --implicit-check-not=warning: --implicit-check-not=error:
// CHECK: remark-clang.cu:[[@LINE+9]]:17: remark: kvalidate: kernel 'copy': equivalent ({{[0-9]+}} ms) [assumptions: {{.*}}] [-Rpass=kvalidate]
// CHECK: remark-clang.cu:[[@LINE+17]]:17: remark: kvalidate: kernel 'transpose_tiled': equivalent ({{[0-9]+}} ms)
// CHECK-NOT: remark:
//
// The compile itself is not affected: PTX comes out.
// RUN: FileCheck %s --check-prefix=PTX < %t.s
// PTX: .visible .entry _Z4copyPiPKii(
// PTX: .visible .entry _Z15transpose_tiledPiPKiii(

__global__ void copy(int *out, const int *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i];
}

// Shared memory and a barrier: the optimizer's output is still checked
// against the source kernel.
#define TILE 16
__global__ void transpose_tiled(int *out, const int *in, int width, int height) {
  __shared__ int tile[TILE][TILE];
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height)
    tile[threadIdx.y][threadIdx.x] = in[y * width + x];
  __syncthreads();
  int x2 = blockIdx.y * blockDim.y + threadIdx.x;
  int y2 = blockIdx.x * blockDim.x + threadIdx.y;
  if (x2 < height && y2 < width)
    out[y2 * height + x2] = tile[threadIdx.x][threadIdx.y];
}
