// A kernel written as a gpu.launch inside a host function: outlined by
// the upstream gpu-kernel-outlining pass (FUNC's launch becomes the kernel
// FUNC_kernel, its parameters the values the body uses, in order of first
// use) and then lowered as gpu.func kernels are. The launch's own sizes are
// not assumed: the verdict holds for every launch.
//
// RUN: %expect-exit 0 %kvalidate %s:scale_kernel %s:scale_direct | FileCheck %s --check-prefix=EQ
// EQ: verdict: equivalent
//
// RUN: %expect-exit 1 %kvalidate %s:scale_kernel %s:scale_shifted | FileCheck %s --check-prefix=NE
// NE: verdict: not-equivalent
// NE: replayed on: the LLVM IR of both kernels

module attributes {gpu.container_module} {
  func.func @scale(%out: memref<1024xf32>, %in: memref<1024xf32>, %a: f32) {
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c256 = arith.constant 256 : index
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c4, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
      %base = arith.muli %bx, %sx : index
      %i = arith.addi %base, %tx : index
      %v = memref.load %in[%i] : memref<1024xf32>
      %w = arith.mulf %v, %a : f32
      memref.store %w, %out[%i] : memref<1024xf32>
      gpu.terminator
    }
    return
  }

  gpu.module @written {
    gpu.func @scale_direct(%in: memref<1024xf32>, %a: f32,
                           %out: memref<1024xf32>) kernel {
      %tx = gpu.thread_id x
      %bx = gpu.block_id x
      %sx = gpu.block_dim x
      %base = arith.muli %sx, %bx : index
      %i = arith.addi %tx, %base : index
      %v = memref.load %in[%i] : memref<1024xf32>
      %w = arith.mulf %a, %v : f32
      memref.store %w, %out[%i] : memref<1024xf32>
      gpu.return
    }

    gpu.func @scale_shifted(%in: memref<1024xf32>, %a: f32,
                            %out: memref<1024xf32>) kernel {
      %tx = gpu.thread_id x
      %bx = gpu.block_id x
      %sx = gpu.block_dim x
      %c1 = arith.constant 1 : index
      %base = arith.muli %sx, %bx : index
      %i = arith.addi %tx, %base : index
      %j = arith.addi %i, %c1 : index
      %v = memref.load %in[%j] : memref<1024xf32>
      %w = arith.mulf %a, %v : f32
      memref.store %w, %out[%i] : memref<1024xf32>
      gpu.return
    }
  }
}
