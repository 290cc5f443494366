// A kernel's declared launch is an assumption: CUDA refuses a launch of
// more threads than __launch_bounds__ allows (or another block shape than
// a required one), so no run there is an execution of the kernel. A block
// staged through a shared array of the bound's size is in bounds, and the
// verdict lists the bound and which kernel declares it.
// RUN: %expect-exit 0 %kvalidate --cuda-path= --assume='%{1D}' \
// RUN:   %s:staged_256 %s:staged_256 2>&1 | FileCheck %s --check-prefix=BOUND
// BOUND:      verdict: equivalent
// BOUND:      - blockDim.x * blockDim.y * blockDim.z <= 256 (the largest block (__launch_bounds__, nvvm.maxntid) that both kernels declare)
// BOUND:      - checked: the before kernel has in-bounds shared-array accesses
//
// Without the bound the same kernel writes past its array at a block of
// more than 256 threads: confirmed at such a launch.
// RUN: %expect-exit 4 %kvalidate --cuda-path= --assume='%{1D}' \
// RUN:   %s:staged_free %s:staged_free 2>&1 | FileCheck %s --check-prefix=FREE
// FREE:       verdict: out-of-bounds
// FREE:       confirmed: the before kernel's LLVM IR ran at this launch (gridDim ({{[0-9]+}},1,1), blockDim ({{25[7-9]|2[6-9][0-9]|[3-9][0-9][0-9]|10[0-9][0-9]}},1,1)
//
// The bound of one kernel is a launch the pair cannot run beyond either:
// listed as the after kernel's. The before kernel's own defect past the
// bound is then no execution.
// RUN: %expect-exit 0 %kvalidate --cuda-path= --assume='%{1D}' \
// RUN:   %s:staged_free %s:staged_256 2>&1 | FileCheck %s --check-prefix=AFTER
// AFTER:      verdict: equivalent
// AFTER:      - blockDim.x * blockDim.y * blockDim.z <= 256 (the largest block (__launch_bounds__, nvvm.maxntid) that the after kernel declares)
//
// A required block shape (nvvm.reqntid, as a front end may emit it) is an
// exact launch: the IR's bound rewritten into one.
// RUN: %clang-cuda -O2 -S -emit-llvm %s -o %t.ll
// RUN: sed 's/"nvvm.maxntid"="256"/"nvvm.reqntid"="256,1,1"/' %t.ll > %t.req.ll
// RUN: not diff %t.ll %t.req.ll > /dev/null
// RUN: %expect-exit 0 %kvalidate --assume='gridDim.y == 1 && gridDim.z == 1' \
// RUN:   %t.req.ll:_Z10staged_256PiPKi %t.req.ll:_Z10staged_256PiPKi 2>&1 | FileCheck %s --check-prefix=REQ
// REQ:      verdict: equivalent
// REQ:      - blockDim.x == 256 && blockDim.y == 1 && blockDim.z == 1 (the block shape (nvvm.reqntid) that both kernels declare)
// REQ-NOT:  nvvm.maxntid
//
// The plugin reads the same bound, with its safety checks on: the
// bounded kernel proved with the bound listed, the unbounded one a defect
// that fails the compile.
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate \
// RUN:   -mllvm -kvalidate-cache= -mllvm -kvalidate-safety-checks \
// RUN:   -mllvm '-kvalidate-assume=%{1D}' -mllvm -kvalidate-kernel=staged_256 \
// RUN:   %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=PLUGIN
// PLUGIN: kernel 'staged_256': equivalent {{.*}}blockDim.x * blockDim.y * blockDim.z <= 256 (the largest block (__launch_bounds__, nvvm.maxntid) that both kernels declare)
// RUN: %expect-exit 1 %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate \
// RUN:   -mllvm -kvalidate-cache= -mllvm -kvalidate-safety-checks \
// RUN:   -mllvm '-kvalidate-assume=%{1D}' -mllvm -kvalidate-kernel=staged_free \
// RUN:   %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=PLUGIN-FREE
// PLUGIN-FREE: kernel 'staged_free': out-of-bounds
//
// A wrong rewrite under the bound is still caught, at a launch within it.
// RUN: %expect-exit 1 %kvalidate --cuda-path= --assume='%{1D}' \
// RUN:   %s:staged_256 %s:staged_256_wrong 2>&1 | FileCheck %s --check-prefix=WRONG
// WRONG:      verdict: not-equivalent
// WRONG:      blockDim = ({{[0-9]|[0-9][0-9]|1[0-9][0-9]|2[0-4][0-9]|25[0-6]}}, 1, 1)

__global__ void __launch_bounds__(256) staged_256(int *out, const int *in) {
  __shared__ int s[256];
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = in[g];
  __syncthreads();
  out[g] = s[blockDim.x - 1 - threadIdx.x] + 1;
}

__global__ void staged_free(int *out, const int *in) {
  __shared__ int s[256];
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = in[g];
  __syncthreads();
  out[g] = s[blockDim.x - 1 - threadIdx.x] + 1;
}

__global__ void __launch_bounds__(256)
    staged_256_wrong(int *out, const int *in) {
  __shared__ int s[256];
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = in[g];
  __syncthreads();
  out[g] = s[blockDim.x - 1 - threadIdx.x] + 2;
}
