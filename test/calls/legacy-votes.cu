// The legacy warp votes (__any, __all, __ballot without _sync): a vote of
// the lanes of the warp that execute it, as __activemask() counts them.
// One warp per block here.
//
// RUN: %expect-exit 0 %kvalidate --assume="%{W32}" %s:any_legacy %s:any_sync | FileCheck %s --check-prefix=EQ
// RUN: %expect-exit 0 %kvalidate --cuda-path= --assume="%{W32}" %s:all_legacy %s:not_any_legacy | FileCheck %s --check-prefix=EQ
// RUN: %expect-exit 0 %kvalidate --assume="%{W32}" %s:ballot_where %s:active_where | FileCheck %s --check-prefix=EQ
// EQ: verdict: equivalent
//
// Another predicate: a counterexample, replayed on both kernels' IR.
// RUN: %expect-exit 1 %kvalidate --assume="%{W32}" %s:any_legacy %s:any_legacy_wrong | FileCheck %s --check-prefix=NE
// NE: verdict: not-equivalent
// NE: counterexample (replayed):
// NE: replayed on: the LLVM IR of both kernels
//
// Inside clang at -O2.
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate \
// RUN:   -mllvm -kvalidate-assume='%{W32}' %s -o %t.s 2>&1 \
// RUN:   | FileCheck %s --check-prefix=O2 --implicit-check-not=error:
// O2-DAG: remark: kvalidate: kernel 'any_legacy': equivalent
// O2-DAG: remark: kvalidate: kernel 'all_legacy': equivalent
// O2-DAG: remark: kvalidate: kernel 'ballot_where': equivalent

__global__ void any_legacy(int *out, const int *in) {
  unsigned i = blockIdx.x * 32 + threadIdx.x;
  out[i] = __any(in[i] > 0);
}

__global__ void any_sync(int *out, const int *in) {
  unsigned i = blockIdx.x * 32 + threadIdx.x;
  out[i] = __any_sync(0xffffffffu, in[i] > 0);
}

__global__ void any_legacy_wrong(int *out, const int *in) {
  unsigned i = blockIdx.x * 32 + threadIdx.x;
  out[i] = __any(in[i] > 1);
}

__global__ void all_legacy(int *out, const int *in) {
  unsigned i = blockIdx.x * 32 + threadIdx.x;
  out[i] = __all(in[i] != 3);
}

__global__ void not_any_legacy(int *out, const int *in) {
  unsigned i = blockIdx.x * 32 + threadIdx.x;
  out[i] = !__any(in[i] == 3);
}

// Inside a branch: the lanes that take it.
__global__ void ballot_where(unsigned *out, const int *in) {
  unsigned i = blockIdx.x * 32 + threadIdx.x;
  if (in[i] > 0)
    out[i] = __ballot(1);
}

__global__ void active_where(unsigned *out, const int *in) {
  unsigned i = blockIdx.x * 32 + threadIdx.x;
  if (in[i] > 0)
    out[i] = __activemask();
}
