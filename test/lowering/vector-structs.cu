// 16-byte vector accesses, as CUDA's float4 and int4 make them: a struct of
// four scalars aligned to 16 bytes, copied whole (llvm.memcpy at -O0 and
// -O2), or loaded whole and taken apart field by field. Each access is one
// access per scalar, so a copy by vectors and a copy by words are the same
// kernel, and a transpose that reads a row four floats at a time is the
// scalar transpose. The types are the test's own (the same layout as the
// SDK's), so that it runs with and without a CUDA SDK.
//
// The solver-heavy lane. The transposes' race checks (64-bit index
// products) end past the solver's budget, "assumed: not proved", after
// some 25 s; what this test is about is the lowering, so they are off.
// REQUIRES: long
//
// RUN: %expect-exit 0 %kvalidate %s:copy_f4 %s:copy_words | FileCheck %s --check-prefix=EQ
// RUN: %expect-exit 0 %kvalidate --safety-checks=false %s:transpose_scalar %s:transpose_load4 \
// RUN:   | FileCheck %s --check-prefix=EQ
// EQ: verdict: equivalent
//
// Two components of the vector written to each other's rows: the runs
// before the proof find it, and the IR confirms it.
// RUN: %expect-exit 1 %kvalidate %s:transpose_scalar %s:transpose_load4_swapped \
// RUN:   | FileCheck %s --check-prefix=SWAP
// SWAP: verdict: not-equivalent
// SWAP: counterexample (replayed):
// SWAP: mismatch: out[{{[0-9]+}}]: before = {{-?[0-9]+}}, after = {{-?[0-9]+}}
// SWAP-NEXT: replayed on: the LLVM IR of both kernels
//
// Inside clang at -O2, the copies (the transposes' 64-bit index products
// are beyond the solver's default budget there).
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate \
// RUN:   -mllvm -kvalidate-kernel=copy_f4 -mllvm -kvalidate-kernel=copy_cast_i4 \
// RUN:   %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=PLUGIN --implicit-check-not=warning:
// PLUGIN-DAG: remark: kvalidate: kernel 'copy_f4': equivalent
// PLUGIN-DAG: remark: kvalidate: kernel 'copy_cast_i4': equivalent

struct __attribute__((aligned(16))) Float4 {
  float x, y, z, w;
};
struct __attribute__((aligned(16))) Int4 {
  int x, y, z, w;
};

__global__ void copy_f4(Float4 *out, const Float4 *in, long n) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i];
}

__global__ void copy_cast_i4(int *out, const int *in, long n) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i < n)
    reinterpret_cast<Int4 *>(out)[i] = reinterpret_cast<const Int4 *>(in)[i];
}

__global__ void copy_words(int *out, const int *in, long n) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  for (int k = 0; k < 4; ++k)
    out[4 * i + k] = in[4 * i + k];
}

// in: h rows of 4w floats; out: 4w rows of h floats. Thread (x, y) moves
// in[y][4x .. 4x+3].
__global__ void transpose_scalar(float *out, const float *in, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h)
    return;
  for (int k = 0; k < 4; ++k)
    out[(4L * x + k) * h + y] = in[(long)y * 4 * w + 4L * x + k];
}

__global__ void transpose_load4(float *out, const float *in, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h)
    return;
  Float4 v = reinterpret_cast<const Float4 *>(in)[(long)y * w + x];
  long col = 4L * x * h + y;
  out[col] = v.x;
  out[col + h] = v.y;
  out[col + 2L * h] = v.z;
  out[col + 3L * h] = v.w;
}

__global__ void transpose_load4_swapped(float *out, const float *in, int w,
                                        int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h)
    return;
  Float4 v = reinterpret_cast<const Float4 *>(in)[(long)y * w + x];
  long col = 4L * x * h + y;
  out[col] = v.x;
  out[col + h] = v.z;
  out[col + 2L * h] = v.y;
  out[col + 3L * h] = v.w;
}
