// Kernels that count in MLIR's index type, with bounds from the memrefs'
// own sizes (memref.dim of 2-D memrefs of dynamic shape), as upstream
// passes write them: a 64-bit induction variable with a 64-bit bound is
// modelled like a 32-bit one, once the checker proves that its values are
// exact in the model (fewer than 2^31 iterations, no wraparound).
//
// A naive matrix multiply (n x n, n = a's first size, one output cell per
// thread) against its tiled version with 16 x 16 tiles of a and b in
// workgroup memory between barriers. The descriptors' sizes and strides are
// parameters (a.size0, a.stride0, ...); the assumptions give the tiling's
// shape and row-major matrices of n columns.
// DEFINE: %{TILE} = blockDim.x == 16 && blockDim.y == 16 && blockDim.z == 1 && gridDim.z == 1 && a.size0 > 0 && a.size0 % 16 == 0 && a.size0 <= 4096 && gridDim.x * 16 == a.size0 && gridDim.y * 16 == a.size0
// DEFINE: %{ROWS} = a.stride0 == a.size0 && b.stride0 == a.size0 && c.stride0 == a.size0
// RUN: %expect-exit 0 %kvalidate --assume='%{TILE}' --assume='%{ROWS}' %s:mm_naive %s:mm_tiled | FileCheck %s --check-prefix=EQ
// EQ:      verdict: equivalent
// EQ:        - checked: the before kernel has a countable loop at {{.*}}matmul-index.mlir:54:16 (positive step, fewer than 2^31 iterations, no wraparound)
// EQ:        - checked: the after kernel has a countable loop at {{.*}}matmul-index.mlir:84:14
//
// The b tile loaded transposed: a counterexample, replayed on both kernels'
// LLVM IR.
// RUN: %expect-exit 1 %kvalidate --assume='%{TILE}' --assume='%{ROWS}' %s:mm_naive %s:mm_tiled_swap | FileCheck %s --check-prefix=NE
// NE:      verdict: not-equivalent
// NE:      replayed on: the LLVM IR of both kernels
//
// The index loops in kv: kv.iter models of width 64.
// RUN: %kvalidate --emit-kv %s:mm_naive %s:mm_tiled | FileCheck %s --check-prefix=KV
// KV: kv.kernel @mm_naive
// KV: kv.iter from %{{.*}} step %{{.*}} while slt %{{[a-z0-9.]+}} if %{{.*}} {width = 64 : i64}
// KV: kv.kernel @mm_tiled
// KV: kv.iter from %{{.*}} step %{{.*}} while slt %{{[a-z0-9.]+}} if %{{.*}} {width = 64 : i64}

module attributes {gpu.container_module} {
  gpu.module @mm {
    gpu.func @mm_naive(%c: memref<?x?xf32>, %a: memref<?x?xf32>,
                       %b: memref<?x?xf32>) kernel {
      %tx = gpu.thread_id x
      %ty = gpu.thread_id y
      %bx = gpu.block_id x
      %by = gpu.block_id y
      %dx = gpu.block_dim x
      %dy = gpu.block_dim y
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %n = memref.dim %a, %c0 : memref<?x?xf32>
      %r0 = arith.muli %by, %dy : index
      %row = arith.addi %r0, %ty : index
      %q0 = arith.muli %bx, %dx : index
      %col = arith.addi %q0, %tx : index
      %rok = arith.cmpi ult, %row, %n : index
      %cok = arith.cmpi ult, %col, %n : index
      %ok = arith.andi %rok, %cok : i1
      scf.if %ok {
        %zero = arith.constant 0.0 : f32
        %acc = scf.for %k = %c0 to %n step %c1 iter_args(%s = %zero) -> (f32) {
          %av = memref.load %a[%row, %k] : memref<?x?xf32>
          %bv = memref.load %b[%k, %col] : memref<?x?xf32>
          %p = arith.mulf %av, %bv : f32
          %s2 = arith.addf %s, %p : f32
          scf.yield %s2 : f32
        }
        memref.store %acc, %c[%row, %col] : memref<?x?xf32>
      }
      gpu.return
    }

    gpu.func @mm_tiled(%c: memref<?x?xf32>, %a: memref<?x?xf32>,
                       %b: memref<?x?xf32>)
        workgroup(%as: memref<16x16xf32, #gpu.address_space<workgroup>>,
                  %bs: memref<16x16xf32, #gpu.address_space<workgroup>>)
        kernel {
      %tx = gpu.thread_id x
      %ty = gpu.thread_id y
      %bx = gpu.block_id x
      %by = gpu.block_id y
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c16 = arith.constant 16 : index
      %n = memref.dim %a, %c0 : memref<?x?xf32>
      %zero = arith.constant 0.0 : f32
      %r0 = arith.muli %by, %c16 : index
      %row = arith.addi %r0, %ty : index
      %q0 = arith.muli %bx, %c16 : index
      %col = arith.addi %q0, %tx : index
      %acc = scf.for %t = %c0 to %n step %c16 iter_args(%s = %zero) -> (f32) {
        %ak = arith.addi %t, %tx : index
        %av = memref.load %a[%row, %ak] : memref<?x?xf32>
        memref.store %av, %as[%ty, %tx] : memref<16x16xf32, #gpu.address_space<workgroup>>
        %bk = arith.addi %t, %ty : index
        %bv = memref.load %b[%bk, %col] : memref<?x?xf32>
        memref.store %bv, %bs[%ty, %tx] : memref<16x16xf32, #gpu.address_space<workgroup>>
        gpu.barrier
        %s3 = scf.for %k = %c0 to %c16 step %c1 iter_args(%s1 = %s) -> (f32) {
          %x = memref.load %as[%ty, %k] : memref<16x16xf32, #gpu.address_space<workgroup>>
          %y = memref.load %bs[%k, %tx] : memref<16x16xf32, #gpu.address_space<workgroup>>
          %p = arith.mulf %x, %y : f32
          %s2 = arith.addf %s1, %p : f32
          scf.yield %s2 : f32
        }
        gpu.barrier
        scf.yield %s3 : f32
      }
      memref.store %acc, %c[%row, %col] : memref<?x?xf32>
      gpu.return
    }

    gpu.func @mm_tiled_swap(%c: memref<?x?xf32>, %a: memref<?x?xf32>,
                       %b: memref<?x?xf32>)
        workgroup(%as: memref<16x16xf32, #gpu.address_space<workgroup>>,
                  %bs: memref<16x16xf32, #gpu.address_space<workgroup>>)
        kernel {
      %tx = gpu.thread_id x
      %ty = gpu.thread_id y
      %bx = gpu.block_id x
      %by = gpu.block_id y
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c16 = arith.constant 16 : index
      %n = memref.dim %a, %c0 : memref<?x?xf32>
      %zero = arith.constant 0.0 : f32
      %r0 = arith.muli %by, %c16 : index
      %row = arith.addi %r0, %ty : index
      %q0 = arith.muli %bx, %c16 : index
      %col = arith.addi %q0, %tx : index
      %acc = scf.for %t = %c0 to %n step %c16 iter_args(%s = %zero) -> (f32) {
        %ak = arith.addi %t, %tx : index
        %av = memref.load %a[%row, %ak] : memref<?x?xf32>
        memref.store %av, %as[%ty, %tx] : memref<16x16xf32, #gpu.address_space<workgroup>>
        %bk = arith.addi %t, %ty : index
        %bv = memref.load %b[%col, %bk] : memref<?x?xf32>
        memref.store %bv, %bs[%ty, %tx] : memref<16x16xf32, #gpu.address_space<workgroup>>
        gpu.barrier
        %s3 = scf.for %k = %c0 to %c16 step %c1 iter_args(%s1 = %s) -> (f32) {
          %x = memref.load %as[%ty, %k] : memref<16x16xf32, #gpu.address_space<workgroup>>
          %y = memref.load %bs[%k, %tx] : memref<16x16xf32, #gpu.address_space<workgroup>>
          %p = arith.mulf %x, %y : f32
          %s2 = arith.addf %s1, %p : f32
          scf.yield %s2 : f32
        }
        gpu.barrier
        scf.yield %s3 : f32
      }
      memref.store %acc, %c[%row, %col] : memref<?x?xf32>
      gpu.return
    }
  }
}
