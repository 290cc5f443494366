// A 2-D five-point stencil against its shared-memory version with a halo
// of one cell around each 16x16 tile, whose bottom halo row is loaded from
// the wrong row. The kernels run first on launches drawn within the
// assumptions, with pseudo-random inputs: the difference shows on the
// first run, confirmed on the LLVM IR, whose runs are checked free of
// races, divergent barriers and out-of-bounds shared accesses, without a
// solver query (milliseconds where the solver alone takes minutes).
//
// RUN: %expect-exit 1 %kvalidate --assume='blockDim.x == 16 && blockDim.y == 16 && blockDim.z == 1 && gridDim.z == 1' \
// RUN:   %s:blur5 %s:blur5_wrong_halo | FileCheck %s
// CHECK:      verdict: not-equivalent
// CHECK-NEXT:   found by: running both kernels' LLVM IR on pseudo-random inputs ({{[0-9]+}} run{{s?}} on small launches the assumptions admit), before any solver query
// CHECK:        - checked on the run: neither kernel has a data race, a barrier not every thread of a block reaches, or an out-of-bounds shared access on this launch and input
// CHECK:        counterexample (replayed):
// CHECK-NEXT:     gridDim  = ({{[0-9]+}}, {{[0-9]+}}, 1)
// CHECK-NEXT:     blockDim = (16, 16, 1)
// CHECK-NEXT:     scalars: w = {{[0-9]+}}, h = {{[0-9]+}}
// CHECK:          mismatch: out[{{[0-9]+}}]: before = {{-?[0-9]+}}, after = {{-?[0-9]+}}
// CHECK-NEXT:     replayed on: the LLVM IR of both kernels
//
// With the runs before the proof off, the solver gets 3 s, does not finish,
// and the runs after an open proof find the same difference.
// RUN: %expect-exit 1 %kvalidate --run-first=0 --timeout=3 --assume='blockDim.x == 16 && blockDim.y == 16 && blockDim.z == 1 && gridDim.z == 1' \
// RUN:   %s:blur5 %s:blur5_wrong_halo | FileCheck %s --check-prefix=LATE
// LATE:      verdict: not-equivalent
// LATE-NEXT:   found by: running both kernels on pseudo-random inputs ({{[0-9]+}} run{{s?}} on launches the assumptions admit), after the proof ended unknown: timeout
// LATE:          replayed on: the LLVM IR of both kernels

#define T 16

__global__ void blur5(int *out, const int *in, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || y < 1 || x >= w - 1 || y >= h - 1)
    return;
  out[y * w + x] = in[y * w + x] + in[y * w + x - 1] + in[y * w + x + 1] +
                   in[(y - 1) * w + x] + in[(y + 1) * w + x];
}

// The bottom halo row is loaded from row y instead of y + 1.
__global__ void blur5_wrong_halo(int *out, const int *in, int w, int h) {
  __shared__ int s[T + 2][T + 2];
  int tx = threadIdx.x, ty = threadIdx.y;
  int x = blockIdx.x * T + tx;
  int y = blockIdx.y * T + ty;
  if (x < w && y < h) {
    s[ty + 1][tx + 1] = in[y * w + x];
    if (tx == 0 && x > 0)
      s[ty + 1][0] = in[y * w + x - 1];
    if (tx == T - 1 && x + 1 < w)
      s[ty + 1][T + 1] = in[y * w + x + 1];
    if (ty == 0 && y > 0)
      s[0][tx + 1] = in[(y - 1) * w + x];
    if (ty == T - 1 && y + 1 < h)
      s[T + 1][tx + 1] = in[y * w + x];
  }
  __syncthreads();
  if (x < 1 || y < 1 || x >= w - 1 || y >= h - 1)
    return;
  out[y * w + x] = s[ty + 1][tx + 1] + s[ty + 1][tx] + s[ty + 1][tx + 2] +
                   s[ty][tx + 1] + s[ty + 2][tx + 1];
}
