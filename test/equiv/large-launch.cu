// A counterexample at a launch the assumptions make large (2^21 threads,
// as a 1024 x 2048 image with one thread per pixel) is replayed: the
// executor runs every thread, one block at a time, up to 2^22 threads.
//
// REQUIRES: long
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
