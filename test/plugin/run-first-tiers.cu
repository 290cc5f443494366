// Which launches run before the proof (-run-first-tiers). The plugin runs
// only the small ones: a correct compile pays for every run. The larger
// ones run after a proof that ends unsupported, with the checks that make
// a difference of the models the kernels' own: a loop that never stops is
// modelled by no count of iterations, and its models' difference is no
// counterexample (this once made a false not-equivalent).
//
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate -mllvm -kvalidate-cache= \
// RUN:   %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=PLUGIN --implicit-check-not=not-equivalent
// PLUGIN-DAG: run-first-tiers.cu:[[@LINE+18]]:17: remark: kvalidate: kernel 'clamp_copy': equivalent
// PLUGIN-DAG: run-first-tiers.cu:[[@LINE+23]]:17: remark: kvalidate: kernel 'clamp_copy_big': equivalent
// PLUGIN-DAG: run-first-tiers.cu:[[@LINE+29]]:17: remark: kvalidate: kernel 'spin_sum': unsupported: before kernel: loop that the model cannot count: {{.*}}run-first-tiers.cu:[[@LINE+32]]:3
//
// A pair that differs only where n > 300: the larger launches show it
// before any query (the command line's default); with the small ones only,
// the proof finds it and its model replays.
// RUN: %expect-exit 1 %kvalidate %s:clamp_copy %s:clamp_copy_big | FileCheck %s --check-prefix=TIERS2
// TIERS2: verdict: not-equivalent
// TIERS2: found by: running both kernels on pseudo-random inputs ({{[0-9]+}} runs on small launches the assumptions admit), before any solver query
// RUN: %expect-exit 1 %kvalidate --run-first-tiers=1 %s:clamp_copy %s:clamp_copy_big \
// RUN:   | FileCheck %s --check-prefix=TIERS1 --implicit-check-not='found by'
// TIERS1: verdict: not-equivalent
// TIERS1: counterexample (replayed):
// RUN: %expect-exit 3 %kvalidate --run-first-tiers=3 %s:clamp_copy %s:clamp_copy 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BAD
// BAD: --run-first-tiers must be 1 or 2, got '3'

__global__ void clamp_copy(int *out, const int *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i];
}

__global__ void clamp_copy_big(int *out, const int *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = n > 300 ? 0 : in[i];
}

// An unsigned counter tested k >= 0 never stops (k wraps around).
__global__ void spin_sum(int *out, const int *in, unsigned n) {
  unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  int s = 0;
  for (unsigned k = n; k >= 0; --k)
    s += in[t + k];
  out[t] = s;
}
