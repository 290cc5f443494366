// A gpu.func matrix multiply (n x n floats, row-major, one output cell per
// thread) against its loop-tiled version: the k loop split into n / 16
// tiles whose 16 x 16 blocks of a and b are staged in workgroup memory
// between two barriers. The additions happen in the same order, so the
// result is the same bit for bit, for every n that is a multiple of the
// tile and every grid that covers the matrix.
//
// The kernels count in i32, as their CUDA twins do (`int k`; the loop model
// takes induction variables of at most 32 bits), and index memrefs through
// arith.index_cast.
//
// n is bounded: the kernels' i32 products (row * n) wrap where C's would be
// undefined, and without a bound blocks far apart write one cell of c.
// DEFINE: %{MM} = blockDim.x == 16 && blockDim.y == 16 && blockDim.z == 1 && gridDim.z == 1 && n % 16 == 0 && n > 0 && n <= 4096 && gridDim.x * 16 == n && gridDim.y * 16 == n
// RUN: %expect-exit 0 %kvalidate --assume='%{MM}' %s:mm_naive %s:mm_tiled | FileCheck %s --check-prefix=EQ
// EQ: verdict: equivalent
// EQ: - blockDim.x == 16 {{.*}} n <= 4096 {{.*}} (--assume)
//
// The same tiling with the loop over a tile and the tiles' loads and stores
// written in the affine dialect (lowered by lower-affine in the front door).
// RUN: %expect-exit 0 %kvalidate --assume='%{MM}' %s:mm_naive %s:mm_tiled_affine | FileCheck %s --check-prefix=EQ
//
// The b tile read transposed: a counterexample, replayed on both kernels.
// RUN: %expect-exit 1 %kvalidate --assume='%{MM}' %s:mm_naive %s:mm_tiled_bt | FileCheck %s --check-prefix=NE
// NE: verdict: not-equivalent
// NE: replayed on: the LLVM IR of both kernels

module attributes {gpu.container_module} {
  gpu.module @mm {
    gpu.func @mm_naive(%c: memref<?xf32>, %a: memref<?xf32>,
                       %b: memref<?xf32>, %n: i32) kernel {
      %tx = gpu.thread_id x
      %ty = gpu.thread_id y
      %bx = gpu.block_id x
      %by = gpu.block_id y
      %dx = gpu.block_dim x
      %dy = gpu.block_dim y
      %r0 = arith.muli %by, %dy : index
      %rowx = arith.addi %r0, %ty : index
      %row = arith.index_cast %rowx : index to i32
      %c0 = arith.muli %bx, %dx : index
      %colx = arith.addi %c0, %tx : index
      %col = arith.index_cast %colx : index to i32
      %rok = arith.cmpi slt, %row, %n : i32
      %cok = arith.cmpi slt, %col, %n : i32
      %ok = arith.andi %rok, %cok : i1
      scf.if %ok {
        %i0 = arith.constant 0 : i32
        %i1 = arith.constant 1 : i32
        %zero = arith.constant 0.0 : f32
        %rn = arith.muli %row, %n : i32
        %acc = scf.for %k = %i0 to %n step %i1 iter_args(%s = %zero) -> (f32) : i32 {
          %ai = arith.addi %rn, %k : i32
          %aix = arith.index_cast %ai : i32 to index
          %av = memref.load %a[%aix] : memref<?xf32>
          %kn = arith.muli %k, %n : i32
          %bi = arith.addi %kn, %col : i32
          %bix = arith.index_cast %bi : i32 to index
          %bv = memref.load %b[%bix] : memref<?xf32>
          %p = arith.mulf %av, %bv : f32
          %s2 = arith.addf %s, %p : f32
          scf.yield %s2 : f32
        }
        %ci = arith.addi %rn, %col : i32
        %cix = arith.index_cast %ci : i32 to index
        memref.store %acc, %c[%cix] : memref<?xf32>
      }
      gpu.return
    }

    gpu.func @mm_tiled(%c: memref<?xf32>, %a: memref<?xf32>,
                   %b: memref<?xf32>, %n: i32)
        workgroup(%as: memref<16x16xf32, #gpu.address_space<workgroup>>,
                  %bs: memref<16x16xf32, #gpu.address_space<workgroup>>)
        kernel {
      %tx = gpu.thread_id x
      %ty = gpu.thread_id y
      %bx = gpu.block_id x
      %by = gpu.block_id y
      %tx32 = arith.index_cast %tx : index to i32
      %ty32 = arith.index_cast %ty : index to i32
      %bx32 = arith.index_cast %bx : index to i32
      %by32 = arith.index_cast %by : index to i32
      %i0 = arith.constant 0 : i32
      %i1 = arith.constant 1 : i32
      %i16 = arith.constant 16 : i32
      %zero = arith.constant 0.0 : f32
      %r0 = arith.muli %by32, %i16 : i32
      %row = arith.addi %r0, %ty32 : i32
      %c0 = arith.muli %bx32, %i16 : i32
      %col = arith.addi %c0, %tx32 : i32
      %rn = arith.muli %row, %n : i32
      %tiles = arith.divsi %n, %i16 : i32
      %acc = scf.for %t = %i0 to %tiles step %i1 iter_args(%s = %zero) -> (f32) : i32 {
        %t16 = arith.muli %t, %i16 : i32
        %ak = arith.addi %t16, %tx32 : i32
        %ai = arith.addi %rn, %ak : i32
        %aix = arith.index_cast %ai : i32 to index
        %av = memref.load %a[%aix] : memref<?xf32>
        memref.store %av, %as[%ty, %tx] : memref<16x16xf32, #gpu.address_space<workgroup>>
        %bk = arith.addi %t16, %ty32 : i32
        %bkn = arith.muli %bk, %n : i32
        %bi = arith.addi %bkn, %col : i32
        %bix = arith.index_cast %bi : i32 to index
        %bv = memref.load %b[%bix] : memref<?xf32>
        memref.store %bv, %bs[%ty, %tx] : memref<16x16xf32, #gpu.address_space<workgroup>>
        gpu.barrier
        %k0 = arith.constant 0 : index
        %k1 = arith.constant 1 : index
        %k16 = arith.constant 16 : index
        %s3 = scf.for %k = %k0 to %k16 step %k1 iter_args(%s1 = %s) -> (f32) {
          %x = memref.load %as[%ty, %k] : memref<16x16xf32, #gpu.address_space<workgroup>>
          %y = memref.load %bs[%k, %tx] : memref<16x16xf32, #gpu.address_space<workgroup>>
          %p = arith.mulf %x, %y : f32
          %s2 = arith.addf %s1, %p : f32
          scf.yield %s2 : f32
        }
        gpu.barrier
        scf.yield %s3 : f32
      }
      %ci = arith.addi %rn, %col : i32
      %cix = arith.index_cast %ci : i32 to index
      memref.store %acc, %c[%cix] : memref<?xf32>
      gpu.return
    }

    gpu.func @mm_tiled_affine(%c: memref<?xf32>, %a: memref<?xf32>,
                   %b: memref<?xf32>, %n: i32)
        workgroup(%as: memref<16x16xf32, #gpu.address_space<workgroup>>,
                  %bs: memref<16x16xf32, #gpu.address_space<workgroup>>)
        kernel {
      %tx = gpu.thread_id x
      %ty = gpu.thread_id y
      %bx = gpu.block_id x
      %by = gpu.block_id y
      %tx32 = arith.index_cast %tx : index to i32
      %ty32 = arith.index_cast %ty : index to i32
      %bx32 = arith.index_cast %bx : index to i32
      %by32 = arith.index_cast %by : index to i32
      %i0 = arith.constant 0 : i32
      %i1 = arith.constant 1 : i32
      %i16 = arith.constant 16 : i32
      %zero = arith.constant 0.0 : f32
      %r0 = arith.muli %by32, %i16 : i32
      %row = arith.addi %r0, %ty32 : i32
      %c0 = arith.muli %bx32, %i16 : i32
      %col = arith.addi %c0, %tx32 : i32
      %rn = arith.muli %row, %n : i32
      %tiles = arith.divsi %n, %i16 : i32
      %acc = scf.for %t = %i0 to %tiles step %i1 iter_args(%s = %zero) -> (f32) : i32 {
        %t16 = arith.muli %t, %i16 : i32
        %ak = arith.addi %t16, %tx32 : i32
        %ai = arith.addi %rn, %ak : i32
        %aix = arith.index_cast %ai : i32 to index
        %av = memref.load %a[%aix] : memref<?xf32>
        affine.store %av, %as[%ty, %tx] : memref<16x16xf32, #gpu.address_space<workgroup>>
        %bk = arith.addi %t16, %ty32 : i32
        %bkn = arith.muli %bk, %n : i32
        %bi = arith.addi %bkn, %col : i32
        %bix = arith.index_cast %bi : i32 to index
        %bv = memref.load %b[%bix] : memref<?xf32>
        affine.store %bv, %bs[%ty, %tx] : memref<16x16xf32, #gpu.address_space<workgroup>>
        gpu.barrier
        %s3 = affine.for %k = 0 to 16 iter_args(%s1 = %s) -> (f32) {
          %x = affine.load %as[%ty, %k] : memref<16x16xf32, #gpu.address_space<workgroup>>
          %y = affine.load %bs[%k, %tx] : memref<16x16xf32, #gpu.address_space<workgroup>>
          %p = arith.mulf %x, %y : f32
          %s2 = arith.addf %s1, %p : f32
          affine.yield %s2 : f32
        }
        gpu.barrier
        scf.yield %s3 : f32
      }
      %ci = arith.addi %rn, %col : i32
      %cix = arith.index_cast %ci : i32 to index
      memref.store %acc, %c[%cix] : memref<?xf32>
      gpu.return
    }

    gpu.func @mm_tiled_bt(%c: memref<?xf32>, %a: memref<?xf32>,
                   %b: memref<?xf32>, %n: i32)
        workgroup(%as: memref<16x16xf32, #gpu.address_space<workgroup>>,
                  %bs: memref<16x16xf32, #gpu.address_space<workgroup>>)
        kernel {
      %tx = gpu.thread_id x
      %ty = gpu.thread_id y
      %bx = gpu.block_id x
      %by = gpu.block_id y
      %tx32 = arith.index_cast %tx : index to i32
      %ty32 = arith.index_cast %ty : index to i32
      %bx32 = arith.index_cast %bx : index to i32
      %by32 = arith.index_cast %by : index to i32
      %i0 = arith.constant 0 : i32
      %i1 = arith.constant 1 : i32
      %i16 = arith.constant 16 : i32
      %zero = arith.constant 0.0 : f32
      %r0 = arith.muli %by32, %i16 : i32
      %row = arith.addi %r0, %ty32 : i32
      %c0 = arith.muli %bx32, %i16 : i32
      %col = arith.addi %c0, %tx32 : i32
      %rn = arith.muli %row, %n : i32
      %tiles = arith.divsi %n, %i16 : i32
      %acc = scf.for %t = %i0 to %tiles step %i1 iter_args(%s = %zero) -> (f32) : i32 {
        %t16 = arith.muli %t, %i16 : i32
        %ak = arith.addi %t16, %tx32 : i32
        %ai = arith.addi %rn, %ak : i32
        %aix = arith.index_cast %ai : i32 to index
        %av = memref.load %a[%aix] : memref<?xf32>
        memref.store %av, %as[%ty, %tx] : memref<16x16xf32, #gpu.address_space<workgroup>>
        %bk = arith.addi %t16, %ty32 : i32
        %bkn = arith.muli %bk, %n : i32
        %bi = arith.addi %bkn, %col : i32
        %bix = arith.index_cast %bi : i32 to index
        %bv = memref.load %b[%bix] : memref<?xf32>
        memref.store %bv, %bs[%ty, %tx] : memref<16x16xf32, #gpu.address_space<workgroup>>
        gpu.barrier
        %k0 = arith.constant 0 : index
        %k1 = arith.constant 1 : index
        %k16 = arith.constant 16 : index
        %s3 = scf.for %k = %k0 to %k16 step %k1 iter_args(%s1 = %s) -> (f32) {
          %x = memref.load %as[%ty, %k] : memref<16x16xf32, #gpu.address_space<workgroup>>
          %y = memref.load %bs[%tx, %k] : memref<16x16xf32, #gpu.address_space<workgroup>>
          %p = arith.mulf %x, %y : f32
          %s2 = arith.addf %s1, %p : f32
          scf.yield %s2 : f32
        }
        gpu.barrier
        scf.yield %s3 : f32
      }
      %ci = arith.addi %rn, %col : i32
      %cix = arith.index_cast %ci : i32 to index
      memref.store %acc, %c[%cix] : memref<?xf32>
      gpu.return
    }
  }
}
