// Differences that only show at sizes on a launch's edges: one element past
// two blocks' worth, or a block boundary one before the end. The runs before
// the proof try, on every launch they draw, the sizes just past a block's,
// two blocks' and the grid's worth of elements, so such a difference is
// found in milliseconds and replayed on the IR (the limit below is a
// twentieth of the budget the proof would take).
//
// Two elements per thread against a grid-stride loop: the same for
// n <= 2 * blockDim.x * gridDim.x, different past it. With blocks of whole
// warps no size the runs draw at random (at most 64) is past it.
// RUN: %expect-exit 1 %kvalidate --cuda-path= --assume='blockDim.x % 32 == 0 && %{1D} && n >= 0' \
// RUN:   %s:scale_strided %s:scale_two_each | FileCheck %s --check-prefix=TWO
// TWO:      verdict: not-equivalent
// TWO:        counterexample (replayed):
// TWO:          mismatch: out[{{[0-9]+}}]: before = {{-?[0-9]+}}, after = {{-?[0-9]+}}
// TWO-NEXT:     replayed on: the LLVM IR of both kernels
// TWO-NEXT:   time: {{([0-9]{1,3}|[1-4][0-9]{3})}} ms
//
// A shared-memory stencil whose right halo is loaded only if i + 2 < n: the
// block's last thread reads a halo cell nobody wrote when it is the
// second-to-last element, n == k * blockDim.x + 1.
// RUN: %expect-exit 1 %kvalidate --cuda-path= --assume='%{B256} && n >= 0' \
// RUN:   %s:blur_direct %s:blur_halo_short | FileCheck %s --check-prefix=HALO
// HALO:      verdict: not-equivalent
// HALO:        counterexample (replayed):
// HALO:          scalars: n = [[N:[0-9]+]]
// HALO:          mismatch: out[{{[0-9]+}}]: before = {{-?[0-9]+}}, after = {{-?[0-9]+}}
// HALO-NEXT:     replayed on: the LLVM IR of both kernels
// HALO-NEXT:   time: {{([0-9]{1,3}|[1-4][0-9]{3})}} ms
//
// The halo loaded right: the same sizes find nothing, and the pair is
// proved.
// RUN: %expect-exit 0 %kvalidate --cuda-path= --assume='%{B256} && n >= 0' \
// RUN:   %s:blur_direct %s:blur_halo | FileCheck %s --check-prefix=EQ
// EQ: verdict: equivalent

__global__ void scale_strided(int *out, const int *in, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    out[i] = 3 * in[i];
}

// Covers 2 * blockDim.x * gridDim.x elements, however large n is.
__global__ void scale_two_each(int *out, const int *in, int n) {
  int i = blockIdx.x * 2 * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = 3 * in[i];
  if (i + blockDim.x < n)
    out[i + blockDim.x] = 3 * in[i + blockDim.x];
}

__global__ void blur_direct(int *out, const int *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= 1 && i + 1 < n)
    out[i] = in[i - 1] + 2 * in[i] + in[i + 1];
}

#define TILE 256

__global__ void blur_halo(int *out, const int *in, int n) {
  __shared__ int s[TILE + 2];
  int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  if (i < n)
    s[t + 1] = in[i];
  if (t == 0 && i >= 1 && i - 1 < n)
    s[0] = in[i - 1];
  if (t + 1 == (int)blockDim.x && i + 1 < n)
    s[t + 2] = in[i + 1];
  __syncthreads();
  if (i >= 1 && i + 1 < n)
    out[i] = s[t] + 2 * s[t + 1] + s[t + 2];
}

__global__ void blur_halo_short(int *out, const int *in, int n) {
  __shared__ int s[TILE + 2];
  int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  if (i < n)
    s[t + 1] = in[i];
  if (t == 0 && i >= 1 && i - 1 < n)
    s[0] = in[i - 1];
  if (t + 1 == (int)blockDim.x && i + 2 < n)
    s[t + 2] = in[i + 1];
  __syncthreads();
  if (i >= 1 && i + 1 < n)
    out[i] = s[t] + 2 * s[t + 1] + s[t + 2];
}
