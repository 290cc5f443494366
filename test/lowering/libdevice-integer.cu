// libdevice's integer functions (max, min, abs, __popc, __clz, __brev,
// __ffs, __mulhi, __umulhi and their 64-bit forms) are calls to __nv_* at
// -O0 and without the SDK's libdevice: lowered by their definition, so a
// kernel that spells them out is proved equal, with and without the SDK.
//
// REQUIRES: long
// RUN: %expect-exit 0 %kvalidate %s:with_calls %s:spelled_out | FileCheck %s --check-prefix=EQ
// RUN: %expect-exit 0 %kvalidate --cuda-path= %s:with_calls %s:spelled_out | FileCheck %s --check-prefix=EQ
// RUN: %expect-exit 0 %kvalidate --cuda-path= %s:wide_calls %s:wide_spelled_out | FileCheck %s --check-prefix=EQ
// EQ: verdict: equivalent
//
// An unsigned max where the signed one was meant: replayed.
// RUN: %expect-exit 1 %kvalidate --cuda-path= %s:with_calls %s:unsigned_max | FileCheck %s --check-prefix=NE
// NE: verdict: not-equivalent
// NE: counterexample (replayed):
// NE: replayed on: the LLVM IR of both kernels

__global__ void with_calls(int *out, const int *a, const unsigned *u) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[8 * i] = max(a[i], a[i + 1]);
  out[8 * i + 1] = min(a[i], 3);
  out[8 * i + 2] = abs(a[i]);
  out[8 * i + 3] = __popc(u[i]);
  out[8 * i + 4] = __clz(a[i]);
  out[8 * i + 5] = (int)__brev(u[i]);
  out[8 * i + 6] = __ffs(a[i]);
  out[8 * i + 7] = __mulhi(a[i], a[i + 1]) ^ (int)__umulhi(u[i], u[i + 1]);
}

__global__ void spelled_out(int *out, const int *a, const unsigned *u) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int x = a[i], y = a[i + 1];
  unsigned v = u[i];
  out[8 * i] = x > y ? x : y;
  out[8 * i + 1] = x < 3 ? x : 3;
  out[8 * i + 2] = x < 0 ? -x : x;
  out[8 * i + 3] = __builtin_popcount(v);
  out[8 * i + 4] = x == 0 ? 32 : __builtin_clz((unsigned)x);
  unsigned r = 0;
  for (int b = 0; b < 32; ++b)
    r |= ((v >> b) & 1u) << (31 - b);
  out[8 * i + 5] = (int)r;
  out[8 * i + 6] = x == 0 ? 0 : __builtin_ctz((unsigned)x) + 1;
  long long p = (long long)x * y;
  unsigned long long q = (unsigned long long)v * u[i + 1];
  out[8 * i + 7] = (int)(p >> 32) ^ (int)(q >> 32);
}

__global__ void unsigned_max(int *out, const int *a, const unsigned *u) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[8 * i] = (int)max((unsigned)a[i], (unsigned)a[i + 1]);
  out[8 * i + 1] = min(a[i], 3);
  out[8 * i + 2] = abs(a[i]);
  out[8 * i + 3] = __popc(u[i]);
  out[8 * i + 4] = __clz(a[i]);
  out[8 * i + 5] = (int)__brev(u[i]);
  out[8 * i + 6] = __ffs(a[i]);
  out[8 * i + 7] = __mulhi(a[i], a[i + 1]) ^ (int)__umulhi(u[i], u[i + 1]);
}

__global__ void wide_calls(long long *out, const long long *a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[4 * i] = max(a[i], a[i + 1]) + llabs(a[i]);
  out[4 * i + 1] = __popcll(a[i]) + __clzll(a[i]) + __ffsll(a[i]);
  out[4 * i + 2] = (long long)__brevll((unsigned long long)a[i]);
  out[4 * i + 3] = __mul64hi(a[i], a[i + 1]);
}

__global__ void wide_spelled_out(long long *out, const long long *a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  long long x = a[i], y = a[i + 1];
  unsigned long long v = (unsigned long long)x;
  out[4 * i] = (x > y ? x : y) + (x < 0 ? -x : x);
  out[4 * i + 1] = __builtin_popcountll(v) + (x == 0 ? 64 : __builtin_clzll(v)) +
                   (x == 0 ? 0 : __builtin_ctzll(v) + 1);
  out[4 * i + 2] = (long long)__builtin_bitreverse64(v);
  out[4 * i + 3] = (long long)(((__int128)x * y) >> 64);
}
