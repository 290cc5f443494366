// A counterexample is shrunk before it is printed: each launch dimension
// towards 1 and each scalar towards 0, a value at a time, every step run on
// both kernels and confirmed on their LLVM IR. The solver's own model (the
// runs before the proof are off) may name a width of about 2^27 or one
// already minimal (which model comes first depends on the index facts the
// query has); either way the one printed is the smallest: the cell that
// differs is the one at x = 7, y = 9, which a 8 x 10 matrix still has.
// RUN: %expect-exit 1 %kvalidate --run-first=0 --cuda-path= --kv-debug=shrink \
// RUN:   --assume='blockDim.x == 16 && blockDim.y == 16 && blockDim.z == 1 && gridDim.z == 1' \
// RUN:   %s:naive %s:off_at_7_9 2>&1 | FileCheck %s
// CHECK:      shrink: {{.*}}(1,1,1) (16,16,1) w=8 h=10
// CHECK:      verdict: not-equivalent
// CHECK:        gridDim  = (1, 1, 1)
// CHECK-NEXT:   blockDim = (16, 16, 1)
// CHECK-NEXT:   scalars: w = 8, h = 10
// CHECK:        mismatch: out[79]: before = 0, after = 1
// CHECK-NEXT:   replayed on: the LLVM IR of both kernels
//
// The JSON counterexample replays as printed.
// RUN: %expect-exit 1 %kvalidate --run-first=0 --cuda-path= --json \
// RUN:   --assume='blockDim.x == 16 && blockDim.y == 16 && blockDim.z == 1 && gridDim.z == 1' \
// RUN:   %s:naive %s:off_at_7_9 > %t.json
// RUN: %expect-exit 1 %kvalidate replay %t.json 2>&1 | FileCheck %s --check-prefix=REPLAY
// REPLAY: out[79]

__global__ void naive(int *out, const int *in, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h)
    out[x * h + y] = in[y * w + x];
}

__global__ void off_at_7_9(int *out, const int *in, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h)
    out[x * h + y] = in[y * w + x] + (x == 7 && y == 9);
}
