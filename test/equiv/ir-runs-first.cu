// Before any model, both kernels' own LLVM IR runs on small launches the
// assumptions admit (--run-ir-first, on by default): a difference neither
// run can owe to a race is a counterexample, and a race a run shows is the
// verdict. Double buffering lowers slowly (the kv lowering unrolls the
// barrier loop whose trip count n / T is symbolic); its wrong variants are
// still found in milliseconds.
// DEFINE: %{MV} = blockDim.x == 16 && %{1D} && n > 0 && n % 16 == 0 && n <= 4096
//
// The prefetch stops one tile early: the last tile reads a stale buffer.
// REQUIRES: long
// RUN: %expect-exit 1 %kvalidate --timeout=30 --assume='%{MV}' \
// RUN:   %s:staged %s:pingpong_early | FileCheck %s --check-prefix=EARLY
// EARLY:      verdict: not-equivalent
// EARLY-NEXT:   found by: running both kernels' LLVM IR on pseudo-random inputs ({{[0-9]+}} run{{s?}} on small launches the assumptions admit), before any solver query
// EARLY:        blockDim = (16, 1, 1)
// EARLY:        scalars: n = {{[0-9]+}}
// EARLY:        mismatch: y[{{[0-9]+}}]
// EARLY:        replayed on: the LLVM IR of both kernels
//
// Reading the buffer the block is filling: a read-write race on the run.
// RUN: %expect-exit 4 %kvalidate --timeout=30 --assume='%{MV}' \
// RUN:   %s:staged %s:pingpong_racy | FileCheck %s --check-prefix=RACY
// RACY:      verdict: race
// RACY-NEXT:   reason: after kernel: read-write race on xs[{{[0-9]+}}]: thread ({{[0-9,]+}}) of block (0,0,0) reads at {{.*}}ir-runs-first.cu:[[@LINE+75]]:{{[0-9]+}}; thread ({{[0-9,]+}}) of block (0,0,0) writes at {{.*}}ir-runs-first.cu:[[@LINE+73]]:{{[0-9]+}} (gridDim
// RACY-NEXT:   confirmed: the after kernel's LLVM IR ran at this launch (gridDim ({{[0-9,]+}}), blockDim (16,1,1), pseudo-random inputs) and showed it: two threads of a block access one cell in one barrier interval
//
// The baseline's one launch (--threads) runs the IR there first.
// RUN: %expect-exit 1 %kvalidate --threads=16 --run-first=2000 --timeout=30 --assume='n > 0 && n % 16 == 0 && n <= 4096' \
// RUN:   %s:staged %s:pingpong_early | FileCheck %s --check-prefix=BASE
// BASE:      verdict: not-equivalent
// BASE-NEXT:   found by: running both kernels' LLVM IR on pseudo-random inputs ({{[0-9]+}} run{{s?}} on the launch given), before any solver query
//
// Off, the same pair waits for the model (here: out of time).
// RUN: %expect-exit 2 %kvalidate --run-ir-first=false --timeout=3 --assume='%{MV}' \
// RUN:   %s:staged %s:pingpong_early | FileCheck %s --check-prefix=OFF
// OFF: verdict: unknown
//
// A block fixed at 512 threads, more than the small launches have: the
// runs take the launch the assumptions leave. The tree that stops one step
// early leaves half the block out.
// RUN: %expect-exit 1 %kvalidate --assume='blockDim.x == 512 && %{1D}' \
// RUN:   %s:block_sum %s:block_sum_short | FileCheck %s --check-prefix=BIG
// BIG:      verdict: not-equivalent
// BIG-NEXT:   found by: running both kernels' LLVM IR
// BIG:        blockDim = (512, 1, 1)
//
// Equal kernels stay equal: the runs find nothing and the proof decides.
// RUN: %expect-exit 0 %kvalidate --assume='blockDim.x == 512 && %{1D}' \
// RUN:   %s:block_sum %s:block_sum | FileCheck %s --check-prefix=SAME
// SAME: verdict: equivalent

#define T 16

__global__ void staged(const int *a, const int *x, int *y, int n) {
  __shared__ int xs[T];
  unsigned tx = threadIdx.x;
  int row = blockIdx.x * T + tx;
  int acc = 0;
  for (int k = 0; k < n / T; ++k) {
    xs[tx] = x[k * T + tx];
    __syncthreads();
    for (int j = 0; j < T; ++j)
      acc += a[row * n + k * T + j] * xs[j];
    __syncthreads();
  }
  y[row] = acc;
}

__global__ void pingpong_early(const int *a, const int *x, int *y, int n) {
  __shared__ int xs[2][T];
  unsigned tx = threadIdx.x;
  int row = blockIdx.x * T + tx;
  int acc = 0;
  int tiles = n / T;
  xs[0][tx] = x[tx];
  __syncthreads();
  for (int k = 0; k < tiles; ++k) {
    if (k + 2 < tiles)
      xs[(k + 1) & 1][tx] = x[(k + 1) * T + tx];
    for (int j = 0; j < T; ++j)
      acc += a[row * n + k * T + j] * xs[k & 1][j];
    __syncthreads();
  }
  y[row] = acc;
}

__global__ void pingpong_racy(const int *a, const int *x, int *y, int n) {
  __shared__ int xs[2][T];
  unsigned tx = threadIdx.x;
  int row = blockIdx.x * T + tx;
  int acc = 0;
  int tiles = n / T;
  xs[0][tx] = x[tx];
  __syncthreads();
  for (int k = 0; k < tiles; ++k) {
    if (k + 1 < tiles)
      xs[(k + 1) & 1][tx] = x[(k + 1) * T + tx];
    for (int j = 0; j < T; ++j)
      acc += a[row * n + k * T + j] * xs[(k + 1) & 1][j];
    __syncthreads();
  }
  y[row] = acc;
}

__global__ void block_sum(const int *in, int *out) {
  __shared__ int s[512];
  unsigned t = threadIdx.x;
  s[t] = in[blockIdx.x * 512 + t];
  __syncthreads();
  for (unsigned h = 256; h > 0; h /= 2) {
    if (t < h)
      s[t] += s[t + h];
    __syncthreads();
  }
  if (t == 0)
    out[blockIdx.x] = s[0];
}

__global__ void block_sum_short(const int *in, int *out) {
  __shared__ int s[512];
  unsigned t = threadIdx.x;
  s[t] = in[blockIdx.x * 512 + t];
  __syncthreads();
  for (unsigned h = 256; h > 1; h /= 2) {
    if (t < h)
      s[t] += s[t + h];
    __syncthreads();
  }
  if (t == 0)
    out[blockIdx.x] = s[0];
}
