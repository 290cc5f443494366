// A host function that launches a kernel is the one-thread kernel of the
// same name: the launch runs as a loop nest over its blocks and threads,
// which is its meaning when the launched kernel is race-free at the
// launch's sizes and arguments. That is checked, and what cannot be
// modelled is named.
//
// The launch against the parallel loop it implements:
// RUN: %expect-exit 0 %kvalidate %s:gather_loop %s:gather_launch | FileCheck %s --check-prefix=EQ
// EQ: verdict: equivalent
//
// Two threads per block write the block's element, each its own value: a
// race at the launch's own sizes, and the verdict.
// RUN: %expect-exit 4 %kvalidate %s:gather_loop %s:gather_racy | FileCheck %s --check-prefix=RACE
// RACE: verdict: race
// RACE: reason: the launch of 'gather_racy_kernel' at {{.*}}host-launches.mlir:[[@LINE+49]]:5 (after kernel): {{.*}}write-write race
//
// A launch whose kernel synchronizes its threads is not a loop nest.
// RUN: %expect-exit 2 %kvalidate %s:gather_loop %s:gather_barrier | FileCheck %s --check-prefix=UNSUP
// UNSUP: verdict: unsupported
// UNSUP: reason: after kernel: host function 'gather_barrier': the launch of 'gather_barrier_kernel' at {{.*}}host-launches.mlir:{{[0-9]+}}:5: its threads are not independent ('gpu.barrier' at {{.*}}host-launches.mlir:[[@LINE+65]]:7)
//
// The launched kernel alone is still a kernel, validated for every launch.
// RUN: %expect-exit 0 %kvalidate %s:gather_launch_kernel %s:gather_launch_kernel | FileCheck %s --check-prefix=EQ

module attributes {gpu.container_module} {
  // out[i] = in[2 * i] for i < 512.
  func.func @gather_loop(%out: memref<512xi32>, %in: memref<1024xi32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c512 = arith.constant 512 : index
    scf.parallel (%i) = (%c0) to (%c512) step (%c1) {
      %j = arith.muli %i, %c2 : index
      %v = memref.load %in[%j] : memref<1024xi32>
      memref.store %v, %out[%i] : memref<512xi32>
    }
    return
  }

  // 4 blocks of 128 threads.
  func.func @gather_launch(%out: memref<512xi32>, %in: memref<1024xi32>) {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c128 = arith.constant 128 : index
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c4, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1) {
      %base = arith.muli %bx, %sx : index
      %i = arith.addi %base, %tx : index
      %j = arith.muli %i, %c2 : index
      %v = memref.load %in[%j] : memref<1024xi32>
      memref.store %v, %out[%i] : memref<512xi32>
      gpu.terminator
    }
    return
  }

  // 512 blocks of 2 threads, both writing out[bx], each its own element
  // of in: run in order, thread 1's value stays; on a GPU either may.
  func.func @gather_racy(%out: memref<512xi32>, %in: memref<1024xi32>) {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c512 = arith.constant 512 : index
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c512, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c2, %sy = %c1, %sz = %c1) {
      %j0 = arith.muli %bx, %c2 : index
      %j = arith.addi %j0, %tx : index
      %v = memref.load %in[%j] : memref<1024xi32>
      memref.store %v, %out[%bx] : memref<512xi32>
      gpu.terminator
    }
    return
  }

  // One block of 512 threads, with a barrier between the load and the
  // store.
  func.func @gather_barrier(%out: memref<512xi32>, %in: memref<1024xi32>) {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c512 = arith.constant 512 : index
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c512, %sy = %c1, %sz = %c1) {
      %j = arith.muli %tx, %c2 : index
      %v = memref.load %in[%j] : memref<1024xi32>
      gpu.barrier
      memref.store %v, %out[%tx] : memref<512xi32>
      gpu.terminator
    }
    return
  }
}
