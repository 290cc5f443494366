// A difference only in a NaN's sign or payload is no difference: LLVM
// leaves them unspecified, and -O2 turns `x * (c ? -1.0f : 1.0f)` into a
// negation that keeps an input NaN's bits where the GPU's multiplication
// makes the result the canonical NaN. Such a replay (the input a NaN with
// the sign bit set) once failed a correct build as `not-equivalent`.
//
// REQUIRES: long
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate -mllvm -kvalidate-cache= %s -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --implicit-check-not=error: --implicit-check-not=not-equivalent
// CHECK: remark: kvalidate: kernel 'checkerboard_sign': {{equivalent|unknown}}
//
// A wrong sign is still caught from the command line, with a replayed
// counterexample on numbers.
// RUN: %expect-exit 1 %kvalidate --cuda-path= %s:checkerboard_sign %s:checkerboard_wrong | FileCheck %s --check-prefix=NE
// NE: verdict: not-equivalent

struct Complex {
  float re, im;
};

__global__ void checkerboard_sign(float *out, const Complex *in, unsigned w) {
  unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
  unsigned i = y * w + x;
  float s = ((x + y) & 1) ? -1.0f : 1.0f;
  if (x < w)
    out[i] = in[i].im * s;
}

__global__ void checkerboard_wrong(float *out, const Complex *in, unsigned w) {
  unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
  unsigned i = y * w + x;
  float s = ((x + y) & 1) ? 1.0f : -1.0f;
  if (x < w)
    out[i] = in[i].im * s;
}
