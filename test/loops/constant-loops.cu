// Per-thread loops with a constant trip count, as people write them: the
// lowering would unroll them, and the unrolled writes (`out[2 * t]`,
// `out[2 * t + 1]`) are no map the checker can invert. Modelled as loops
// (one symbolic iteration), they prove as a parameter trip count does: each
// write is a mixed-radix number of its ids and iteration, and the writer of
// a cell is found by dividing it by the ranges.
// The solver-heavy lane (test/lit.cfg.py).
// REQUIRES: long
//
// RUN: %expect-exit 0 %kvalidate --cuda-path= --timeout=60 \
// RUN:   --assume='blockDim.y == 1 && blockDim.z == 1 && gridDim.y == 1 && gridDim.z == 1' \
// RUN:   %s:pairs %s:pairs_strided | FileCheck %s --check-prefix=EQ
// RUN: %expect-exit 0 %kvalidate --cuda-path= --timeout=60 \
// RUN:   --assume='blockDim.x == 64 && blockDim.y == 1 && blockDim.z == 1 && gridDim.y == 1 && gridDim.z == 1' \
// RUN:   %s:quads %s:quads_strided | FileCheck %s --check-prefix=EQ
// EQ: verdict: equivalent
// EQ-NEXT: proof: loops with constant trip counts modelled as loops
//
// The unrolled model alone does not prove the pair in its time.
// RUN: %expect-exit 2 %kvalidate --cuda-path= --timeout=5 \
// RUN:   --model-constant-loops=false \
// RUN:   --assume='blockDim.y == 1 && blockDim.z == 1 && gridDim.y == 1 && gridDim.z == 1' \
// RUN:   %s:pairs %s:pairs_strided | FileCheck %s --check-prefix=OFF
// OFF: verdict: unknown
//
// A walk one cell short of the grid: caught, the loops modelled or not.
// RUN: %expect-exit 1 %kvalidate --cuda-path= --timeout=60 \
// RUN:   --assume='blockDim.x == 64 && blockDim.y == 1 && blockDim.z == 1 && gridDim.y == 1 && gridDim.z == 1' \
// RUN:   %s:quads %s:quads_short | FileCheck %s --check-prefix=NE
// NE: verdict: not-equivalent

__global__ void pairs(const int *src, int *dst) {
  int me = blockIdx.x * blockDim.x + threadIdx.x;
  for (int j = 0; j < 2; ++j)
    dst[2 * me + j] = src[2 * me + j] ^ 0x55;
}

__global__ void pairs_strided(const int *src, int *dst) {
  int me = blockIdx.x * blockDim.x + threadIdx.x;
  int threads = gridDim.x * blockDim.x;
  for (int j = 0; j < 2; ++j)
    dst[me + j * threads] = src[me + j * threads] ^ 0x55;
}

#define PER 4

__global__ void quads(const float *src, float *dst) {
  int me = blockIdx.x * blockDim.x + threadIdx.x;
  int base = me * PER;
  for (int j = 0; j < PER; ++j)
    dst[base + j] = 0.5f * src[base + j];
}

__global__ void quads_strided(const float *src, float *dst) {
  int me = blockIdx.x * blockDim.x + threadIdx.x;
  int all = gridDim.x * blockDim.x;
  for (int j = 0; j < PER; ++j)
    dst[me + j * all] = 0.5f * src[me + j * all];
}

__global__ void quads_short(const float *src, float *dst) {
  int me = blockIdx.x * blockDim.x + threadIdx.x;
  int all = gridDim.x * blockDim.x - 1;
  for (int j = 0; j < PER; ++j)
    dst[me + j * all] = 0.5f * src[me + j * all];
}
