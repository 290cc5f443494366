// Two trees that add a block's floats in different orders: equal over the
// reals, not bit for bit (float addition does not associate).
//
// Bit for bit (the default): the proof cannot tell the two sums apart (its
// float additions are uninterpreted), and running both kernels on
// pseudo-random floats shows the rounding difference; the counterexample is
// replayed on the LLVM IR.
// RUN: %expect-exit 1 %kvalidate --assume='blockDim.x == 4 && %{1D}' %s:tree_halving %s:tree_pairs | FileCheck %s --check-prefix=IEEE
// IEEE: verdict: not-equivalent
// IEEE: found by: running both kernels' LLVM IR on pseudo-random inputs
// IEEE: counterexample (replayed):
// IEEE: mismatch: out[{{[0-9]+}}]: before = {{-?[0-9]+}}, after = {{-?[0-9]+}}
// IEEE-NEXT: replayed on: the LLVM IR of both kernels
//
// Over the reals (--fp=real): the verdict says so. (Trees of 8 or more
// leaves stay unknown: the proof follows reads through the unaligned
// intervals with fresh threads, whose real values it cannot relate.)
// RUN: %expect-exit 0 %kvalidate --fp=real --assume='blockDim.x == 4 && %{1D}' %s:tree_halving %s:tree_pairs | FileCheck %s --check-prefix=REAL
// REAL: verdict: equivalent-over-the-reals
// REAL: --fp=real: where the proof is not bit for bit, float addition
//
// A tree that drops an element differs over the reals too: no verdict of
// equivalence, and no counterexample either (replays compute IEEE floats).
// RUN: %expect-exit 2 %kvalidate --fp=real --assume='blockDim.x == 4 && %{1D}' %s:tree_halving %s:tree_short | FileCheck %s --check-prefix=REALDIFF
// REALDIFF: verdict: unknown
// REALDIFF: the kernels may differ over the reals
// REALDIFF-NOT: mismatch:
//
// The plugin says the kind of equivalence in its remark too.
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate -mllvm -kvalidate-fp=real %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=PLUGIN
// PLUGIN: remark: kvalidate: kernel 'tree_halving': equivalent

#define N 4

__global__ void tree_halving(float *out, const float *in) {
  __shared__ float s[N];
  unsigned t = threadIdx.x;
  s[t] = in[blockIdx.x * N + t];
  __syncthreads();
  for (unsigned d = N / 2; d > 0; d >>= 1) {
    if (t < d)
      s[t] += s[t + d];
    __syncthreads();
  }
  if (t == 0)
    out[blockIdx.x] = s[0];
}

__global__ void tree_pairs(float *out, const float *in) {
  __shared__ float s[N];
  unsigned t = threadIdx.x;
  s[t] = in[blockIdx.x * N + t];
  __syncthreads();
  for (unsigned d = 1; d < N; d <<= 1) {
    if (t % (2 * d) == 0)
      s[t] += s[t + d];
    __syncthreads();
  }
  if (t == 0)
    out[blockIdx.x] = s[0];
}

__global__ void tree_short(float *out, const float *in) {
  __shared__ float s[N];
  unsigned t = threadIdx.x;
  s[t] = in[blockIdx.x * N + t];
  __syncthreads();
  for (unsigned d = N / 2; d > 1; d >>= 1) {
    if (t < d)
      s[t] += s[t + d];
    __syncthreads();
  }
  if (t == 0)
    out[blockIdx.x] = s[0];
}
