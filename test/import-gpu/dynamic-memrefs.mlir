// gpu.func kernels over memrefs of dynamic shape against their CUDA twins.
// Such a memref is passed as a descriptor (allocated and aligned pointers,
// offset, sizes and strides); against a kernel with one pointer per array,
// the descriptor parts the kernel does not use (the allocated pointer; the
// offset and strides of an identity layout; sizes it never asks for) are
// dropped, which changes nothing it computes, and the rest match the twin's
// parameters by position.
//
// y = a * x + y over n elements, one per thread, against
// test/Inputs/grid_stride.cu:axpy_each, with and without the SDK.
// DEFINE: %{LAUNCH} = blockDim.x == 64 && blockDim.y == 1 && blockDim.z == 1 && gridDim.x <= 65535 && gridDim.y == 1 && gridDim.z == 1
// RUN: %expect-exit 0 %kvalidate --assume='%{LAUNCH}' %s:axpy %inputs/grid_stride.cu:axpy_each | FileCheck %s --check-prefix=EQ
// RUN: %expect-exit 0 %kvalidate --cuda-path= --assume='%{LAUNCH}' %inputs/grid_stride.cu:axpy_each %s:axpy | FileCheck %s --check-prefix=EQ
// EQ:      verdict: equivalent
// EQ:        - pointer parameters y, x point to distinct, non-overlapping arrays
//
// The parameters compared: the aligned pointers and the scalars.
// RUN: %kvalidate --emit-kv %s:axpy %inputs/grid_stride.cu:axpy_each | FileCheck %s --check-prefix=KV
// KV: kv.kernel @axpy attributes {arg_names = ["y", "x", "a", "n"]
//
// x added twice instead of y: a counterexample, replayed on both kernels.
// RUN: %expect-exit 1 %kvalidate --assume='%{LAUNCH}' %s:axpy_wrong %inputs/grid_stride.cu:axpy_each | FileCheck %s --check-prefix=NE
// NE:      verdict: not-equivalent
// NE:      replayed on: the LLVM IR of both kernels
//
// A kernel that reads a size (memref.dim) keeps it as a parameter: the
// lists then differ, a usage error that names the parameter.
// RUN: %expect-exit 3 %kvalidate --assume='%{LAUNCH}' %s:axpy_dim %inputs/grid_stride.cu:axpy_each 2>&1 | FileCheck %s --check-prefix=DIM
// DIM: parameter #1 ('y.size0') has type i64 in the before kernel

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @axpy(%y: memref<?xi32>, %x: memref<?xi32>, %a: i32, %n: i32) kernel {
      %tx = gpu.thread_id x
      %bx = gpu.block_id x
      %dx = gpu.block_dim x
      %b0 = arith.muli %bx, %dx : index
      %ix = arith.addi %b0, %tx : index
      %i = arith.index_cast %ix : index to i32
      %ok = arith.cmpi slt, %i, %n : i32
      scf.if %ok {
        %xv = memref.load %x[%ix] : memref<?xi32>
        %yv = memref.load %y[%ix] : memref<?xi32>
        %p = arith.muli %a, %xv : i32
        %s = arith.addi %p, %yv : i32
        memref.store %s, %y[%ix] : memref<?xi32>
      }
      gpu.return
    }

    gpu.func @axpy_wrong(%y: memref<?xi32>, %x: memref<?xi32>, %a: i32, %n: i32) kernel {
      %tx = gpu.thread_id x
      %bx = gpu.block_id x
      %dx = gpu.block_dim x
      %b0 = arith.muli %bx, %dx : index
      %ix = arith.addi %b0, %tx : index
      %i = arith.index_cast %ix : index to i32
      %ok = arith.cmpi slt, %i, %n : i32
      scf.if %ok {
        %xv = memref.load %x[%ix] : memref<?xi32>
        %p = arith.muli %a, %xv : i32
        %s = arith.addi %p, %xv : i32
        memref.store %s, %y[%ix] : memref<?xi32>
      }
      gpu.return
    }

    gpu.func @axpy_dim(%y: memref<?xi32>, %x: memref<?xi32>, %a: i32) kernel {
      %tx = gpu.thread_id x
      %bx = gpu.block_id x
      %dx = gpu.block_dim x
      %c0 = arith.constant 0 : index
      %n = memref.dim %y, %c0 : memref<?xi32>
      %b0 = arith.muli %bx, %dx : index
      %ix = arith.addi %b0, %tx : index
      %ok = arith.cmpi ult, %ix, %n : index
      scf.if %ok {
        %xv = memref.load %x[%ix] : memref<?xi32>
        %yv = memref.load %y[%ix] : memref<?xi32>
        %p = arith.muli %a, %xv : i32
        %s = arith.addi %p, %yv : i32
        memref.store %s, %y[%ix] : memref<?xi32>
      }
      gpu.return
    }
  }
}
