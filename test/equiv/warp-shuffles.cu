// Warp shuffles (__shfl_sync, __shfl_up/down/xor_sync): a thread reads the
// value another lane of its warp holds at the shuffle, as a read of shared
// memory reads its writer's value. Warps are 32 consecutive linear thread
// ids; the launches here are one warp per block.
//
// A block sum by a shared-memory tree against the same sum in shuffles.
// REQUIRES: long
// RUN: %expect-exit 0 %kvalidate --assume="%{W32}" %s:tree %s:shuffle_down | FileCheck %s --check-prefix=EQ
// RUN: %expect-exit 0 %kvalidate --cuda-path= --assume="%{W32}" %s:tree %s:shuffle_down | FileCheck %s --check-prefix=EQ
// EQ: verdict: equivalent
// EQ: checked: the after kernel has {{.*}}warp shuffles read lanes that take part
//
// A butterfly (xor) leaves the sum in every lane: lane 0's is the same.
// RUN: %expect-exit 0 %kvalidate --assume="%{W32}" %s:shuffle_down %s:shuffle_xor | FileCheck %s --check-prefix=EQ
//
// Broadcasting lane 0's value by index, against reading it from memory.
// RUN: %expect-exit 0 %kvalidate --assume="%{W32}" %s:broadcast_memory %s:broadcast_shuffle | FileCheck %s --check-prefix=EQ
//
// One offset wrong (2 twice, 1 never): a counterexample, replayed on both
// kernels' LLVM IR, whose replay runs the warp's lanes up to each shuffle.
// RUN: %expect-exit 1 %kvalidate --assume="%{W32}" %s:tree %s:shuffle_wrong_offset | FileCheck %s --check-prefix=NE
// The same two pairs compiled at -O2.
// RUN: %clang-cuda -O2 -S -emit-llvm %s -o %t.ll
// RUN: %expect-exit 0 %kvalidate --assume="%{W32}" %t.ll:tree %t.ll:shuffle_down | FileCheck %s --check-prefix=EQ
// RUN: %expect-exit 1 %kvalidate --assume="%{W32}" %t.ll:tree %t.ll:shuffle_wrong_offset | FileCheck %s --check-prefix=NE
// NE: verdict: not-equivalent
// NE: counterexample (replayed):
// NE: mismatch: out[{{[0-9]+}}]: before = {{-?[0-9]+}}, after = {{-?[0-9]+}}
// NE: replayed on: the LLVM IR of both kernels
//
// A mask that leaves out lanes that execute the shuffle.
// RUN: %expect-exit 4 %kvalidate --assume="%{W32}" %s:shuffle_down %s:half_mask | FileCheck %s --check-prefix=MASK
// MASK: verdict: divergence
// MASK-NEXT: reason: after kernel: shuffle {{whose mask leaves out the lane that executes it|from a lane outside its mask}}: thread ({{[0-9]+}},0,0) of block ({{.*}}) executes the shuffle at {{.*}}warp-shuffles.cu:[[@LINE+72]]
//
// A shuffle that reads a lane which skips it.
// RUN: %expect-exit 4 %kvalidate --assume="%{W32}" %s:shuffle_down %s:skipping_source | FileCheck %s --check-prefix=SKIP
// SKIP: verdict: divergence
// SKIP-NEXT: reason: after kernel: shuffle from a lane that does not execute it: thread ({{[0-9]+}},0,0) of block ({{.*}}) executes the shuffle at {{.*}}; thread ({{[0-9]+}},0,0) of block ({{.*}}) is its source and does not
//
// The pre-Volta warp-synchronous idiom (volatile shared memory, no
// __syncwarp between the steps) is a data race on current GPUs.
// RUN: %expect-exit 4 %kvalidate --assume="%{W32}" %s:tree %s:warp_synchronous | FileCheck %s --check-prefix=VOLATILE
// VOLATILE: verdict: race
// VOLATILE-NEXT: reason: after kernel: read-write race on s[{{[0-9]+}}]
//
// Without an assumption on the block, a block of fewer than 32 threads
// makes a full-mask shuffle read lanes that do not exist.
// RUN: %expect-exit 4 %kvalidate %s:shuffle_down %s:shuffle_down | FileCheck %s --check-prefix=SMALL
// SMALL: verdict: divergence
// SMALL-NEXT: reason: before kernel: shuffle from a lane beyond the block

__global__ void tree(int *out, const int *in) {
  __shared__ int s[32];
  unsigned t = threadIdx.x;
  s[t] = in[blockIdx.x * 32 + t];
  __syncthreads();
  for (unsigned h = 16; h > 0; h /= 2) {
    if (t < h)
      s[t] += s[t + h];
    __syncthreads();
  }
  if (t == 0)
    out[blockIdx.x] = s[0];
}

__global__ void shuffle_down(int *out, const int *in) {
  int v = in[blockIdx.x * 32 + threadIdx.x];
  for (int o = 16; o > 0; o /= 2)
    v += __shfl_down_sync(0xffffffff, v, o);
  if (threadIdx.x == 0)
    out[blockIdx.x] = v;
}

__global__ void shuffle_xor(int *out, const int *in) {
  int v = in[blockIdx.x * 32 + threadIdx.x];
  for (int o = 16; o > 0; o /= 2)
    v += __shfl_xor_sync(0xffffffff, v, o);
  if (threadIdx.x == 0)
    out[blockIdx.x] = v;
}

__global__ void shuffle_wrong_offset(int *out, const int *in) {
  int v = in[blockIdx.x * 32 + threadIdx.x];
  for (int o = 16; o > 1; o /= 2)
    v += __shfl_down_sync(0xffffffff, v, o);
  v += __shfl_down_sync(0xffffffff, v, 2);
  if (threadIdx.x == 0)
    out[blockIdx.x] = v;
}

__global__ void broadcast_memory(int *out, const int *in) {
  unsigned i = blockIdx.x * 32 + threadIdx.x;
  out[i] = in[i] - in[blockIdx.x * 32];
}

__global__ void broadcast_shuffle(int *out, const int *in) {
  unsigned i = blockIdx.x * 32 + threadIdx.x;
  int v = in[i];
  out[i] = v - __shfl_sync(0xffffffff, v, 0);
}

__global__ void half_mask(int *out, const int *in) {
  int v = in[blockIdx.x * 32 + threadIdx.x];
  for (int o = 16; o > 0; o /= 2)
    v += __shfl_down_sync(0x0000ffff, v, o);
  if (threadIdx.x == 0)
    out[blockIdx.x] = v;
}

__global__ void skipping_source(int *out, const int *in) {
  int v = in[blockIdx.x * 32 + threadIdx.x];
  if (threadIdx.x < 20)
    for (int o = 16; o > 0; o /= 2)
      v += __shfl_down_sync(0xffffffff, v, o);
  if (threadIdx.x == 0)
    out[blockIdx.x] = v;
}

__global__ void warp_synchronous(int *out, const int *in) {
  __shared__ int s[32];
  unsigned t = threadIdx.x;
  s[t] = in[blockIdx.x * 32 + t];
  __syncthreads();
  if (t < 16) {
    volatile int *v = s;
    v[t] += v[t + 16];
    v[t] += v[t + 8];
    v[t] += v[t + 4];
    v[t] += v[t + 2];
    v[t] += v[t + 1];
  }
  if (t == 0)
    out[blockIdx.x] = s[0];
}
