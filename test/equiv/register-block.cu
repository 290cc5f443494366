// Register blocking under a block size the launch leaves free: each thread
// of the blocked kernels keeps R rows' sums in registers, the rows
// blockDim.x apart. A cell's writer in the blocked kernel is found through
// the radix blockDim.x first (cell == Q * blockDim.x + t, Q == R * b + j:
// which of a thread's R rows writes the cell is j, linear), and a row's
// sum is re-encoded at the cell it is stored to (`r0 + j * blockDim.x`,
// the offset the same for every thread), so both kernels read the same
// input terms. No product of the block size is bit-blasted.
//
// REQUIRES: long
// RUN: %expect-exit 0 %kvalidate --cuda-path= --timeout=60 \
// RUN:   --assume='m > 0 && m <= 65536 && gridDim.x * blockDim.x >= m && gridDim.x * blockDim.x < m + blockDim.x && blockDim.y == 1 && blockDim.z == 1 && gridDim.y == 1 && gridDim.z == 1' \
// RUN:   %s:rows %s:rows_by_two | FileCheck %s --check-prefix=EQ
// RUN: %expect-exit 0 %kvalidate --cuda-path= --timeout=60 \
// RUN:   --assume='m > 0 && m <= 65536 && gridDim.x * blockDim.x >= m && gridDim.x * blockDim.x < m + blockDim.x && blockDim.y == 1 && blockDim.z == 1 && gridDim.y == 1 && gridDim.z == 1' \
// RUN:   %s:rows_f %s:rows_by_two_f | FileCheck %s --check-prefix=EQ
// EQ: verdict: equivalent
//
// The second row stores the first row's sum.
// RUN: %expect-exit 1 %kvalidate --cuda-path= --timeout=60 \
// RUN:   --assume='m > 0 && m <= 65536 && gridDim.x * blockDim.x >= m && gridDim.x * blockDim.x < m + blockDim.x && blockDim.y == 1 && blockDim.z == 1 && gridDim.y == 1 && gridDim.z == 1' \
// RUN:   %s:rows %s:rows_by_two_wrong | FileCheck %s --check-prefix=NE
// NE: verdict: not-equivalent
// NE: counterexample (replayed)

#define K 6

template <typename T>
__device__ void rowsOne(const T *w, const T *v, T *out, int m) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < m) {
    T s = 0;
    for (int c = 0; c < K; ++c)
      s += w[r * K + c] * v[c];
    out[r] = s;
  }
}

// Two rows per thread; `wrong` stores the first row's sum for both.
template <typename T>
__device__ void rowsTwo(const T *w, const T *v, T *out, int m, int wrong) {
  int r0 = blockIdx.x * blockDim.x * 2 + threadIdx.x;
  T s[2] = {0, 0};
  for (int c = 0; c < K; ++c) {
    T vc = v[c];
    for (int i = 0; i < 2; ++i) {
      int r = r0 + i * blockDim.x;
      if (r < m)
        s[i] += w[r * K + c] * vc;
    }
  }
  for (int i = 0; i < 2; ++i) {
    int r = r0 + i * blockDim.x;
    if (r < m)
      out[r] = s[wrong ? 0 : i];
  }
}

__global__ void rows(const int *w, const int *v, int *out, int m) {
  rowsOne(w, v, out, m);
}
__global__ void rows_by_two(const int *w, const int *v, int *out, int m) {
  rowsTwo(w, v, out, m, 0);
}
__global__ void rows_by_two_wrong(const int *w, const int *v, int *out, int m) {
  rowsTwo(w, v, out, m, 1);
}
__global__ void rows_f(const float *w, const float *v, float *out, int m) {
  rowsOne(w, v, out, m);
}
__global__ void rows_by_two_f(const float *w, const float *v, float *out,
                              int m) {
  rowsTwo(w, v, out, m, 0);
}
