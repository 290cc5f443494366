// kv_cuda.h: just enough CUDA to compile the test kernels with clang++-22 and
// no CUDA SDK (--cuda-path=/nonexistent -nocudainc -nocudalib). Used as
// `-include` by the %clang-cuda lit substitution; kvalidate embeds the same
// definitions for .cu inputs when no SDK is installed.
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

#endif // KV_CUDA_H
