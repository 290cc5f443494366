// Pointers into one array (or private object) compare as their offsets;
// pointers into two arrays, or a parameter against null, are unsupported
// (two non-overlapping arrays may still touch, and a parameter may be
// null).
//
// RUN: %expect-exit 0 %kvalidate %s:pick_ptr %s:pick_index | FileCheck %s --check-prefix=EQ
// EQ: verdict: equivalent
// RUN: %expect-exit 1 %kvalidate %s:pick_ptr %s:pick_index_wrong | FileCheck %s --check-prefix=NE
// NE: verdict: not-equivalent
// NE: counterexample (replayed):
// RUN: %expect-exit 2 %kvalidate %s:two_arrays %s:two_arrays | FileCheck %s --check-prefix=TWO
// TWO: verdict: unsupported
// TWO-NEXT: reason: before kernel: {{.*}}pointer-compare.cu:[[@LINE+33]]:{{[0-9]+}}: comparison of pointers into different arrays or with null
// RUN: %expect-exit 2 %kvalidate %s:odd_bytes %s:odd_bytes | FileCheck %s --check-prefix=ODD
// ODD: verdict: unsupported
// ODD-NEXT: reason: before kernel: model condition that fails: {{.*}}: array access aligned to its element
//
// In clang at -O2 the pointer select becomes a byte offset `(k << 2) & 4`
// from the row: divided, with the alignment proved.
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate -mllvm -kvalidate-kernel=pick_ptr \
// RUN:   %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=PLUGIN
// PLUGIN: remark: kvalidate: kernel 'pick_ptr': equivalent {{.*}}array access aligned to its element

// The larger of two cells of one row, chosen through pointers.
__global__ void pick_ptr(int *out, const int *in, int k) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  const int *a = in + 2 * t, *b = in + 2 * t + (k & 1);
  const int *hi = a < b ? b : a;
  out[t] = *hi + (a == b);
}

__global__ void pick_index(int *out, const int *in, int k) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int j = 2 * t + (k & 1);
  out[t] = in[j] + ((k & 1) == 0);
}

__global__ void pick_index_wrong(int *out, const int *in, int k) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int j = 2 * t + (k & 1);
  out[t] = in[j];
}

__global__ void two_arrays(int *out, const int *in) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  out[t] = (const int *)out == in ? 1 : 2;
}

// A byte offset into an int array that is not a multiple of 4: the
// alignment obligation fails, and the verdict says so.
__global__ void odd_bytes(int *out, const int *in, int k) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  const char *p = (const char *)(in + t) + (k & 3);
  out[t] = *(const int *)p;
}
