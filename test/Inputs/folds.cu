// Accumulators that are not integer sums, in loops with a symbolic trip
// count, written for kvalidate's loop alignment tests (test/loops/fold.test,
// test/plugin/remark-fold.cu). Each is a left fold of the loop body over
// the iterations, in order.
//
//   fdot            out[r] = ((0 + m[r,0]*v[0]) + m[r,1]*v[1]) + ... in floats
//   fdot_ptr        the same through a row pointer and a while loop
//   fdot_reversed   the columns in the opposite order (different rounding)
//   hash_rows       h = h * 31 + in[r*n + k], from 7
//   hash_shift      the same with h * 31 written (h << 5) - h
//   hash_seed       starts from 5 instead of 7 (wrong)
//   run_max         m = max(m, in[r*n + k]) with a running maximum written
//                   to every column (a scan)
//   fdot_guarded    fdot with the row test inside the loop: a conditional
//                   update of the accumulator (-O2 hoists the test)
//   fdot_odd_rows   fdot_guarded skipping odd columns of odd rows (wrong)

__global__ void fdot(float *out, const float *m, const float *v, int cols,
                     int rows) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows)
    return;
  float acc = 0.0f;
  for (int c = 0; c < cols; ++c)
    acc += m[r * cols + c] * v[c];
  out[r] = acc;
}

__global__ void fdot_ptr(float *out, const float *m, const float *v, int cols,
                         int rows) {
  int r = threadIdx.x + blockDim.x * blockIdx.x;
  if (r < rows) {
    const float *row = m + r * cols;
    float acc = 0.0f;
    int c = 0;
    while (c < cols) {
      acc = acc + row[c] * v[c];
      c++;
    }
    out[r] = acc;
  }
}

__global__ void fdot_reversed(float *out, const float *m, const float *v,
                              int cols, int rows) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows)
    return;
  float acc = 0.0f;
  for (int c = cols - 1; c >= 0; --c)
    acc += m[r * cols + c] * v[c];
  out[r] = acc;
}

__global__ void hash_rows(int *out, const int *in, int n, int rows) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    unsigned h = 7;
    for (int k = 0; k < n; ++k)
      h = h * 31 + in[r * n + k];
    out[r] = h;
  }
}

__global__ void hash_shift(int *out, const int *in, int n, int rows) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    unsigned h = 7;
    for (int k = 0; k < n; k++)
      h = (h << 5) - h + in[r * n + k];
    out[r] = h;
  }
}

__global__ void hash_seed(int *out, const int *in, int n, int rows) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    unsigned h = 5;
    for (int k = 0; k < n; ++k)
      h = h * 31 + in[r * n + k];
    out[r] = h;
  }
}

static __device__ int imax(int a, int b) { return a > b ? a : b; }

__global__ void run_max(int *out, const int *in, int n, int rows) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    int m = in[r * n];
    for (int k = 0; k < n; ++k) {
      m = imax(m, in[r * n + k]);
      out[r * n + k] = m;
    }
  }
}

__global__ void run_max_ternary(int *out, const int *in, int n, int rows) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    const int *row = in + r * n;
    int m = row[0];
    for (int k = 0; k < n; ++k) {
      int x = row[k];
      m = x > m ? x : m;
      out[r * n + k] = m;
    }
  }
}

__global__ void fdot_guarded(float *out, const float *m, const float *v,
                             int cols, int rows) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.0f;
  for (int c = 0; c < cols; ++c)
    if (r < rows)
      acc += m[r * cols + c] * v[c];
  if (r < rows)
    out[r] = acc;
}

__global__ void fdot_odd_rows(float *out, const float *m, const float *v,
                              int cols, int rows) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.0f;
  for (int c = 0; c < cols; ++c)
    if (r < rows && (c % 2 == 0 || r % 2 == 0))
      acc += m[r * cols + c] * v[c];
  if (r < rows)
    out[r] = acc;
}
