// With a CUDA SDK, atomicAdd() from the SDK headers is available and the
// kernel is rejected as unsupported (exit 2) at the call's line.
// REQUIRES: cuda-sdk
//
// RUN: %expect-exit 2 %kvalidate --cuda-path=/usr/local/cuda %s:count %s:count | FileCheck %s
// CHECK: verdict: unsupported
// CHECK-NEXT: reason: before kernel: {{.*}}atomicadd-sdk.cu:[[@LINE+7]]:{{[0-9]+}}: atomic operation
//
// Without an SDK (--cuda-path= forces none) atomicAdd is undeclared: the
// compile error is passed on and the exit status is 3.
// RUN: %expect-exit 3 %kvalidate --cuda-path= %s:count %s:count 2>&1 | FileCheck %s --check-prefix=NOSDK
// NOSDK: kvalidate: error: cannot compile {{.*}}atomicadd-sdk.cu:
// NOSDK: error: use of undeclared identifier 'atomicAdd'
__global__ void count(int *counter) { atomicAdd(counter, 1); }
