// The CUDA twin of test/import-gpu/gpu-kernels.mlir's @reverse_staged:
// each block of 64 threads reverses its 64 elements through shared memory.
__global__ void reverse_staged(float *out, const float *in) {
  __shared__ float buf[64];
  unsigned t = threadIdx.x;
  unsigned i = blockIdx.x * 64 + t;
  buf[t] = in[i];
  __syncthreads();
  out[i] = buf[63 - t];
}
