// Atomic updates inside loops with a symbolic trip count: one update per
// (thread, iteration). Where a block's instances update each cell at most
// once (a privatized histogram's strided clear and flush), a block's total
// is the one updater's; where two kernels' loops run the same iterations
// (a grid-stride loop against itself rewritten, or optimized), the updates
// pair iteration by iteration. Anything else stays unproved.
//
// REQUIRES: long
// RUN: %clang-cuda -O2 -S -emit-llvm %s -o %t.ll
//
// A global histogram against one privatized per block, with bins cleared
// and flushed by loops strided over the block (any block size; at -O2 in
// atomic-loops-o2.test), and with a fixed block of 128 or 256 threads.
// RUN: %expect-exit 0 %kvalidate --cuda-path= --assume='blockDim.y == 1 && blockDim.z == 1' %s:hist %s:hist_private | FileCheck %s --check-prefix=TOTAL
// RUN: %expect-exit 0 %kvalidate --cuda-path= --assume='blockDim.x == 128 && blockDim.y == 1 && blockDim.z == 1' %s:hist %s:hist_private | FileCheck %s --check-prefix=TOTAL
// RUN: %expect-exit 0 %kvalidate --cuda-path= --assume='blockDim.x == 256 && blockDim.y == 1 && blockDim.z == 1' %s:hist %s:hist_private | FileCheck %s --check-prefix=TOTAL
// TOTAL: verdict: equivalent
// TOTAL-NEXT: proof: atomic updates totalled
//
// A flush that skips the last bin: a counterexample, replayed. One whose
// threads flush each bin twice (half the block's stride): found by the runs
// before the proof; without them, not proved (one updater per cell is
// what the proof needs).
// RUN: %expect-exit 1 %kvalidate --cuda-path= --assume='blockDim.y == 1 && blockDim.z == 1' %s:hist %s:hist_private_short | FileCheck %s --check-prefix=NE
// RUN: %expect-exit 1 %kvalidate --cuda-path= --assume='blockDim.x % 2 == 0 && blockDim.y == 1 && blockDim.z == 1' %s:hist %s:hist_private_twice | FileCheck %s --check-prefix=NE
// NE: verdict: not-equivalent
// RUN: %expect-exit 2 %kvalidate --cuda-path= --run-first=0 --hunt=0 --assume='blockDim.x % 2 == 0 && blockDim.y == 1 && blockDim.z == 1' %s:hist %s:hist_private_twice | FileCheck %s --check-prefix=TWICE
// TWICE: verdict: unsupported
// TWICE-NEXT: reason: {{.*}}an atomic update inside a loop of the model, where a block's threads may update one cell more than once ({{.*}}atomic-loops.cu:[[@LINE+63]]:5)
//
// A grid-stride histogram against the same loop written another way, and
// against its own -O2 form: the loops pair iteration by iteration.
// RUN: %expect-exit 0 %kvalidate --cuda-path= %s:hist_strided %s:hist_strided_masked | FileCheck %s --check-prefix=PAIRED
// RUN: %expect-exit 0 %kvalidate --cuda-path= %s:hist_strided %t.ll:hist_strided | FileCheck %s --check-prefix=PAIRED
// RUN: %expect-exit 0 %kvalidate --cuda-path= %s:repeat %s:repeat_down | FileCheck %s --check-prefix=PAIRED
// PAIRED: verdict: equivalent
// PAIRED-NEXT: proof: interval by interval
//
// Loops that do not run the same iterations: one more update, a stride one
// too long. The runs before the proof find both; without them, not proved.
// RUN: %expect-exit 1 %kvalidate --cuda-path= %s:repeat %s:repeat_more | FileCheck %s --check-prefix=NE
// RUN: %expect-exit 1 %kvalidate --cuda-path= %s:hist_strided %s:hist_strided_skip | FileCheck %s --check-prefix=NE
// RUN: %expect-exit 2 %kvalidate --cuda-path= --run-first=0 --hunt=0 %s:repeat %s:repeat_more | FileCheck %s --check-prefix=UNPROVED
// RUN: %expect-exit 2 %kvalidate --cuda-path= --run-first=0 --hunt=0 %s:hist_strided %s:hist_strided_skip | FileCheck %s --check-prefix=UNPROVED
// UNPROVED: verdict: unsupported
// UNPROVED: the kernels are not aligned interval by interval (array {{[a-z]+}} interval 0 write 0 may differ

__global__ void hist(unsigned *bins, const unsigned *keys, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&bins[keys[i] % 32], 1u);
}

__global__ void hist_private(unsigned *bins, const unsigned *keys, int n) {
  __shared__ unsigned part[32];
  for (unsigned j = threadIdx.x; j < 32; j += blockDim.x)
    part[j] = 0;
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&part[keys[i] % 32], 1u);
  __syncthreads();
  for (unsigned j = threadIdx.x; j < 32; j += blockDim.x)
    atomicAdd(&bins[j], part[j]);
}

__global__ void hist_private_short(unsigned *bins, const unsigned *keys,
                                   int n) {
  __shared__ unsigned part[32];
  for (unsigned j = threadIdx.x; j < 32; j += blockDim.x)
    part[j] = 0;
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&part[keys[i] % 32], 1u);
  __syncthreads();
  for (unsigned j = threadIdx.x; j < 31; j += blockDim.x)
    atomicAdd(&bins[j], part[j]);
}

__global__ void hist_private_twice(unsigned *bins, const unsigned *keys,
                                   int n) {
  __shared__ unsigned part[32];
  for (unsigned j = threadIdx.x; j < 32; j += blockDim.x)
    part[j] = 0;
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&part[keys[i] % 32], 1u);
  __syncthreads();
  for (unsigned j = threadIdx.x / 2; j < 32; j += blockDim.x / 2)
    atomicAdd(&bins[j], part[j]);
}

__global__ void hist_strided(unsigned *bins, const unsigned *keys, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    atomicAdd(&bins[keys[i] % 32], 1u);
}

__global__ void hist_strided_masked(unsigned *bins, const unsigned *keys,
                                    int n) {
  int stride = gridDim.x * blockDim.x;
  for (int i = threadIdx.x + blockDim.x * blockIdx.x; i < n; i += stride) {
    unsigned key = keys[i];
    atomicAdd(&bins[key & 31], 1u);
  }
}

__global__ void hist_strided_skip(unsigned *bins, const unsigned *keys,
                                  int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x + 1)
    atomicAdd(&bins[keys[i] % 32], 1u);
}

__global__ void repeat(int *count, const int *w, int n) {
  if (threadIdx.x % 2 == 0)
    for (int k = 0; k < n; ++k)
      atomicAdd(&count[blockIdx.x], w[k]);
}

__global__ void repeat_down(int *count, const int *w, int n) {
  if ((threadIdx.x & 1) == 0)
    for (int k = 0; k < n; k++)
      atomicSub(&count[blockIdx.x], -w[k]);
}

__global__ void repeat_more(int *count, const int *w, int n) {
  if (threadIdx.x % 2 == 0)
    for (int k = 0; k <= n; ++k)
      atomicAdd(&count[blockIdx.x], w[k]);
}
