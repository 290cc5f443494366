// Per-thread loops whose trip count is the parameter n (test/loops/unroll.test).
__global__ void sum_rows(int *out, const int *in, int n) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  int s = 0;
  for (int k = 0; k < n; ++k)
    s += in[r * n + k];
  out[r] = s;
}
__global__ void sum_rows_rev(int *out, const int *in, int n) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  int s = 0;
  for (int k = n - 1; k >= 0; --k)
    s += in[r * n + k];
  out[r] = s;
}
__global__ void sum_rows_skip(int *out, const int *in, int n) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  int s = 0;
  for (int k = 1; k < n; ++k)
    s += in[r * n + k];
  out[r] = s;
}
