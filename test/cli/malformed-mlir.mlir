// A .mlir input that does not parse or verify: exit 3 with MLIR's
// diagnostic at its line.
// RUN: %expect-exit 3 %kvalidate %s:bad %s:bad 2>&1 | FileCheck %s
// CHECK: kvalidate: error: cannot parse {{.*}}malformed-mlir.mlir:
// CHECK: malformed-mlir.mlir:[[@LINE+4]]:{{[0-9]+}}: error: custom op 'kv.sreg' expected one of [{{.*}}] for a kv.sreg special register, got: tid.w

kv.kernel @bad attributes {arg_names = ["out"]} {
^bb0(%out: !kv.global<i32>):
  %0 = kv.sreg tid.w : i32
  %c = arith.constant true
  %z = arith.constant 0 : i64
  kv.write %out[%z] = %0 if %c : !kv.global<i32>, i64, i32
}
