// A coalescing rewrite: each thread's K contiguous cells (index K*t + k)
// against a grid-strided walk (index t + k*T, T threads in the grid). Both
// index maps are bijections onto [0, K*T).

__global__ void blocked(const int *in, int *out, int K) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < K; ++k)
    out[K * t + k] = in[K * t + k] * 3 + 1;
}

__global__ void strided(const int *in, int *out, int K) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int T = gridDim.x * blockDim.x;
  for (int k = 0; k < K; ++k)
    out[t + k * T] = in[t + k * T] * 3 + 1;
}

// The same walk computing another value.
__global__ void strided_plus2(const int *in, int *out, int K) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int T = gridDim.x * blockDim.x;
  for (int k = 0; k < K; ++k)
    out[t + k * T] = in[t + k * T] * 3 + 2;
}

// Each cell's iteration number: the two maps write the same cells, in
// another order, so the values differ.
__global__ void blocked_rank(int *out, int K) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < K; ++k)
    out[K * t + k] = k;
}

__global__ void strided_rank(int *out, int K) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int T = gridDim.x * blockDim.x;
  for (int k = 0; k < K; ++k)
    out[t + k * T] = k;
}
