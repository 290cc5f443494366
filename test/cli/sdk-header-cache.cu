// The CUDA SDK's headers are precompiled once into --cache-dir and reused;
// a PCH clang rejects (here: garbage) costs a plain compile, never a
// verdict; an empty --cache-dir writes nothing.
// REQUIRES: cuda-sdk
//
// REQUIRES: long
// RUN: rm -rf %t.cache %t.none && mkdir %t.none
// RUN: %expect-exit 0 %kvalidate --cuda-path=/usr/local/cuda --cache-dir=%t.cache %s:scale %s:scale_mul \
// RUN:   | FileCheck %s
// RUN: ls %t.cache | FileCheck %s --check-prefix=PCH
// RUN: %expect-exit 0 %kvalidate --cuda-path=/usr/local/cuda --cache-dir=%t.cache %s:scale %s:scale_mul \
// RUN:   | FileCheck %s
// RUN: sh -c 'for f in %t.cache/*.pch; do echo garbage > $f; done'
// RUN: %expect-exit 0 %kvalidate --cuda-path=/usr/local/cuda --cache-dir=%t.cache %s:scale %s:scale_mul \
// RUN:   | FileCheck %s
// The rejected PCH was removed: the next run builds a fresh one and uses it.
// RUN: %expect-exit 0 %kvalidate --cuda-path=/usr/local/cuda --cache-dir=%t.cache --kv-debug=compile %s:scale %s:scale_mul \
// RUN:   2>&1 | FileCheck %s --check-prefix=USED
// A PCH for other flags leaves the first one valid (clang rejects a PCH
// whose source file, the same empty header for all, changed since).
// RUN: sleep 1
// RUN: %expect-exit 0 %kvalidate --cuda-path=/usr/local/cuda --cache-dir=%t.cache -DOTHER %s:scale %s:scale_mul \
// RUN:   | FileCheck %s
// RUN: %expect-exit 0 %kvalidate --cuda-path=/usr/local/cuda --cache-dir=%t.cache --kv-debug=compile %s:scale %s:scale_mul \
// RUN:   2>&1 | FileCheck %s --check-prefix=USED
// RUN: ls %t.cache | FileCheck %s --check-prefix=PCH2
// A compile error is reported once, as clang gives it.
// RUN: %expect-exit 3 %kvalidate --cuda-path=/usr/local/cuda --cache-dir=%t.cache -DBROKEN %s:scale %s:scale \
// RUN:   2>&1 | FileCheck %s --check-prefix=BROKEN
// RUN: cd %t.none && %expect-exit 0 %kvalidate --cuda-path=/usr/local/cuda --cache-dir= %s:scale %s:scale_mul \
// RUN:   | FileCheck %s
// RUN: ls -A %t.none | count 0
// CHECK: verdict: equivalent
// PCH: cuda-sdk-{{[0-9A-F]+}}.pch
// PCH2-COUNT-2: cuda-sdk-{{[0-9A-F]+}}.pch
// USED: kvalidate: compile {{.*}}sdk-header-cache.cu with {{.*}}.pch: ok
// USED-NOT: without precompiled headers
// USED: verdict: equivalent
// BROKEN: kvalidate: error: cannot compile
// BROKEN-COUNT-1: error: unknown type name 'broken_type'
// BROKEN-NOT: error:

#ifdef BROKEN
broken_type x;
#endif
__global__ void scale(int *out, const int *in) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i] + in[i];
}
__global__ void scale_mul(int *out, const int *in) {
  unsigned i = threadIdx.x + blockIdx.x * blockDim.x;
  out[i] = 2 * in[i];
}
