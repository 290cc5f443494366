// Kernels with atomics at -O2, no assumptions: histograms in global and in
// shared memory, a maximum, a bit set, a block's tree sum added once. The
// pipeline keeps each thread's atomic updates, so the interval-by-interval
// proof settles them; a kernel
// that uses the slot atomicAdd returns is named as unsupported, and the
// compile goes on.
//
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate -mllvm -kvalidate-cache= \
// RUN:   %s -o %t.s 2>&1 | FileCheck %s --implicit-check-not=error:
// RUN: FileCheck %s --check-prefix=PTX < %t.s
// CHECK-DAG: remark: kvalidate: kernel 'histogram': equivalent ({{[0-9]+}} ms) {{.*}}[proof: interval by interval
// CHECK-DAG: remark: kvalidate: kernel 'block_histogram': equivalent ({{[0-9]+}} ms) {{.*}}[proof: interval by interval
// CHECK-DAG: remark: kvalidate: kernel 'largest': equivalent
// CHECK-DAG: remark: kvalidate: kernel 'flags': equivalent
// CHECK-DAG: remark: kvalidate: kernel 'block_sum': equivalent
// CHECK-DAG: remark: kvalidate: kernel 'append': unsupported: {{.*}}remark-atomics.cu:[[@LINE+52]]:9: use of the old value that atomicAdd returns
// A grid-stride loop's atomics: the loops pair iteration by iteration.
// CHECK-DAG: remark: kvalidate: kernel 'strided_histogram': equivalent ({{[0-9]+}} ms) {{.*}}[proof: interval by interval
// The atomics reach the PTX unchanged.
// PTX-DAG: atom.global.add.u32
// PTX-DAG: atom.shared.add.u32
// PTX-DAG: atom.global.max.s32
// PTX-DAG: atom.global.or.b32

__global__ void histogram(unsigned *bins, const unsigned char *pixels,
                          int count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count)
    atomicAdd(&bins[pixels[i] >> 4], 1u);
}

__global__ void strided_histogram(unsigned *bins, const unsigned char *pixels,
                                  int count) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < count;
       i += blockDim.x * gridDim.x)
    atomicAdd(&bins[pixels[i] >> 4], 1u);
}

__global__ void block_histogram(unsigned *bins, const unsigned char *pixels,
                                int count) {
  __shared__ unsigned local[16];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x < 16)
    local[threadIdx.x] = 0;
  __syncthreads();
  if (i < count)
    atomicAdd(&local[pixels[i] >> 4], 1u);
  __syncthreads();
  if (threadIdx.x < 16 && local[threadIdx.x] > 0)
    atomicAdd(&bins[threadIdx.x], local[threadIdx.x]);
}

__global__ void largest(int *best, const int *values, int count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count)
    atomicMax(best, values[i] * 2 + 1);
}

__global__ void flags(unsigned *seen, const int *keys, int count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count)
    atomicOr(&seen[(keys[i] >> 5) & 63], 1u << (keys[i] & 31));
}

__global__ void append(int *out, int *length, const int *in, int count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count && in[i] > 0)
    out[atomicAdd(length, 1)] = in[i];
}

__global__ void block_sum(int *total, const int *values, int count) {
  __shared__ int part[128];
  unsigned t = threadIdx.x;
  int i = blockIdx.x * 128 + t;
  part[t] = i < count ? values[i] : 0;
  __syncthreads();
  for (unsigned half = 64; half > 0; half /= 2) {
    if (t < half)
      part[t] += part[t + half];
    __syncthreads();
  }
  if (t == 0)
    atomicAdd(total, part[0]);
}
