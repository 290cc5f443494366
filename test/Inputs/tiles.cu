// Barrier loops with a symbolic trip count over a shared tile: each
// iteration stages n values in shared memory, synchronizes, and sums a
// neighbour's value (test/loops/tiles.test, test/lowering/barrier-loop.cu).
#define TILE 64

__global__ void neighbour_direct(int *out, const int *in, int rounds) {
  int t = threadIdx.x, s = 0;
  for (int r = 0; r < rounds; ++r)
    s += in[r * blockDim.x + (t + 1) % blockDim.x];
  out[blockIdx.x * blockDim.x + t] = s;
}

__global__ void neighbour_staged(int *out, const int *in, int rounds) {
  __shared__ int tile[TILE];
  int t = threadIdx.x, s = 0;
  for (int r = 0; r < rounds; ++r) {
    tile[t] = in[r * blockDim.x + t];
    __syncthreads();
    s += tile[(t + 1) % blockDim.x];
    __syncthreads();
  }
  out[blockIdx.x * blockDim.x + t] = s;
}

// Reads two to the right: a different neighbour.
__global__ void neighbour_wrong(int *out, const int *in, int rounds) {
  __shared__ int tile[TILE];
  int t = threadIdx.x, s = 0;
  for (int r = 0; r < rounds; ++r) {
    tile[t] = in[r * blockDim.x + t];
    __syncthreads();
    s += tile[(t + 2) % blockDim.x];
    __syncthreads();
  }
  out[blockIdx.x * blockDim.x + t] = s;
}

// Reads a cell no thread of a small block writes.
__global__ void neighbour_far(int *out, const int *in, int rounds) {
  __shared__ int tile[TILE];
  int t = threadIdx.x, s = 0;
  for (int r = 0; r < rounds; ++r) {
    tile[t] = in[r * blockDim.x + t];
    __syncthreads();
    s += tile[(t + 1) % TILE];
    __syncthreads();
  }
  out[blockIdx.x * blockDim.x + t] = s;
}

// Shapes the model does not take.
__global__ void tile_after_loop(int *out, const int *in, int rounds) {
  __shared__ int tile[TILE];
  int t = threadIdx.x, s = 0;
  for (int r = 0; r < rounds; ++r) {
    tile[t] = in[r * blockDim.x + t];
    __syncthreads();
    s += tile[(t + 1) % blockDim.x];
    __syncthreads();
  }
  out[t] = s + tile[0];
}

__global__ void tile_global_write(int *out, const int *in, int rounds) {
  __shared__ int tile[TILE];
  int t = threadIdx.x;
  for (int r = 0; r < rounds; ++r) {
    tile[t] = in[r * blockDim.x + t];
    __syncthreads();
    out[r * blockDim.x + t] = tile[(t + 1) % blockDim.x];
    __syncthreads();
  }
}

__global__ void tile_one_barrier(int *out, const int *in, int rounds) {
  __shared__ int tile[TILE];
  int t = threadIdx.x, s = 0;
  for (int r = 0; r < rounds; ++r) {
    tile[t] = in[r * blockDim.x + t];
    __syncthreads();
    s += tile[(t + 1) % blockDim.x];
  }
  out[t] = s;
}
