// Warp shuffles and votes at -O2, no assumptions: a warp sum, a block sum
// finished in shuffles, a float butterfly, a ballot count. -O2 unrolls the
// offset loops and widens indices; each thread's shuffles, votes and writes
// stay, so the interval-by-interval proof settles them in milliseconds.
//
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate -mllvm -kvalidate-cache= \
// RUN:   %s -o %t.s 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=PTX < %t.s
// CHECK-DAG: remark: kvalidate: kernel 'warp_sum': equivalent ({{[0-9]+}} ms) {{.*}}[proof: interval by interval
// CHECK-DAG: remark: kvalidate: kernel 'block_sum<256>': equivalent
// CHECK-DAG: remark: kvalidate: kernel 'warp_max_float': equivalent
// CHECK-DAG: remark: kvalidate: kernel 'warp_votes': equivalent
// The shuffles reach the PTX.
// PTX-DAG: shfl.sync.down.b32
// PTX-DAG: shfl.sync.bfly.b32
// PTX-DAG: vote.sync.ballot.b32
//
// With the safety checks, the block sum's shuffles are checked too: on a
// block that is not a whole number of warps, lanes past its end would be
// read, and the plugin says so (a remark, with -kvalidate-fail-on=never).
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate -mllvm -kvalidate-cache= \
// RUN:   -mllvm -kvalidate-safety-checks -mllvm -kvalidate-fail-on=never %s -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SAFE
// SAFE: remark: kvalidate: kernel 'warp_sum': divergence: before kernel: shuffle from a lane beyond the block

__global__ void warp_sum(int *out, const int *in) {
  int v = in[blockIdx.x * blockDim.x + threadIdx.x];
  for (int o = 16; o > 0; o /= 2)
    v += __shfl_down_sync(0xffffffff, v, o);
  if (threadIdx.x % 32 == 0)
    out[(blockIdx.x * blockDim.x + threadIdx.x) / 32] = v;
}

template <int Threads>
__global__ void block_sum(int *out, const int *in) {
  __shared__ int s[Threads];
  unsigned t = threadIdx.x;
  s[t] = in[blockIdx.x * Threads + t];
  __syncthreads();
  for (unsigned h = Threads / 2; h >= 32; h /= 2) {
    if (t < h)
      s[t] += s[t + h];
    __syncthreads();
  }
  if (t < 32) {
    int v = s[t];
    for (int o = 16; o > 0; o /= 2)
      v += __shfl_down_sync(0xffffffff, v, o);
    if (t == 0)
      out[blockIdx.x] = v;
  }
}
template __global__ void block_sum<256>(int *, const int *);

__global__ void warp_max_float(float *out, const float *in) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = in[i];
  for (int o = 16; o > 0; o /= 2)
    v = __builtin_fmaxf(v, __shfl_xor_sync(0xffffffff, v, o));
  out[i] = v;
}

__global__ void warp_votes(int *out, const int *in) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned positive = __ballot_sync(0xffffffff, in[i] > 0);
  out[i] = __builtin_popcount(positive) + (__any_sync(0xffffffff, in[i] < 0) ? 100 : 0);
}
