// Kernels built from constructs kvalidate does not (all) support, for the
// crash harness (utils/crash-harness.py): each must get a verdict or a
// clear `unsupported`, never a crash. Written for this project.

typedef void (*Handler)(int *);

__device__ void bump(int *p) { *p += 1; }

__global__ void call_through_table(int *out, int which) {
  Handler table[2] = {bump, bump};
  table[which & 1](out + threadIdx.x);
}

__global__ void call_through_constant(int *out) {
  Handler h = (Handler)16;
  h(out);
}

__device__ int depth(int n) { return n <= 0 ? 0 : 1 + depth(n - 1); }

__global__ void recursive(int *out, int n) { out[threadIdx.x] = depth(n); }

__global__ void with_goto(int *out, int n) {
  int i = threadIdx.x, s = 0;
again:
  s += i;
  if (--n > 0)
    goto again;
  out[i] = s;
}

__global__ void many_cases(int *out, const int *in) {
  int i = threadIdx.x, r;
  switch (in[i] & 7) {
  case 0: r = 3; break;
  case 1: r = 9; break;
  case 2: r = -4; break;
  case 5: r = in[i] * 2; break;
  default: r = 0; break;
  }
  out[i] = r;
}

__global__ void inline_asm(int *out) {
  int v;
  asm("mov.u32 %0, %%laneid;" : "=r"(v));
  out[threadIdx.x] = v;
}

__global__ void atomic_count(int *counter) {
  __nvvm_atom_add_gen_i(counter, 1);
}

struct __attribute__((aligned(16))) Quad {
  float x, y, z, w;
};

__global__ void vector_copy(Quad *out, const Quad *in) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  Quad v = in[i];
  out[i] = Quad{v.w, v.z, v.y, v.x};
}

typedef float float2v __attribute__((ext_vector_type(2)));

__global__ void ext_vector(float2v *out, const float2v *in) {
  int i = threadIdx.x;
  out[i] = in[i] * 2.0f + in[i].yx;
}

struct Pair {
  int a;
  float b;
};

__global__ void by_value(Pair p, int *out) {
  out[threadIdx.x] = p.a + (int)p.b;
}

__global__ void pointer_in_memory(int **table, int *out) {
  out[threadIdx.x] = table[0][threadIdx.x];
}

__global__ void wide_int(__int128 *out, const long long *in) {
  out[threadIdx.x] = (__int128)in[threadIdx.x] * in[threadIdx.x];
}

__global__ void half_precision(_Float16 *out, const _Float16 *in) {
  out[threadIdx.x] = in[threadIdx.x] + in[threadIdx.x];
}

__global__ void local_array_dynamic(int *out, int n) {
  int buf[32];
  for (int k = 0; k < 32; ++k)
    buf[k] = k * n;
  out[threadIdx.x] = buf[(threadIdx.x + n) & 31];
}

__global__ void null_compare(int *out, int *maybe) {
  out[threadIdx.x] = maybe ? maybe[threadIdx.x] : -1;
}

__global__ void unreachable_end(int *out, int n) {
  if (n > 0)
    out[threadIdx.x] = n;
  else
    __builtin_unreachable();
}

__global__ void trap_on_bad(int *out, int n) {
  if (n < 0)
    __builtin_trap();
  out[threadIdx.x] = n;
}

__global__ void empty_kernel() {}

__global__ void shuffle_sum(int *out, const int *in) {
  int v = in[threadIdx.x];
  for (int o = 16; o > 0; o /= 2)
    v += __nvvm_shfl_sync_down_i32(0xffffffff, v, o, 31);
  out[threadIdx.x] = v;
}

__global__ void named_barrier(int *out) {
  asm volatile("bar.sync 1;");
  out[threadIdx.x] = 0;
}

#ifdef CUDART_VERSION
// With the CUDA SDK only: its printf, vector types and half floats.
#include <cuda_fp16.h>

__global__ void print_it(int *out) {
  printf("thread %d\n", threadIdx.x);
  out[threadIdx.x] = 1;
}

__global__ void sdk_float4(float4 *out, const float4 *in) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float4 v = in[i];
  out[i] = make_float4(v.w, v.z, v.y, v.x);
}

__global__ void sdk_half(__half *out, const __half *in) {
  out[threadIdx.x] = __hadd(in[threadIdx.x], in[threadIdx.x]);
}
#endif
