// A counterexample at a launch the assumptions make large (2^21 threads,
// as a 1024 x 2048 image with one thread per pixel) is replayed: the
// executor runs every thread, one block at a time, up to 2^22 threads.
//
// RUN: %expect-exit 1 %kvalidate --assume='blockDim.x == 32 && blockDim.y == 8 && blockDim.z == 1' \
// RUN:   --assume='gridDim.x == 32 && gridDim.y == 256 && gridDim.z == 1' --assume='w == 1024' \
// RUN:   %s:brighten %s:brighten_wrong | FileCheck %s
// CHECK:      verdict: not-equivalent
// CHECK:      counterexample (replayed):
// CHECK-NEXT:   gridDim  = (32, 256, 1)
// CHECK-NEXT:   blockDim = (32, 8, 1)
// CHECK:        mismatch: img[{{[0-9]+}}]:
//
// Past 2^22 threads no replay is run, and the verdict says why.
// RUN: %expect-exit 2 %kvalidate --hunt=0 --assume='blockDim.x == 32 && blockDim.y == 8 && blockDim.z == 1' \
// RUN:   --assume='gridDim.x == 32 && gridDim.y == 65535 && gridDim.z == 1' --assume='w == 1024' \
// RUN:   %s:brighten %s:brighten_wrong | FileCheck %s --check-prefix=HUGE
// HUGE: verdict: unknown
// HUGE: launch of 536862720 threads exceeds the limit of 4194304 threads
//
// The same with the launch fixed by the assumptions at 64x64 blocks of
// 16x16 threads (2^20 threads, a 1024x1024 transpose through a shared
// tile): the search for a small launch finds every dimension within its
// bound, and the model still runs at its full size.
// RUN: %expect-exit 1 %kvalidate --assume='blockDim.x == 16 && blockDim.y == 16 && blockDim.z == 1' \
// RUN:   --assume='gridDim.x == 64 && gridDim.y == 64 && gridDim.z == 1 && width == 1024 && height == 1024' \
// RUN:   %s:transpose_direct %s:transpose_tiles_only | FileCheck %s --check-prefix=TILES
// TILES:      verdict: not-equivalent
// TILES:      counterexample (replayed):
// TILES-NEXT:   gridDim  = (64, 64, 1)
// TILES-NEXT:   blockDim = (16, 16, 1)
// TILES:        mismatch: out[{{[0-9]+}}]:

__global__ void brighten(int *img, int w) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  img[y * w + x] += 1;
}

// Off by one on the last column of each row.
__global__ void brighten_wrong(int *img, int w) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  img[y * w + x] += x == w - 1 ? 2 : 1;
}

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
