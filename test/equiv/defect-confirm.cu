// A race, divergence or out-of-bounds verdict fails a build, so it must be
// the kernel's own: the kernel's LLVM IR runs at the defect's launch and the
// run must show it. A defect the model shows and the run does not is a
// possible one (exit 2). Each kernel is checked against itself.
//
// A 24-bit multiply in the index is exact (PTX defines it bit for bit):
// 2^20 threads, each its own cell, with and without the CUDA SDK.
// RUN: %expect-exit 0 %kvalidate --cuda-path= --assume='%{1D} && gridDim.x == 1024 && blockDim.x == 1024' \
// RUN:   %s:scale_umul24 %s:scale_umul24 2>&1 | FileCheck %s --check-prefix=MUL24
// RUN: %expect-exit 0 %kvalidate --assume='%{1D} && gridDim.x == 1024 && blockDim.x == 1024' \
// RUN:   %s:scale_mul24 %s:scale_mul24 2>&1 | FileCheck %s --check-prefix=MUL24
// MUL24-NOT:  race
// MUL24:      verdict: equivalent
// MUL24:      - checked: the before kernel has no data race
//
// A real race behind an uninterpreted float index: confirmed, with the
// cell and the two threads the run showed.
// RUN: %expect-exit 4 %kvalidate --cuda-path= --assume='%{1D} && gridDim.x == 1 && blockDim.x <= 64' \
// RUN:   %s:halves %s:halves 2>&1 | FileCheck %s --check-prefix=REAL
// REAL:       verdict: race
// REAL-NEXT:    reason: before kernel: write-write race (different values) on out[[[CELL:[0-9]+]]]: thread ([[T1:[0-9]+]],0,0) of block (0,0,0) writes at {{.*}}defect-confirm.cu:[[@LINE+60]]:{{[0-9]+}}; thread ({{[0-9]+}},0,0) of block (0,0,0) writes at {{.*}}defect-confirm.cu:[[@LINE+60]]:{{[0-9]+}}
// REAL-NEXT:    confirmed: the before kernel's LLVM IR ran at this launch (gridDim (1,1,1), blockDim ({{[0-9]+}},1,1), {{zero|pseudo-random}} inputs) and showed it
//
// The model's float operations are uninterpreted, so two threads may
// collide in it; the kernel's run shows they do not: a possible race,
// exit 2, never 4.
// RUN: %expect-exit 2 %kvalidate --cuda-path= --assume='%{1D} && gridDim.x == 1 && blockDim.x <= 64' \
// RUN:   %s:round_trip %s:round_trip 2>&1 | FileCheck %s --check-prefix=POSSIBLE
// POSSIBLE:     verdict: unknown
// POSSIBLE-NEXT:  reason: possible before kernel: write-write race (different values) on out[{{[0-9]+}}]: {{.*}}; not confirmed: the before kernel's LLVM IR ran at this launch with zero and pseudo-random inputs and showed no such defect
// POSSIBLE-NOT:   confirmed:
//
// A precondition in the kernel clears the grid-stride loop it guards, at
// a block of 1024 threads: `if (!c) __builtin_unreachable();` and an assert,
// each listed with its line, with and without the SDK.
// RUN: %expect-exit 0 %kvalidate --cuda-path= --assume='%{1D} && gridDim.x == 1 && blockDim.x == 1024' \
// RUN:   %s:strided_unreachable %s:strided_unreachable 2>&1 | FileCheck %s --check-prefix=PRE-UB
// PRE-UB-NOT:  race
// PRE-UB:      verdict: equivalent
// PRE-UB:      - the before kernel reaches no __builtin_unreachable()
// RUN: %expect-exit 0 %kvalidate --cuda-path= --assume='%{1D} && gridDim.x == 1 && blockDim.x == 1024' \
// RUN:   %s:strided_assert %s:strided_assert 2>&1 | FileCheck %s --check-prefix=PRE-ASSERT
// RUN: %expect-exit 0 %kvalidate --assume='%{1D} && gridDim.x == 1 && blockDim.x == 1024' \
// RUN:   %s:strided_assert %s:strided_assert 2>&1 | FileCheck %s --check-prefix=PRE-ASSERT
// PRE-ASSERT-NOT:  race
// PRE-ASSERT:      verdict: equivalent
// PRE-ASSERT:      - the before kernel reaches no trap or failed assertion at {{.*}}defect-confirm.cu:[[@LINE+51]]:3
//
// An after kernel that asserts what the before kernel does not assume
// fails some launch the before kernel computes: a counterexample.
// RUN: %expect-exit 1 %kvalidate --cuda-path= --assume='%{1D}' \
// RUN:   %s:copy %s:copy_assert 2>&1 | FileCheck %s --check-prefix=TRAPS
// TRAPS:      verdict: not-equivalent
// TRAPS:      the after kernel reaches a trap, a failed assertion or undefined behaviour on this input; the before kernel does not
//
// clang drops a __builtin_assume whose condition reads blockDim (a call):
// the race is then the kernel's, and kvalidate says why.
// RUN: %expect-exit 4 %kvalidate --cuda-path= --assume='%{1D} && gridDim.x == 1 && blockDim.x == 1024' \
// RUN:   %s:strided_dropped %s:strided_dropped 2>&1 | FileCheck %s --check-prefix=DROPPED
// DROPPED:    kvalidate: warning: {{.*}}defect-confirm.cu:[[@LINE+57]]:{{[0-9]+}}: clang ignores this __builtin_assume
// DROPPED:    verdict: race
// DROPPED:      confirmed:

#include <cassert>

__global__ void scale_umul24(const float *in, float *out, unsigned n) {
  unsigned i = __umul24(blockIdx.x, blockDim.x) + threadIdx.x;
  if (i < n)
    out[i] = 2.0f * in[i];
}

__global__ void scale_mul24(const float *in, float *out, int n) {
  int i = __mul24(blockIdx.x, blockDim.x) + threadIdx.x;
  if (i < n)
    out[i] = 2.0f * in[i];
}

// Threads 2k and 2k+1 share a cell.
__global__ void halves(int *out) {
  int j = (int)((float)threadIdx.x * 0.5f);
  out[j] = threadIdx.x;
}

// The float round trip gives back the thread index.
__global__ void round_trip(int *out) {
  int j = (int)((float)threadIdx.x * 1.0f);
  out[j] = threadIdx.x;
}

__global__ void strided_unreachable(float *a, int sz) {
  if (sz != blockDim.x)
    __builtin_unreachable();
  for (int i = threadIdx.x; i < 100 * sz; i += sz)
    a[i] *= 2.0f;
}

__global__ void strided_assert(float *a, int sz) {
  assert(sz == blockDim.x);
  for (int i = threadIdx.x; i < 100 * sz; i += sz)
    a[i] *= 2.0f;
}

__global__ void copy(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i];
}

__global__ void copy_assert(const int *in, int *out, int n) {
  assert(n <= 5);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i];
}

__global__ void strided_dropped(float *a, int sz) {
  __builtin_assume(sz == blockDim.x);
  for (int i = threadIdx.x; i < 100 * sz; i += sz)
    a[i] *= 2.0f;
}

