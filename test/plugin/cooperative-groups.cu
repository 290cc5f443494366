// Cooperative groups with the CUDA SDK's own headers: thread_block,
// tiled_partition<32> and <16> with their shuffles and votes, cg::reduce
// (redux.sync on sm_80), coalesced_threads. The headers read special registers with
// inline assembly: %laneid and %lanemask_* are modelled exactly, and
// reserved shared memory's address, which thread_block keeps in a field no
// kernel here reads, is an unknown value that stops a proof only where a
// result depends on it. A grid-wide barrier (grid.sync()) is one barrier of
// the grid, called or inlined (calls/grid-barrier.cu).
// (About 60 s: the groups forms linearize the thread id in 3-D.)
// REQUIRES: cuda-sdk, long
//
// Each groups kernel against its -O2 form, in the plugin, with no
// assumptions.
// RUN: %clang-path -x cuda --cuda-device-only --cuda-gpu-arch=sm_80 --cuda-path=/usr/local/cuda \
// RUN:   -isystem /usr/local/cuda/include/cccl -Wno-unknown-cuda-version -O2 -S \
// RUN:   -fpass-plugin=%plugin -Rpass=kvalidate -Rpass-missed=kvalidate -mllvm -kvalidate-cache= \
// RUN:   -mllvm -kvalidate-kernel=block_groups -mllvm -kvalidate-kernel=warp_tile \
// RUN:   -mllvm -kvalidate-kernel=half_tile -mllvm -kvalidate-kernel=warp_cg_reduce \
// RUN:   -mllvm -kvalidate-kernel=ballot_tile -mllvm -kvalidate-kernel=count_coalesced \
// RUN:   -mllvm -kvalidate-kernel=grid_rotate \
// RUN:   %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=PLUGIN --implicit-check-not=error:
// PLUGIN-DAG: remark: kvalidate: kernel 'block_groups': equivalent
// PLUGIN-DAG: remark: kvalidate: kernel 'warp_tile': equivalent
// PLUGIN-DAG: remark: kvalidate: kernel 'half_tile': equivalent
// PLUGIN-DAG: remark: kvalidate: kernel 'warp_cg_reduce': equivalent
// PLUGIN-DAG: remark: kvalidate: kernel 'ballot_tile': equivalent
// PLUGIN-DAG: remark: kvalidate: kernel 'count_coalesced': equivalent
// PLUGIN-DAG: remark: kvalidate: kernel 'grid_rotate': equivalent
//
// The groups forms against the plain CUDA ones, from the command line.
// RUN: %expect-exit 0 %kvalidate --cuda-path=/usr/local/cuda --assume='blockDim.x == 256 && %{1D}' \
// RUN:   %s:block_plain %s:block_groups | FileCheck %s --check-prefix=EQ
// RUN: %expect-exit 0 %kvalidate --cuda-path=/usr/local/cuda --assume='blockDim.x % 32 == 0 && %{1D}' \
// RUN:   %s:warp_plain %s:warp_tile | FileCheck %s --check-prefix=EQ
// RUN: %expect-exit 0 %kvalidate --cuda-path=/usr/local/cuda --assume='blockDim.x % 32 == 0 && %{1D}' \
// RUN:   %s:warp_plain %s:warp_cg_reduce | FileCheck %s --check-prefix=EQ
// RUN: %expect-exit 0 %kvalidate --cuda-path=/usr/local/cuda --assume='blockDim.x % 32 == 0 && %{1D}' \
// RUN:   %s:half_plain %s:half_tile | FileCheck %s --check-prefix=EQ
// RUN: %expect-exit 0 %kvalidate --cuda-path=/usr/local/cuda --assume='blockDim.x % 32 == 0 && %{1D}' \
// RUN:   %s:ballot_plain %s:ballot_tile | FileCheck %s --check-prefix=EQ
// RUN: %expect-exit 0 %kvalidate --cuda-path=/usr/local/cuda --assume='blockDim.x % 32 == 0 && %{1D}' \
// RUN:   %s:count_plain %s:count_coalesced | FileCheck %s --check-prefix=EQ
// EQ: verdict: equivalent
//
// A wrong shuffle offset in the groups form: replayed on both kernels' IR.
// RUN: %expect-exit 1 %kvalidate --cuda-path=/usr/local/cuda --assume='blockDim.x % 32 == 0 && %{1D}' \
// RUN:   %s:warp_plain %s:warp_tile_wrong | FileCheck %s --check-prefix=WRONG
// RUN: %expect-exit 1 %kvalidate --cuda-path=/usr/local/cuda --assume='blockDim.x == 256 && %{1D}' \
// RUN:   %s:block_plain %s:block_groups_wrong | FileCheck %s --check-prefix=WRONG
// WRONG: verdict: not-equivalent
// WRONG: replayed on: the LLVM IR of both kernels
// The groups forms pass threadIdx (an empty struct whose members read
// special registers) by reference: the IR runs take its address.
// RUN: %expect-exit 1 %kvalidate --cuda-path=/usr/local/cuda --assume='blockDim.x == 256 && %{1D}' \
// RUN:   %s:block_plain %s:block_groups_wrong | FileCheck %s --check-prefix=IRFIRST
// IRFIRST: found by: running both kernels' LLVM IR

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

__global__ void block_plain(const int *in, int *out) {
  __shared__ int part[256];
  unsigned t = threadIdx.x;
  part[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (unsigned k = blockDim.x / 2; k > 0; k >>= 1) {
    if (t < k)
      part[t] += part[t + k];
    __syncthreads();
  }
  if (t == 0)
    out[blockIdx.x] = part[0];
}

__global__ void block_groups(const int *in, int *out) {
  __shared__ int part[256];
  cg::thread_block block = cg::this_thread_block();
  unsigned t = block.thread_rank();
  part[t] = in[block.group_index().x * block.size() + t];
  block.sync();
  for (unsigned k = block.size() / 2; k > 0; k >>= 1) {
    if (t < k)
      part[t] += part[t + k];
    block.sync();
  }
  if (t == 0)
    out[block.group_index().x] = part[0];
}

__global__ void block_groups_wrong(const int *in, int *out) {
  __shared__ int part[256];
  cg::thread_block block = cg::this_thread_block();
  unsigned t = block.thread_rank();
  part[t] = in[block.group_index().x * block.size() + t];
  block.sync();
  for (unsigned k = block.size() / 2; k > 1; k >>= 1) {
    if (t < k)
      part[t] += part[t + k];
    block.sync();
  }
  if (t == 0)
    out[block.group_index().x] = part[0];
}

__global__ void warp_plain(const int *in, int *out) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[i];
  for (int d = 16; d > 0; d /= 2)
    v += __shfl_down_sync(0xffffffffu, v, d);
  if (threadIdx.x % 32 == 0)
    out[i / 32] = v;
}

__global__ void warp_tile(const int *in, int *out) {
  cg::thread_block_tile<32> warp =
      cg::tiled_partition<32>(cg::this_thread_block());
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[i];
  for (int d = warp.size() / 2; d > 0; d /= 2)
    v += warp.shfl_down(v, d);
  if (warp.thread_rank() == 0)
    out[i / 32] = v;
}

__global__ void warp_tile_wrong(const int *in, int *out) {
  cg::thread_block_tile<32> warp =
      cg::tiled_partition<32>(cg::this_thread_block());
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[i];
  for (int d = warp.size() / 2; d > 0; d /= 2)
    v += warp.shfl_down(v, d + 1);
  if (warp.thread_rank() == 0)
    out[i / 32] = v;
}

// Half-warp tiles: shuffles within 16 lanes.
__global__ void half_plain(const int *in, int *out) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[i];
  for (int d = 8; d > 0; d /= 2)
    v += __shfl_down_sync(0xffffffffu, v, d, 16);
  if (threadIdx.x % 16 == 0)
    out[i / 16] = v;
}

__global__ void half_tile(const int *in, int *out) {
  cg::thread_block_tile<16> half =
      cg::tiled_partition<16>(cg::this_thread_block());
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[i];
  for (int d = half.size() / 2; d > 0; d /= 2)
    v += half.shfl_down(v, d);
  if (half.thread_rank() == 0)
    out[i / 16] = v;
}

__global__ void warp_cg_reduce(const int *in, int *out) {
  cg::thread_block_tile<32> warp =
      cg::tiled_partition<32>(cg::this_thread_block());
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = cg::reduce(warp, in[i], cg::plus<int>());
  if (warp.thread_rank() == 0)
    out[i / 32] = v;
}

__global__ void ballot_plain(const int *in, int *out) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned pos = __ballot_sync(0xffffffffu, in[i] > 0);
  int neg = __any_sync(0xffffffffu, in[i] < 0);
  if (threadIdx.x % 32 == 0)
    out[i / 32] = __popc(pos) * 2 + neg;
}

__global__ void ballot_tile(const int *in, int *out) {
  auto warp = cg::tiled_partition<32>(cg::this_thread_block());
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned pos = warp.ballot(in[i] > 0);
  int neg = warp.any(in[i] < 0);
  if (warp.thread_rank() == 0)
    out[i / 32] = __popc(pos) * 2 + neg;
}

__global__ void count_plain(const int *in, int *count) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (in[i] > 0) {
    unsigned active = __activemask();
    if (threadIdx.x % 32 == __ffs(active) - 1)
      atomicAdd(count, __popc(active));
  }
}

__global__ void count_coalesced(const int *in, int *count) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (in[i] > 0) {
    cg::coalesced_group active = cg::coalesced_threads();
    if (active.thread_rank() == 0)
      atomicAdd(count, active.size());
  }
}

__global__ void grid_rotate(int *a, int *out) {
  cg::grid_group grid = cg::this_grid();
  unsigned i = grid.thread_rank();
  a[i] = (int)i;
  grid.sync();
  out[i] = a[(i + 1) % grid.size()];
}
