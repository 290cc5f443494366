// A difference the runs before the proof find is reported at once when both
// kernels' own LLVM IR ran on that launch without a data race, a barrier
// some threads of a block miss, or a shared access out of bounds: each
// kernel's result on that input is then its only one. Otherwise the static
// safety checks decide first, and report the defect.
//
// Race-free runs: no static checks, and the verdict says what was checked.
// RUN: %expect-exit 1 %kvalidate --cuda-path= --run-ir-first=false --kv-debug=runs --assume='%{1D} && blockDim.x <= 64' \
// RUN:   %s:stage_copy %s:stage_shift 2>&1 | FileCheck %s --check-prefix=CLEAN
// CLEAN-NOT:  not known to be race free
// CLEAN:      runs: both runs checked free of races: no static safety checks
// CLEAN:      verdict: not-equivalent
// CLEAN:        found by: running both kernels on pseudo-random inputs
// CLEAN:        - checked on the run: neither kernel has a data race, a barrier not every thread of a block reaches, or an out-of-bounds shared access on this launch and input
// CLEAN-NOT:    - checked: the after kernel
// CLEAN:        mismatch: out[{{[0-9]+}}]
// CLEAN:        replayed on: the LLVM IR of both kernels
//
// A run with a race: the static check runs and reports it.
// RUN: %expect-exit 4 %kvalidate --cuda-path= --run-ir-first=false --kv-debug=runs --assume='%{1D} && blockDim.x <= 64' \
// RUN:   %s:stage_copy %s:stage_racy 2>&1 | FileCheck %s --check-prefix=RACE
// RACE:       runs: the after kernel's IR run is not known to be race free: two threads of a barrier interval access one cell, one of them writing
// RACE-NOT:   no static safety checks
// RACE:       verdict: race
//
// A barrier only some threads reach: divergence, from the static check.
// RUN: %expect-exit 4 %kvalidate --cuda-path= --run-ir-first=false --kv-debug=runs --assume='%{1D} && blockDim.x <= 64 && blockDim.x >= 2' \
// RUN:   %s:stage_copy %s:stage_divergent 2>&1 | FileCheck %s --check-prefix=DIV
// DIV:        runs: the after kernel's IR run is not known to be race free: a barrier that not every thread of the block reaches at once
// DIV-NOT:    no static safety checks
// DIV:        verdict: divergence
//
// A shared index past the array: out of bounds, from the static check.
// RUN: %expect-exit 4 %kvalidate --cuda-path= --run-ir-first=false --kv-debug=runs --assume='%{1D} && blockDim.x == 64' \
// RUN:   %s:stage_copy %s:stage_past_end 2>&1 | FileCheck %s --check-prefix=OOB
// OOB:        runs: the after kernel's IR run is not known to be race free: a __shared__ access out of bounds
// OOB-NOT:    no static safety checks
// OOB:        verdict: out-of-bounds

// Each thread stages its cell in shared memory and writes it back.
__global__ void stage_copy(int *out, const int *in) {
  __shared__ int tile[64];
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = in[i];
  __syncthreads();
  out[i] = tile[threadIdx.x];
}
// Reads its neighbour's cell: a real difference, race free.
__global__ void stage_shift(int *out, const int *in) {
  __shared__ int tile[64];
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = in[i];
  __syncthreads();
  out[i] = tile[(threadIdx.x + 1) % blockDim.x];
}
// Reads its neighbour's cell before the barrier: a read-write race.
__global__ void stage_racy(int *out, const int *in) {
  __shared__ int tile[64];
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = in[i];
  out[i] = tile[(threadIdx.x + 1) % blockDim.x];
  __syncthreads();
}
// The barrier under a condition on the thread.
__global__ void stage_divergent(int *out, const int *in) {
  __shared__ int tile[64];
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = in[i];
  if (threadIdx.x > 0)
    __syncthreads();
  out[i] = tile[threadIdx.x] + 1;
}
// The next cell: one past the tile for the last thread of a 64-thread block.
__global__ void stage_past_end(int *out, const int *in) {
  __shared__ int tile[64];
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = in[i];
  __syncthreads();
  out[i] = tile[threadIdx.x + 1];
}
