// kv_cuda.h: just enough CUDA to compile kernels with clang++-22 and no CUDA
// SDK (--cuda-path=/nonexistent -nocudainc -nocudalib). kvalidate embeds this
// file (utils/CMakeLists.txt) and puts it before .cu inputs when no SDK is
// installed; the tests' %clang-cuda lit substitution uses it as `-include`.
// The atomics and warp functions are written with the clang builtins that
// clang's and the SDK's headers use, so the IR is the same as with the SDK.
//
// __syncthreads() is a clang builtin and must not be declared here.
#ifndef KV_CUDA_H
#define KV_CUDA_H

#ifndef __global__
#define __global__ __attribute__((global))
#endif
#ifndef __device__
#define __device__ __attribute__((device))
#endif
#ifndef __host__
#define __host__ __attribute__((host))
#endif
#ifndef __shared__
#define __shared__ __attribute__((shared))
#endif
#ifndef __constant__
#define __constant__ __attribute__((constant))
#endif
#ifndef __launch_bounds__
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#endif

// threadIdx, blockIdx, blockDim, gridDim (from clang's resource directory).
#include <__clang_cuda_builtin_vars.h>

#define KV_DEV static __device__ inline

// Atomics (the SDK's device_atomic_functions.h).
KV_DEV int atomicAdd(int *p, int v) { return __nvvm_atom_add_gen_i(p, v); }
KV_DEV unsigned atomicAdd(unsigned *p, unsigned v) {
  return __nvvm_atom_add_gen_i((int *)p, (int)v);
}
KV_DEV unsigned long long atomicAdd(unsigned long long *p,
                                    unsigned long long v) {
  return __nvvm_atom_add_gen_ll((long long *)p, (long long)v);
}
KV_DEV float atomicAdd(float *p, float v) { return __nvvm_atom_add_gen_f(p, v); }
KV_DEV int atomicSub(int *p, int v) { return __nvvm_atom_sub_gen_i(p, v); }
KV_DEV unsigned atomicSub(unsigned *p, unsigned v) {
  return __nvvm_atom_sub_gen_i((int *)p, (int)v);
}
KV_DEV int atomicMin(int *p, int v) { return __nvvm_atom_min_gen_i(p, v); }
KV_DEV unsigned atomicMin(unsigned *p, unsigned v) {
  return __nvvm_atom_min_gen_ui(p, v);
}
KV_DEV int atomicMax(int *p, int v) { return __nvvm_atom_max_gen_i(p, v); }
KV_DEV unsigned atomicMax(unsigned *p, unsigned v) {
  return __nvvm_atom_max_gen_ui(p, v);
}
KV_DEV int atomicAnd(int *p, int v) { return __nvvm_atom_and_gen_i(p, v); }
KV_DEV unsigned atomicAnd(unsigned *p, unsigned v) {
  return __nvvm_atom_and_gen_i((int *)p, (int)v);
}
KV_DEV int atomicOr(int *p, int v) { return __nvvm_atom_or_gen_i(p, v); }
KV_DEV unsigned atomicOr(unsigned *p, unsigned v) {
  return __nvvm_atom_or_gen_i((int *)p, (int)v);
}
KV_DEV int atomicXor(int *p, int v) { return __nvvm_atom_xor_gen_i(p, v); }
KV_DEV unsigned atomicXor(unsigned *p, unsigned v) {
  return __nvvm_atom_xor_gen_i((int *)p, (int)v);
}
KV_DEV int atomicExch(int *p, int v) { return __nvvm_atom_xchg_gen_i(p, v); }
KV_DEV unsigned atomicExch(unsigned *p, unsigned v) {
  return __nvvm_atom_xchg_gen_i((int *)p, (int)v);
}
KV_DEV int atomicCAS(int *p, int cmp, int v) {
  return __nvvm_atom_cas_gen_i(p, cmp, v);
}
KV_DEV unsigned atomicCAS(unsigned *p, unsigned cmp, unsigned v) {
  return __nvvm_atom_cas_gen_i((int *)p, (int)cmp, (int)v);
}
KV_DEV unsigned atomicInc(unsigned *p, unsigned v) {
  return __nvvm_atom_inc_gen_ui(p, v);
}
KV_DEV unsigned atomicDec(unsigned *p, unsigned v) {
  return __nvvm_atom_dec_gen_ui(p, v);
}

// Warp functions (sm_30_intrinsics.h): the shuffles' last operand packs the
// segment width as (32 - width) << 8 with the lane clamp below it.
#define KV_SHUFFLE(NAME, OP, CLAMP)                                            \
  KV_DEV int NAME(unsigned mask, int v, int x, int width = 32) {               \
    return __nvvm_shfl_sync_##OP##_i32(mask, v, x,                             \
                                        ((32 - width) << 8) | (CLAMP));        \
  }                                                                            \
  KV_DEV unsigned NAME(unsigned mask, unsigned v, int x, int width = 32) {     \
    return (unsigned)NAME(mask, (int)v, x, width);                             \
  }                                                                            \
  KV_DEV float NAME(unsigned mask, float v, int x, int width = 32) {           \
    return __nvvm_shfl_sync_##OP##_f32(mask, v, x,                             \
                                        ((32 - width) << 8) | (CLAMP));        \
  }
KV_SHUFFLE(__shfl_sync, idx, 0x1f)
KV_SHUFFLE(__shfl_up_sync, up, 0)
KV_SHUFFLE(__shfl_down_sync, down, 0x1f)
KV_SHUFFLE(__shfl_xor_sync, bfly, 0x1f)
#undef KV_SHUFFLE
KV_DEV unsigned __ballot_sync(unsigned mask, int p) {
  return __nvvm_vote_ballot_sync(mask, p);
}
KV_DEV int __any_sync(unsigned mask, int p) {
  return __nvvm_vote_any_sync(mask, p);
}
KV_DEV int __all_sync(unsigned mask, int p) {
  return __nvvm_vote_all_sync(mask, p);
}
KV_DEV unsigned __activemask() { return __nvvm_activemask(); }
KV_DEV void __syncwarp(unsigned mask = 0xffffffff) {
  __nvvm_bar_warp_sync(mask);
}
#undef KV_DEV

#endif // KV_CUDA_H
