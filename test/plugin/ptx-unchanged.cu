// The plugin only observes: the PTX is byte-for-byte the same with and
// without it (and with the -mllvm options that change what it checks).
//
// RUN: %clang-cuda -O2 -S %s -o %t.without.s
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate %s -o %t.with.s 2> %t.remarks
// RUN: cmp %t.without.s %t.with.s
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -mllvm -kvalidate-bits=16 \
// RUN:   -mllvm -kvalidate-assume='blockDim.x <= 128' %s -o %t.opts.s
// RUN: cmp %t.without.s %t.opts.s
//
// Both kernels really were validated.
// RUN: FileCheck %s < %t.remarks
// CHECK-DAG: remark: kvalidate: kernel 'stencil_shared': equivalent
// CHECK-DAG: remark: kvalidate: kernel 'saxpy': equivalent

#define BLOCK 128

__global__ void stencil_shared(int *out, const int *in, int n) {
  __shared__ int s[BLOCK + 2];
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    s[tid + 1] = in[i];
  if (tid == 0 && i >= 1 && i - 1 < n)
    s[0] = in[i - 1];
  if (tid == (int)blockDim.x - 1 && i + 1 < n)
    s[tid + 2] = in[i + 1];
  __syncthreads();
  if (i >= 1 && i < n - 1)
    out[i] = s[tid] + s[tid + 1] + s[tid + 2];
}

__global__ void saxpy(float *y, const float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}
