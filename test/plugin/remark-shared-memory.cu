// The plugin validates kernels with shared memory and barriers: the -O2
// output of each kernel is equivalent to its source (no --assume needed: the
// optimizer must preserve every launch; the source kernel's out-of-bounds
// shared accesses are undefined behaviour and excluded).
//
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate %s -o %t.s 2>&1 \
// RUN:   | FileCheck %s --implicit-check-not=warning: --implicit-check-not=error:
// CHECK-DAG: remark: kvalidate: kernel 'transpose_tiled': equivalent ({{[0-9]+}} ms)
// CHECK-DAG: remark: kvalidate: kernel 'stencil_shared': equivalent ({{[0-9]+}} ms)
// CHECK-DAG: remark: kvalidate: kernel 'float_copy_shared_mirror': equivalent ({{[0-9]+}} ms)

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

#define BLOCK 256
__global__ void stencil_shared(int *out, const int *in, int n) {
  __shared__ int s[BLOCK + 2];
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    s[tid + 1] = in[i];
  if (tid == 0 && i >= 1 && i - 1 < n)
    s[0] = in[i - 1];
  if (tid == (int)blockDim.x - 1 && i + 1 < n)
    s[tid + 2] = in[i + 1];
  __syncthreads();
  if (i >= 1 && i < n - 1)
    out[i] = s[tid] + s[tid + 1] + s[tid + 2];
}

__global__ void float_copy_shared_mirror(float *out, const float *in, int n) {
  __shared__ float buf[BLOCK];
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    buf[tid] = in[i];
  __syncthreads();
  int mt = blockDim.x - 1 - threadIdx.x;
  int j = blockIdx.x * blockDim.x + (blockDim.x - 1 - threadIdx.x);
  if (j < n)
    out[j] = buf[mt];
}
