// atomicExch whose old value is unused and whose value every thread has
// alike (a "found" flag) leaves that value whatever the order of the
// threads: a write, whose equal values the race check tolerates. With a
// value of the thread's own (the last index seen), the order decides: the
// construct is named, unsupported.
//
// RUN: %expect-exit 0 %kvalidate %s:flag_exchange %s:flag_store | FileCheck %s --check-prefix=EQ
// RUN: %expect-exit 0 %kvalidate --cuda-path= %s:flag_exchange %s:flag_exchange_scaled | FileCheck %s --check-prefix=EQ
// EQ: verdict: equivalent
//
// RUN: %expect-exit 1 %kvalidate %s:flag_exchange %s:flag_exchange_shifted | FileCheck %s --check-prefix=NE
// NE: verdict: not-equivalent
// NE: replayed on: the LLVM IR of both kernels
//
// RUN: %expect-exit 2 %kvalidate --cuda-path= %s:last_seen %s:last_seen | FileCheck %s --check-prefix=ORDER
// ORDER: verdict: unsupported
// ORDER: atomicExch (its result depends on the order of the threads)
//
// Inside clang at -O2.
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate \
// RUN:   %s -o %t.s 2>&1 | FileCheck %s --check-prefix=O2 --implicit-check-not=error:
// O2-DAG: remark: kvalidate: kernel 'flag_exchange': equivalent
// O2-DAG: remark: kvalidate: kernel 'flag_exchange_scaled': equivalent

__global__ void flag_exchange(int *hit, const int *in, int key, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && in[i] == key)
    atomicExch(hit, 7);
}

__global__ void flag_store(int *hit, const int *in, int key, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && in[i] == key)
    *hit = 7;
}

// The value from the parameters alone, alike in every thread.
__global__ void flag_exchange_scaled(int *hit, const int *in, int key, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int mark = key - key + 7;
  if (i < n && in[i] - key == 0)
    atomicExch(hit, mark);
}

__global__ void flag_exchange_shifted(int *hit, const int *in, int key,
                                      int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && in[i] == key + 1)
    atomicExch(hit, 7);
}

__global__ void last_seen(int *last, const int *in, int key, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && in[i] == key)
    atomicExch(last, i);
}
