// kvalidate removes the files it compiles .cu inputs into, whatever the
// verdict: a CI machine running it on every build must not fill its /tmp.
//
// RUN: rm -rf %t.tmp && mkdir %t.tmp
// RUN: env TMPDIR=%t.tmp %expect-exit 0 %kvalidate --cuda-path= %s:twice %s:add_self
// RUN: env TMPDIR=%t.tmp %expect-exit 1 %kvalidate --cuda-path= %s:twice %s:add_one
// RUN: env TMPDIR=%t.tmp %expect-exit 0 %kvalidate %s:twice %s:add_self
// RUN: env TMPDIR=%t.tmp %expect-exit 3 %kvalidate --cuda-path= -DBROKEN %s:twice %s:add_self
// RUN: ls -A %t.tmp | FileCheck %s --allow-empty
// CHECK-NOT: {{.}}

__global__ void twice(int *out, const int *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = 2 * in[i];
}

__global__ void add_self(int *out, const int *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i] + in[i];
}

__global__ void add_one(int *out, const int *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i] + in[i] + 1;
}

#ifdef BROKEN
not a declaration;
#endif
