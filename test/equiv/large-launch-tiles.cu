// A counterexample at a launch the assumptions fix at 64x64 blocks of 16x16
// threads (2^20 threads, a 1024x1024 transpose through a shared tile) is
// replayed at its full size: the search for a small launch finds every
// dimension within its bound and does not replay the same launch twice.
// (large-launch.cu keeps the 2^21-thread replay in the quick lane.)
//
// The solver-heavy lane (test/lit.cfg.py): two runs of 2^20 threads.
// REQUIRES: long
//
// RUN: %expect-exit 1 %kvalidate --phase-stats --assume='blockDim.x == 16 && blockDim.y == 16 && blockDim.z == 1' \
// RUN:   --assume='gridDim.x == 64 && gridDim.y == 64 && gridDim.z == 1 && width == 1024 && height == 1024' \
// RUN:   %s:transpose_direct %s:transpose_tiles_only 2>&1 | FileCheck %s --check-prefix=TILES
// TILES:      verdict: not-equivalent
// TILES:      counterexample (replayed):
// TILES-NEXT:   gridDim  = (64, 64, 1)
// TILES-NEXT:   blockDim = (16, 16, 1)
// TILES:        mismatch: out[{{[0-9]+}}]:
// One replay of the two kernels' models and their LLVM IR, not two.
// TILES:        replay {{ *[0-9]+}}      1

__global__ void transpose_direct(float *out, const float *in, int width,
                                 int height) {
  int x = blockIdx.x * 16 + threadIdx.x;
  int y = blockIdx.y * 16 + threadIdx.y;
  out[x * height + y] = in[y * width + x];
}

// Moves each 16x16 tile to its transposed place but does not transpose the
// elements inside it.
__global__ void transpose_tiles_only(float *out, const float *in, int width,
                                     int height) {
  __shared__ float tile[16][17];
  int x = blockIdx.x * 16 + threadIdx.x;
  int y = blockIdx.y * 16 + threadIdx.y;
  tile[threadIdx.y][threadIdx.x] = in[y * width + x];
  __syncthreads();
  int tx = blockIdx.y * 16 + threadIdx.x;
  int ty = blockIdx.x * 16 + threadIdx.y;
  out[ty * height + tx] = tile[threadIdx.y][threadIdx.x];
}
