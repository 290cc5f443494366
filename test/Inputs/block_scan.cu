// Inclusive prefix sums of one block, written for kvalidate's loop tests.
// Launch: 1-D blocks of a power-of-two size, a 1-D grid.
//
//   scan_steps     Hillis-Steele: log2(n) steps, each thread adds the value
//                  d places to its left (read, barrier, write, barrier)
//   scan_tree      Blelloch's work-efficient scan: up-sweep, clear the
//                  root, down-sweep (exclusive), plus the thread's input
//   scan_tree_bug  scan_tree whose down-sweep swaps without adding
__global__ void scan_steps(int *out, const int *in) {
  __shared__ int buf[1024];
  unsigned t = threadIdx.x, base = blockIdx.x * blockDim.x;
  buf[t] = in[base + t];
  __syncthreads();
  for (unsigned d = 1; d < blockDim.x; d *= 2) {
    int v = buf[t];
    if (t >= d)
      v += buf[t - d];
    __syncthreads();
    buf[t] = v;
    __syncthreads();
  }
  out[base + t] = buf[t];
}

__global__ void scan_tree(int *out, const int *in) {
  __shared__ int buf[1024];
  unsigned t = threadIdx.x, n = blockDim.x, base = blockIdx.x * n;
  int x = in[base + t];
  buf[t] = x;
  __syncthreads();
  for (unsigned d = 1; d < n; d *= 2) {
    unsigned i = (t + 1) * 2 * d - 1;
    if (i < n)
      buf[i] += buf[i - d];
    __syncthreads();
  }
  if (t == 0)
    buf[n - 1] = 0;
  __syncthreads();
  for (unsigned d = n / 2; d > 0; d /= 2) {
    unsigned i = (t + 1) * 2 * d - 1;
    if (i < n) {
      int left = buf[i - d];
      buf[i - d] = buf[i];
      buf[i] += left;
    }
    __syncthreads();
  }
  out[base + t] = buf[t] + x;
}

__global__ void scan_tree_bug(int *out, const int *in) {
  __shared__ int buf[1024];
  unsigned t = threadIdx.x, n = blockDim.x, base = blockIdx.x * n;
  int x = in[base + t];
  buf[t] = x;
  __syncthreads();
  for (unsigned d = 1; d < n; d *= 2) {
    unsigned i = (t + 1) * 2 * d - 1;
    if (i < n)
      buf[i] += buf[i - d];
    __syncthreads();
  }
  if (t == 0)
    buf[n - 1] = 0;
  __syncthreads();
  for (unsigned d = n / 2; d > 0; d /= 2) {
    unsigned i = (t + 1) * 2 * d - 1;
    if (i < n) {
      int left = buf[i - d];
      buf[i - d] = buf[i];
      buf[i] = left;
    }
    __syncthreads();
  }
  out[base + t] = buf[t] + x;
}
