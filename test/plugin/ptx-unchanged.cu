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
// Both kernels really were validated (whatever the verdict: other tests
// check verdicts, this one the PTX).
// RUN: FileCheck %s < %t.remarks
// CHECK-DAG: kvalidate: kernel 'float_copy_shared':
// CHECK-DAG: kvalidate: kernel 'saxpy':

#define BLOCK 128

// Shared memory and a barrier.
__global__ void float_copy_shared(float *out, const float *in, int n) {
  __shared__ float buf[BLOCK];
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    buf[tid] = in[i];
  __syncthreads();
  if (i < n)
    out[i] = buf[tid];
}

__global__ void saxpy(float *y, const float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}
