// Host functions whose work is in scf.parallel loops, across MLIR's own
// mapping of parallel loops to the GPU (gpu-map-parallel-loops, then
// convert-parallel-loops-to-gpu): a loop nest before, a gpu.launch after.
// A host function is a kernel of its own for kvalidate, run by one thread:
// a parallel loop runs its iterations in order, a launch runs its blocks
// and threads in order, which is the launch's meaning because each
// launched kernel is checked race-free at the launch's sizes and values.
//
// REQUIRES: long
// RUN: %mlir-opt --load-pass-plugin=%mlir-plugin \
// RUN:   --pass-pipeline='builtin.module(kvalidate-snapshot,func.func(gpu-map-parallel-loops),convert-parallel-loops-to-gpu,canonicalize,cse,loop-invariant-code-motion,lower-affine,kvalidate-check{cache=off})' \
// RUN:   %s -o %t.gpu.mlir 2>&1 | FileCheck %s --implicit-check-not=warning: --implicit-check-not=error:
// CHECK-DAG: parallel-loops.mlir:[[@LINE+25]]:3: remark: kvalidate: kernel 'scale': equivalent
// CHECK-DAG: parallel-loops.mlir:[[@LINE+37]]:3: remark: kvalidate: kernel 'transpose': equivalent
// CHECK-DAG: parallel-loops.mlir:[[@LINE+49]]:3: remark: kvalidate: kernel 'shift': equivalent
//
// The pipeline's output is a launch the command line compares with the
// parallel loops too:
// RUN: %expect-exit 0 %kvalidate %s:transpose %t.gpu.mlir:transpose | FileCheck %s --check-prefix=CLI
// CLI: verdict: equivalent
//
// With the launches outlined and a wrong pass after them, the launched
// kernel's first addition a subtraction: a counterexample replayed on both
// host functions.
// RUN: %expect-exit 1 %mlir-opt --load-pass-plugin=%mlir-plugin --load-pass-plugin=%mlir-test-break-plugin \
// RUN:   --pass-pipeline='builtin.module(kvalidate-snapshot,func.func(gpu-map-parallel-loops),convert-parallel-loops-to-gpu,gpu-kernel-outlining,lower-affine,kvalidate-test-break,kvalidate-check{cache=off})' \
// RUN:   %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=BROKEN
// BROKEN: error: kvalidate: kernel 'shift': not-equivalent
//
// The same pipeline one pass at a time names the wrong pass.
// RUN: %expect-exit 1 %mlir-opt --load-pass-plugin=%mlir-plugin --load-pass-plugin=%mlir-test-break-plugin \
// RUN:   --pass-pipeline='builtin.module(kvalidate-per-pass{pipeline="func.func(gpu-map-parallel-loops),convert-parallel-loops-to-gpu,gpu-kernel-outlining,lower-affine,kvalidate-test-break"})' \
// RUN:   %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=CULPRIT
// CULPRIT: error: kvalidate: kernel 'shift': not-equivalent: {{.*}} [first pass to break the kernel: 'kvalidate-test-break', pass 5 of the pipeline]

module {
  // y = a * x over 4096 elements: one block per element after the mapping.
  func.func @scale(%y: memref<4096xf32>, %x: memref<4096xf32>, %a: f32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = arith.constant 4096 : index
    scf.parallel (%i) = (%c0) to (%n) step (%c1) {
      %v = memref.load %x[%i] : memref<4096xf32>
      %w = arith.mulf %a, %v : f32
      memref.store %w, %y[%i] : memref<4096xf32>
    }
    return
  }

  // A 64 x 32 transpose, a two-dimensional grid after the mapping.
  func.func @transpose(%out: memref<32x64xi32>, %in: memref<64x32xi32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c32) step (%c1, %c1) {
      %v = memref.load %in[%i, %j] : memref<64x32xi32>
      memref.store %v, %out[%j, %i] : memref<32x64xi32>
    }
    return
  }

  // Every other element, stepping by 2 from 1, and an offset read.
  func.func @shift(%out: memref<1024xi32>, %in: memref<1025xi32>) {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c1024 = arith.constant 1024 : index
    scf.parallel (%i) = (%c1) to (%c1024) step (%c2) {
      %k = arith.addi %i, %c1 : index
      %v = memref.load %in[%k] : memref<1025xi32>
      memref.store %v, %out[%i] : memref<1024xi32>
    }
    return
  }
}
