// Kernels whose atomic updates differ thread by thread but add up to the
// same: a cell's final value is its input folded with what every block adds,
// so the two kernels are compared block by block. What a block adds is
// written out thread by thread (a block of fixed shape), or is the update of
// the one thread that makes it, or is a sum over the block's threads named
// by its term, shared by two kernels whose terms are proved equal thread by
// thread (a histogram in global memory and one privatized in shared memory).
//
// A global histogram against one privatized per block (1-D blocks of at
// least 16 threads, one per bin), with and without the flush skipping the
// empty bins; at -O0 and at -O2, with and without the CUDA SDK.
// REQUIRES: long
// RUN: %expect-exit 0 %kvalidate --assume='blockDim.y == 1 && blockDim.z == 1 && blockDim.x >= 16' %s:hist %s:hist_private | FileCheck %s --check-prefix=EQ
// RUN: %expect-exit 0 %kvalidate --cuda-path= --assume='blockDim.y == 1 && blockDim.z == 1 && blockDim.x >= 16' %s:hist %s:hist_private_nonzero | FileCheck %s --check-prefix=EQ
// RUN: %clang-cuda -O2 -S -emit-llvm %s -o %t.ll
// RUN: %expect-exit 0 %kvalidate --assume='blockDim.y == 1 && blockDim.z == 1 && blockDim.x >= 16' %t.ll:hist %t.ll:hist_private_nonzero | FileCheck %s --check-prefix=EQ
// EQ: verdict: equivalent
// EQ-NEXT: proof: atomic updates totalled: 1 array updated only atomically, proved block by block (what one block's threads add to a cell is the same in both kernels; sums over a block's threads related by proving their terms equal thread by thread)
// EQ: checked: the after kernel has in-bounds shared-array accesses, no data race
//
// The same with a bitmask of seen values (atomicOr).
// RUN: %expect-exit 0 %kvalidate --assume='blockDim.y == 1 && blockDim.z == 1 && blockDim.x >= 4' %s:seen %s:seen_private | FileCheck %s --check-prefix=EQ
//
// Blocks with rows (blockDim.y > 1): the privatized kernel clears and
// flushes the bins once per row. A counterexample, replayed.
// RUN: %expect-exit 1 %kvalidate --assume='blockDim.z == 1 && blockDim.x >= 16' %s:hist %s:hist_private | FileCheck %s --check-prefix=NE
// NE: verdict: not-equivalent
// NE: counterexample (replayed):
// NE: mismatch: {{[a-z]+}}[{{[0-9]+}}]: before = {{-?[0-9]+}}, after = {{-?[0-9]+}}
// NE: replayed on: the LLVM IR of both kernels
//
// A sum by one atomicAdd per element against a tree in shared memory with
// one atomicAdd per block (blocks of 64 threads): what a block adds is the
// same sum of the same 64 terms. And against a shared counter per block,
// for any block shape.
// RUN: %expect-exit 0 %kvalidate --assume='blockDim.x == 64 && blockDim.y == 1 && blockDim.z == 1' %s:sum %s:sum_tree | FileCheck %s --check-prefix=SUM
// RUN: %expect-exit 0 %kvalidate --assume='blockDim.x == 64 && blockDim.y == 1 && blockDim.z == 1' %t.ll:sum %t.ll:sum_tree | FileCheck %s --check-prefix=SUM
// RUN: %expect-exit 0 %kvalidate %s:sum %s:sum_shared_counter | FileCheck %s --check-prefix=SUM
// SUM: verdict: equivalent
// SUM-NEXT: proof: atomic updates totalled: 1 array updated only atomically, proved block by block (what one block's threads add to a cell is the same in both kernels{{(; sums over a block.s threads related by proving their terms equal thread by thread)?}})
//
// A tree one level short adds half of each block.
// RUN: %expect-exit 1 %kvalidate --assume='blockDim.x == 64 && blockDim.y == 1 && blockDim.z == 1' %s:sum %s:sum_tree_short | FileCheck %s --check-prefix=NE
//
// Elements added in pairs by the even threads: with blocks of 4 threads
// each block adds its own elements; with blocks of 3 a pair straddles two
// blocks, so the blocks' totals differ though the grid's do not. No model
// replays and none is reported: unknown, not a false alarm.
// RUN: %expect-exit 0 %kvalidate --assume='blockDim.x == 4 && blockDim.y == 1 && blockDim.z == 1' %s:sum %s:sum_pairs | FileCheck %s --check-prefix=SUM
// RUN: %expect-exit 2 %kvalidate --timeout=60 --assume='blockDim.x == 3 && blockDim.y == 1 && blockDim.z == 1 && gridDim.y == 1 && gridDim.z == 1' %s:sum %s:sum_pairs | FileCheck %s --check-prefix=STRADDLE
// STRADDLE: verdict: unknown
// STRADDLE-NEXT: reason: array 'out': {{.*}}(its atomic updates were compared block by block: what one block adds to a cell)
// STRADDLE-NOT: counterexample

__global__ void hist(unsigned *bins, const unsigned *keys, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&bins[keys[i] % 16], 1u);
}

__global__ void hist_private(unsigned *bins, const unsigned *keys, int n) {
  __shared__ unsigned part[16];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x < 16)
    part[threadIdx.x] = 0;
  __syncthreads();
  if (i < n)
    atomicAdd(&part[keys[i] & 15], 1u);
  __syncthreads();
  if (threadIdx.x < 16)
    atomicAdd(&bins[threadIdx.x], part[threadIdx.x]);
}

__global__ void hist_private_nonzero(unsigned *bins, const unsigned *keys,
                                     int n) {
  __shared__ unsigned part[16];
  unsigned t = threadIdx.x;
  int i = blockIdx.x * blockDim.x + t;
  if (t < 16)
    part[t] = 0;
  __syncthreads();
  if (i < n)
    atomicAdd(&part[keys[i] % 16], 1u);
  __syncthreads();
  unsigned mine = t < 16 ? part[t] : 0;
  if (mine != 0)
    atomicAdd(&bins[t], mine);
}

__global__ void seen(unsigned *mask, const unsigned *v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicOr(&mask[v[i] % 4], 1u << (v[i] / 4 % 32));
}

__global__ void seen_private(unsigned *mask, const unsigned *v, int n) {
  __shared__ unsigned local[4];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x < 4)
    local[threadIdx.x] = 0;
  __syncthreads();
  if (i < n)
    atomicOr(&local[v[i] % 4], 1u << (v[i] / 4 % 32));
  __syncthreads();
  if (threadIdx.x < 4)
    atomicOr(&mask[threadIdx.x], local[threadIdx.x]);
}

__global__ void sum(int *out, const int *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(out, x[i]);
}

__global__ void sum_tree(int *out, const int *x, int n) {
  __shared__ int part[64];
  unsigned t = threadIdx.x;
  int i = blockIdx.x * 64 + t;
  part[t] = i < n ? x[i] : 0;
  __syncthreads();
  for (unsigned half = 32; half > 0; half /= 2) {
    if (t < half)
      part[t] += part[t + half];
    __syncthreads();
  }
  if (t == 0)
    atomicAdd(out, part[0]);
}

__global__ void sum_tree_short(int *out, const int *x, int n) {
  __shared__ int part[64];
  unsigned t = threadIdx.x;
  int i = blockIdx.x * 64 + t;
  part[t] = i < n ? x[i] : 0;
  __syncthreads();
  for (unsigned half = 16; half > 0; half /= 2) {
    if (t < half)
      part[t] += part[t + half];
    __syncthreads();
  }
  if (t == 0)
    atomicAdd(out, part[0]);
}

__global__ void sum_shared_counter(int *out, const int *x, int n) {
  __shared__ int acc;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  bool first = threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0;
  if (first)
    acc = 0;
  __syncthreads();
  if (i < n)
    atomicAdd(&acc, x[i]);
  __syncthreads();
  if (first)
    atomicAdd(out, acc);
}

__global__ void sum_pairs(int *out, const int *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int total = gridDim.x * blockDim.x;
  if (i % 2 == 0 && i < n) {
    int s = x[i];
    if (i + 1 < n && i + 1 < total)
      s += x[i + 1];
    atomicAdd(out, s);
  }
}
