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
