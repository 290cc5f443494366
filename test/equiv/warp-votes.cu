// Warp votes (__ballot_sync, __any_sync, __all_sync): a thread reads the
// predicate of every lane of its warp that is in the mask and executes the
// vote. One warp per block here.
//
// Counting by a ballot against counting through shared memory.
// REQUIRES: long
// RUN: %expect-exit 0 %kvalidate --assume="%{W32}" %s:count_memory %s:count_ballot | FileCheck %s --check-prefix=EQ
// RUN: %expect-exit 0 %kvalidate --cuda-path= --assume="%{W32}" %s:count_memory %s:count_ballot | FileCheck %s --check-prefix=EQ
// EQ: verdict: equivalent
//
// any against a loop over the warp's inputs, and any against not-all.
// RUN: %expect-exit 0 %kvalidate --assume="%{W32}" %s:any_memory %s:any_vote | FileCheck %s --check-prefix=EQ
// RUN: %expect-exit 0 %kvalidate --assume="%{W32}" %s:any_vote %s:not_all_vote | FileCheck %s --check-prefix=EQ
//
// A different predicate: a counterexample, replayed on both kernels' IR.
// RUN: %expect-exit 1 %kvalidate --assume="%{W32}" %s:count_memory %s:count_ballot_wrong | FileCheck %s --check-prefix=NE
// NE: verdict: not-equivalent
// NE: counterexample (replayed):
// NE: replayed on: the LLVM IR of both kernels
//
// A mask that leaves out lanes that execute the vote.
// RUN: %expect-exit 4 %kvalidate --assume="%{W32}" %s:not_all_vote %s:half_mask_vote | FileCheck %s --check-prefix=MASK
// MASK: verdict: divergence
// MASK-NEXT: reason: after kernel: vote whose mask leaves out the lane that executes it: thread ({{[0-9]+}},0,0) of block ({{.*}}) executes the vote at {{.*}}warp-votes.cu

__global__ void count_memory(int *out, const int *in) {
  __shared__ int s[32];
  unsigned t = threadIdx.x;
  s[t] = in[blockIdx.x * 32 + t] > 0;
  __syncthreads();
  if (t == 0) {
    int c = 0;
    for (int i = 0; i < 32; ++i)
      c += s[i];
    out[blockIdx.x] = c;
  }
}

__global__ void count_ballot(int *out, const int *in) {
  unsigned t = threadIdx.x;
  unsigned b = __ballot_sync(0xffffffff, in[blockIdx.x * 32 + t] > 0);
  if (t == 0)
    out[blockIdx.x] = __builtin_popcount(b);
}

__global__ void count_ballot_wrong(int *out, const int *in) {
  unsigned t = threadIdx.x;
  unsigned b = __ballot_sync(0xffffffff, in[blockIdx.x * 32 + t] >= 0);
  if (t == 0)
    out[blockIdx.x] = __builtin_popcount(b);
}

__global__ void any_memory(int *out, const int *in) {
  unsigned i = blockIdx.x * 32 + threadIdx.x;
  int any = 0;
  for (int j = 0; j < 32; ++j)
    any |= in[blockIdx.x * 32 + j] < 0;
  out[i] = any;
}

__global__ void any_vote(int *out, const int *in) {
  unsigned i = blockIdx.x * 32 + threadIdx.x;
  out[i] = __any_sync(0xffffffff, in[i] < 0);
}

__global__ void not_all_vote(int *out, const int *in) {
  unsigned i = blockIdx.x * 32 + threadIdx.x;
  out[i] = !__all_sync(0xffffffff, in[i] >= 0);
}

__global__ void half_mask_vote(int *out, const int *in) {
  unsigned i = blockIdx.x * 32 + threadIdx.x;
  out[i] = !__all_sync(0x0000ffff, in[i] >= 0);
}
