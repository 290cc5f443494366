// The mlir-opt plugin's reports and verdict cache, as the LLVM plugin's:
// kvalidate-check{report=FILE} appends one result per kernel (JSON lines,
// or SARIF 2.1.0 for FILE.sarif) and kvalidate-check{cache=DIR} keeps the
// verdicts, so that a second run on the same module says [cached].
//
// RUN: rm -rf %t && mkdir %t
// RUN: %mlir-opt --load-pass-plugin=%mlir-plugin \
// RUN:   --pass-pipeline='builtin.module(kvalidate-snapshot,canonicalize,cse,kvalidate-check{cache=%t/cache report=%t/cold.jsonl})' \
// RUN:   %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=COLD --implicit-check-not=warning:
// COLD: mlir-plugin-report.mlir:[[@LINE+36]]:5: remark: kvalidate: kernel 'add_offset': equivalent ({{[0-9]+}} ms)
// COLD-NOT: [cached]
// RUN: not grep -q cached %t/cold.jsonl
// RUN: FileCheck %s --check-prefix=COLDJ < %t/cold.jsonl
// COLDJ: "file":"{{.*}}mlir-plugin-report.mlir",{{.*}}"kernel":"add_offset",{{.*}}"line":[[@LINE+32]],{{.*}}"verdict":"equivalent"
//
// RUN: %mlir-opt --load-pass-plugin=%mlir-plugin \
// RUN:   --pass-pipeline='builtin.module(kvalidate-snapshot,canonicalize,cse,kvalidate-check{cache=%t/cache report=%t/warm.jsonl})' \
// RUN:   %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=WARM
// WARM: remark: kvalidate: kernel 'add_offset': equivalent ({{[0-9]+}} ms) [assumptions: {{.*}}] [cached]
// RUN: FileCheck %s --check-prefix=WARMJ < %t/warm.jsonl
// WARMJ: "cached":true,{{.*}}"kernel":"add_offset"
//
// A wrong pass: a SARIF result at the kernel's line with the verdict as its
// rule and the counterexample in its properties; an error, so a failed run.
// RUN: %expect-exit 1 %mlir-opt --load-pass-plugin=%mlir-plugin --load-pass-plugin=%mlir-test-break-plugin \
// RUN:   --pass-pipeline='builtin.module(kvalidate-snapshot,kvalidate-test-break,kvalidate-check{cache=off report=%t/kv.sarif})' \
// RUN:   %s -o /dev/null 2>/dev/null
// RUN: check-sarif %t/kv.sarif 1 | FileCheck %s --check-prefix=VALID
// VALID: check-sarif: 1 results
// RUN: FileCheck %s --check-prefix=SARIF < %t/kv.sarif
// SARIF: "level": "error",
// SARIF: "startLine": [[@LINE+14]]
// SARIF: "counterexample": {
// SARIF: "ruleId": "not-equivalent"
//
// kvalidate-per-pass{report=FILE}: a result for each pass that changed a
// kernel, the pass named.
// RUN: %expect-exit 1 %mlir-opt --load-pass-plugin=%mlir-plugin --load-pass-plugin=%mlir-test-break-plugin \
// RUN:   --pass-pipeline='builtin.module(kvalidate-per-pass{pipeline="canonicalize,kvalidate-test-break" report=%t/pass.jsonl})' \
// RUN:   %s -o /dev/null 2>/dev/null
// RUN: FileCheck %s --check-prefix=PASSJ < %t/pass.jsonl
// PASSJ: "kernel":"add_offset",{{.*}}"pass":"kvalidate-test-break",{{.*}}"verdict":"not-equivalent"

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @add_offset(%out: memref<1024xi32>, %in: memref<1024xi32>,
                         %d: i32) kernel {
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %dim = gpu.block_dim x
      %t = arith.muli %bid, %dim : index
      %i = arith.addi %t, %tid : index
      %c1024 = arith.constant 1024 : index
      %ok = arith.cmpi ult, %i, %c1024 : index
      scf.if %ok {
        %v = memref.load %in[%i] : memref<1024xi32>
        %w = arith.addi %v, %d : i32
        %z = arith.addi %w, %d : i32
        %y = arith.subi %z, %d : i32
        memref.store %y, %out[%i] : memref<1024xi32>
      }
      gpu.return
    }
  }
}
