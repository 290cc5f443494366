// Loops whose trip count follows the block size or halves a scalar, written
// for kvalidate's exact-unrolling tests (test/plugin/remark-unroll-exact.cu,
// test/loops/unroll-exact.test). Launch: 1-D blocks, a 1-D grid.
//
//   max_halving     block maximum, the upper half folded onto the lower one
//                   (s = blockDim.x / 2, ..., 1)
//   sum_doubling    block sum of a tree whose stride doubles while it stays
//                   below blockDim.x, thread t working on cell 2*s*t
//   fsum_halving    max_halving's tree over floats with +
//   scan_doubling   Hillis-Steele inclusive scan: log2(blockDim.x) steps
//   digits          a thread's number of binary digits of n: a counter
//                   halving an int scalar (at most 31 steps)
//   digits_short    digits stopping one step early (wrong)
//   collatz_steps   steps of the Collatz map from a thread's value: no
//                   bound is known, the loop stays unsupported
__global__ void max_halving(int *out, const int *in) {
  __shared__ int m[1024];
  unsigned t = threadIdx.x;
  m[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s && m[t + s] > m[t])
      m[t] = m[t + s];
    __syncthreads();
  }
  if (t == 0)
    out[blockIdx.x] = m[0];
}

__global__ void sum_doubling(int *out, const int *in) {
  __shared__ int acc[1024];
  unsigned t = threadIdx.x;
  acc[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (unsigned s = 1; s < blockDim.x; s <<= 1) {
    unsigned i = 2 * s * t;
    if (i + s < blockDim.x)
      acc[i] += acc[i + s];
    __syncthreads();
  }
  if (t == 0)
    out[blockIdx.x] = acc[0];
}

__global__ void fsum_halving(float *out, const float *in) {
  __shared__ float p[1024];
  unsigned t = threadIdx.x;
  p[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s)
      p[t] += p[t + s];
    __syncthreads();
  }
  if (t == 0)
    out[blockIdx.x] = p[0];
}

__global__ void scan_doubling(int *out, const int *in) {
  __shared__ int v[1024];
  unsigned t = threadIdx.x, g = blockIdx.x * blockDim.x + t;
  v[t] = in[g];
  __syncthreads();
  for (unsigned d = 1; d < blockDim.x; d *= 2) {
    int add = t >= d ? v[t - d] : 0;
    __syncthreads();
    v[t] += add;
    __syncthreads();
  }
  out[g] = v[t];
}

__global__ void digits(int *out, const int *in, int n) {
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  int x = in[g], bits = 0;
  for (int k = n; k > 0; k /= 2)
    ++bits;
  out[g] = x + bits;
}

__global__ void collatz_steps(int *out, const int *in) {
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned x = in[g];
  int steps = 0;
  while (x > 1) {
    x = x % 2 ? 3 * x + 1 : x / 2;
    ++steps;
  }
  out[g] = steps;
}

// digits with the loop stopping one step early (wrong for n >= 1).
__global__ void digits_short(int *out, const int *in, int n) {
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  int x = in[g], bits = 0;
  for (int k = n; k > 1; k /= 2)
    ++bits;
  out[g] = x + bits;
}
