// Per-thread sums whose loops run a symbolic number of iterations (n, cols),
// written for kvalidate's loop tests (test/loops/sum.test).
//
//   row_total       out[r] = in[r*n] + ... + in[r*n + n-1], for r < rows
//   row_total_ptr   the same through a row pointer hoisted out of the loop
//   row_total_late  starts at column 1 (wrong: drops in[r*n])
//   row_dot         out[r] = sum over c of m[r*cols + c] * v[c]
//   row_dot_swapped the same with the factors swapped and the row offset
//                   kept in a variable

__global__ void row_total(int *out, const int *in, int n, int rows) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    int s = 0;
    for (int k = 0; k < n; ++k)
      s += in[r * n + k];
    out[r] = s;
  }
}

__global__ void row_total_ptr(int *out, const int *in, int n, int rows) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    const int *row = in + r * n;
    int s = 0;
    for (int k = 0; k < n; ++k)
      s += row[k];
    out[r] = s;
  }
}

__global__ void row_total_late(int *out, const int *in, int n, int rows) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    int s = 0;
    for (int k = 1; k < n; ++k)
      s += in[r * n + k];
    out[r] = s;
  }
}

__global__ void row_dot(int *out, const int *m, const int *v, int cols,
                        int rows) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows)
    return;
  int acc = 0;
  for (int c = 0; c < cols; ++c)
    acc += m[r * cols + c] * v[c];
  out[r] = acc;
}

__global__ void row_dot_swapped(int *out, const int *m, const int *v,
                                int cols, int rows) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  int base = r * cols;
  if (r < rows) {
    int acc = 0;
    for (int c = 0; c < cols; c++)
      acc = v[c] * m[base + c] + acc;
    out[r] = acc;
  }
}
