// gpu.func constructs the front door lowers through MLIR's own
// conversions (expand-strided-metadata, lower-affine, scf-to-cf,
// gpu-to-nvvm) and LLVM's expansion of vector reductions and scalarizer:
// the same per-thread sum of four elements written directly, through a
// subview, a private memref.alloca and an scf.while loop, a vector load
// with extracts or a vector.reduction, and an scf.parallel into a private
// attribution; and a warp shuffle against the read it replaces.
//
// REQUIRES: long
// RUN: %expect-exit 0 %kvalidate %s:sum4_direct %s:sum4_private | FileCheck %s --check-prefix=EQ
// RUN: %expect-exit 0 %kvalidate %s:sum4_direct %s:sum4_vector | FileCheck %s --check-prefix=EQ
// RUN: %expect-exit 0 %kvalidate %s:sum4_direct %s:sum4_vreduce | FileCheck %s --check-prefix=EQ
// RUN: %expect-exit 0 %kvalidate %s:sum4_direct %s:sum4_parallel | FileCheck %s --check-prefix=EQ
// RUN: %expect-exit 0 %kvalidate --assume='blockDim.x % 32 == 0 && gridDim.x * blockDim.x <= 1024' %s:swap_direct %s:swap_shuffle | FileCheck %s --check-prefix=EQ
// EQ: verdict: equivalent
//
// A vector that starts one element late: a replayed counterexample.
// RUN: %expect-exit 1 %kvalidate %s:sum4_vector %s:sum4_vector_off | FileCheck %s --check-prefix=NE
// NE: verdict: not-equivalent
// NE: replayed on: the LLVM IR of both kernels

module attributes {gpu.container_module} {
  gpu.module @c {
    // out[i] = in[4i] + in[4i+1] + in[4i+2] + in[4i+3], for i < 256.
    gpu.func @sum4_direct(%out: memref<256xi32>, %in: memref<1024xi32>) kernel {
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %dim = gpu.block_dim x
      %t = arith.muli %bid, %dim : index
      %i = arith.addi %t, %tid : index
      %c256 = arith.constant 256 : index
      %ok = arith.cmpi ult, %i, %c256 : index
      scf.if %ok {
        %c4 = arith.constant 4 : index
        %c1 = arith.constant 1 : index
        %c2 = arith.constant 2 : index
        %c3 = arith.constant 3 : index
        %j = arith.muli %i, %c4 : index
        %j1 = arith.addi %j, %c1 : index
        %j2 = arith.addi %j, %c2 : index
        %j3 = arith.addi %j, %c3 : index
        %a = memref.load %in[%j] : memref<1024xi32>
        %b = memref.load %in[%j1] : memref<1024xi32>
        %c = memref.load %in[%j2] : memref<1024xi32>
        %d = memref.load %in[%j3] : memref<1024xi32>
        %s1 = arith.addi %a, %b : i32
        %s2 = arith.addi %s1, %c : i32
        %s3 = arith.addi %s2, %d : i32
        memref.store %s3, %out[%i] : memref<256xi32>
      }
      gpu.return
    }

    // The same through a private array, a while loop and a subview.
    gpu.func @sum4_private(%out: memref<256xi32>, %in: memref<1024xi32>) kernel {
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %dim = gpu.block_dim x
      %t = arith.muli %bid, %dim : index
      %i = arith.addi %t, %tid : index
      %c256 = arith.constant 256 : index
      %ok = arith.cmpi ult, %i, %c256 : index
      scf.if %ok {
        %c0 = arith.constant 0 : index
        %c1 = arith.constant 1 : index
        %c4 = arith.constant 4 : index
        %j = arith.muli %i, %c4 : index
        %row = memref.subview %in[%j] [4] [1] : memref<1024xi32> to memref<4xi32, strided<[1], offset: ?>>
        %tmp = memref.alloca() : memref<4xi32>
        scf.for %k = %c0 to %c4 step %c1 {
          %v = memref.load %row[%k] : memref<4xi32, strided<[1], offset: ?>>
          memref.store %v, %tmp[%k] : memref<4xi32>
        }
        %z = arith.constant 0 : i32
        %r:2 = scf.while (%k = %c0, %acc = %z) : (index, i32) -> (index, i32) {
          %go = arith.cmpi ult, %k, %c4 : index
          scf.condition(%go) %k, %acc : index, i32
        } do {
        ^bb0(%k2: index, %acc2: i32):
          %v = memref.load %tmp[%k2] : memref<4xi32>
          %n = arith.addi %acc2, %v : i32
          %k3 = arith.addi %k2, %c1 : index
          scf.yield %k3, %n : index, i32
        }
        memref.store %r#1, %out[%i] : memref<256xi32>
      }
      gpu.return
    }

    // The same with a vector load and extracts.
    gpu.func @sum4_vector(%out: memref<256xi32>, %in: memref<1024xi32>) kernel {
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %dim = gpu.block_dim x
      %t = arith.muli %bid, %dim : index
      %i = arith.addi %t, %tid : index
      %c256 = arith.constant 256 : index
      %ok = arith.cmpi ult, %i, %c256 : index
      scf.if %ok {
        %c4 = arith.constant 4 : index
        %j = arith.muli %i, %c4 : index
        %v = vector.load %in[%j] : memref<1024xi32>, vector<4xi32>
        %a = vector.extract %v[0] : i32 from vector<4xi32>
        %b = vector.extract %v[1] : i32 from vector<4xi32>
        %c = vector.extract %v[2] : i32 from vector<4xi32>
        %d = vector.extract %v[3] : i32 from vector<4xi32>
        %s1 = arith.addi %a, %b : i32
        %s2 = arith.addi %s1, %c : i32
        %s3 = arith.addi %s2, %d : i32
        memref.store %s3, %out[%i] : memref<256xi32>
      }
      gpu.return
    }

    // The same with a vector load and reduction.
    gpu.func @sum4_vreduce(%out: memref<256xi32>, %in: memref<1024xi32>) kernel {
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %dim = gpu.block_dim x
      %t = arith.muli %bid, %dim : index
      %i = arith.addi %t, %tid : index
      %c256 = arith.constant 256 : index
      %ok = arith.cmpi ult, %i, %c256 : index
      scf.if %ok {
        %c4 = arith.constant 4 : index
        %j = arith.muli %i, %c4 : index
        %v = vector.load %in[%j] : memref<1024xi32>, vector<4xi32>
        %s3 = vector.reduction <add>, %v : vector<4xi32> into i32
        memref.store %s3, %out[%i] : memref<256xi32>
      }
      gpu.return
    }

    // Off by one element: the vector starts at 4i + 1.
    gpu.func @sum4_vector_off(%out: memref<256xi32>, %in: memref<1028xi32>) kernel {
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %dim = gpu.block_dim x
      %t = arith.muli %bid, %dim : index
      %i = arith.addi %t, %tid : index
      %c256 = arith.constant 256 : index
      %ok = arith.cmpi ult, %i, %c256 : index
      scf.if %ok {
        %c4 = arith.constant 4 : index
        %j0 = arith.muli %i, %c4 : index
        %one = arith.constant 1 : index
        %j = arith.addi %j0, %one : index
        %v = vector.load %in[%j] : memref<1028xi32>, vector<4xi32>
        %a = vector.extract %v[0] : i32 from vector<4xi32>
        %b = vector.extract %v[1] : i32 from vector<4xi32>
        %c = vector.extract %v[2] : i32 from vector<4xi32>
        %d = vector.extract %v[3] : i32 from vector<4xi32>
        %s1 = arith.addi %a, %b : i32
        %s2 = arith.addi %s1, %c : i32
        %s3 = arith.addi %s2, %d : i32
        memref.store %s3, %out[%i] : memref<256xi32>
      }
      gpu.return
    }

    // Per thread, an scf.parallel over the four elements into a private
    // attribution.
    gpu.func @sum4_parallel(%out: memref<256xi32>, %in: memref<1024xi32>)
        private(%tmp: memref<4xi32, #gpu.address_space<private>>) kernel {
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %dim = gpu.block_dim x
      %t = arith.muli %bid, %dim : index
      %i = arith.addi %t, %tid : index
      %c256 = arith.constant 256 : index
      %ok = arith.cmpi ult, %i, %c256 : index
      scf.if %ok {
        %c0 = arith.constant 0 : index
        %c1 = arith.constant 1 : index
        %c2 = arith.constant 2 : index
        %c3 = arith.constant 3 : index
        %c4 = arith.constant 4 : index
        %j = arith.muli %i, %c4 : index
        scf.parallel (%k) = (%c0) to (%c4) step (%c1) {
          %jk = arith.addi %j, %k : index
          %v = memref.load %in[%jk] : memref<1024xi32>
          memref.store %v, %tmp[%k] : memref<4xi32, #gpu.address_space<private>>
        }
        %a = memref.load %tmp[%c0] : memref<4xi32, #gpu.address_space<private>>
        %b = memref.load %tmp[%c1] : memref<4xi32, #gpu.address_space<private>>
        %c = memref.load %tmp[%c2] : memref<4xi32, #gpu.address_space<private>>
        %d = memref.load %tmp[%c3] : memref<4xi32, #gpu.address_space<private>>
        %s1 = arith.addi %a, %b : i32
        %s2 = arith.addi %s1, %c : i32
        %s3 = arith.addi %s2, %d : i32
        memref.store %s3, %out[%i] : memref<256xi32>
      }
      gpu.return
    }

    // out[i] = in[i ^ 1] directly, and through a warp shuffle (full warps).
    gpu.func @swap_direct(%out: memref<1024xf32>, %in: memref<1024xf32>) kernel {
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %dim = gpu.block_dim x
      %t = arith.muli %bid, %dim : index
      %i = arith.addi %t, %tid : index
      %c1 = arith.constant 1 : index
      %p = arith.xori %i, %c1 : index
      %v = memref.load %in[%p] : memref<1024xf32>
      memref.store %v, %out[%i] : memref<1024xf32>
      gpu.return
    }
    gpu.func @swap_shuffle(%out: memref<1024xf32>, %in: memref<1024xf32>) kernel {
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %dim = gpu.block_dim x
      %t = arith.muli %bid, %dim : index
      %i = arith.addi %t, %tid : index
      %v = memref.load %in[%i] : memref<1024xf32>
      %o = arith.constant 1 : i32
      %w = arith.constant 32 : i32
      %s, %valid = gpu.shuffle xor %v, %o, %w : f32
      memref.store %s, %out[%i] : memref<1024xf32>
      gpu.return
    }
  }
}
