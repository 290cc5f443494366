// Iterated neighbour sums in shared memory: a barrier loop whose trip count
// is the scalar `steps`, with the tile read after the loop (not a staged
// tile: the loop model does not apply).
#define BLOCK 64

__global__ void smooth_steps(int *out, const int *in, int steps) {
  __shared__ int buf[BLOCK];
  int t = threadIdx.x;
  int i = blockIdx.x * BLOCK + t;
  buf[t] = in[i];
  __syncthreads();
  for (int s = 0; s < steps; ++s) {
    int v = buf[t] + (t > 0 ? buf[t - 1] : 0);
    __syncthreads();
    buf[t] = v;
    __syncthreads();
  }
  out[i] = buf[t];
}

// The same with two halves of one buffer, alternating: one barrier per
// step.
__global__ void smooth_steps_pingpong(int *out, const int *in, int steps) {
  __shared__ int buf[2 * BLOCK];
  int t = threadIdx.x;
  int i = blockIdx.x * BLOCK + t;
  buf[t] = in[i];
  __syncthreads();
  int cur = 0;
  for (int s = 0; s < steps; ++s) {
    int next = BLOCK - cur;
    buf[next + t] = buf[cur + t] + (t > 0 ? buf[cur + t - 1] : 0);
    __syncthreads();
    cur = next;
  }
  out[i] = buf[cur + t];
}

// BUG: thread 0 adds its right neighbour's value instead of nothing.
__global__ void smooth_steps_edge(int *out, const int *in, int steps) {
  __shared__ int buf[BLOCK];
  int t = threadIdx.x;
  int i = blockIdx.x * BLOCK + t;
  buf[t] = in[i];
  __syncthreads();
  for (int s = 0; s < steps; ++s) {
    int v = buf[t] + (t > 0 ? buf[t - 1] : buf[1]);
    __syncthreads();
    buf[t] = v;
    __syncthreads();
  }
  out[i] = buf[t];
}
