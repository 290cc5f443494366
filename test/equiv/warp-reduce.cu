// sm_80's warp reductions (__reduce_*_sync, redux.sync): the operation over
// the values of every lane in the mask, each of which must execute it.
// Without the SDK (kv_cuda.h declares them as the SDK does).
//
// Against a shuffle tree (a tree of max or of bit operations against the
// flat reduction is a harder query: out of time at 120 s).
// REQUIRES: long
// RUN: %expect-exit 0 %kvalidate --cuda-path= --assume="%{1D} && blockDim.x % 32 == 0" %s:sum_tree %s:sum_redux | FileCheck %s --check-prefix=EQ
// EQ: verdict: equivalent
//
// Half a warp's mask, min for max, and/or swapped: counterexamples, each
// replayed on both kernels' IR (which computes redux.sync on its own).
// RUN: %expect-exit 1 %kvalidate --cuda-path= --assume="%{1D} && blockDim.x % 32 == 0" %s:sum_tree %s:sum_half | FileCheck %s --check-prefix=NE
// RUN: %expect-exit 1 %kvalidate --cuda-path= --assume="%{1D} && blockDim.x % 32 == 0" %s:max_tree %s:min_redux | FileCheck %s --check-prefix=NE
// RUN: %expect-exit 1 %kvalidate --cuda-path= --assume="%{1D} && blockDim.x % 32 == 0" %s:bits_redux %s:bits_swapped | FileCheck %s --check-prefix=NE
// NE: verdict: not-equivalent
// NE: replayed on: the LLVM IR of both kernels
//
// A mask that names lanes which do not execute the reduction.
// RUN: %expect-exit 4 %kvalidate --cuda-path= --assume="%{1D} && blockDim.x % 32 == 0" %s:sum_tree %s:sum_absent | FileCheck %s --check-prefix=ABSENT
// ABSENT: verdict: divergence

__global__ void sum_tree(const unsigned *in, unsigned *out) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned v = in[i];
  for (int d = 16; d > 0; d /= 2)
    v += __shfl_down_sync(0xffffffffu, v, d);
  if (threadIdx.x % 32 == 0)
    out[i / 32] = v;
}

__global__ void sum_redux(const unsigned *in, unsigned *out) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned v = __reduce_add_sync(0xffffffffu, in[i]);
  if (threadIdx.x % 32 == 0)
    out[i / 32] = v;
}

__global__ void sum_half(const unsigned *in, unsigned *out) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned v = 0;
  if (threadIdx.x % 32 < 16)
    v = __reduce_add_sync(0x0000ffffu, in[i]);
  if (threadIdx.x % 32 == 0)
    out[i / 32] = v;
}

__global__ void sum_absent(const unsigned *in, unsigned *out) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned v = 0;
  if (threadIdx.x % 32 < 16)
    v = __reduce_add_sync(0xffffffffu, in[i]);
  if (threadIdx.x % 32 == 0)
    out[i / 32] = v;
}

__global__ void max_tree(const int *in, int *out) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[i];
  for (int d = 16; d > 0; d /= 2)
    v = max(v, __shfl_down_sync(0xffffffffu, v, d));
  if (threadIdx.x % 32 == 0)
    out[i / 32] = v;
}

__global__ void min_redux(const int *in, int *out) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = __reduce_min_sync(0xffffffffu, in[i]);
  if (threadIdx.x % 32 == 0)
    out[i / 32] = v;
}

__global__ void bits_redux(const unsigned *in, unsigned *out) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned a = __reduce_and_sync(0xffffffffu, in[i]);
  unsigned o = __reduce_or_sync(0xffffffffu, in[i]);
  unsigned x = __reduce_xor_sync(0xffffffffu, in[i]);
  if (threadIdx.x % 32 == 0)
    out[i / 32] = a + 3 * o + 7 * x;
}

__global__ void bits_swapped(const unsigned *in, unsigned *out) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned a = __reduce_or_sync(0xffffffffu, in[i]);
  unsigned o = __reduce_and_sync(0xffffffffu, in[i]);
  unsigned x = __reduce_xor_sync(0xffffffffu, in[i]);
  if (threadIdx.x % 32 == 0)
    out[i / 32] = a + 3 * o + 7 * x;
}
