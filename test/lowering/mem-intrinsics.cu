// memset and memcpy of a constant length (a zero-filled private array, a
// struct copied whole, a shared tile filled with one byte) become one
// store, and one load, per scalar the bytes cover.
//
// REQUIRES: long
// RUN: %expect-exit 0 %kvalidate %s:acc_zero_filled %s:acc_plain | FileCheck %s --check-prefix=ZERO
// ZERO: verdict: equivalent
// RUN: %expect-exit 0 %kvalidate %s:copy_whole %s:copy_fields | FileCheck %s --check-prefix=STRUCT
// STRUCT: verdict: equivalent
// RUN: %expect-exit 1 %kvalidate %s:copy_whole %s:copy_fields_swapped | FileCheck %s --check-prefix=SWAP
// SWAP: verdict: not-equivalent
// SWAP: counterexample (replayed):
// RUN: %expect-exit 0 %kvalidate --assume='blockDim.x <= 64' %s:fill_ones %s:minus_ones \
// RUN:   | FileCheck %s --check-prefix=ONES
// ONES: verdict: equivalent
//
// A length the kernel computes that may end inside an element: the model
// condition fails, with its line (test/calls/memcpy-length.cu has lengths
// that do not).
// RUN: %expect-exit 2 %kvalidate %s:zero_some %s:zero_some | FileCheck %s --check-prefix=SYM
// SYM: verdict: unsupported
// SYM-NEXT: reason: before kernel: model condition that fails: {{.*}}mem-intrinsics.cu:[[@LINE+66]]:3 {{.*}}: memset of whole scalars
//
// Inside clang at -O2 (where SROA removes most of them) every kernel but
// zero_some is proved.
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate %s -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=PLUGIN
// PLUGIN-DAG: remark: kvalidate: kernel 'acc_zero_filled': equivalent
// PLUGIN-DAG: remark: kvalidate: kernel 'copy_whole': equivalent
// PLUGIN-DAG: remark: kvalidate: kernel 'fill_ones': equivalent
// PLUGIN-DAG: remark: kvalidate: kernel 'zero_some': unsupported: {{.*}}memset of whole scalars

struct Quad {
  int a, b, c, d;
};

__global__ void acc_zero_filled(float *out, const float *in) {
  float r[8] = {0.0f};
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  for (int j = 0; j < 8; ++j)
    r[j] += in[t * 8 + j];
  for (int j = 0; j < 8; ++j)
    out[t * 8 + j] = r[j];
}

__global__ void acc_plain(float *out, const float *in) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  for (int j = 0; j < 8; ++j)
    out[t * 8 + j] = 0.0f + in[t * 8 + j];
}

__global__ void copy_whole(Quad *out, const Quad *in) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  Quad q = in[t];
  out[t] = q;
}

__global__ void copy_fields(Quad *out, const Quad *in) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  out[t].a = in[t].a;
  out[t].b = in[t].b;
  out[t].c = in[t].c;
  out[t].d = in[t].d;
}

__global__ void copy_fields_swapped(Quad *out, const Quad *in) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  out[t].a = in[t].a;
  out[t].b = in[t].c;
  out[t].c = in[t].b;
  out[t].d = in[t].d;
}

__global__ void fill_ones(int *out) {
  __shared__ int tile[64];
  if (threadIdx.x == 0)
    __builtin_memset(tile, 0xff, sizeof(tile));
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = tile[threadIdx.x];
}

__global__ void minus_ones(int *out) {
  out[blockIdx.x * blockDim.x + threadIdx.x] = -1;
}

__global__ void zero_some(int *out, int n) {
  int r[8];
  __builtin_memset(r, 0, n);
  out[threadIdx.x] = r[3];
}
