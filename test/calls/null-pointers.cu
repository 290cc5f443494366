// Pointer parameters compared with null (an optional bias or mask): whether
// each is null is an input of the model (the array 'null pointers', cell i
// for parameter i). Where it is null, the before kernel accesses nothing
// through it (an access would be undefined) and the checker proves the same
// of the after kernel. Runs pass null only where a solver's model does.
//
// RUN: %expect-exit 0 %kvalidate %s:bias_if %s:bias_select | FileCheck %s --check-prefix=EQ
// RUN: %expect-exit 0 %kvalidate --cuda-path= %s:masked_copy %s:masked_copy_early | FileCheck %s --check-prefix=EQ
// The before kernel reads the bias unconditionally: it is never null.
// RUN: %expect-exit 0 %kvalidate %s:bias_always %s:bias_if | FileCheck %s --check-prefix=EQ
// EQ: verdict: equivalent
//
// Another value where the bias is null: a counterexample with a null
// pointer, replayed on both kernels' IR.
// RUN: %expect-exit 1 %kvalidate %s:bias_if %s:bias_default_one | FileCheck %s --check-prefix=NE
// RUN: %expect-exit 1 %kvalidate --cuda-path= %s:masked_copy %s:masked_copy_inverted | FileCheck %s --check-prefix=NE
// NE: verdict: not-equivalent
// NE: input null pointers[2] = {{-?[1-9][0-9]*}}
// NE: replayed on: the LLVM IR of both kernels
//
// The after kernel reads the bias where it may be null: never equivalent.
// RUN: %expect-exit 2 %kvalidate %s:bias_if %s:bias_always | FileCheck %s --check-prefix=DEREF
// DEREF: verdict: unsupported
// DEREF: no access through a null pointer parameter
//
// Inside clang at -O2.
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate \
// RUN:   %s -o %t.s 2>&1 | FileCheck %s --check-prefix=O2 --implicit-check-not=error:
// O2-DAG: remark: kvalidate: kernel 'bias_if': equivalent
// O2-DAG: remark: kvalidate: kernel 'masked_copy': equivalent
// O2-DAG: remark: kvalidate: kernel 'masked_copy_early': equivalent

__global__ void bias_if(float *y, const float *x, const float *bias, float a,
                        int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float v = a * x[i];
  if (bias != nullptr)
    v += bias[i];
  y[i] = v;
}

__global__ void bias_select(float *y, const float *x, const float *bias,
                            float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = bias ? a * x[i] + bias[i] : a * x[i];
}

__global__ void bias_always(float *y, const float *x, const float *bias,
                            float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + bias[i];
}

__global__ void bias_default_one(float *y, const float *x, const float *bias,
                                 float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + (bias ? bias[i] : 1.0f);
}

// An optional mask: elements it clears are left alone.
__global__ void masked_copy(int *out, const int *in, const unsigned char *mask) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (!mask || mask[i])
    out[i] = in[i] * 3;
}

__global__ void masked_copy_early(int *out, const int *in,
                                  const unsigned char *mask) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (mask != nullptr && mask[i] == 0)
    return;
  int v = in[i];
  out[i] = v + v + v;
}

__global__ void masked_copy_inverted(int *out, const int *in,
                                     const unsigned char *mask) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (mask && mask[i])
    out[i] = in[i] * 3;
}
