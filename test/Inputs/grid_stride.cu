// One element per thread against grid-stride loops (loops whose trip count
// depends on the launch and on n), for the loop model (kv.iter).

// 1-D: each thread scales one element.
__global__ void axpy_each(int *y, const int *x, int a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}

// The same with a grid-stride loop: equal when the grid covers n.
__global__ void axpy_grid_stride(int *y, const int *x, int a, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    y[i] = a * x[i] + y[i];
}

// Off by one: the loop also updates y[n].
__global__ void axpy_grid_stride_past_end(int *y, const int *x, int a,
                                          int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i <= n;
       i += blockDim.x * gridDim.x)
    y[i] = a * x[i] + y[i];
}

// A while loop that steps by whole blocks from the block's first element.
__global__ void axpy_block_steps(int *y, const int *x, int a, int n) {
  unsigned stride = gridDim.x * blockDim.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  while (i < n) {
    y[i] = a * x[i] + y[i];
    i += stride;
  }
}

// 2-D: a row-major copy with a transform, per thread and with nested
// grid-stride loops over rows and columns.
__global__ void mask_each_2d(unsigned *out, const unsigned *in, int w,
                             int h) {
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < h && c < w)
    out[r * w + c] = in[r * w + c] & 0xff00ffu;
}

__global__ void mask_grid_stride_2d(unsigned *out, const unsigned *in, int w,
                                    int h) {
  for (int r = blockIdx.y * blockDim.y + threadIdx.y; r < h;
       r += blockDim.y * gridDim.y)
    for (int c = blockIdx.x * blockDim.x + threadIdx.x; c < w;
         c += blockDim.x * gridDim.x)
      out[r * w + c] = in[r * w + c] & 0xff00ffu;
}

// Accumulates into a register: no model yet (the value carried around the
// loop is not an induction variable).
__global__ void dot_rows(int *out, const int *m, const int *v, int cols,
                         int rows) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows)
    return;
  int acc = 0;
  for (int c = 0; c < cols; ++c)
    acc += m[r * cols + c] * v[c];
  out[r] = acc;
}

// axpy_grid_stride, but skipping indices that wrapped around to negative
// values, which only a launch with n near INT_MAX reaches.
__global__ void axpy_grid_stride_nonneg(int *y, const int *x, int a, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    if (i >= 0)
      y[i] = a * x[i] + y[i];
}
