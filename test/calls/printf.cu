// printf: what a launch prints is each thread's records in its own order
// (the order between threads is the schedule's). Kernels that print the
// same records in every thread are equivalent; a replay compares the lines
// both kernels' IR print, sorted.
//
// RUN: %expect-exit 0 %kvalidate %s:clamp_report %s:clamp_report_reordered | FileCheck %s --check-prefix=EQ
// RUN: %expect-exit 0 %kvalidate --cuda-path= %s:scale_report %s:scale_report_add | FileCheck %s --check-prefix=EQ
// RUN: %expect-exit 0 %kvalidate %s:rows_loop %s:rows_unrolled | FileCheck %s --check-prefix=EQ
// EQ: verdict: equivalent
//
// Another value printed, or nothing printed: a counterexample, replayed on
// both kernels' IR.
// RUN: %expect-exit 1 %kvalidate %s:clamp_report %s:clamp_report_off_by_one | FileCheck %s --check-prefix=NE
// RUN: %expect-exit 1 %kvalidate --cuda-path= %s:clamp_report %s:clamp_silent | FileCheck %s --check-prefix=NE
// The solver's counterexample, without the runs first:
// RUN: %expect-exit 1 %kvalidate --run-first=0 %s:clamp_report %s:clamp_report_off_by_one | FileCheck %s --check-prefix=NE
// NE: verdict: not-equivalent
// NE: mismatch: printf output (sorted lines)[line
// NE: replayed on: the LLVM IR of both kernels
//
// The same lines in another order within each thread: the model compares
// each thread's sequence, the replay the lines; no false alarm.
// RUN: %expect-exit 2 %kvalidate %s:two_lines %s:two_lines_swapped | FileCheck %s --check-prefix=ORDER
// ORDER: verdict: unknown
//
// A constant string (%s) is its text; another text is another line.
// RUN: %expect-exit 0 %kvalidate %s:tagged %s:tagged_by_pointer | FileCheck %s --check-prefix=EQ
// RUN: %expect-exit 1 %kvalidate --cuda-path= %s:tagged %s:tagged_other | FileCheck %s --check-prefix=NE
//
// What is not modelled is named with its line.
// RUN: %expect-exit 2 %kvalidate %s:print_address %s:print_address | FileCheck %s --check-prefix=PTR
// PTR: verdict: unsupported
// PTR: reason: before kernel: {{.*}}printf.cu:{{[0-9]+}}:3: printf of an address (%p)
//
// Inside clang at -O2.
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate \
// RUN:   %s -o %t.s 2>&1 | FileCheck %s --check-prefix=O2 --implicit-check-not=error:
// O2-DAG: remark: kvalidate: kernel 'clamp_report': equivalent
// O2-DAG: remark: kvalidate: kernel 'scale_report': equivalent
// O2-DAG: remark: kvalidate: kernel 'rows_loop': equivalent
// O2-DAG: remark: kvalidate: kernel 'two_lines': equivalent

// The C library's printf is the host's; kv_cuda.h (no SDK) and the SDK
// declare the device's beside it.
#include <cstdio>

__global__ void clamp_report(int *out, const int *in, int hi) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[i];
  if (v > hi) {
    printf("clamped %d at %d\n", v, i);
    v = hi;
  }
  out[i] = v;
}

__global__ void clamp_report_reordered(int *out, const int *in, int hi) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i] > hi ? hi : in[i];
  if (in[i] > hi)
    printf("clamped %d at %d\n", in[i], i);
}

__global__ void clamp_report_off_by_one(int *out, const int *in, int hi) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i] > hi ? hi : in[i];
  if (in[i] > hi)
    printf("clamped %d at %d\n", in[i], i + 1);
}

__global__ void clamp_silent(int *out, const int *in, int hi) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i] > hi ? hi : in[i];
}

// Floats are printed as doubles.
__global__ void scale_report(float *out, const float *in, float s) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float y = in[i] * s;
  printf("%d: %8.3f\n", i, y);
  out[i] = y;
}

__global__ void scale_report_add(float *out, const float *in, float s) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i] * s;
  printf("%d: %8.3f\n", i, in[i] * s);
}

// A loop of a constant trip count, and the same records written out; a
// 64-bit value.
__global__ void rows_loop(long long *out, const long long *in) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int r = 0; r < 3; ++r)
    printf("row %d: %*lld\n", r, 6, in[3 * i + r]);
  out[i] = in[3 * i];
}

__global__ void rows_unrolled(long long *out, const long long *in) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  const long long *row = in + 3 * i;
  printf("row %d: %*lld\n", 0, 6, row[0]);
  printf("row %d: %*lld\n", 1, 6, row[1]);
  printf("row %d: %*lld\n", 2, 6, row[2]);
  out[i] = row[0];
}

__global__ void two_lines(int *out, const int *in) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  printf("first %d\n", in[i]);
  printf("second\n");
  out[i] = in[i];
}

__global__ void two_lines_swapped(int *out, const int *in) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  printf("second\n");
  printf("first %d\n", in[i]);
  out[i] = in[i];
}

__global__ void tagged(int *out, const int *in) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  printf("%s %d\n", "sum", in[i] + in[i + 1]);
  out[i] = in[i];
}

__device__ const char *const kTag = "sum";

__global__ void tagged_by_pointer(int *out, const int *in) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i];
  printf("%s %d\n", kTag, in[i + 1] + in[i]);
}

__global__ void tagged_other(int *out, const int *in) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  printf("%s %d\n", "total", in[i] + in[i + 1]);
  out[i] = in[i];
}

__global__ void print_address(int *out) {
  printf("%p\n", out);
  out[threadIdx.x] = 1;
}
