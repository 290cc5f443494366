// unroll: store, U=4, m=param, int
#define U 4

__global__ void kern(const int *in, int *out, int n, int m) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  const int *a = in + i * m;
  int *o = out + i * m;
  int k = 0;
  for (; k + U <= m; k += U) {
    o[k] = a[k] * 3 + 1;
    o[k + 1] = a[k + 1] * 3 + 1;
    o[k + 2] = a[k + 2] * 3 + 1;
    o[k + 3] = a[k + 3] * 3 + 1;
  }
  for (int r = (m / U) * U; r < m; ++r)
    o[r] = a[r] * 3 + 1;
}
