// Atomic read-modify-writes (atomicAdd, Sub, Min, Max, And, Or, Xor) whose
// old value is unused are updates that commute with updates of their kind:
// the race check lets them meet, and two kernels that make the same updates
// thread by thread are proved interval by interval.
//
// Two ways of computing a histogram bin: equivalent, with and without the
// CUDA SDK's atomicAdd (kvalidate's own header has the same one).
// REQUIRES: long
// RUN: %expect-exit 0 %kvalidate %s:hist_and %s:hist_mod | FileCheck %s --check-prefix=EQ
// RUN: %expect-exit 0 %kvalidate --cuda-path= %s:hist_and %s:hist_mod | FileCheck %s --check-prefix=EQ
// EQ: verdict: equivalent
// EQ-NEXT: proof: interval by interval: each thread makes the same writes in each barrier interval
// EQ: checked: the before kernel has {{.*}}no data race (atomic updates of one kind commute; writes of equal values tolerated) (proved)
//
// atomicSub(p, v) is atomicAdd(p, -v).
// RUN: %expect-exit 0 %kvalidate %s:sub %s:add_negated | FileCheck %s --check-prefix=EQ
//
// A shared-memory histogram per block, whose flush skips the empty bins (an
// add of 0 changes nothing): the same updates.
// RUN: %expect-exit 0 %kvalidate %s:private_hist %s:private_hist_skip_empty | FileCheck %s --check-prefix=EQ
//
// Fewer bins: a counterexample, replayed on both kernels' LLVM IR (the
// atomics run one thread after another).
// RUN: %expect-exit 1 %kvalidate %s:hist_and %s:hist_8_bins | FileCheck %s --check-prefix=NE
// NE: verdict: not-equivalent
// NE: counterexample (replayed):
// NE: mismatch: {{hist|out}}[{{[0-9]+}}]: before = {{-?[0-9]+}}, after = {{-?[0-9]+}}
// NE: replayed on: the LLVM IR of both kernels
//
// The privatized histogram against the global one: on a block with fewer
// threads than bins, bins are never cleared nor flushed.
// RUN: %expect-exit 1 %kvalidate %s:hist_and %s:private_hist | FileCheck %s --check-prefix=NE
//
// atomicMax against atomicAdd: the kinds differ, so the interval-by-interval
// proof does not apply, and a run tells them apart.
// RUN: %expect-exit 1 %kvalidate %s:max_of %s:sum_of | FileCheck %s --check-prefix=NE
//
// An atomic update and a plain store to one cell race.
// RUN: %expect-exit 4 %kvalidate %s:hist_and %s:hist_and_store | FileCheck %s --check-prefix=RACE
// RACE: verdict: race
// RACE-NEXT: reason: after kernel: race between an atomic update and a plain access on hist[0]: thread ({{.*}}) of block ({{.*}}) updates atomically at {{.*}}atomics.cu:[[@LINE+65]]:{{[0-9]+}}; thread ({{.*}}) of block ({{.*}}) writes at {{.*}}atomics.cu:[[@LINE+67]]
//
// Updates of two kinds to one cell race too: the result depends on their
// order.
// RUN: %expect-exit 4 %kvalidate %s:max_of %s:max_and_add | FileCheck %s --check-prefix=KINDS
// KINDS: verdict: race
// KINDS-NEXT: reason: after kernel: race between atomic updates of different kinds on out[0]
//
// So does a plain read of a cell another thread updates.
// RUN: %expect-exit 4 %kvalidate %s:sum_of %s:sum_and_peek | FileCheck %s --check-prefix=READ
// READ: verdict: race
// READ-NEXT: reason: after kernel: race between an atomic update and a plain access on out[0]

__global__ void hist_and(int *hist, const int *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&hist[in[i] & 15], 1);
}

__global__ void hist_mod(int *hist, const int *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  int bin = in[i] % 16;
  if (bin < 0)
    bin += 16;
  atomicAdd(&hist[bin], 1);
}

__global__ void hist_8_bins(int *hist, const int *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&hist[in[i] & 7], 1);
}

__global__ void private_hist(int *hist, const int *in, int n) {
  __shared__ int local[16];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x < 16)
    local[threadIdx.x] = 0;
  __syncthreads();
  if (i < n)
    atomicAdd(&local[in[i] & 15], 1);
  __syncthreads();
  if (threadIdx.x < 16)
    atomicAdd(&hist[threadIdx.x], local[threadIdx.x]);
}

__global__ void private_hist_skip_empty(int *hist, const int *in, int n) {
  __shared__ int local[16];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x < 16)
    local[threadIdx.x] = 0;
  __syncthreads();
  if (i < n)
    atomicAdd(&local[in[i] & 15], 1);
  __syncthreads();
  int count = threadIdx.x < 16 ? local[threadIdx.x] : 0;
  if (count != 0)
    atomicAdd(&hist[threadIdx.x], count);
}

__global__ void hist_and_store(int *hist, const int *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&hist[in[i] & 15], 1);
  if (i == 0)
    hist[0] = n;
}

__global__ void sub(int *out, const int *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicSub(&out[i % 4], in[i]);
}

__global__ void add_negated(int *out, const int *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&out[i % 4], -in[i]);
}

__global__ void max_of(int *out, const int *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicMax(out, in[i]);
}

__global__ void sum_of(int *out, const int *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(out, in[i]);
}

__global__ void max_and_add(int *out, const int *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicMax(out, in[i]);
  if (i == 1)
    atomicAdd(out, 1);
}

__global__ void sum_and_peek(int *out, const int *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int bonus = i == 1 && out[0] > 0;
  if (i < n)
    atomicAdd(out, in[i] + bonus);
}
