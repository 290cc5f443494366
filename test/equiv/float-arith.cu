// Float arithmetic is kept uninterpreted: the same operations on the same
// operands are equal, and nothing else is known about them.
//
// The kernels are 1-D: with blockDim.y > 1, two threads share an i and one
// reads y[i] while the other writes it (a race), hence %{1D}.
//
// The same computation written with a temporary: equivalent, and the verdict
// says what it rests on.
// REQUIRES: long
// RUN: %expect-exit 0 %kvalidate --assume='%{1D}' %s:saxpy %s:saxpy_temp | FileCheck %s --check-prefix=SAME
// SAME: verdict: equivalent
// SAME: - floating-point and other uninterpreted operations give equal results on equal operands
//
// y + a*x instead of a*x + y is the same IEEE value, bit for bit (a NaN
// result's payload is unspecified in LLVM and canonical on the GPU): the
// encoder keeps one operand order for fadd and fmul.
// RUN: %expect-exit 0 %kvalidate --assume='%{1D}' %s:saxpy %s:saxpy_commuted | FileCheck %s --check-prefix=COMM
// COMM: verdict: equivalent
//
// So is a comparison and its mirror (x > 0 against 0 < x).
// RUN: %expect-exit 0 %kvalidate %s:relu %s:relu_mirrored | FileCheck %s --check-prefix=MIRROR
// MIRROR: verdict: equivalent
//
// InstCombine's `c ? r + x : r` -> `r + (c ? x : -0.0)`: x + (-0.0) is x
// but for a NaN operand's payload, which LLVM leaves unspecified; the
// verdict says it rests on that.
// RUN: %expect-exit 0 %kvalidate --assume='%{1D}' %s:add_if %s:add_select | FileCheck %s --check-prefix=NEGZERO
// NEGZERO: verdict: equivalent
// NEGZERO: - x + (-0.0) is x, as LLVM folds it
//
// Subtraction does not commute: x - y against y - x differs, and the
// counterexample replays on the executor's IEEE arithmetic.
// RUN: %expect-exit 1 %kvalidate --assume='%{1D}' %s:saxpy_sub %s:saxpy_sub_swapped | FileCheck %s --check-prefix=SUB
// SUB: verdict: not-equivalent
// SUB: counterexample (replayed):
//
// Conversions replay as the GPU computes them (round to nearest): halving
// an int before or after converting it differs on odd values.
// RUN: %expect-exit 1 %kvalidate --assume='%{1D}' %s:half_int %s:half_float | FileCheck %s --check-prefix=CONV
// CONV: verdict: not-equivalent
// CONV: counterexample (replayed):
// CONV: mismatch: out[{{[0-9]+}}]:
//
// So do PTX's conversions (__float2int_rn is llvm.nvvm.f2i.rn once
// libdevice is linked): to nearest even against toward zero.
// RUN: %expect-exit 1 %kvalidate --assume='%{1D}' %s:round_rn %s:round_rz | FileCheck %s --check-prefix=CVT
// CVT: verdict: not-equivalent
// CVT: counterexample (replayed):
// CVT: mismatch: out[{{[0-9]+}}]:
//
// An unsigned conversion of a non-negative int is the signed one (-O2
// turns `(float)count` into `uitofp nneg`): a count of in-bounds
// neighbours converted either way is one value, proved (the solver is
// asked: no runs first).
// RUN: %expect-exit 0 %kvalidate --run-first=0 --hunt=0 --assume='%{1D}' %s:mean_signed %s:mean_unsigned \
// RUN:   | FileCheck %s --check-prefix=UNSIGNED
// UNSIGNED: verdict: equivalent
// A negative int is not: (float)k against (float)(unsigned)k differs for
// k < 0, and the counterexample replays.
// RUN: %expect-exit 1 %kvalidate --run-first=0 --hunt=0 --assume='%{1D}' %s:convert_signed %s:convert_unsigned \
// RUN:   | FileCheck %s --check-prefix=NEGATIVE
// NEGATIVE: verdict: not-equivalent
// NEGATIVE: counterexample (replayed):
// NEGATIVE: k = -{{[0-9]+}}
//
// exp(x) against exp(x + 0.0f) (equal: -0 and +0 have one exp). The solver
// sees two applications of an unknown function on different terms; its
// model is not replayed with values it chose for exp, the GPU's own
// approximation, which the host cannot compute: unknown, never a made-up
// counterexample.
// RUN: %expect-exit 2 %kvalidate --hunt=0 --assume='%{1D}' %s:exp_plain %s:exp_plus_zero | FileCheck %s --check-prefix=EXP
// EXP: verdict: unknown
// EXP: cannot replay uninterpreted operation '{{.*}}exp{{.*}}'
// EXP-NOT: counterexample

__global__ void add_if(float *out, const float *r, const float *x) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = x[i] > 1.0f ? r[i] + x[i] : r[i];
}

__global__ void add_select(float *out, const float *r, const float *x) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = r[i] + (x[i] > 1.0f ? x[i] : -0.0f);
}

__global__ void saxpy(float *y, const float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}

__global__ void saxpy_temp(float *y, const float *x, float a, int n) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  if (n > i) {
    float ax = a * x[i];
    float yi = y[i];
    y[i] = ax + yi;
  }
}

__global__ void saxpy_commuted(float *y, const float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = y[i] + a * x[i];
}

__global__ void relu(float *out, const float *x) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

__global__ void relu_mirrored(float *out, const float *x) {
  int i = threadIdx.x + blockDim.x * blockIdx.x;
  float v = x[i];
  out[i] = 0.0f < v ? v : 0.0f;
}

__global__ void saxpy_sub(float *y, const float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = x[i] - y[i];
}

__global__ void saxpy_sub_swapped(float *y, const float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = y[i] - x[i];
}

__global__ void half_int(float *out, const int *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = (float)(in[i] / 2);
}

__global__ void half_float(float *out, const int *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = (float)in[i] * 0.5f;
}

__global__ void exp_plain(float *out, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = __builtin_expf(x[i]);
}

__global__ void exp_plus_zero(float *out, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = __builtin_expf(x[i] + 0.0f);
}

__global__ void round_rn(int *out, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = __nvvm_f2i_rn(x[i]);
}

__global__ void round_rz(int *out, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = __nvvm_f2i_rz(x[i]);
}

// The mean of x[i] and, where it exists, x[i + 1].
__global__ void mean_signed(float *out, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  int count = i + 1 < n ? 2 : 1;
  float s = i + 1 < n ? x[i] + x[i + 1] : x[i];
  out[i] = s / (float)count;
}

__global__ void mean_unsigned(float *out, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  unsigned count = i + 1 < n ? 2u : 1u;
  float s = i + 1 < n ? x[i] + x[i + 1] : x[i];
  out[i] = s / (float)count;
}

__global__ void convert_signed(float *out, int k) {
  out[blockIdx.x * blockDim.x + threadIdx.x] = (float)k;
}

__global__ void convert_unsigned(float *out, int k) {
  out[blockIdx.x * blockDim.x + threadIdx.x] = (float)(unsigned)k;
}
