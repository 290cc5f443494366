// Atomics whose result depends on the order of the threads are outside the
// kv model: "unsupported" (exit 2) with file:line and the CUDA function. (Adds,
// mins, maxes, ands, ors and xors whose old value is unused are supported:
// equiv/atomics.cu.)
//
// RUN: %expect-exit 2 %kvalidate %s:exchange %s:exchange | FileCheck %s --check-prefix=XCHG
// XCHG: verdict: unsupported
// XCHG-NEXT: reason: before kernel: {{.*}}unsupported-atomic.cu:[[@LINE+24]]:{{[0-9]+}}: atomicExch (its result depends on the order of the threads)
// XCHG-NOT: counterexample
//
// RUN: %expect-exit 2 %kvalidate %s:compare_swap %s:compare_swap | FileCheck %s --check-prefix=CAS
// CAS: reason: before kernel: {{.*}}unsupported-atomic.cu:[[@LINE+25]]:{{[0-9]+}}: atomicCAS (its result depends on the order of the threads)
//
// The slot an atomicAdd hands out (stream compaction) is order-dependent.
// RUN: %expect-exit 2 %kvalidate %s:compact %s:compact | FileCheck %s --check-prefix=OLD
// OLD: reason: before kernel: {{.*}}unsupported-atomic.cu:[[@LINE+27]]:{{[0-9]+}}: use of the old value that atomicAdd returns (it depends on the order of the threads)
//
// A float sum is rounded in the order of the threads.
// RUN: %expect-exit 2 %kvalidate %s:float_sum %s:float_sum | FileCheck %s --check-prefix=FADD
// FADD: reason: before kernel: {{.*}}unsupported-atomic.cu:[[@LINE+28]]:{{[0-9]+}}: atomicAdd of a float (its result
//
// atomicInc wraps around at its operand: not a commutative update.
// RUN: %expect-exit 2 %kvalidate %s:wrap_count %s:wrap_count | FileCheck %s --check-prefix=INC
// INC: reason: before kernel: {{.*}}unsupported-atomic.cu:[[@LINE+28]]:{{[0-9]+}}: atomicInc (its result
//
// The __atomic builtins, without the CUDA headers: the same.
// RUN: %expect-exit 2 %kvalidate %s:builtin_exchange %s:builtin_exchange | FileCheck %s --check-prefix=BUILTIN
// BUILTIN: reason: before kernel: {{.*}}unsupported-atomic.cu:[[@LINE+29]]:{{[0-9]+}}: atomicExch (its result

__global__ void exchange(int *last, const int *in) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  atomicExch(last, in[i]);
}

__global__ void compare_swap(int *owner) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  atomicCAS(owner, -1, i);
}

__global__ void compact(int *out, int *count, const int *in) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (in[i] != 0)
    out[atomicAdd(count, 1)] = in[i];
}

__global__ void float_sum(float *sum, const float *in) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  atomicAdd(sum, in[i]);
}

__global__ void wrap_count(unsigned *ring) {
  atomicInc(ring, 7u);
}

__global__ void builtin_exchange(int *last, const int *in) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  __atomic_exchange_n(last, in[i], __ATOMIC_RELAXED);
}
