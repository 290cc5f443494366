// The mlir-opt pass plugin: kvalidate-snapshot before a pipeline,
// kvalidate-check after it, one MLIR diagnostic per gpu kernel at its
// gpu.func. An upstream pipeline (canonicalize, cse, loop-invariant code
// motion, lower-affine) is validated on each kernel.
//
// RUN: %mlir-opt --load-pass-plugin=%mlir-plugin \
// RUN:   --pass-pipeline='builtin.module(kvalidate-snapshot,canonicalize,cse,loop-invariant-code-motion,lower-affine,kvalidate-check)' \
// RUN:   %s -o %t.out.mlir 2>&1 | FileCheck %s --implicit-check-not=warning: --implicit-check-not=error:
// CHECK-DAG: mlir-plugin.mlir:[[@LINE+45]]:5: remark: kvalidate: kernel 'reverse_staged': equivalent
// CHECK-DAG: mlir-plugin.mlir:[[@LINE+63]]:5: remark: kvalidate: kernel 'row_sums': equivalent
// CHECK-DAG: mlir-plugin.mlir:[[@LINE+80]]:5: remark: kvalidate: kernel 'affine_copy': equivalent
//
// The plugin does not change the module: the output is the pipeline's own.
// RUN: %mlir-opt --pass-pipeline='builtin.module(canonicalize,cse,loop-invariant-code-motion,lower-affine)' %s -o %t.ref.mlir
// RUN: diff %t.ref.mlir %t.out.mlir
//
// A deliberately wrong pass (test/lib/BreakingMLIRPass.cpp: a kernel's first
// addition becomes a subtraction) is caught with a replayed counterexample,
// as an error that fails the run.
// RUN: %expect-exit 1 %mlir-opt --load-pass-plugin=%mlir-plugin --load-pass-plugin=%mlir-test-break-plugin \
// RUN:   --pass-pipeline='builtin.module(kvalidate-snapshot,canonicalize,kvalidate-test-break,kvalidate-check)' \
// RUN:   %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=BROKEN
// BROKEN: error: kvalidate: kernel '{{[a-z_]+}}': not-equivalent
// BROKEN-SAME: (replayed on the LLVM IR of both kernels)
//
// With fail-on=never it is a warning, and the run succeeds.
// RUN: %expect-exit 0 %mlir-opt --load-pass-plugin=%mlir-plugin --load-pass-plugin=%mlir-test-break-plugin \
// RUN:   --pass-pipeline='builtin.module(kvalidate-snapshot,kvalidate-test-break,kvalidate-check{fail-on=never})' \
// RUN:   %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=NEVER
// NEVER: warning: kvalidate: kernel '{{[a-z_]+}}': not-equivalent
//
// kvalidate-per-pass runs a pipeline's passes one at a time on a copy of
// the module, validates each kernel a pass changed against the kernel just
// before it, and names the first pass that breaks it.
// RUN: %expect-exit 1 %mlir-opt --load-pass-plugin=%mlir-plugin --load-pass-plugin=%mlir-test-break-plugin \
// RUN:   --pass-pipeline='builtin.module(kvalidate-per-pass{pipeline="canonicalize,cse,kvalidate-test-break,lower-affine"})' \
// RUN:   %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=CULPRIT
// CULPRIT: error: kvalidate: kernel '{{[a-z_]+}}': not-equivalent: {{.*}}(replayed on the LLVM IR of both kernels){{.*}} [first pass to break the kernel: 'kvalidate-test-break', pass 3 of the pipeline]
//
// Without the wrong pass every step is proved (or unchanged): no error.
// RUN: %mlir-opt --load-pass-plugin=%mlir-plugin \
// RUN:   --pass-pipeline='builtin.module(kvalidate-per-pass{pipeline="canonicalize,cse,loop-invariant-code-motion,lower-affine"})' \
// RUN:   %s -o /dev/null 2>&1 | count 0
//
// From the command line, known_block_size is the kernel's launch: its
// workgroup array of 64 is in bounds (no out-of-bounds run at a larger
// block).
// RUN: %expect-exit 0 %kvalidate %s:reverse_staged %s:reverse_staged | FileCheck %s --check-prefix=KNOWN
// KNOWN: verdict: equivalent
// KNOWN: - blockDim.x * blockDim.y * blockDim.z <= 64 (the largest block (__launch_bounds__, nvvm.maxntid) that both kernels declare)

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @reverse_staged(%out: memref<4096xi32>, %in: memref<4096xi32>)
        workgroup(%buf: memref<64xi32, #gpu.address_space<workgroup>>)
        kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %c64 = arith.constant 64 : index
      %c63 = arith.constant 63 : index
      %base = arith.muli %bid, %c64 : index
      %i = arith.addi %base, %tid : index
      %v = memref.load %in[%i] : memref<4096xi32>
      memref.store %v, %buf[%tid] : memref<64xi32, #gpu.address_space<workgroup>>
      gpu.barrier
      %r = arith.subi %c63, %tid : index
      %w = memref.load %buf[%r] : memref<64xi32, #gpu.address_space<workgroup>>
      memref.store %w, %out[%i] : memref<4096xi32>
      gpu.return
    }

    // A loop whose bound's product loop-invariant-code-motion hoists.
    gpu.func @row_sums(%out: memref<256xi32>, %m: memref<4096xi32>,
                       %w: index) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c16 = arith.constant 16 : index
      %zero = arith.constant 0 : i32
      %tid = gpu.thread_id x
      %s = scf.for %k = %c0 to %c16 step %c1 iter_args(%acc = %zero) -> (i32) {
        %row = arith.muli %tid, %c16 : index
        %j = arith.addi %row, %k : index
        %x = memref.load %m[%j] : memref<4096xi32>
        %n = arith.addi %acc, %x : i32
        scf.yield %n : i32
      }
      memref.store %s, %out[%tid] : memref<256xi32>
      gpu.return
    }

    gpu.func @affine_copy(%out: memref<1024xi32>, %in: memref<1024xi32>) kernel {
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      affine.for %k = 0 to 4 {
        %v = affine.load %in[%bid * 16 + %tid * 4 + %k] : memref<1024xi32>
        affine.store %v, %out[%bid * 16 + %tid * 4 + %k] : memref<1024xi32>
      }
      gpu.return
    }
  }
}
