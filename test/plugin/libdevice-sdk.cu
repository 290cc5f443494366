// With the CUDA SDK, libdevice's bodies are in the module: -O2 inlines
// them (their PTX intrinsics folded to LLVM's, an inline `rcp.approx`),
// and the lowering follows the same straight-line bodies before the
// pipeline (NVVMReflect's settings read as the pass reads them; exact PTX
// operations named as LLVM's; constants folded). The float math below was
// `unknown` ("cannot replay uninterpreted operation '__nv_expf'") while the
// calls stayed uninterpreted; now it is proved, at -O2 in the plugin and
// from the command line against the -O2 IR. A wrong rewrite of the same
// math is `not-equivalent`: the runs of both kernels' IR bound each
// approximation (ex2.approx within PTX's stated error) and the cells'
// ranges are disjoint.
// Bodies with loops (sinf's argument reduction) stay uninterpreted.
// powf's and log10f's bodies are proved because the lowering folds what
// -O2 folds in them: comparisons, roundings and |x| of constants (a
// constant exponent), an operation of constants on a select with a
// constant arm (`0.30103 * (p ? -inf : y)`), `x - c` as `x + -c`, |x| as
// the sign-bit mask; and the encoder takes float comparisons exactly
// (`!(|x| <= inf)` is `x uno 0`).
// REQUIRES: cuda-sdk
//
// REQUIRES: long
// RUN: %clang-path -x cuda --cuda-device-only --cuda-gpu-arch=sm_80 --cuda-path=/usr/local/cuda \
// RUN:   -Wno-unknown-cuda-version -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate -mllvm -kvalidate-cache= \
// RUN:   %s -o /dev/null 2>&1 | FileCheck %s --implicit-check-not=error:
// CHECK-DAG: remark: kvalidate: kernel 'softplus': equivalent
// CHECK-DAG: remark: kvalidate: kernel 'scaled_root': equivalent
// CHECK-DAG: remark: kvalidate: kernel 'activation': equivalent
// CHECK-DAG: remark: kvalidate: kernel 'norm2': equivalent
// CHECK-DAG: remark: kvalidate: kernel 'decay': equivalent
// CHECK-DAG: remark: kvalidate: kernel 'power': equivalent
// CHECK-DAG: remark: kvalidate: kernel 'power_of': equivalent
// CHECK-DAG: remark: kvalidate: kernel 'decibel': equivalent
// sinf's and cosf's bodies (a loop over __cudart_i2opi_f, which -O2 makes a
// constant, and an inline 64-bit `mad.lo.cc`/`madc.hi`) are inlined after
// the pipeline only: unknown, never a difference of the models alone.
// CHECK-DAG: remark: kvalidate: kernel 'phase': unknown
//
// Without the SDK the calls stay uninterpreted, equal on both sides: all
// proved.
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate -mllvm -kvalidate-cache= \
// RUN:   %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOSDK --implicit-check-not=error:
// NOSDK-COUNT-10: remark: kvalidate: kernel '{{[a-z_0-9]+}}': equivalent
// NOSDK-NOT: remark:
//
// RUN: %clang-path -x cuda --cuda-device-only --cuda-gpu-arch=sm_80 --cuda-path=/usr/local/cuda \
// RUN:   -Wno-unknown-cuda-version -O2 -S -emit-llvm %s -o %t.ll
// RUN: %expect-exit 0 %kvalidate --cuda-path=/usr/local/cuda %s:softplus %t.ll:softplus | FileCheck %s --check-prefix=CLI
// RUN: %expect-exit 0 %kvalidate --cuda-path=/usr/local/cuda %s:activation %t.ll:activation | FileCheck %s --check-prefix=CLI
// RUN: %expect-exit 0 %kvalidate --cuda-path=/usr/local/cuda %s:power_of %t.ll:power_of | FileCheck %s --check-prefix=CLI
// CLI: verdict: equivalent
// RUN: %expect-exit 1 %kvalidate --cuda-path=/usr/local/cuda --timeout=20 %s:softplus %t.ll:softplus_shifted | FileCheck %s --check-prefix=WRONG
// WRONG: verdict: not-equivalent
// WRONG: replayed on: the LLVM IR of both kernels

__global__ void softplus(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = logf(1.0f + expf(x[i]));
}

__global__ void softplus_shifted(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = logf(2.0f + expf(x[i]));
}

__global__ void scaled_root(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = 2.0f * sqrtf(fabsf(x[i])) + rsqrtf(x[i] + 1.0f);
}

// tanhf's body ends in an inline `rcp.approx.ftz.f32`.
__global__ void activation(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = tanhf(x[i]) * fmaxf(x[i], 0.0f) + floorf(x[i]);
}

__global__ void norm2(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i + 1 < n)
    y[i] = hypotf(x[i], x[i + 1]) / log2f(x[i] + 2.0f);
}

__global__ void decay(const double *x, double *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = exp(x[i]) * sqrt(x[i]) + fmin(x[i], 1.0);
}

__global__ void power(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = powf(x[i], 2.5f) - powf(x[i], -1.0f);
}

__global__ void power_of(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i + 1 < n)
    y[i] = powf(x[i], x[i + 1]);
}

__global__ void decibel(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = 10.0f * log10f(x[i] * x[i] + 1e-12f);
}

__global__ void phase(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = sinf(x[i]) * cosf(x[i]);
}
