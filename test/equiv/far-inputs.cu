// A counterexample lists every input cell its difference depends on,
// however far from index 0: the kernels' LLVM IR is run on it as printed
// and the mismatched cell's value followed back, thread by thread, to the
// input cells it comes from. They are printed first and saved with the
// verdict, and `kvalidate replay` reproduces the difference from the file.
//
// A copy against a reversed copy of 200,000 elements: out[0] is in[0]
// before and in[199999] after. The launch is larger than the runs before
// the proof take, so the solver's model is replayed.
// REQUIRES: long
// RUN: %expect-exit 1 %kvalidate --cuda-path= \
// RUN:   --assume='n == 200000 && blockDim.x == 256 && gridDim.x == 782 && %{1D}' \
// RUN:   %s:copy %s:copy_reversed | FileCheck %s --check-prefix=FAR
// FAR:      verdict: not-equivalent
// FAR:        counterexample (replayed):
// FAR-NEXT:     gridDim  = (782, 1, 1)
// FAR-NEXT:     blockDim = (256, 1, 1)
// FAR-NEXT:     scalars: n = 200000
// FAR-NEXT:     input in[[[I:[0-9]+]]] = {{-?[0-9]+}}
// FAR-NEXT:     input in[[[J:[0-9]+]]] = {{-?[0-9]+}}
// FAR:          mismatch: out[{{[0-9]+}}]: before = {{-?[0-9]+}}, after = {{-?[0-9]+}}
//
// The saved verdict names the cells (sources) and replays on its own.
// RUN: %expect-exit 1 %kvalidate --cuda-path= --json \
// RUN:   --assume='n == 200000 && blockDim.x == 256 && gridDim.x == 782 && %{1D}' \
// RUN:   %s:copy %s:copy_reversed > %t.json
// RUN: FileCheck %s --check-prefix=JSON < %t.json
// JSON: "sources":{"in":[{{[0-9]+}},{{(1[0-9]{5})}}]}
// RUN: %expect-exit 1 %kvalidate --cuda-path= replay %t.json | FileCheck %s --check-prefix=REPLAY
// REPLAY: replay: the kernels differ

__global__ void copy(int *out, const int *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i];
}

__global__ void copy_reversed(int *out, const int *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[n - 1 - i];
}
