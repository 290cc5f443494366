// Kernels for test/loops/relational-reassociated.test, each compared with
// its own -O2 form by the relational proof.

// Each thread visits `reps` cells a whole grid apart. -O2 reassociates the
// index (the source's `first + r * stride` becomes `(r * gridDim.x +
// blockIdx.x) * blockDim.x + threadIdx.x`, its `nsw` flags dropped) and
// unrolls the loop twice, the odd iteration left to straight-line code
// after it.
__global__ void restride(const int *src, int *dst, int reps) {
  int first = blockIdx.x * blockDim.x + threadIdx.x;
  int stride = gridDim.x * blockDim.x;
  for (int r = 0; r < reps; ++r)
    dst[first + r * stride] = 5 * src[first + r * stride] - 2;
}

// Three running maxima per thread in a private array indexed by a loop of
// three: -O2 unrolls that loop and keeps them in registers.
__global__ void triple(const int *w, int *tops, int len) {
  int top[3];
  for (int j = 0; j < 3; ++j)
    top[j] = -1;
  int base = (blockIdx.x * blockDim.x + threadIdx.x) * 3;
  for (int i = 0; i < len; ++i)
    for (int j = 0; j < 3; ++j)
      top[j] = max(top[j], w[i * 3 + j]);
  for (int j = 0; j < 3; ++j)
    tops[base + j] = top[j];
}

// The same walk over `count - 2` cells: -O2's guard is `count > 2` and its
// unrolled loop runs (count - 2) & -2 iterations. Where count - 2 would
// wrap (count near INT_MIN) the source's loop test is undefined, so no
// execution reaches the state in which the remainder's bounds fail.
__global__ void interior(const float *src, float *dst, int count) {
  int first = blockIdx.x * blockDim.x + threadIdx.x;
  int stride = gridDim.x * blockDim.x;
  for (int r = 0; r < count - 2; ++r)
    dst[first + r * stride] = src[first + r * stride] * 0.5f;
}
