// The race check tolerates two writes of one value. Threads that differ
// only in ids the kernel never reads (the blocks of a 1-D kernel along y)
// write equal values without their values being encoded: a tree reduction
// launched on a 2-D grid is race free at once, where following its values
// back through the tree outlasted the budget.
//
// RUN: %expect-exit 0 %kvalidate --timeout=60 \
// RUN:   --assume='blockDim.x <= 256 && blockDim.y == 1 && blockDim.z == 1' \
// RUN:   %inputs/defects.cu:sum_barrier %inputs/defects.cu:sum_barrier | FileCheck %s --check-prefix=TREE
// TREE: verdict: equivalent
// TREE: - checked: the before kernel has in-bounds shared-array accesses, no data race (writes of equal values tolerated) (proved)
//
// A read-modify-write by such threads is still a race: only writes are
// tolerated.
// RUN: %expect-exit 4 %kvalidate %s:bump_cells %s:bump_cells | FileCheck %s --check-prefix=BUMP
// BUMP: verdict: race
// BUMP-NEXT: reason: before kernel: read-write race on cells[{{[0-9]+}}]
//
// Threads that read their id write different values: reported.
// RUN: %expect-exit 4 %kvalidate %s:stamp_rows %s:stamp_rows | FileCheck %s --check-prefix=STAMP
// STAMP: verdict: race
// STAMP-NEXT: reason: before kernel: write-write race (different values) on cells[{{[0-9]+}}]
//
// Two writes of one thread to one cell are not tolerated that way: a twin's
// first store may land after the other's second (cells[i] ends 0).
// RUN: %expect-exit 4 %kvalidate %s:clear_then_set %s:clear_then_set | FileCheck %s --check-prefix=TWICE
// TWICE: verdict: race
// TWICE-NEXT: reason: before kernel: write-write race (different values) on cells[{{[0-9]+}}]
// RUN: %expect-exit 0 %kvalidate --assume='blockDim.y == 1 && blockDim.z == 1 && gridDim.y == 1 && gridDim.z == 1' \
// RUN:   %s:clear_then_set %s:clear_then_set | FileCheck %s --check-prefix=TWICE-1D
// TWICE-1D: verdict: equivalent
// TWICE-1D: - checked: the before kernel has no data race (writes of equal values tolerated) (proved)
//
// An elementwise kernel's write, whose index tells the threads apart
// (blockIdx.x * blockDim.x + threadIdx.x), needs no race query; its twins
// along y are tolerated as above. Both kernels are checked.
// RUN: %expect-exit 0 %kvalidate %s:double_cells %s:shift_cells | FileCheck %s --check-prefix=ELEMENTWISE
// ELEMENTWISE: verdict: equivalent
// ELEMENTWISE: - checked: the before kernel has no data race (writes of equal values tolerated) (proved)
// ELEMENTWISE: - checked: the after kernel has no data race (writes of equal values tolerated) (proved)
//
// In a loop, each thread's three cells (gid * 3 + c, a mixed-radix number of
// the ids and the iteration) are told apart by a query on the launch alone:
// the product of the digits' ranges below 2^31. Cells that overlap
// (gid * 2 + c) are a number of no such kind: the conflict query runs and
// finds the race.
// RUN: %expect-exit 0 %kvalidate --kv-debug=safety \
// RUN:   --assume='gridDim.x * blockDim.x <= 65536 && blockDim.y == 1 && blockDim.z == 1' \
// RUN:   %s:thirds %s:thirds 2>&1 | FileCheck %s --check-prefix=THIRDS
// THIRDS: before: the write at {{.*}}symmetric-threads.cu:[[#@LINE+13]]:{{[0-9]+}} tells its instances apart
// THIRDS: verdict: equivalent
// THIRDS: - checked: the before kernel has {{.*}}no data race (writes of equal values tolerated) (proved)
// RUN: %expect-exit 4 %kvalidate \
// RUN:   --assume='gridDim.x * blockDim.x <= 65536 && blockDim.y == 1 && blockDim.z == 1' \
// RUN:   %s:overlaps %s:overlaps | FileCheck %s --check-prefix=OVERLAPS
// OVERLAPS: verdict: race
// OVERLAPS-NEXT: reason: before kernel: write-write race (different values) on cells[{{[0-9]+}}]

__global__ void thirds(int *cells, int n) {
  int first = (blockIdx.x * blockDim.x + threadIdx.x) * 3;
  for (int c = 0; c < 3; ++c)
    if (first + c < n)
      cells[first + c] = first ^ c;
}

__global__ void overlaps(int *cells, int n) {
  int first = (blockIdx.x * blockDim.x + threadIdx.x) * 2;
  for (int c = 0; c < 3; ++c)
    if (first + c < n)
      cells[first + c] = c;
}

__global__ void clear_then_set(int *cells, const int *in) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  cells[i] = 0;
  cells[i] = in[i] | 1;
}

__global__ void double_cells(int *out, const int *in) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = 2 * in[i];
}

__global__ void shift_cells(int *out, const int *in) {
  unsigned i = threadIdx.x + blockDim.x * blockIdx.x;
  out[i] = in[i] << 1;
}

__global__ void bump_cells(int *cells) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  cells[i] = cells[i] + 1;
}

__global__ void stamp_rows(int *cells) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  cells[i] = blockIdx.y;
}

// The solver-heavy lane (test/lit.cfg.py).
// REQUIRES: long
