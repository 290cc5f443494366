// Kernels of the CI-gating tests (plugin/report-*.cu, plugin/per-pass.cu,
// cli/report.test): a pair that -O2 keeps equivalent, one that the
// test-only wrong pass breaks, and one the model does not support.

__global__ void offset(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i] + 3;
}

__global__ void quads(const int *in, int *out, int n) {
  int q = blockIdx.x * blockDim.x + threadIdx.x;
  if (q >= n)
    return;
  for (int k = 0; k < 4; ++k)
    out[4 * q + k] = 2 * in[4 * q + k];
}

__global__ void negate(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = -in[i];
}

__global__ void from_asm(int *out) {
  int v;
  asm("mov.u32 %0, 7;" : "=r"(v));
  out[threadIdx.x] = v;
}

// The same as offset, written another way (the CLI's report test).
__global__ void offset_twice(const int *in, int *out, int n) {
  int i = threadIdx.x + blockDim.x * blockIdx.x;
  if (i < n)
    out[i] = (in[i] + 1) + 2;
}
