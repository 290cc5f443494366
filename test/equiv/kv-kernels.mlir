// kvalidate reads hand-written kv modules (.mlir); KERNEL is the symbol name.
//
// RUN: %expect-exit 0 %kvalidate %s:copy_a %s:copy_b | FileCheck %s --check-prefix=EQ
// RUN: %expect-exit 0 %kvalidate --assume='blockDim.x <= 64 && %{1D}' \
// RUN:   %s:copy_a %s:copy_via_shared | FileCheck %s --check-prefix=EQ
// EQ:     verdict: equivalent
// EQ-NOT:   counterexample
//
// Reading in[i + 1] instead of in[i]: not-equivalent with a replayed
// counterexample that names the kernels' own parameter names.
// RUN: %expect-exit 1 %kvalidate %s:copy_a %s:copy_shifted | FileCheck %s --check-prefix=NE
// NE:      verdict: not-equivalent
// NE:        before: {{.*}}kv-kernels.mlir:copy_a
// NE-NEXT:   after:  {{.*}}kv-kernels.mlir:copy_shifted
// NE:        counterexample (replayed):
// NE:          scalars: n = {{-?[0-9]+}}
// NE:          input in[{{-?[0-9]+}}] = {{-?[0-9]+}}
// NE:          mismatch: out[{{-?[0-9]+}}]: before = {{-?[0-9]+}}, after = {{-?[0-9]+}}
// NE-NEXT:     replayed on: the kv models (no LLVM IR for either kernel)
//
// A .mlir kernel can be compared with a CUDA one.
// RUN: %expect-exit 0 %kvalidate %inputs/misc.cu:copy %s:copy_a | FileCheck %s --check-prefix=EQ
//
// Unknown symbol: an error listing the kernels of the module.
// RUN: %expect-exit 3 %kvalidate %s:copy_a %s:copy_c 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: kvalidate: error: {{.*}}kv-kernels.mlir: no kernel named 'copy_c'; kernels in this file: copy_a, copy_b, copy_shifted, copy_via_shared

// out[i] = in[i] if i < n, i = blockIdx.x * blockDim.x + threadIdx.x.
kv.kernel @copy_a attributes {arg_names = ["out", "in", "n"]} {
^bb0(%out: !kv.global<i32>, %in: !kv.global<i32>, %n: i32):
  %tid = kv.sreg tid.x : i32
  %bdim = kv.sreg bdim.x : i32
  %bid = kv.sreg bid.x : i32
  %base = arith.muli %bid, %bdim : i32
  %i = arith.addi %base, %tid : i32
  %g = arith.cmpi slt, %i, %n : i32
  %i64 = arith.extsi %i : i32 to i64
  %v = kv.read %in[%i64] if %g : !kv.global<i32>, i64 -> i32
  kv.write %out[%i64] = %v if %g : !kv.global<i32>, i64, i32
}

// The same, written threadIdx.x + blockDim.x * blockIdx.x and n > i.
kv.kernel @copy_b attributes {arg_names = ["out", "in", "n"]} {
^bb0(%out: !kv.global<i32>, %in: !kv.global<i32>, %n: i32):
  %tid = kv.sreg tid.x : i32
  %bdim = kv.sreg bdim.x : i32
  %bid = kv.sreg bid.x : i32
  %base = arith.muli %bdim, %bid : i32
  %i = arith.addi %tid, %base : i32
  %g = arith.cmpi sgt, %n, %i : i32
  %i64 = arith.extsi %i : i32 to i64
  %v = kv.read %in[%i64] if %g : !kv.global<i32>, i64 -> i32
  kv.write %out[%i64] = %v if %g : !kv.global<i32>, i64, i32
}

// Off by one: out[i] = in[i + 1].
kv.kernel @copy_shifted attributes {arg_names = ["out", "in", "n"]} {
^bb0(%out: !kv.global<i32>, %in: !kv.global<i32>, %n: i32):
  %tid = kv.sreg tid.x : i32
  %bdim = kv.sreg bdim.x : i32
  %bid = kv.sreg bid.x : i32
  %base = arith.muli %bid, %bdim : i32
  %i = arith.addi %base, %tid : i32
  %g = arith.cmpi slt, %i, %n : i32
  %one = arith.constant 1 : i64
  %i64 = arith.extsi %i : i32 to i64
  %j64 = arith.addi %i64, %one : i64
  %v = kv.read %in[%j64] if %g : !kv.global<i32>, i64 -> i32
  kv.write %out[%i64] = %v if %g : !kv.global<i32>, i64, i32
}

// Through a 64-element shared buffer: buf[tid] = in[i]; barrier;
// out[i] = buf[tid].
kv.kernel @copy_via_shared attributes {arg_names = ["out", "in", "n", "buf"]} {
^bb0(%out: !kv.global<i32>, %in: !kv.global<i32>, %n: i32, %buf: !kv.shared<i32, 64>):
  %tid = kv.sreg tid.x : i32
  %bdim = kv.sreg bdim.x : i32
  %bid = kv.sreg bid.x : i32
  %base = arith.muli %bid, %bdim : i32
  %i = arith.addi %base, %tid : i32
  %g = arith.cmpi slt, %i, %n : i32
  %i64 = arith.extsi %i : i32 to i64
  %t64 = arith.extui %tid : i32 to i64
  %v = kv.read %in[%i64] if %g : !kv.global<i32>, i64 -> i32
  kv.write %buf[%t64] = %v if %g : !kv.shared<i32, 64>, i64, i32
  kv.barrier
  %w = kv.read %buf[%t64] if %g : !kv.shared<i32, 64>, i64 -> i32
  kv.write %out[%i64] = %w if %g : !kv.global<i32>, i64, i32
}

// The solver-heavy lane (test/lit.cfg.py).
// REQUIRES: long
