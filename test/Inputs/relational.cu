// Kernels for the relational proof (test/loops/relational.test): each is
// compared with its own -O2 form, loop header to loop header and barrier to
// barrier.

// A grid-stride loop that updates shared memory between two barriers: the
// model's methods cannot count it (the stride may wrap), the relational
// proof needs no count.
__global__ void block_sums(int *out, const int *in, int n) {
  __shared__ int acc[256];
  int t = threadIdx.x;
  if (t < 256)
    acc[t] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + t; i < n; i += blockDim.x * gridDim.x)
    if (t < 256)
      acc[t] += in[i];
  __syncthreads();
  if (t < 256)
    out[blockIdx.x * 256 + t] = acc[t];
}

// A barrier loop with a constant trip count of 4096: -O2 keeps the loop and
// unrolls its body twice (four barriers an iteration). The relational proof
// goes around one unrolled iteration; the model's methods would unroll 4096
// barrier intervals.
__global__ void relax(int *out, const int *in) {
  __shared__ int cell[129];
  int t = threadIdx.x;
  if (t < 128)
    cell[t] = in[blockIdx.x * 128 + t];
  if (t == 0)
    cell[128] = 0;
  __syncthreads();
  for (int step = 0; step < 4096; ++step) {
    int next = 0;
    if (t < 128)
      next = (cell[t] + 3 * cell[t + 1]) >> 2;
    __syncthreads();
    if (t < 128)
      cell[t] = next;
    __syncthreads();
  }
  if (t < 128)
    out[blockIdx.x * 128 + t] = cell[t];
}

// A per-thread loop with a constant trip count that -O2 unrolls by 4: the
// source's step is four iterations against the unrolled loop's one (the
// ratio of the two bodies' memory traffic).
__global__ void dot_rows(float *y, const float *a, const float *x) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.0f;
  for (int k = 0; k < 256; ++k)
    acc += a[row * 256 + k] * x[k];
  y[row] = acc;
}

// A per-thread loop over a bound loaded from memory, with an accumulator and
// a store: -O2 unrolls it at run time by 4 (n & -4 iterations, four a step)
// and runs the rest in a remainder loop of n & 3 iterations. The remainder
// counts from zero where the source's counter stands at n & -4.
__global__ void row_dots(float *out, const int *len, const float *w,
                         const float *x) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  int n = len[row];
  float acc = 0.0f;
  for (int k = 0; k < n; ++k)
    acc += w[k] * x[k];
  out[row] = acc;
}
