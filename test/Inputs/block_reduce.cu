// Block sums whose loops run log2(blockDim.x) steps, written for kvalidate's
// loop tests. Launch: 1-D blocks of a power-of-two size, a 1-D grid.
//
//   sum_interleaved  thread t adds part[t + s] into part[t] when
//                    t % (2*s) == 0
//   sum_strided      the same tree; thread t works on index 2*s*t
//   sum_halving      a different tree: the upper half is folded onto the
//                    lower half, s = blockDim.x/2, ..., 1
//   sum_early_stop   sum_strided stopping one step early (wrong)
__global__ void sum_interleaved(int *sums, const int *in) {
  __shared__ int part[1024];
  unsigned t = threadIdx.x;
  part[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (unsigned s = 1; s < blockDim.x; s *= 2) {
    if (t % (2 * s) == 0)
      part[t] += part[t + s];
    __syncthreads();
  }
  if (t == 0)
    sums[blockIdx.x] = part[0];
}

__global__ void sum_strided(int *sums, const int *in) {
  __shared__ int part[1024];
  unsigned t = threadIdx.x;
  part[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (unsigned s = 1; s < blockDim.x; s *= 2) {
    unsigned i = 2 * s * t;
    if (i < blockDim.x)
      part[i] += part[i + s];
    __syncthreads();
  }
  if (t == 0)
    sums[blockIdx.x] = part[0];
}

__global__ void sum_halving(int *sums, const int *in) {
  __shared__ int part[1024];
  unsigned t = threadIdx.x;
  part[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
    if (t < s)
      part[t] += part[t + s];
    __syncthreads();
  }
  if (t == 0)
    sums[blockIdx.x] = part[0];
}

__global__ void sum_early_stop(int *sums, const int *in) {
  __shared__ int part[1024];
  unsigned t = threadIdx.x;
  part[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (unsigned s = 1; s < blockDim.x / 2; s *= 2) {
    unsigned i = 2 * s * t;
    if (i < blockDim.x)
      part[i] += part[i + s];
    __syncthreads();
  }
  if (t == 0)
    sums[blockIdx.x] = part[0];
}
