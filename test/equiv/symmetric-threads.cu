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
