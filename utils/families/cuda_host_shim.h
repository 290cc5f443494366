// cuda_host_shim.h: run CUDA kernels on the host, for the ground truth of
// utils/gen-families.py. Independent of kvalidate on purpose: the ground
// truth must not share a model (or a bug) with the tool it judges.
//
// Each block's threads are real std::threads; blocks run one after another.
// __syncthreads() is a std::barrier over the block's threads, the warp
// shuffles exchange values through a per-warp slot array between two
// barriers of the warp, atomics are std::atomic_ref. A thread that returns
// drops out of its block's and warp's barriers (as an exited thread does on
// the GPU), so a kernel with an early return does not deadlock.
// __shared__ arrays are function statics: one copy, shared by the block's
// threads; since blocks run in turn that is one copy per block. It keeps
// what the previous block left (uninitialized shared memory on a GPU holds
// garbage too).
//
// Compile with clang++ -std=c++20 -pthread -ffp-contract=off (the device
// compile contracts a*b+c alike in both kernels of a pair; the host must
// not contract one kernel's and not the other's).
#ifndef KV_CUDA_HOST_SHIM_H
#define KV_CUDA_HOST_SHIM_H

#include <atomic>
#include <barrier>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __shared__ static
#define __restrict__
// The launch a kernel declares: the runs only make launches within it.
#define __launch_bounds__(...)

struct uint3 {
  unsigned x, y, z;
};
using dim3 = uint3;

namespace kvh {
struct Warp {
  explicit Warp(int lanes) : bar(lanes) {}
  std::barrier<> bar;
  uint64_t slot[32] = {};
};
struct Block {
  explicit Block(int n) : bar(n) {}
  std::barrier<> bar;
  std::vector<std::unique_ptr<Warp>> warps;
};
inline Block *block; // the running block (blocks run one at a time)
inline thread_local unsigned linear; // the thread's linear id in its block
} // namespace kvh

inline thread_local uint3 threadIdx, blockIdx;
inline uint3 blockDim, gridDim;

inline void __syncthreads() { kvh::block->bar.arrive_and_wait(); }

// Warp shuffles: every lane of the warp must call (the kernels here call them
// with the full mask from whole warps). The value travels as bits.
template <class T> T kvh_shfl(T v, int src_lane, bool keep) {
  kvh::Warp &w = *kvh::block->warps[kvh::linear / 32];
  uint64_t bits = 0;
  std::memcpy(&bits, &v, sizeof(T));
  w.slot[kvh::linear % 32] = bits;
  w.bar.arrive_and_wait();
  uint64_t got = keep ? bits : w.slot[src_lane];
  w.bar.arrive_and_wait(); // nobody overwrites a slot before all have read
  T r;
  std::memcpy(&r, &got, sizeof(T));
  return r;
}
template <class T> T __shfl_down_sync(unsigned, T v, int d, int width = 32) {
  int lane = kvh::linear % 32, seg = lane % width;
  return kvh_shfl(v, lane + d, seg + d >= width);
}
template <class T> T __shfl_up_sync(unsigned, T v, int d, int width = 32) {
  int lane = kvh::linear % 32, seg = lane % width;
  return kvh_shfl(v, lane - d, seg - d < 0);
}
template <class T> T __shfl_xor_sync(unsigned, T v, int m, int width = 32) {
  int lane = kvh::linear % 32;
  int src = lane ^ m;
  return kvh_shfl(v, src, src / width != lane / width);
}
template <class T> T __shfl_sync(unsigned, T v, int src, int width = 32) {
  int lane = kvh::linear % 32;
  return kvh_shfl(v, lane / width * width + src % width, false);
}
inline void __syncwarp(unsigned = 0xffffffffu) {
  kvh::block->warps[kvh::linear / 32]->bar.arrive_and_wait();
}

template <class T> T atomicAdd(T *p, T v) {
  return std::atomic_ref<T>(*p).fetch_add(v);
}
template <class T> T atomicSub(T *p, T v) {
  return std::atomic_ref<T>(*p).fetch_sub(v);
}
template <class T> T atomicMax(T *p, T v) {
  std::atomic_ref<T> a(*p);
  T old = a.load();
  while (old < v && !a.compare_exchange_weak(old, v)) {
  }
  return old;
}
template <class T> T atomicMin(T *p, T v) {
  std::atomic_ref<T> a(*p);
  T old = a.load();
  while (old > v && !a.compare_exchange_weak(old, v)) {
  }
  return old;
}

namespace kvh {
// Run `body` (a call of the kernel) over the grid, block after block.
inline void launch(uint3 grid, uint3 blk, const std::function<void()> &body) {
  gridDim = grid;
  blockDim = blk;
  int n = blk.x * blk.y * blk.z;
  for (unsigned bz = 0; bz < grid.z; ++bz)
    for (unsigned by = 0; by < grid.y; ++by)
      for (unsigned bx = 0; bx < grid.x; ++bx) {
        Block b(n);
        for (int w = 0; w * 32 < n; ++w)
          b.warps.push_back(std::make_unique<Warp>(std::min(32, n - w * 32)));
        block = &b;
        std::vector<std::thread> threads;
        threads.reserve(n);
        for (int t = 0; t < n; ++t)
          threads.emplace_back([&, t] {
            linear = t;
            threadIdx = {t % blk.x, t / blk.x % blk.y, t / (blk.x * blk.y)};
            blockIdx = {bx, by, bz};
            body();
            // Exited threads no longer count at the barriers.
            b.warps[t / 32]->bar.arrive_and_drop();
            b.bar.arrive_and_drop();
          });
        for (auto &th : threads)
          th.join();
        block = nullptr;
      }
}
} // namespace kvh

#endif
