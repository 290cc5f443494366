// Kernels with defects that the safety checks must find (test/equiv/safety.test).

// Tree sum of 256 values whose loop lacks the barrier between steps: thread
// t reads buf[t + s] while thread t + s may still be writing it.
__global__ void sum_no_barrier(int *out, const int *in) {
  __shared__ int buf[256];
  unsigned t = threadIdx.x;
  buf[t] = in[blockIdx.x * 256 + t];
  __syncthreads();
  for (unsigned s = 128; s > 0; s >>= 1)
    if (t < s)
      buf[t] += buf[t + s];
  if (t == 0)
    out[blockIdx.x] = buf[0];
}

// The same with the barrier: race free.
__global__ void sum_barrier(int *out, const int *in) {
  __shared__ int buf[256];
  unsigned t = threadIdx.x;
  buf[t] = in[blockIdx.x * 256 + t];
  __syncthreads();
  for (unsigned s = 128; s > 0; s >>= 1) {
    if (t < s)
      buf[t] += buf[t + s];
    __syncthreads();
  }
  if (t == 0)
    out[blockIdx.x] = buf[0];
}

// Only the first 16 threads of a block reach the barrier.
__global__ void half_barrier(int *out, const int *in) {
  __shared__ int buf[32];
  unsigned t = threadIdx.x;
  if (t < 16) {
    buf[t] = in[t];
    __syncthreads();
    out[t] = buf[15 - t];
  }
}

// Every thread writes its own cell; same_cells is its broken rewrite.
__global__ void own_cells(int *out, const int *in) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i];
}

// Every block writes the same cells of out.
__global__ void same_cells(int *out, const int *in) {
  out[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x];
}

// A 16x16 tile indexed by the thread: 32x32 blocks overrun it.
__global__ void tile_overrun(int *out, const int *in) {
  __shared__ int tile[16][16];
  unsigned x = threadIdx.x, y = threadIdx.y;
  tile[y][x] = in[y * blockDim.x + x];
  __syncthreads();
  out[y * blockDim.x + x] = tile[x][y];
}
