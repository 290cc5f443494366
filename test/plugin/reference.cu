// KV_EQUIVALENT_TO (passes/include/kvalidate.h): a kernel names its
// reference, and every compile with the plugin proves the pair as written
// (source against source), besides the -O2 pipeline of each kernel. The
// verdict is reported on the annotated kernel under the same policy.
//
// RUN: rm -rf %t && mkdir %t
// RUN: not %clang-cuda -I %kv-include -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate \
// RUN:   -mllvm -kvalidate-cache=%t/cache -mllvm -kvalidate-report=%t/r.jsonl %s -o %t/out.s 2> %t/diag
// RUN: FileCheck %s < %t/diag
// CHECK-DAG: reference.cu:[[@LINE+31]]:17: remark: kvalidate: kernel 'sum_pairs_swapped' against its reference 'sum_pairs': equivalent ({{[0-9]+}} ms)
// CHECK-DAG: reference.cu:[[@LINE+37]]:17: error: kvalidate: kernel 'sum_pairs_wrong' against its reference 'sum_pairs': not-equivalent: {{.*}} (replayed on the LLVM IR of both kernels)
// CHECK-DAG: remark: kvalidate: kernel 'orphan' against its reference 'no_such_kernel': error: KV_EQUIVALENT_TO names 'no_such_kernel', which is not a kernel defined in this file
// CHECK-DAG: remark: kvalidate: kernel 'bad_assume' against its reference 'sum_pairs': error: {{.*}}m{{.*}}
// CHECK-DAG: remark: kvalidate: kernel 'reverse_block_shared' against its reference 'reverse_block': equivalent ({{[0-9]+}} ms) [assumptions: {{.*}}blockDim.x <= 256 (--assume)
// Each kernel's own -O2 pipeline is still checked.
// CHECK-DAG: remark: kvalidate: kernel 'sum_pairs_wrong': equivalent
// RUN: FileCheck %s --check-prefix=REPORT < %t/r.jsonl
// REPORT-DAG: "kernel":"sum_pairs_swapped",{{.*}}"pass":"KV_EQUIVALENT_TO(sum_pairs)",{{.*}}"verdict":"equivalent"
// REPORT-DAG: "kernel":"sum_pairs_wrong",{{.*}}"level":"error",{{.*}}"pass":"KV_EQUIVALENT_TO(sum_pairs)",{{.*}}"verdict":"not-equivalent"
// The report's counterexample reruns from the source module saved beside it.
// RUN: %expect-exit 1 %kvalidate replay %t/r.jsonl | FileCheck %s --check-prefix=REPLAY
// REPLAY: replay: the kernels differ
//
// A second compile reads the pairs' verdicts from the cache.
// RUN: not %clang-cuda -I %kv-include -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate \
// RUN:   -mllvm -kvalidate-cache=%t/cache %s -o %t/out.s 2>&1 | FileCheck %s --check-prefix=WARM
// WARM: remark: kvalidate: kernel 'sum_pairs_swapped' against its reference 'sum_pairs': equivalent {{.*}}[cached]
//
// Without the plugin the annotation does nothing.
// RUN: %clang-cuda -I %kv-include -O2 -S %s -o %t/plain.s

#include <kvalidate.h>

__global__ void sum_pairs(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[2 * i] + in[2 * i + 1];
}

KV_EQUIVALENT_TO(sum_pairs)
__global__ void sum_pairs_swapped(const int *in, int *out, int n) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  if (i < n)
    out[i] = in[2 * i + 1] + in[2 * i];
}

KV_EQUIVALENT_TO(sum_pairs, "n <= 1024")
__global__ void sum_pairs_wrong(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[2 * i] + in[2 * i];
}

KV_EQUIVALENT_TO(no_such_kernel)
__global__ void orphan(const int *in, int *out, int n) { out[0] = n; }

KV_EQUIVALENT_TO(sum_pairs, "m > 0")
__global__ void bad_assume(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[2 * i] + in[2 * i + 1];
}

__global__ void reverse_block(const int *in, int *out) {
  int b = blockIdx.x * blockDim.x;
  out[b + threadIdx.x] = in[b + blockDim.x - 1 - threadIdx.x];
}

// Staged through shared memory: right for blocks of at most 256 threads.
KV_EQUIVALENT_TO(reverse_block, "blockDim.x <= 256")
__global__ void reverse_block_shared(const int *in, int *out) {
  __shared__ int tile[256];
  int b = blockIdx.x * blockDim.x;
  tile[threadIdx.x] = in[b + threadIdx.x];
  __syncthreads();
  out[b + threadIdx.x] = tile[blockDim.x - 1 - threadIdx.x];
}

// An annotation's assumption nested 20,000 levels deep is an error verdict
// for the pair, not a stack overflow in clang.
// RUN: python3 -c "q = chr(34); d = 20000; print('#include <kvalidate.h>'); print('__global__ void ref(int *o) { o[threadIdx.x] = 1; }'); print('KV_EQUIVALENT_TO(ref, ' + q + '(' * d + 'blockDim.x > 0' + ')' * d + q + ')'); print('__global__ void deep(int *o) { o[threadIdx.x] = 1; }')" > %t/deep.cu
// RUN: %clang-cuda -I %kv-include -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate %t/deep.cu -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=DEEP
// DEEP: remark: kvalidate: kernel 'deep' against its reference 'ref': error: cannot parse --assume='((({{.*}}...': column {{[0-9]+}}: assumption nested too deeply (more than 256 levels)
