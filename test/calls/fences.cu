// Memory fences (__threadfence, __threadfence_block, __threadfence_system,
// and a C++ fence): a fence orders one thread's accesses as other threads
// see them and synchronizes nothing by itself, so a kernel computes the
// same with or without one. Replays run the fences too.
//
// RUN: %expect-exit 0 %kvalidate --assume="%{1D}" %s:copy_fenced %s:copy_plain | FileCheck %s --check-prefix=EQ
// RUN: %expect-exit 0 %kvalidate --cuda-path= --assume="%{1D}" %s:reverse_fenced %s:reverse_plain | FileCheck %s --check-prefix=EQ
// EQ: verdict: equivalent
//
// A different value written next to a fence: a counterexample, replayed.
// RUN: %expect-exit 1 %kvalidate --assume="%{1D}" %s:copy_fenced %s:copy_fenced_wrong | FileCheck %s --check-prefix=NE
// NE: verdict: not-equivalent
// NE: counterexample (replayed):
// NE: replayed on: the LLVM IR of both kernels
//
// Inside clang at -O2: each kernel's pipeline, fences kept.
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate \
// RUN:   -mllvm -kvalidate-assume='%{1D}' %s -o %t.s 2>&1 \
// RUN:   | FileCheck %s --check-prefix=O2 --implicit-check-not=warning: --implicit-check-not=error:
// O2-DAG: remark: kvalidate: kernel 'copy_fenced': equivalent
// O2-DAG: remark: kvalidate: kernel 'reverse_fenced': equivalent
// O2-DAG: remark: kvalidate: kernel 'copy_fenced_wrong': equivalent
// O2-DAG: remark: kvalidate: kernel 'copy_plain': equivalent
// O2-DAG: remark: kvalidate: kernel 'reverse_plain': equivalent
// RUN: grep -c membar %t.s | FileCheck %s --check-prefix=PTX
// PTX: {{^[1-9]}}

__global__ void copy_fenced(int *out, const int *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[i] = in[i] + 1;
    __threadfence();
    out[n + i] = in[i] * 3;
    __threadfence_system();
  }
}

__global__ void copy_plain(int *out, const int *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[n + i] = in[i] * 3;
    out[i] = in[i] + 1;
  }
}

__global__ void copy_fenced_wrong(int *out, const int *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[i] = in[i] + 1;
    __threadfence();
    out[n + i] = in[i] * 3 + (i == 5);
  }
}

// Each block reverses its slice through shared memory.
__global__ void reverse_fenced(int *out, const int *in) {
  __shared__ int s[1024];
  unsigned t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  s[t] = in[i];
  __threadfence_block();
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  __syncthreads();
  out[i] = s[blockDim.x - 1 - t];
}

__global__ void reverse_plain(int *out, const int *in) {
  __shared__ int s[1024];
  unsigned t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  s[t] = in[i];
  __syncthreads();
  out[i] = s[blockDim.x - 1 - t];
}
