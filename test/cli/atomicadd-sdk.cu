// atomicAdd() from the CUDA SDK's headers, and from kvalidate's own header
// when there is no SDK (--cuda-path= forces none): the same atomic update
// either way, proved against the __atomic builtin.
// REQUIRES: cuda-sdk
//
// RUN: %expect-exit 0 %kvalidate --cuda-path=/usr/local/cuda %s:count %s:count_builtin | FileCheck %s
// RUN: %expect-exit 0 %kvalidate --cuda-path= %s:count %s:count_builtin | FileCheck %s
// CHECK: verdict: equivalent
// CHECK: checked: the before kernel has no data race (atomic updates of one kind commute
__global__ void count(int *counter) { atomicAdd(counter, 1); }

__global__ void count_builtin(int *counter) {
  __atomic_fetch_add(counter, 1, __ATOMIC_SEQ_CST);
}
