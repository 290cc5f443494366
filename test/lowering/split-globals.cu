// -O2 splits an array variable into one per element (GlobalOpt): a shared
// array of one element becomes `first.0`, the same variable, which keeps
// the name `first` so that the two kernels' shared arrays match and the
// interval-by-interval proof applies.
//
// RUN: %clang-cuda -O2 -S -emit-llvm %s -o %t.ll
// RUN: grep -q 'first.0 = internal' %t.ll
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate \
// RUN:   -mllvm -kvalidate-cache= %s -o /dev/null 2>&1 | FileCheck %s
// CHECK: remark: kvalidate: kernel 'bcast': equivalent {{.*}}[proof: interval by interval
// RUN: %kvalidate --emit-kv %s:bcast %t.ll:bcast | FileCheck %s --check-prefix=NAMES
// NAMES: arg_names = ["in", "out", "n", "first"]
// NAMES: arg_names = ["in", "out", "n", "first"]

__global__ void bcast(const int *in, int *out, int n) {
  __shared__ int first[1];
  if (threadIdx.x == 0)
    first[0] = in[blockIdx.x];
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i] + first[0];
}
