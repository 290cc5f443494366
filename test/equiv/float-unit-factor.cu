// A factor or divisor of 1 or -1: x * 1 and x / 1 are x, x * -1 and
// x / -1 are -x, bit for bit but for a NaN operand's sign and payload,
// which LLVM leaves unspecified (InstCombine folds them so). A sign
// correction written as a product with `c ? -1.0f : 1.0f` becomes
// `c ? -x : x` at -O2; the verdict says what it rests on.
//
// RUN: %expect-exit 0 %kvalidate --assume='%{1D}' %s:sign_product %s:sign_select | FileCheck %s --check-prefix=EQ
// RUN: %expect-exit 0 %kvalidate --assume='%{1D}' %s:units %s:units_folded | FileCheck %s --check-prefix=EQ
// EQ: verdict: equivalent
// EQ: - x * 1 and x / 1 are x, x * -1 and x / -1 are -x, as LLVM folds them
//
// The signs swapped, and a factor of 2 that is not a unit: replayed
// differences.
// RUN: %expect-exit 1 %kvalidate --assume='%{1D}' %s:sign_product %s:sign_swapped | FileCheck %s --check-prefix=NE
// RUN: %expect-exit 1 %kvalidate --assume='%{1D}' %s:units %s:units_doubled | FileCheck %s --check-prefix=NE
// NE: verdict: not-equivalent
// NE: replayed on: the LLVM IR of both kernels
//
// In the plugin at -O2, no assumption: the source's product against the
// fneg and select -O2 leaves.
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate -mllvm -kvalidate-cache= \
// RUN:   %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=O2 --implicit-check-not=error:
// O2-DAG: remark: kvalidate: kernel 'sign_product': equivalent
// O2-DAG: remark: kvalidate: kernel 'units': equivalent
// O2-DAG: remark: kvalidate: kernel 'height_map': equivalent

__global__ void sign_product(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float sign = (i & 1) ? -1.0f : 1.0f;
  if (i < n)
    y[i] = x[i] * sign;
}

__global__ void sign_select(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = (i & 1) ? -x[i] : x[i];
}

__global__ void sign_swapped(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = (i & 1) ? x[i] : -x[i];
}

__global__ void units(const float *x, double *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i];
    y[2 * i] = (double)(v * 1.0f) + (double)(v / -1.0f);
    y[2 * i + 1] = -1.0 * (double)v / 1.0;
  }
}

__global__ void units_folded(const float *x, double *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i];
    y[2 * i] = (double)v + (double)-v;
    y[2 * i + 1] = -(double)v;
  }
}

__global__ void units_doubled(const float *x, double *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i];
    y[2 * i] = (double)v + (double)-v;
    y[2 * i + 1] = -2.0 * (double)v;
  }
}

// A 2-D height map whose checkerboard sign is a float factor.
struct cplx {
  float re, im;
};

__global__ void height_map(float *h, const cplx *spectrum, unsigned w) {
  unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
  unsigned i = y * w + x;
  float sign = ((x + y) & 1) ? -1.0f : 1.0f;
  h[i] = spectrum[i].re * sign;
}
