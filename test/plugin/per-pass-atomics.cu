// -kvalidate-per-pass on kernels with atomics: a loop the lowering first
// unrolls and then models erases the ops of the first attempt, placeholders
// of atomics' old values included (this once crashed on the intermediate IR
// after SimplifyCFG: a use of freed ops). Each pass lowers the grid-stride
// loop twice: the solver-heavy lane.
// REQUIRES: long
//
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate -mllvm -kvalidate-cache= \
// RUN:   -mllvm -kvalidate-per-pass -mllvm -kvalidate-fail-on=never %s -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --implicit-check-not=crashed
// CHECK-DAG: kernel 'strided_histogram': equivalent
// CHECK-DAG: kernel 'strided_histogram_synced': {{(unknown|unsupported)}}:
// CHECK-DAG: kernel 'count_positive': equivalent
//
// The synced histogram's loop is unrolled (no loop model has a __syncwarp
// inside); it runs count / (gridDim.x * blockDim.x) times: the probe for a
// bound on it (64 iterations) is broken by running a large count, and the
// solver's probe then gets 2 s, not 10.
// RUN: %expect-exit 2 %kvalidate --hunt=0 --run-first=0 --kv-debug=driver \
// RUN:   %s:strided_histogram_synced %s:strided_histogram_synced 2> %t.err | FileCheck %s --check-prefix=PROBE
// RUN: FileCheck %s --check-prefix=PROBE-DEBUG < %t.err
// PROBE: verdict: unsupported
// PROBE-DEBUG: unroll-exact 64: broken by running; the solver's probe gets 2 s

__global__ void strided_histogram(unsigned *bins, const unsigned char *pixels,
                                  int count) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < count;
       i += blockDim.x * gridDim.x)
    atomicAdd(&bins[pixels[i] >> 4], 1u);
}

__global__ void strided_histogram_synced(unsigned *bins,
                                         const unsigned char *pixels,
                                         int count) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < count;
       i += blockDim.x * gridDim.x) {
    atomicAdd(&bins[pixels[i] >> 4], 1u);
    __syncwarp();
  }
}

__global__ void count_positive(int *total, const int *values, int count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count && values[i] > 0)
    atomicAdd(total, 1);
}
