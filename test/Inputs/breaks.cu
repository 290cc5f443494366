// Loops with several exits or an exit test on a value that is not an
// induction variable, written for kvalidate's loop-with-breaks tests
// (test/loops/breaks.test, test/plugin/remark-breaks.cu).
//
//   chase            x = next[x] while x < n, from next[g]
//   chase_for        the same as a for loop with the test in its header
//   chase_le         while x <= n (wrong: one more step where x == n)
//   find             the first k < n with in[row, k] == key, or n (break)
//   find_ptr         the same as `while (k < n && row[k] != key) ++k`
//   find_last        the last such k (wrong)
//   copy_to_zero     copy a row up to and including its first zero (break
//                    after a write)
//   copy_to_zero_ptr the same through row pointers, the break after ++k
//   copy_before_zero stops before writing the zero (wrong)
//   sum_until        float sum of a row while it is below a limit, and how
//                    many terms it took (a float fold in the exit test)
//   sum_until_for    the same with the test inside the body (and more below)

__global__ void chase(int *out, const int *next, int n) {
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  int x = next[g];
  while (x < n)
    x = next[x];
  out[g] = x;
}

__global__ void chase_for(int *out, const int *next, int n) {
  int g = threadIdx.x + blockIdx.x * blockDim.x;
  int x;
  for (x = next[g]; x < n; x = next[x]) {
  }
  out[g] = x;
}

__global__ void chase_le(int *out, const int *next, int n) {
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  int x = next[g];
  while (x <= n)
    x = next[x];
  out[g] = x;
}

__global__ void find(int *out, const int *in, int n, int key) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  int k;
  for (k = 0; k < n; ++k)
    if (in[r * n + k] == key)
      break;
  out[r] = k;
}

__global__ void find_ptr(int *out, const int *in, int n, int key) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  const int *row = in + r * n;
  int k = 0;
  while (k < n && row[k] != key)
    ++k;
  out[r] = k;
}

__global__ void find_last(int *out, const int *in, int n, int key) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  int res = n;
  for (int k = 0; k < n; ++k)
    if (in[r * n + k] == key)
      res = k;
  out[r] = res;
}

__global__ void copy_to_zero(int *out, const int *in, int n) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < n; ++k) {
    int v = in[r * n + k];
    out[r * n + k] = v;
    if (v == 0)
      break;
  }
}

__global__ void copy_to_zero_ptr(int *out, const int *in, int n) {
  int r = threadIdx.x + blockDim.x * blockIdx.x;
  const int *src = in + r * n;
  int *dst = out + r * n;
  int k = 0;
  while (k < n) {
    int v = src[k];
    dst[k] = v;
    ++k;
    if (!v)
      break;
  }
}

__global__ void copy_before_zero(int *out, const int *in, int n) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < n; ++k) {
    int v = in[r * n + k];
    if (v == 0)
      break;
    out[r * n + k] = v;
  }
}

__global__ void sum_until(float *out, int *cnt, const float *a, int n,
                          float limit) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0.0f;
  int k = 0;
  while (k < n && s < limit) {
    s += a[r * n + k];
    ++k;
  }
  out[r] = s;
  cnt[r] = k;
}

__global__ void sum_until_for(float *out, int *cnt, const float *a, int n,
                              float limit) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  const float *row = a + r * n;
  float s = 0.0f;
  int k;
  for (k = 0; k < n; k++) {
    if (!(s < limit))
      break;
    s = s + row[k];
  }
  cnt[r] = k;
  out[r] = s;
}

// chase carrying the index of the next load instead of the value loaded, as
// -O2 writes it: the source's running value is next[i] of this loop's i.
__global__ void chase_index(int *out, const int *next, int n) {
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  long i = g;
  int x;
  while ((x = next[i]) < n)
    i = x;
  out[g] = x;
}

// The same stopping one step late where x == n (wrong).
__global__ void chase_index_le(int *out, const int *next, int n) {
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  long i = g;
  int x;
  while ((x = next[i]) <= n)
    i = x;
  out[g] = x;
}

// A variable first assigned inside a counted loop and read after it: the
// model has no value for it after the loop (not the one before it), and
// says so. (last_of_row against zero_row was once proved equivalent.)
__global__ void last_of_row(int *out, const int *in, int n) {
  int v;
  for (int k = 0; k < n; ++k)
    v = in[k];
  out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}

__global__ void zero_row(int *out, const int *in, int n) {
  out[blockIdx.x * blockDim.x + threadIdx.x] = 0;
}
