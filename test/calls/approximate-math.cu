// The GPU's math is approximate: expf, sinf, __expf and rsqrtf return
// values within documented error bounds, not the exact results, so a run on
// the host cannot compute them. It bounds them instead: each approximate
// result is the range of every value a conforming GPU may return (PTX's
// stated error for ex2.approx and the like with the SDK's libdevice; the
// CUDA math library's ulp bounds without it), and what is computed from it
// is a range too. Two kernels whose outputs' ranges are disjoint differ on
// every GPU: a replayed counterexample. Kernels whose ranges overlap are
// never reported as different; the proof decides them.
//
// Without the SDK (the same kernels with it: approximate-math-sdk.cu):
// RUN: %expect-exit 0 %kvalidate --cuda-path= --timeout=60 %s:sigmoid %s:sigmoid_staged | FileCheck %s --check-prefix=SAME
// SAME: verdict: equivalent
// RUN: %expect-exit 1 %kvalidate --cuda-path= --timeout=60 %s:sigmoid %s:sigmoid_unnegated | FileCheck %s --check-prefix=DIFF
// DIFF: verdict: not-equivalent
// DIFF: mismatch: y[{{[0-9]+}}]
// DIFF-NEXT: approximate: {{(before|after)}} in [{{.*}}] (every value
// DIFF-NEXT: replayed on: the LLVM IR of both kernels
// Where the bounds round to one float, the cell is exact (no range shown).
// RUN: %expect-exit 1 %kvalidate --cuda-path= --timeout=60 %s:wave %s:wave_shifted | FileCheck %s --check-prefix=DIFF2
// RUN: %expect-exit 1 %kvalidate --cuda-path= --timeout=60 %s:fast_decay %s:fast_decay_halved | FileCheck %s --check-prefix=DIFF2
// RUN: %expect-exit 1 %kvalidate --cuda-path= --timeout=60 %s:normalize %s:normalize_unsquared | FileCheck %s --check-prefix=DIFF2
// DIFF2: verdict: not-equivalent
// DIFF2: replayed on: the LLVM IR of both kernels
//
// A kernel against itself, and two whose results lie within each other's
// bounds (grow, below): never a difference.
// RUN: %expect-exit 0 %kvalidate --cuda-path= --timeout=60 %s:wave %s:wave | FileCheck %s --check-prefix=SAME
// RUN: %expect-exit 2 %kvalidate --cuda-path= --timeout=20 %s:grow %s:grow_base2 | FileCheck %s --check-prefix=NEAR
// NEAR: verdict: unknown

__global__ void sigmoid(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = 1.0f / (1.0f + expf(-x[i]));
}

__global__ void sigmoid_staged(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float v = -x[i];
  float d = 1.0f + expf(v);
  y[i] = 1.0f / d;
}

// One expf argument differs.
__global__ void sigmoid_unnegated(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = 1.0f / (1.0f + expf(x[i]));
}

__global__ void wave(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = sinf(x[i]) * 4.0f + x[i];
}

__global__ void wave_shifted(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = sinf(x[i] + 0.5f) * 4.0f + x[i];
}

__global__ void fast_decay(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = __expf(-fabsf(x[i])) * x[i];
}

__global__ void fast_decay_halved(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = __expf(-fabsf(x[i]) * 0.5f) * x[i];
}

__global__ void normalize(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = x[i] * rsqrtf(x[i] * x[i] + 1.0f);
}

__global__ void normalize_unsquared(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = x[i] * rsqrtf(fabsf(x[i]) + 1.0f);
}

// expf(x) and exp2f(x * log2(e)) agree within their bounds (on a GPU, to
// an ulp or two, or not at all): no run can show them apart, and nothing
// proves them equal.
__global__ void grow(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = expf(x[i] * 0.001f);
}

__global__ void grow_base2(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = exp2f(x[i] * 0.001f * 1.44269504f);
}
