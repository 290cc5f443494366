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
// size_t and the fixed-width integers, which the SDK's cuda_runtime.h makes
// available to every .cu file (clang's own headers: no C library needed).
#include <stddef.h>
#include <stdint.h>

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
KV_DEV float atomicAdd(float *p, float v) {
  return __nvvm_atom_add_gen_f(p, v);
}
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
                                       ((32 - width) << 8) | (CLAMP));         \
  }                                                                            \
  KV_DEV unsigned NAME(unsigned mask, unsigned v, int x, int width = 32) {     \
    return (unsigned)NAME(mask, (int)v, x, width);                             \
  }                                                                            \
  KV_DEV float NAME(unsigned mask, float v, int x, int width = 32) {           \
    return __nvvm_shfl_sync_##OP##_f32(mask, v, x,                             \
                                       ((32 - width) << 8) | (CLAMP));         \
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
// The legacy votes, of the lanes that execute them (clang's headers).
KV_DEV int __any(int p) { return __nvvm_vote_any(p); }
KV_DEV int __all(int p) { return __nvvm_vote_all(p); }
KV_DEV unsigned __ballot(int p) { return __nvvm_vote_ballot(p); }
// sm_80's warp reductions (redux.sync).
#define KV_REDUCE(NAME, T, OP)                                                 \
  KV_DEV T NAME(unsigned mask, T v) { return __nvvm_redux_sync_##OP(v, mask); }
KV_REDUCE(__reduce_add_sync, unsigned, add)
KV_REDUCE(__reduce_add_sync, int, add)
KV_REDUCE(__reduce_min_sync, unsigned, umin)
KV_REDUCE(__reduce_max_sync, unsigned, umax)
KV_REDUCE(__reduce_min_sync, int, min)
KV_REDUCE(__reduce_max_sync, int, max)
KV_REDUCE(__reduce_and_sync, unsigned, and)
KV_REDUCE(__reduce_or_sync, unsigned, or)
KV_REDUCE(__reduce_xor_sync, unsigned, xor)
#undef KV_REDUCE
KV_DEV void __syncwarp(unsigned mask = 0xffffffff) {
  __nvvm_bar_warp_sync(mask);
}
// Memory fences (clang's __clang_cuda_device_functions.h).
KV_DEV void __threadfence() { __nvvm_membar_gl(); }
KV_DEV void __threadfence_block() { __nvvm_membar_cta(); }
KV_DEV void __threadfence_system() { __nvvm_membar_sys(); }
// printf on the device (as clang's CUDA runtime wrapper declares it, beside
// the C library's host printf): clang makes a call vprintf(format, buffer)
// of it.
extern "C" __device__ int printf(const char *, ...);
// libdevice's integer functions (the SDK's and clang's device_functions):
// calls to __nv_*, which kvalidate models by their definition.
extern "C" {
#define KV_NV(ret, name, ...) __device__ ret __nv_##name(__VA_ARGS__);
KV_NV(int, min, int, int)
KV_NV(int, max, int, int)
KV_NV(unsigned, umin, unsigned, unsigned)
KV_NV(unsigned, umax, unsigned, unsigned)
KV_NV(long long, llmin, long long, long long)
KV_NV(long long, llmax, long long, long long)
KV_NV(unsigned long long, ullmin, unsigned long long, unsigned long long)
KV_NV(unsigned long long, ullmax, unsigned long long, unsigned long long)
KV_NV(int, abs, int)
KV_NV(long long, llabs, long long)
KV_NV(int, popc, unsigned)
KV_NV(int, popcll, unsigned long long)
KV_NV(int, clz, int)
KV_NV(int, clzll, long long)
KV_NV(unsigned, brev, unsigned)
KV_NV(unsigned long long, brevll, unsigned long long)
KV_NV(int, ffs, int)
KV_NV(int, ffsll, long long)
KV_NV(int, mulhi, int, int)
KV_NV(unsigned, umulhi, unsigned, unsigned)
KV_NV(long long, mul64hi, long long, long long)
KV_NV(unsigned long long, umul64hi, unsigned long long, unsigned long long)
KV_NV(int, mul24, int, int)
KV_NV(unsigned, umul24, unsigned, unsigned)
KV_NV(int, hadd, int, int)
KV_NV(unsigned, uhadd, unsigned, unsigned)
KV_NV(int, rhadd, int, int)
KV_NV(unsigned, urhadd, unsigned, unsigned)
KV_NV(unsigned, sad, int, int, unsigned)
KV_NV(unsigned, usad, unsigned, unsigned, unsigned)
KV_NV(unsigned, byte_perm, unsigned, unsigned, unsigned)
#undef KV_NV
}
KV_DEV int min(int a, int b) { return __nv_min(a, b); }
KV_DEV int max(int a, int b) { return __nv_max(a, b); }
KV_DEV unsigned min(unsigned a, unsigned b) { return __nv_umin(a, b); }
KV_DEV unsigned max(unsigned a, unsigned b) { return __nv_umax(a, b); }
KV_DEV unsigned umin(unsigned a, unsigned b) { return __nv_umin(a, b); }
KV_DEV unsigned umax(unsigned a, unsigned b) { return __nv_umax(a, b); }
KV_DEV long long min(long long a, long long b) { return __nv_llmin(a, b); }
KV_DEV long long max(long long a, long long b) { return __nv_llmax(a, b); }
KV_DEV long long llmin(long long a, long long b) { return __nv_llmin(a, b); }
KV_DEV long long llmax(long long a, long long b) { return __nv_llmax(a, b); }
KV_DEV unsigned long long min(unsigned long long a, unsigned long long b) {
  return __nv_ullmin(a, b);
}
KV_DEV unsigned long long max(unsigned long long a, unsigned long long b) {
  return __nv_ullmax(a, b);
}
KV_DEV int abs(int a) { return __nv_abs(a); }
KV_DEV long long llabs(long long a) { return __nv_llabs(a); }
KV_DEV int __popc(unsigned x) { return __nv_popc(x); }
KV_DEV int __popcll(unsigned long long x) { return __nv_popcll(x); }
KV_DEV int __clz(int x) { return __nv_clz(x); }
KV_DEV int __clzll(long long x) { return __nv_clzll(x); }
KV_DEV unsigned __brev(unsigned x) { return __nv_brev(x); }
KV_DEV unsigned long long __brevll(unsigned long long x) {
  return __nv_brevll(x);
}
KV_DEV int __ffs(int x) { return __nv_ffs(x); }
KV_DEV int __ffsll(long long x) { return __nv_ffsll(x); }
KV_DEV int __mulhi(int a, int b) { return __nv_mulhi(a, b); }
KV_DEV unsigned __umulhi(unsigned a, unsigned b) { return __nv_umulhi(a, b); }
KV_DEV long long __mul64hi(long long a, long long b) {
  return __nv_mul64hi(a, b);
}
KV_DEV unsigned long long __umul64hi(unsigned long long a,
                                     unsigned long long b) {
  return __nv_umul64hi(a, b);
}
KV_DEV int __mul24(int a, int b) { return __nv_mul24(a, b); }
KV_DEV unsigned __umul24(unsigned a, unsigned b) { return __nv_umul24(a, b); }
KV_DEV int __hadd(int a, int b) { return __nv_hadd(a, b); }
KV_DEV unsigned __uhadd(unsigned a, unsigned b) { return __nv_uhadd(a, b); }
KV_DEV int __rhadd(int a, int b) { return __nv_rhadd(a, b); }
KV_DEV unsigned __urhadd(unsigned a, unsigned b) { return __nv_urhadd(a, b); }
KV_DEV unsigned __sad(int a, int b, unsigned c) { return __nv_sad(a, b, c); }
KV_DEV unsigned __usad(unsigned a, unsigned b, unsigned c) {
  return __nv_usad(a, b, c);
}
KV_DEV unsigned __byte_perm(unsigned a, unsigned b, unsigned s) {
  return __nv_byte_perm(a, b, s);
}
// Float math (clang's __clang_cuda_math.h, without the SDK's libdevice):
// the exact functions as LLVM's intrinsics (IEEE results, as CUDA's
// defaults give them), the approximate ones as calls to libdevice's
// __nv_* functions, which kvalidate takes as equal on equal operands and
// runs within their documented error bounds.
extern "C" {
#define KV_NV_MATH(name)                                                       \
  __device__ float __nv_##name##f(float);                                      \
  __device__ double __nv_##name(double);
KV_NV_MATH(exp)
KV_NV_MATH(exp2)
KV_NV_MATH(exp10)
KV_NV_MATH(expm1)
KV_NV_MATH(log)
KV_NV_MATH(log2)
KV_NV_MATH(log10)
KV_NV_MATH(log1p)
KV_NV_MATH(sin)
KV_NV_MATH(cos)
KV_NV_MATH(tan)
KV_NV_MATH(rsqrt)
KV_NV_MATH(cbrt)
KV_NV_MATH(atan)
KV_NV_MATH(asin)
KV_NV_MATH(acos)
KV_NV_MATH(sinh)
KV_NV_MATH(cosh)
KV_NV_MATH(tanh)
KV_NV_MATH(erf)
#undef KV_NV_MATH
__device__ float __nv_powf(float, float);
__device__ double __nv_pow(double, double);
__device__ float __nv_atan2f(float, float);
__device__ double __nv_atan2(double, double);
__device__ float __nv_hypotf(float, float);
__device__ double __nv_hypot(double, double);
__device__ float __nv_fast_expf(float);
__device__ float __nv_fast_exp10f(float);
__device__ float __nv_fast_sinf(float);
__device__ float __nv_fast_cosf(float);
__device__ float __nv_fast_logf(float);
__device__ float __nv_fast_log2f(float);
__device__ float __nv_fdividef(float, float);
}
#define KV_MATH1(name, nv)                                                     \
  KV_DEV float name##f(float x) { return __nv_##nv##f(x); }                    \
  KV_DEV double name(double x) { return __nv_##nv(x); }
KV_MATH1(exp, exp)
KV_MATH1(exp2, exp2)
KV_MATH1(exp10, exp10)
KV_MATH1(expm1, expm1)
KV_MATH1(log, log)
KV_MATH1(log2, log2)
KV_MATH1(log10, log10)
KV_MATH1(log1p, log1p)
KV_MATH1(sin, sin)
KV_MATH1(cos, cos)
KV_MATH1(tan, tan)
KV_MATH1(rsqrt, rsqrt)
KV_MATH1(cbrt, cbrt)
KV_MATH1(atan, atan)
KV_MATH1(asin, asin)
KV_MATH1(acos, acos)
KV_MATH1(sinh, sinh)
KV_MATH1(cosh, cosh)
KV_MATH1(tanh, tanh)
KV_MATH1(erf, erf)
#undef KV_MATH1
KV_DEV float powf(float x, float y) { return __nv_powf(x, y); }
KV_DEV double pow(double x, double y) { return __nv_pow(x, y); }
KV_DEV float atan2f(float y, float x) { return __nv_atan2f(y, x); }
KV_DEV double atan2(double y, double x) { return __nv_atan2(y, x); }
KV_DEV float hypotf(float x, float y) { return __nv_hypotf(x, y); }
KV_DEV double hypot(double x, double y) { return __nv_hypot(x, y); }
KV_DEV float __expf(float x) { return __nv_fast_expf(x); }
KV_DEV float __exp10f(float x) { return __nv_fast_exp10f(x); }
KV_DEV float __sinf(float x) { return __nv_fast_sinf(x); }
KV_DEV float __cosf(float x) { return __nv_fast_cosf(x); }
KV_DEV float __logf(float x) { return __nv_fast_logf(x); }
KV_DEV float __log2f(float x) { return __nv_fast_log2f(x); }
KV_DEV float __fdividef(float x, float y) { return __nv_fdividef(x, y); }
#define KV_EXACT1(name)                                                        \
  KV_DEV float name##f(float x) { return __builtin_##name##f(x); }             \
  KV_DEV double name(double x) { return __builtin_##name(x); }
KV_EXACT1(sqrt)
KV_EXACT1(fabs)
KV_EXACT1(floor)
KV_EXACT1(ceil)
KV_EXACT1(trunc)
KV_EXACT1(round)
#undef KV_EXACT1
KV_DEV float fminf(float x, float y) { return __builtin_fminf(x, y); }
KV_DEV double fmin(double x, double y) { return __builtin_fmin(x, y); }
KV_DEV float fmaxf(float x, float y) { return __builtin_fmaxf(x, y); }
KV_DEV double fmax(double x, double y) { return __builtin_fmax(x, y); }
KV_DEV float fmaf(float x, float y, float z) { return __builtin_fmaf(x, y, z); }
KV_DEV double fma(double x, double y, double z) {
  return __builtin_fma(x, y, z);
}
// Assertions and traps end the kernel: kvalidate takes the conditions that
// reach them as the kernel's preconditions.
extern "C" __device__ void __assertfail(const char *, const char *, unsigned,
                                        const char *, unsigned long);
KV_DEV void __assert_fail(const char *msg, const char *file, unsigned line,
                          const char *fn) {
  __assertfail(msg, file, line, fn, sizeof(char));
}
KV_DEV void __trap() { __builtin_trap(); }

#undef KV_DEV

#endif // KV_CUDA_H
