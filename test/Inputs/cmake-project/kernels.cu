#include <kvalidate.h>

__global__ void scale(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = 3 * in[i];
}

KV_EQUIVALENT_TO(scale)
__global__ void scale_by_adds(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i] + in[i] + in[i];
}
