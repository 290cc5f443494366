// Register blocking: each thread keeps the dot products of several rows of
// a (blockDim.x apart) in registers across one loop over the columns. -O2
// unrolls the loop over the rows and keeps the one over the columns.

__global__ void two_rows(const int *a, const int *x, int *y, int rows,
                         int cols) {
  int first = 2 * blockIdx.x * blockDim.x + threadIdx.x;
  int acc[2] = {0, 0};
  for (int c = 0; c < cols; ++c) {
    int xc = x[c];
    for (int r = 0; r < 2; ++r) {
      int row = first + r * blockDim.x;
      if (row < rows)
        acc[r] += a[row * cols + c] * xc;
    }
  }
  for (int r = 0; r < 2; ++r) {
    int row = first + r * blockDim.x;
    if (row < rows)
      y[row] = acc[r];
  }
}

// Floats, three rows, a block of 64 threads that the kernel states.
__global__ void __launch_bounds__(64)
    three_rows(const float *a, const float *x, float *y, int rows, int cols) {
  int first = 3 * 64 * blockIdx.x + threadIdx.x;
  float acc[3];
  for (int r = 0; r < 3; ++r)
    acc[r] = 0.0f;
  for (int c = 0; c < cols; ++c)
    for (int r = 0; r < 3; ++r)
      if (first + 64 * r < rows)
        acc[r] += a[(first + 64 * r) * cols + c] * x[c];
  for (int r = 0; r < 3; ++r)
    if (first + 64 * r < rows)
      y[first + 64 * r] = acc[r];
}
