// gpu-dialect kernels from the command line (FILE.mlir:SYMBOL): gpu.func
// kernels of a gpu.module are lowered by the upstream conversions (affine
// and scf to control flow, gpu to nvvm) to nvptx LLVM IR, with their MLIR
// locations as debug locations, and from there into the model the CUDA
// path uses.
//
// A block's 64 elements reversed directly, and through workgroup memory
// between barriers (the launch the kernels are written for: 64 blocks of
// 64 threads).
// DEFINE: %{LAUNCH} = blockDim.x == 64 && blockDim.y == 1 && blockDim.z == 1 && gridDim.x == 64 && gridDim.y == 1 && gridDim.z == 1
// REQUIRES: long
// RUN: %expect-exit 0 %kvalidate --assume='%{LAUNCH}' %s:reverse %s:reverse_staged | FileCheck %s --check-prefix=EQ
// EQ: verdict: equivalent
// EQ: assumptions:
//
// The same kernel written in CUDA (test/Inputs/reverse.cu), with and
// without the SDK: the parameters match one pointer per memref.
// RUN: %expect-exit 0 %kvalidate --assume='%{LAUNCH}' %s:reverse %inputs/reverse.cu:reverse_staged | FileCheck %s --check-prefix=EQ
// RUN: %expect-exit 0 %kvalidate --cuda-path= --assume='%{LAUNCH}' %inputs/reverse.cu:reverse_staged %s:reverse_staged | FileCheck %s --check-prefix=EQ
//
// Off by one in the reversal: a counterexample, replayed on both kernels'
// LLVM IR.
// RUN: %expect-exit 1 %kvalidate --assume='%{LAUNCH}' %s:reverse %s:reverse_off_by_one | FileCheck %s --check-prefix=NE
// NE: verdict: not-equivalent
// NE: counterexample (replayed):
// NE: mismatch: out[{{[0-9]+}}]: before = {{-?[0-9]+}}, after = {{-?[0-9]+}}
// NE: replayed on: the LLVM IR of both kernels
//
// Without the barrier a thread reads a cell another thread writes: a race
// between the lines of this file.
// RUN: %expect-exit 4 %kvalidate --assume='%{LAUNCH}' %s:reverse %s:reverse_no_barrier | FileCheck %s --check-prefix=RACE
// RACE: verdict: race
// RACE-NEXT: reason: after kernel: read-write race on {{.*}}: thread ({{.*}}) of block ({{.*}}) writes at {{.*}}gpu-kernels.mlir:[[@LINE+85]]:{{[0-9]+}}; thread ({{.*}}) of block ({{.*}}) reads at {{.*}}gpu-kernels.mlir:[[@LINE+87]]:{{[0-9]+}}
//
// A block of more than 64 threads writes past the workgroup buffer.
// RUN: %expect-exit 4 %kvalidate --assume='blockDim.x == 128 && gridDim.x == 1' %s:reverse_staged %s:reverse_staged | FileCheck %s --check-prefix=OOB
// OOB: verdict: out-of-bounds
// OOB-NEXT: reason: before kernel: out-of-bounds write (the array has 64 elements) {{.*}}gpu-kernels.mlir:[[@LINE+42]]:{{[0-9]+}}
//
// Dynamic shapes (memref<?xf32>, passed as descriptors): operands swapped,
// the test negated.
// RUN: %expect-exit 0 %kvalidate --assume='n > 0' %s:scale %s:scale_swapped | FileCheck %s --check-prefix=DYN
// Parameters are named after the gpu.func's arguments; an unused
// descriptor pointer (out.allocated) is not among the arrays that must not
// overlap.
// DYN: verdict: equivalent
// DYN: - pointer parameters out, in point to distinct, non-overlapping arrays
// DYN: - n > 0 (--assume)
//
// A construct the model does not have is named at its line.
// RUN: %expect-exit 2 %kvalidate %s:scratch %s:scratch | FileCheck %s --check-prefix=UNSUP
// UNSUP: verdict: unsupported
// UNSUP-NEXT: reason: before kernel: {{.*}}gpu-kernels.mlir:[[@LINE+109]]:{{[0-9]+}}: call to external function 'malloc'

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @reverse(%out: memref<4096xf32>, %in: memref<4096xf32>) kernel {
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %c64 = arith.constant 64 : index
      %c63 = arith.constant 63 : index
      %base = arith.muli %bid, %c64 : index
      %i = arith.addi %base, %tid : index
      %r = arith.subi %c63, %tid : index
      %j = arith.addi %base, %r : index
      %v = memref.load %in[%j] : memref<4096xf32>
      memref.store %v, %out[%i] : memref<4096xf32>
      gpu.return
    }

    gpu.func @reverse_staged(%out: memref<4096xf32>, %in: memref<4096xf32>)
        workgroup(%buf: memref<64xf32, #gpu.address_space<workgroup>>) kernel {
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %c64 = arith.constant 64 : index
      %c63 = arith.constant 63 : index
      %base = arith.muli %bid, %c64 : index
      %i = arith.addi %base, %tid : index
      %v = memref.load %in[%i] : memref<4096xf32>
      memref.store %v, %buf[%tid] : memref<64xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %r = arith.subi %c63, %tid : index
      %w = memref.load %buf[%r] : memref<64xf32, #gpu.address_space<workgroup>>
      memref.store %w, %out[%i] : memref<4096xf32>
      gpu.return
    }

    gpu.func @reverse_off_by_one(%out: memref<4096xf32>, %in: memref<4096xf32>)
        workgroup(%buf: memref<64xf32, #gpu.address_space<workgroup>>) kernel {
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %c64 = arith.constant 64 : index
      %c63 = arith.constant 63 : index
      %c1 = arith.constant 1 : index
      %base = arith.muli %bid, %c64 : index
      %i = arith.addi %base, %tid : index
      %v = memref.load %in[%i] : memref<4096xf32>
      memref.store %v, %buf[%tid] : memref<64xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %r = arith.subi %c63, %tid : index
      %s = arith.remui %r, %c64 : index
      %t = arith.addi %s, %c1 : index
      %u = arith.remui %t, %c64 : index
      %w = memref.load %buf[%u] : memref<64xf32, #gpu.address_space<workgroup>>
      memref.store %w, %out[%i] : memref<4096xf32>
      gpu.return
    }

    gpu.func @reverse_no_barrier(%out: memref<4096xf32>, %in: memref<4096xf32>)
        workgroup(%buf: memref<64xf32, #gpu.address_space<workgroup>>) kernel {
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %c64 = arith.constant 64 : index
      %c63 = arith.constant 63 : index
      %base = arith.muli %bid, %c64 : index
      %i = arith.addi %base, %tid : index
      %v = memref.load %in[%i] : memref<4096xf32>
      memref.store %v, %buf[%tid] : memref<64xf32, #gpu.address_space<workgroup>>
      %r = arith.subi %c63, %tid : index
      %w = memref.load %buf[%r] : memref<64xf32, #gpu.address_space<workgroup>>
      memref.store %w, %out[%i] : memref<4096xf32>
      gpu.return
    }
  }

  gpu.module @dynamic {
    gpu.func @scale(%out: memref<?xf32>, %in: memref<?xf32>, %n: index,
                    %a: f32) kernel {
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %bdim = gpu.block_dim x
      %t = arith.muli %bid, %bdim : index
      %i = arith.addi %t, %tid : index
      %ok = arith.cmpi slt, %i, %n : index
      scf.if %ok {
        %v = memref.load %in[%i] : memref<?xf32>
        %w = arith.mulf %v, %a : f32
        memref.store %w, %out[%i] : memref<?xf32>
      }
      gpu.return
    }

    gpu.func @scale_swapped(%out: memref<?xf32>, %in: memref<?xf32>,
                            %n: index, %a: f32) kernel {
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %bdim = gpu.block_dim x
      %t = arith.muli %bdim, %bid : index
      %i = arith.addi %tid, %t : index
      %ok = arith.cmpi sge, %i, %n : index
      scf.if %ok {
      } else {
        %v = memref.load %in[%i] : memref<?xf32>
        %w = arith.mulf %a, %v : f32
        memref.store %w, %out[%i] : memref<?xf32>
      }
      gpu.return
    }

    gpu.func @scratch(%out: memref<64xi32>) kernel {
      %tid = gpu.thread_id x
      %tmp = memref.alloc() : memref<4xi32>
      %c0 = arith.constant 0 : index
      %v = memref.load %tmp[%c0] : memref<4xi32>
      memref.store %v, %out[%tid] : memref<64xi32>
      gpu.return
    }
  }
}
