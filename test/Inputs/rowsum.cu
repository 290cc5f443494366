// Per-thread loops whose trip count is the parameter n (test/loops/unroll.test,
// test/loops/down.test).
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
// Counting down from n with the index shifted by one: sum_rows_rev's terms
// in the same order.
__global__ void sum_rows_rev_shifted(int *out, const int *in, int n) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  int s = 0;
  for (int k = n; k > 0; --k)
    s += in[r * n + k - 1];
  out[r] = s;
}
// An unsigned counter: runs n times for every n, 2^31 and more included.
__global__ void sum_rows_rev_unsigned(int *out, const int *in, unsigned n) {
  unsigned r = blockIdx.x * blockDim.x + threadIdx.x;
  int s = 0;
  for (unsigned k = n; k > 0; --k)
    s += in[r * n + k - 1];
  out[r] = s;
}
// Halving the counter: not an induction variable.
__global__ void sum_rows_halving(int *out, const int *in, int n) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  int s = 0;
  for (int k = n; k > 0; k /= 2)
    s += in[r * n + k - 1];
  out[r] = s;
}
// An unsigned counter tested k >= 0: it never stops (k wraps to 2^32 - 1).
__global__ void sum_rows_forever(int *out, const int *in, unsigned n) {
  unsigned r = blockIdx.x * blockDim.x + threadIdx.x;
  int s = 0;
  for (unsigned k = n; k >= 0; --k)
    s += in[r * n + k];
  out[r] = s;
}
