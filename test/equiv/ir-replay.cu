// A counterexample is run twice: on the kv models the checker reasons about,
// and on the kernels' own LLVM IR. Where the two runs disagree, the
// lowering into kv is wrong, and what the models found is not reported as a
// counterexample.
//
// Equal kernels (a multiply and the shift it is): equivalent.
// RUN: %expect-exit 0 %kvalidate --assume='%{1D}' %s:times_four %s:shift_two | FileCheck %s --check-prefix=SAME
// SAME: verdict: equivalent
//
// With the shift lowered wrongly on purpose (a test-only switch), the models
// differ, the IR does not: an internal error, exit 2, and no counterexample.
// RUN: %expect-exit 2 %kvalidate --test-break-lowering=shl --hunt=0 --assume='%{1D}' %s:times_four %s:shift_two | FileCheck %s --check-prefix=BROKEN
// BROKEN: verdict: unknown
// BROKEN: reason: internal error: on the counterexample (gridDim ({{[0-9]+}},1,1), blockDim ({{[0-9]+}},1,1)) kvalidate's model of the after kernel leaves out[{{[0-9]+}}] = {{-?[0-9]+}} but its LLVM IR leaves {{-?[0-9]+}}: the lowering into kv is wrong here
// BROKEN-NOT: mismatch:
//
// A real difference replays on both: the models and the IR agree.
// RUN: %expect-exit 1 %kvalidate --assume='%{1D}' %s:times_four %s:shift_three | FileCheck %s --check-prefix=DIFF
// DIFF: verdict: not-equivalent
// DIFF: counterexample (replayed):
// DIFF: mismatch: out[[[IDX:[0-9]+]]]:
// DIFF: replayed on: the LLVM IR of both kernels
//
// RUN: %expect-exit 1 %kvalidate --json --assume='%{1D}' %s:times_four %s:shift_three > %t.json
// RUN: FileCheck %s --check-prefix=JSON < %t.json
// JSON: "replayed_on":"the LLVM IR of both kernels"
//
// `kvalidate replay` runs a saved counterexample both ways too, and a
// kernel whose two runs disagree is an error (exit 3).
// RUN: %expect-exit 1 %kvalidate replay %t.json | FileCheck %s --check-prefix=REPLAY
// REPLAY: replay: the kernels differ
// REPLAY-NEXT: replay: run on the LLVM IR of both kernels
// (A saved input of 1: the solver's input may be one where x << 3 and
// x << 4 wrap to the same word.)
// RUN: echo '{"verdict":"not-equivalent","before":"%s:times_four","after":"%s:shift_three","counterexample":{"gridDim":[1,1,1],"blockDim":[1,1,1],"arrays":{"in":{"0":1}}}}' > %t.one.json
// RUN: %expect-exit 3 %kvalidate --test-break-lowering=shl replay %t.one.json 2>&1 | FileCheck %s --check-prefix=REPLAY-BROKEN
// REPLAY-BROKEN: kvalidate: error: internal error: on the counterexample {{.*}} kvalidate's model of the after kernel leaves out[{{[0-9]+}}] = {{-?[0-9]+}} but its LLVM IR leaves {{-?[0-9]+}}
//
// Shared memory, a barrier, a helper function, a struct and private arrays
// run on the IR too: a block reversal through a tile, against one that
// misses the last element.
// RUN: %expect-exit 1 %kvalidate --assume='%{1D}' --assume='blockDim.x <= 64' %s:reverse_tile %s:reverse_tile_short | FileCheck %s --check-prefix=TILE
// TILE: verdict: not-equivalent
// TILE: replayed on: the LLVM IR of both kernels

__global__ void times_four(int *out, const int *in) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i] * 4;
}

__global__ void shift_two(int *out, const int *in) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i] << 2;
}

__global__ void shift_three(int *out, const int *in) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i] << 3;
}

struct Pair {
  int lo, hi;
};

__device__ Pair split(int v) { return Pair{v & 0xffff, v >> 16}; }

__global__ void reverse_tile(int *out, const int *in) {
  __shared__ int tile[64];
  int t = threadIdx.x, base = blockIdx.x * blockDim.x;
  tile[t] = in[base + t];
  __syncthreads();
  Pair p = split(tile[blockDim.x - 1 - t]);
  int parts[2] = {p.lo, p.hi};
  out[base + t] = parts[0] | (parts[1] << 16);
}

__global__ void reverse_tile_short(int *out, const int *in) {
  __shared__ int tile[64];
  int t = threadIdx.x, base = blockIdx.x * blockDim.x;
  tile[t] = in[base + t];
  __syncthreads();
  int src = blockDim.x - 1 - t;
  out[base + t] = src == 0 ? 0 : tile[src];
}
