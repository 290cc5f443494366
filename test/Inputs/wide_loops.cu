// Loops counted in 64 bits (size_t, long), as real kernels write them for
// arrays past 2^31 elements, and size_t parameters in counterexamples.

// A grid-stride loop over a size_t range, and the same as a while loop with
// the stride kept in a variable.
__global__ void scale_wide(int *out, const int *in, int a, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)blockDim.x * gridDim.x)
    out[i] = a * in[i];
}

__global__ void scale_wide_while(int *out, const int *in, int a, size_t n) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  while (i < n) {
    out[i] = in[i] * a;
    i += stride;
  }
}

// Off by one: also writes out[n].
__global__ void scale_wide_past_end(int *out, const int *in, int a,
                                    size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i <= n;
       i += (size_t)blockDim.x * gridDim.x)
    out[i] = a * in[i];
}

// One row sum per thread, the row's length a long.
__global__ void row_sums_wide(long *out, const long *m, long rows,
                              long cols) {
  long r = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (r >= rows)
    return;
  long s = 0;
  for (long j = 0; j < cols; ++j)
    s += m[r * cols + j];
  out[r] = s;
}

__global__ void row_sums_wide_ptr(long *out, const long *m, long rows,
                                  long cols) {
  long r = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (r >= rows)
    return;
  const long *row = m + r * cols;
  long s = 0;
  for (long j = 0; j < cols; j++)
    s = s + row[j];
  out[r] = s;
}

// Differ only for n past 2^63 (a size_t that is negative as a long).
__global__ void flag_top_bit(int *out, size_t n) {
  if (threadIdx.x == 0 && blockIdx.x == 0)
    out[0] = (long)n < 0 ? 1 : 0;
}

__global__ void flag_never(int *out, size_t) {
  if (threadIdx.x == 0 && blockIdx.x == 0)
    out[0] = 0;
}
