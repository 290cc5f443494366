// Store loops over a symbolic row width (test/loops/row-stores.test,
// plugin/remark-row-stores.cu): each thread writes its row, one cell per
// iteration; -O2 unrolls such a loop at run time (four cells per iteration,
// then a remainder loop), which the writer of each cell is found through.

__global__ void scale_rows(const int *in, int *out, int rows, int w) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows)
    return;
  for (int c = 0; c < w; ++c)
    out[r * w + c] = 2 * in[r * w + c];
}

// The same by hand: four cells per iteration, then the rest.
__global__ void scale_rows_by4(const int *in, int *out, int rows, int w) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows)
    return;
  int base = r * w, c = 0;
  for (; c + 4 <= w; c += 4) {
    out[base + c] = 2 * in[base + c];
    out[base + c + 1] = 2 * in[base + c + 1];
    out[base + c + 2] = 2 * in[base + c + 2];
    out[base + c + 3] = 2 * in[base + c + 3];
  }
  for (; c < w; ++c)
    out[base + c] = in[base + c] + in[base + c];
}

// The remainder loop skips the first leftover cell.
__global__ void scale_rows_by4_skip(const int *in, int *out, int rows, int w) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows)
    return;
  int base = r * w, c = 0;
  for (; c + 4 <= w; c += 4) {
    out[base + c] = 2 * in[base + c];
    out[base + c + 1] = 2 * in[base + c + 1];
    out[base + c + 2] = 2 * in[base + c + 2];
    out[base + c + 3] = 2 * in[base + c + 3];
  }
  for (++c; c < w; ++c)
    out[base + c] = 2 * in[base + c];
}

// A 2-D launch: one thread per (row, plane), a float row scaled.
__global__ void scale_planes(const float *in, float *out, int rows, int w,
                             float s) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  int p = blockIdx.y;
  if (r >= rows)
    return;
  const float *src = in + (p * rows + r) * w;
  float *dst = out + (p * rows + r) * w;
  for (int c = 0; c < w; ++c)
    dst[c] = s * src[c];
}
