// Structs as values: a struct built field by field and returned by value
// (as make_float4 does), loaded and stored whole, taken apart with
// extractvalue and put together with insertvalue. Each is one value per
// scalar.
//
// REQUIRES: long
// RUN: %expect-exit 0 %kvalidate %s:scale4 %s:scale_each | FileCheck %s --check-prefix=SCALE
// SCALE: verdict: equivalent
// RUN: %expect-exit 1 %kvalidate %s:scale4 %s:scale4_swapped | FileCheck %s --check-prefix=SWAP
// SWAP: verdict: not-equivalent
// SWAP: counterexample (replayed):
// RUN: %expect-exit 0 %kvalidate %s:bounds_pair %s:bounds_inline | FileCheck %s --check-prefix=PAIR
// PAIR: verdict: equivalent
//
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate %s -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=PLUGIN
// PLUGIN-DAG: remark: kvalidate: kernel 'scale4': equivalent
// PLUGIN-DAG: remark: kvalidate: kernel 'bounds_pair': equivalent

struct __attribute__((aligned(16))) F4 {
  float x, y, z, w;
};

__device__ F4 make_f4(float x, float y, float z, float w) {
  F4 r;
  r.x = x;
  r.y = y;
  r.z = z;
  r.w = w;
  return r;
}

__global__ void scale4(F4 *out, const F4 *in, float a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  F4 v = in[i];
  out[i] = make_f4(a * v.x, a * v.y, a * v.z, a * v.w);
}

__global__ void scale_each(float *out, const float *in, float a) {
  long i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < 4; ++k)
    out[4 * i + k] = a * in[4 * i + k];
}

// y and z swapped, and left unscaled (a swap of a * v.y and a * v.z alone
// is not replayed: the model's a is 0, and the replay keeps scalars).
__global__ void scale4_swapped(F4 *out, const F4 *in, float a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  F4 v = in[i];
  out[i] = make_f4(a * v.x, v.z, v.y, a * v.w);
}

struct Bounds {
  int lo;
  long hi;
};

__device__ Bounds bounds_of(const int *in, int i) {
  Bounds b = {in[i], (long)in[i + 1] * 2};
  return b;
}

__global__ void bounds_pair(long *out, const int *in) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  Bounds b = bounds_of(in, 2 * i);
  out[i] = b.hi - b.lo;
}

__global__ void bounds_inline(long *out, const int *in) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = (long)in[2 * i + 1] * 2 - in[2 * i];
}
