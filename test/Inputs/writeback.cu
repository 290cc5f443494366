// Kernels for cli/replay.test: one writes back a cell's input value (an
// atomicAdd of 0) where the other leaves the cell alone.

__global__ void add_all(int *out, const int *x, int n) {
  int i = threadIdx.x;
  if (i < n)
    atomicAdd(&out[i], x[i]);
}

__global__ void add_nonzero(int *out, const int *x, int n) {
  int i = threadIdx.x;
  if (i < n && x[i] != 0)
    atomicAdd(&out[i], x[i]);
}

// A precondition the kernel states: n >= 0 (reaching unreachable is
// undefined behaviour).
__global__ void add_nonneg(int *out, const int *x, int n) {
  if (n < 0)
    __builtin_unreachable();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = x[i] + n;
}

__global__ void add_n(int *out, const int *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = x[i] + n;
}
