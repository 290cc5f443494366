// Block sums of BLOCK values (a power of two, set with -DBLOCK=N), written
// for kvalidate's tests and benchmarks. The loops have constant trip counts.
//
//   reduce_interleaved  thread t adds buf[t + s] into buf[t] when
//                       t % (2*s) == 0
//   reduce_strided      the same tree, thread t works on index 2*s*t
//   reduce_short        reduce_strided without its last step (wrong)
#ifndef BLOCK
#define BLOCK 256
#endif

__global__ void reduce_interleaved(int *out, const int *in) {
  __shared__ int buf[BLOCK];
  unsigned t = threadIdx.x;
  buf[t] = in[blockIdx.x * BLOCK + t];
  __syncthreads();
  for (unsigned s = 1; s < BLOCK; s *= 2) {
    if (t % (2 * s) == 0)
      buf[t] += buf[t + s];
    __syncthreads();
  }
  if (t == 0)
    out[blockIdx.x] = buf[0];
}

__global__ void reduce_strided(int *out, const int *in) {
  __shared__ int buf[BLOCK];
  unsigned t = threadIdx.x;
  buf[t] = in[blockIdx.x * BLOCK + t];
  __syncthreads();
  for (unsigned s = 1; s < BLOCK; s *= 2) {
    unsigned index = 2 * s * t;
    if (index < BLOCK)
      buf[index] += buf[index + s];
    __syncthreads();
  }
  if (t == 0)
    out[blockIdx.x] = buf[0];
}

__global__ void reduce_short(int *out, const int *in) {
  __shared__ int buf[BLOCK];
  unsigned t = threadIdx.x;
  buf[t] = in[blockIdx.x * BLOCK + t];
  __syncthreads();
  for (unsigned s = 1; s < BLOCK / 2; s *= 2) {
    unsigned index = 2 * s * t;
    if (index < BLOCK)
      buf[index] += buf[index + s];
    __syncthreads();
  }
  if (t == 0)
    out[blockIdx.x] = buf[0];
}
