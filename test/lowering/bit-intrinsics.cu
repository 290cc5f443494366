// Bit-counting and bit-moving intrinsics (llvm.ctpop, ctlz, cttz,
// bitreverse, bswap, and the funnel shifts -O2 makes of a rotate) are
// spelled out over the value's bits: exact in the solver and the replay.
//
// RUN: %expect-exit 0 %kvalidate %s:count_builtin %s:count_loop | FileCheck %s --check-prefix=EQ
// RUN: %expect-exit 0 %kvalidate %s:zeros_builtin %s:zeros_loop | FileCheck %s --check-prefix=EQ
// RUN: %expect-exit 0 %kvalidate %s:reverse_builtin %s:reverse_loop | FileCheck %s --check-prefix=EQ
// RUN: %expect-exit 0 %kvalidate %s:swap_builtin %s:swap_shifts | FileCheck %s --check-prefix=EQ
// EQ: verdict: equivalent
//
// A count that misses the top bit: replayed on the kernels' own code.
// RUN: %expect-exit 1 %kvalidate %s:count_builtin %s:count_loop_short | FileCheck %s --check-prefix=NE
// NE: verdict: not-equivalent
// NE: counterexample (replayed):
//
// In clang at -O2 the rotate becomes llvm.fshl, the loops become the
// intrinsics: every kernel is proved.
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate %s -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=PLUGIN --implicit-check-not=warning:
// PLUGIN-DAG: remark: kvalidate: kernel 'rotate_mix': equivalent
// PLUGIN-DAG: remark: kvalidate: kernel 'count_loop': equivalent
// PLUGIN-DAG: remark: kvalidate: kernel 'zeros_builtin': equivalent

__global__ void count_builtin(int *out, const unsigned *in) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  out[t] = __builtin_popcount(in[t]);
}

__global__ void count_loop(int *out, const unsigned *in) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned x = in[t];
  int c = 0;
  for (int i = 0; i < 32; ++i)
    c += (x >> i) & 1;
  out[t] = c;
}

__global__ void count_loop_short(int *out, const unsigned *in) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned x = in[t];
  int c = 0;
  for (int i = 0; i < 31; ++i)
    c += (x >> i) & 1;
  out[t] = c;
}

// Leading and trailing zeros, 32 for 0.
__global__ void zeros_builtin(int *out, const unsigned *in) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned x = in[t];
  out[2 * t] = x ? __builtin_clz(x) : 32;
  out[2 * t + 1] = x ? __builtin_ctz(x) : 32;
}

__global__ void zeros_loop(int *out, const unsigned *in) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned x = in[t];
  int lead = 32, trail = 32;
  for (int i = 0; i < 32; ++i)
    if ((x >> i) & 1)
      lead = 31 - i;
  for (int i = 31; i >= 0; --i)
    if ((x >> i) & 1)
      trail = i;
  out[2 * t] = lead;
  out[2 * t + 1] = trail;
}

__global__ void reverse_builtin(unsigned *out, const unsigned *in) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  out[t] = __builtin_bitreverse32(in[t]);
}

__global__ void reverse_loop(unsigned *out, const unsigned *in) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned x = in[t], r = 0;
  for (int i = 0; i < 32; ++i)
    r |= ((x >> i) & 1) << (31 - i);
  out[t] = r;
}

__global__ void swap_builtin(unsigned *out, const unsigned *in) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  out[t] = __builtin_bswap32(in[t]);
}

__global__ void swap_shifts(unsigned *out, const unsigned *in) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned x = in[t];
  out[t] = (x >> 24) | ((x >> 8) & 0xff00) | ((x << 8) & 0xff0000) | (x << 24);
}

// A hash step with a rotate by a scalar amount.
__global__ void rotate_mix(unsigned *out, const unsigned *in, unsigned r) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned x = in[t] * 0x9e3779b9u;
  r &= 31;
  out[t] = (x << r) | (x >> ((32 - r) & 31));
}
