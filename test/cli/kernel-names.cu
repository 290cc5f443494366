// How KERNEL in FILE:KERNEL is matched: the source name, the qualified name,
// the name without template arguments when that is unique, or the mangled
// name. Each pair below is equivalent (out[tid] = 1).
//
// RUN: %expect-exit 0 %kvalidate %s:plain %s:_Z5plainPi | FileCheck %s
// RUN: %expect-exit 0 %kvalidate %s:a::one %s:b::one | FileCheck %s
// RUN: %expect-exit 0 %kvalidate %s:plain '%s:fill<1>' | FileCheck %s
// RUN: %expect-exit 0 %kvalidate %s:plain %s:fill_only | FileCheck %s
// CHECK: verdict: equivalent
//
// The unqualified name is ambiguous here: an error that lists the matches.
// RUN: %expect-exit 3 %kvalidate %s:one %s:plain 2>&1 | FileCheck %s --check-prefix=AMBIG
// AMBIG: kvalidate: error: {{.*}}kernel-names.cu: kernel name 'one' is ambiguous; it matches: a::one ({{_Z.*}}), b::one ({{_Z.*}})
//
// So is a template name with two instantiations.
// RUN: %expect-exit 3 %kvalidate %s:fill %s:plain 2>&1 | FileCheck %s --check-prefix=TMPL
// TMPL: kvalidate: error: {{.*}}kernel name 'fill' is ambiguous; it matches: fill<1>{{.*}}, fill<2>

__global__ void plain(int *out) { out[threadIdx.x] = 1; }

namespace a {
__global__ void one(int *out) { out[threadIdx.x] = 1; }
} // namespace a
namespace b {
__global__ void one(int *out) { out[threadIdx.x] = 2 - 1; }
} // namespace b

template <int N> __global__ void fill(int *out) { out[threadIdx.x] = N; }
template __global__ void fill<1>(int *);
template __global__ void fill<2>(int *);

template <int N> __global__ void fill_only(int *out) { out[threadIdx.x] = N; }
template __global__ void fill_only<1>(int *);

// The solver-heavy lane (test/lit.cfg.py).
// REQUIRES: long
