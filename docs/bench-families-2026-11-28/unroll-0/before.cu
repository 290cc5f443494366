// unroll: store, U=4, m=param, int
#define U 4

__global__ void kern(const int *in, int *out, int n, int m) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  const int *a = in + i * m;
  int *o = out + i * m;
  for (int k = 0; k < m; ++k)
    o[k] = a[k] * 3 + 1;
}
