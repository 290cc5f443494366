// Cooperative groups' grid-wide barrier (grid.sync()): global memory a block
// writes before it is read after it by other blocks. The model takes the
// call, and the body -O2 inlines (thread 0 of each block arriving on the
// launch's grid workspace with an atomic and spinning on it, between two
// block barriers), as one barrier of the whole grid: reads after it see
// every block's writes, a race check orders accesses it separates for any
// two threads, and every thread of the grid must reach it (else divergence,
// shown by a run where blocks wait that others never join). The replays
// run every block up to the barrier before any goes on. A kernel that
// calls it is taken as launched cooperatively (the verdict says so).
// REQUIRES: cuda-sdk, long
//
// RUN: %expect-exit 0 %kvalidate --cuda-path=/usr/local/cuda %s:pair_sum %s:pair_sum_swapped | FileCheck %s --check-prefix=EQ
// EQ: verdict: equivalent
// EQ: launched cooperatively (cudaLaunchCooperativeKernel, every block resident at once), as grid.sync() requires
// EQ: checked: the after kernel has {{.*}}no data race (writes of equal values tolerated), no barrier divergence (proved)
//
// The left neighbour instead of the right one: replayed.
// RUN: %expect-exit 1 %kvalidate --cuda-path=/usr/local/cuda %s:pair_sum %s:pair_sum_left | FileCheck %s --check-prefix=NE
// NE: verdict: not-equivalent
// NE: counterexample (replayed):
// NE: replayed on: the LLVM IR of both kernels
//
// A block's barrier where the grid's is needed: blocks race.
// RUN: %expect-exit 4 %kvalidate --cuda-path=/usr/local/cuda %s:pair_sum %s:pair_sum_block | FileCheck %s --check-prefix=RACE
// RACE: verdict: race
// RACE: confirmed: the after kernel's LLVM IR ran {{.*}}: threads of two blocks access one cell
//
// Threads past the end return before the grid barrier.
// RUN: %expect-exit 4 %kvalidate --cuda-path=/usr/local/cuda %s:pair_sum %s:pair_sum_skip | FileCheck %s --check-prefix=SKIP
// SKIP: verdict: divergence
// SKIP: reason: after kernel: grid barrier divergence: {{.*}} reaches the grid barrier at {{.*}}grid-barrier.cu:[[@LINE+98]]:5; {{.*}} does not reach the grid barrier
// SKIP: confirmed: the after kernel's LLVM IR ran
//
// Three steps of two grid barriers each, a shared value and a private one
// kept across them (1-D launches: the kernels index by x alone).
// RUN: %expect-exit 0 %kvalidate --cuda-path=/usr/local/cuda --assume='%{1D}' %s:relax %s:relax_unrolled | FileCheck %s --check-prefix=EQ
// RUN: %expect-exit 4 %kvalidate --cuda-path=/usr/local/cuda --assume='%{1D}' %s:relax %s:relax_one_sync | FileCheck %s --check-prefix=RACE1
// RACE1: verdict: race
// RACE1: confirmed:
// Block 0 leaves: the others wait at the grid barrier for ever.
// RUN: %expect-exit 4 %kvalidate --cuda-path=/usr/local/cuda --assume='%{1D}' %s:relax %s:relax_block0_leaves | FileCheck %s --check-prefix=LEAVES
// LEAVES: verdict: divergence
// LEAVES: reason: after kernel: grid barrier divergence: thread {{.*}} of block (1,0,0) reaches the grid barrier{{.*}} of block (0,0,0) does not reach the grid barrier
// LEAVES: confirmed: {{.*}}: a grid barrier some blocks reach and others, which end, do not
//
// Against the -O2 IR, where grid.sync() is inlined.
// RUN: %clang-path -x cuda --cuda-device-only --cuda-gpu-arch=sm_80 --cuda-path=/usr/local/cuda \
// RUN:   -isystem /usr/local/cuda/include/cccl -Wno-unknown-cuda-version -O2 -S -emit-llvm %s -o %t.ll
// RUN: %expect-exit 0 %kvalidate --cuda-path=/usr/local/cuda %s:pair_sum %t.ll:pair_sum_swapped | FileCheck %s --check-prefix=EQ
// RUN: %expect-exit 0 %kvalidate --cuda-path=/usr/local/cuda --assume='%{1D}' %s:relax %t.ll:relax_unrolled | FileCheck %s --check-prefix=EQ
// RUN: %expect-exit 1 %kvalidate --cuda-path=/usr/local/cuda %s:pair_sum %t.ll:pair_sum_left | FileCheck %s --check-prefix=NE
// RUN: %expect-exit 4 %kvalidate --cuda-path=/usr/local/cuda %s:pair_sum %t.ll:pair_sum_skip | FileCheck %s --check-prefix=SKIPO2
// RUN: %expect-exit 4 %kvalidate --cuda-path=/usr/local/cuda --assume='%{1D}' %s:relax %t.ll:relax_block0_leaves | FileCheck %s --check-prefix=LEAVES
// SKIPO2: verdict: divergence
// SKIPO2: confirmed: the after kernel's LLVM IR ran
//
// Each kernel against its -O2 pipeline, in the plugin, with no assumptions.
// RUN: %clang-path -x cuda --cuda-device-only --cuda-gpu-arch=sm_80 --cuda-path=/usr/local/cuda \
// RUN:   -isystem /usr/local/cuda/include/cccl -Wno-unknown-cuda-version -O2 -S \
// RUN:   -fpass-plugin=%plugin -Rpass=kvalidate -mllvm -kvalidate-cache= \
// RUN:   -mllvm -kvalidate-kernel=pair_sum -mllvm -kvalidate-kernel=pair_sum_swapped \
// RUN:   -mllvm -kvalidate-kernel=pair_sum_left -mllvm -kvalidate-kernel=pair_sum_skip \
// RUN:   -mllvm -kvalidate-kernel=relax -mllvm -kvalidate-kernel=relax_unrolled \
// RUN:   %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=PLUGIN --implicit-check-not=error:
// PLUGIN-DAG: remark: kvalidate: kernel 'pair_sum': equivalent
// PLUGIN-DAG: remark: kvalidate: kernel 'pair_sum_swapped': equivalent
// PLUGIN-DAG: remark: kvalidate: kernel 'pair_sum_left': equivalent
// PLUGIN-DAG: remark: kvalidate: kernel 'pair_sum_skip': equivalent
// PLUGIN-DAG: remark: kvalidate: kernel 'relax': equivalent
// PLUGIN-DAG: remark: kvalidate: kernel 'relax_unrolled': equivalent

#include <cooperative_groups.h>
namespace cg = cooperative_groups;

// Scale, then add the right neighbour's scaled value: near a block's edge
// the neighbour was written by the next block, before the grid barrier.
__global__ void pair_sum(const int *in, int *tmp, int *out, int n) {
  cg::grid_group g = cg::this_grid();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    tmp[i] = 2 * in[i];
  g.sync();
  if (i < n)
    out[i] = tmp[i] + (i + 1 < n ? tmp[i + 1] : 0);
}

// The same, written another way (the helper's sync, operands swapped).
__global__ void pair_sum_swapped(const int *in, int *tmp, int *out, int n) {
  int i = threadIdx.x + blockDim.x * blockIdx.x;
  if (i < n)
    tmp[i] = in[i] + in[i];
  cg::this_grid().sync();
  if (i >= n)
    return;
  int right = 0;
  if (i + 1 < n)
    right = tmp[i + 1];
  out[i] = right + tmp[i];
}

// Wrong: the left neighbour.
__global__ void pair_sum_left(const int *in, int *tmp, int *out, int n) {
  cg::grid_group g = cg::this_grid();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    tmp[i] = 2 * in[i];
  g.sync();
  if (i < n)
    out[i] = tmp[i] + (i >= 1 ? tmp[i - 1] : 0);
}

// Wrong: a block's barrier where the grid's is needed.
__global__ void pair_sum_block(const int *in, int *tmp, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    tmp[i] = 2 * in[i];
  __syncthreads();
  if (i < n)
    out[i] = tmp[i] + (i + 1 < n ? tmp[i + 1] : 0);
}

// Wrong: threads past the end skip the grid barrier.
__global__ void pair_sum_skip(const int *in, int *tmp, int *out, int n) {
  cg::grid_group g = cg::this_grid();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  tmp[i] = 2 * in[i];
  g.sync();
  out[i] = tmp[i] + (i + 1 < n ? tmp[i + 1] : 0);
}
__global__ void relax(int *a, int *b, int n) {
  cg::grid_group g = cg::this_grid();
  __shared__ int first;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int keep = i < n ? a[i] : 0;
  if (threadIdx.x == 0 && threadIdx.y == 0)
    first = keep;
  for (int it = 0; it < 3; ++it) {
    if (i < n)
      b[i] = a[i] + (i > 0 ? a[i - 1] : 0);
    g.sync();
    if (i < n)
      a[i] = b[i] - keep + first;
    g.sync();
  }
}

__global__ void relax_unrolled(int *a, int *b, int n) {
  __shared__ int first;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int keep = 0;
  if (i < n)
    keep = a[i];
  if (threadIdx.x == 0 && threadIdx.y == 0)
    first = keep;
  int delta = -keep;
#pragma unroll 1
  for (int it = 0; it < 3; ++it) {
    if (i < n) {
      int left = 0;
      if (i > 0)
        left = a[i - 1];
      b[i] = left + a[i];
    }
    cg::this_grid().sync();
    if (i < n)
      a[i] = first + delta + b[i];
    cg::this_grid().sync();
  }
}

// Wrong: one grid barrier per iteration (a[i - 1] is written by the next
// step while its neighbour may still read it).
__global__ void relax_one_sync(int *a, int *b, int n) {
  cg::grid_group g = cg::this_grid();
  __shared__ int first;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int keep = i < n ? a[i] : 0;
  if (threadIdx.x == 0 && threadIdx.y == 0)
    first = keep;
  for (int it = 0; it < 3; ++it) {
    if (i < n)
      b[i] = a[i] + (i > 0 ? a[i - 1] : 0);
    g.sync();
    if (i < n)
      a[i] = b[i] - keep + first;
  }
}

// Wrong: block 0 leaves before the grid barrier.
__global__ void relax_block0_leaves(int *a, int *b, int n) {
  cg::grid_group g = cg::this_grid();
  __shared__ int first;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int keep = i < n ? a[i] : 0;
  if (threadIdx.x == 0 && threadIdx.y == 0)
    first = keep;
  if (blockIdx.x == 0 && gridDim.x > 1)
    return;
  for (int it = 0; it < 3; ++it) {
    if (i < n)
      b[i] = a[i] + (i > 0 ? a[i - 1] : 0);
    g.sync();
    if (i < n)
      a[i] = b[i] - keep + first;
    g.sync();
  }
}
