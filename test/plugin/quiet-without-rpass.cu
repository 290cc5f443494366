// Without -Rpass=kvalidate an equivalent kernel produces no output at all,
// and at -O0 there is nothing to validate (no remark even with -Rpass).
//
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin %s -o %t.s 2>&1 | count 0
// RUN: %clang-cuda -O0 -S -fpass-plugin=%plugin -Rpass=kvalidate %s -o %t.O0.s 2>&1 | count 0

__global__ void copy(int *out, const int *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i];
}
