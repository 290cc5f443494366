// Kernels with warp shuffles for the relational proof
// (test/loops/relational-shuffle.test), each against its own -O2 form: a
// shuffle is a cut point both kernels reach together, its result one value
// for both.

// A block sum: a shared-memory tree down to one warp, then five shuffles
// (the source's loop of five, unrolled in both copies).
__global__ void block_total(float *out, const float *in) {
  __shared__ float part[256];
  unsigned t = threadIdx.x;
  part[t] = in[blockIdx.x * 256 + t];
  __syncthreads();
  for (unsigned half = 128; half >= 32; half /= 2) {
    if (t < half)
      part[t] += part[t + half];
    __syncthreads();
  }
  if (t < 32) {
    float v = part[t];
    for (int off = 16; off > 0; off /= 2)
      v += __shfl_down_sync(0xffffffffu, v, off);
    if (t == 0)
      out[blockIdx.x] = v;
  }
}

// An inclusive warp scan over integers whose width is a parameter: the loop
// keeps its shuffle, and the two loops meet at their headers and at the
// shuffle.
__global__ void lane_scan(int *data, unsigned width) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned lane = threadIdx.x % 32;
  int v = data[i];
  for (unsigned d = 1; d < width; d *= 2) {
    int up = __shfl_up_sync(0xffffffffu, v, d);
    if (lane >= d)
      v += up;
  }
  data[i] = v;
}

// Votes and a reduction over the warp in a loop over rounds: one count
// per warp, written by its first lane.
__global__ void warp_counts(unsigned *out, const int *in, int rounds) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned count = 0;
  for (int r = 0; r < rounds; ++r) {
    int v = in[r * gridDim.x * blockDim.x + i];
    unsigned positive = __ballot_sync(0xffffffffu, v > 0);
    bool nonzero = __all_sync(0xffffffffu, v != 0);
    unsigned total = __reduce_add_sync(0xffffffffu, (unsigned)v);
    count += __builtin_popcount(positive) + (nonzero ? total : 0u);
  }
  if (threadIdx.x % 32 == 0)
    out[i / 32] = count;
}
