// memcpy and memset (the builtins, as with or without the SDK) of a length
// the kernel computes, to or from a private array: each element is copied
// where the length covers it, as the copy's loop would; the checker proves
// the length a whole number of elements and within the array (past it the
// copy is undefined). Replays run the copies with their computed lengths.
//
// REQUIRES: long
//
// RUN: %expect-exit 0 %kvalidate --timeout=120 %s:staged %s:direct | FileCheck %s --check-prefix=EQ
// RUN: %expect-exit 0 %kvalidate --timeout=120 --cuda-path= %s:cleared %s:cleared_loop | FileCheck %s --check-prefix=EQ
// EQ: verdict: equivalent
// EQ: {{memcpy|memset}} of whole scalars at {{.*}}memcpy-length.cu:{{[0-9]+}}:{{[0-9]+}}, {{memcpy|memset}} within its private object
//
// One element fewer staged: a counterexample, replayed.
// RUN: %expect-exit 1 %kvalidate --timeout=120 %s:staged %s:staged_short | FileCheck %s --check-prefix=NE
// NE: verdict: not-equivalent
// NE: counterexample (replayed):
//
// A length that may pass the array's end: the copy is undefined there.
// RUN: %expect-exit 2 %kvalidate --timeout=120 %s:unclamped %s:unclamped | FileCheck %s --check-prefix=PAST
// PAST: verdict: unsupported
// PAST: model condition that fails: {{.*}}memcpy-length.cu:[[@LINE+43]]:{{[0-9]+}} {{.*}}memcpy within its private object
//
// A length in bytes that may end inside an element.
// RUN: %expect-exit 2 %kvalidate --timeout=120 %s:bytes %s:bytes | FileCheck %s --check-prefix=PART
// PART: verdict: unsupported
// PART: model condition that fails: {{.*}}memcpy of whole scalars
//
// Inside clang at -O2: each kernel's pipeline.
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate %s -o %t.s 2>&1 \
// RUN:   | FileCheck %s --check-prefix=O2
// O2-DAG: remark: kvalidate: kernel 'staged': equivalent
// O2-DAG: remark: kvalidate: kernel 'cleared': equivalent

__device__ int clamp8(int n) { return n < 0 ? 0 : n < 8 ? n : 8; }

__global__ void staged(const int *in, int *out, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int buf[8];
  int k = clamp8(n);
  __builtin_memcpy(buf, in + t * 8, k * sizeof(int));
  for (int i = 0; i < k; ++i)
    out[t * 8 + i] = buf[i] + 1;
}

__global__ void direct(const int *in, int *out, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = 0; i < clamp8(n); ++i)
    out[t * 8 + i] = in[t * 8 + i] + 1;
}

__global__ void staged_short(const int *in, int *out, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int buf[8];
  int k = clamp8(n);
  __builtin_memcpy(buf, in + t * 8, (k > 0 ? k - 1 : 0) * sizeof(int));
  for (int i = 0; i < k; ++i)
    out[t * 8 + i] = i < k - 1 ? buf[i] + 1 : in[t * 8 + i];
}

__global__ void unclamped(const int *in, int *out, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int buf[8];
  int k = n < 0 ? 0 : n;
  __builtin_memcpy(buf, in + t * 8, k * sizeof(int));
  out[t] = buf[0];
}

__global__ void bytes(const int *in, int *out, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int buf[4] = {0, 0, 0, 0};
  __builtin_memcpy(buf, in + t * 4, n & 15);
  out[t] = buf[0];
}

// Set, then its first k cleared with memset of a computed length.
__global__ void cleared(int *out, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int acc[6];
  int k = n < 0 ? 0 : n < 6 ? n : 6;
  for (int i = 0; i < 6; ++i)
    acc[i] = 1;
  __builtin_memset(acc, 0, k * sizeof(int));
  for (int i = 0; i < 6; ++i)
    out[t * 6 + i] = acc[i];
}

__global__ void cleared_loop(int *out, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int k = n < 0 ? 0 : n < 6 ? n : 6;
  for (int i = 0; i < 6; ++i)
    out[t * 6 + i] = i < k ? 0 : 1;
}
