// -kvalidate-per-pass validates every pass that changed a kernel and names
// the first one that breaks it: here the deliberately wrong pass of test/lib
// (it adds one to a constant), among clang's real -O2 pipeline. The IR
// before and after it is saved next to the report; the report has one entry
// per validated pass.
//
// RUN: rm -rf %t && mkdir %t
// RUN: not %clang-cuda -O2 -S -fpass-plugin=%plugin -fpass-plugin=%test-break-plugin \
// RUN:   -mllvm -kvalidate-per-pass -mllvm -kvalidate-report=%t/report.jsonl \
// RUN:   %inputs/gating.cu -o %t/out.s 2> %t/diag
// RUN: FileCheck %s < %t/diag
// CHECK: error: kvalidate: kernel 'offset': not-equivalent: {{.*}}[first pass to break the kernel: '{{.*}}KVTestBreakPass', change {{[0-9]+}} of the pipeline to the module] [IR before and after the pass: [[DIR:.*]]report.offset.[[N:[0-9]+]]-{{.*}}KVTestBreakPass.before.ll {{.*}}report.offset.[[N]]-{{.*}}KVTestBreakPass.after.ll]
// The end-to-end check reports it too.
// CHECK: error: kvalidate: kernel 'offset': not-equivalent: {{.*}}before optimization
//
// Only the broken kernels have a culprit.
// RUN: FileCheck %s --check-prefix=ONLY < %t/diag
// ONLY-NOT: kernel 'quads': not-equivalent
// ONLY-NOT: kernel 'negate': not-equivalent
//
// The saved IR shows the change: 'in[i] + 3' before, '+ 4' after.
// RUN: cat %t/report.offset.*KVTestBreakPass.before.ll | FileCheck %s --check-prefix=BEFORE
// BEFORE: define {{.*}}@_Z6offsetPKiPii(
// BEFORE: add nsw i32 %{{[0-9a-z.]+}}, 3
// RUN: cat %t/report.offset.*KVTestBreakPass.after.ll | FileCheck %s --check-prefix=AFTER
// AFTER: define {{.*}}@_Z6offsetPKiPii(
// AFTER: add i32 %{{[0-9a-z.]+}}, 4
//
// The report: passes that changed a kernel and were proved, the culprit as
// an error, and the end-to-end verdicts.
// RUN: FileCheck %s --check-prefix=REPORT < %t/report.jsonl
// REPORT-DAG: "kernel":"quads",{{.*}}"pass":"LoopRotatePass",{{.*}}"verdict":"equivalent"
// REPORT-DAG: "kernel":"offset",{{.*}}"level":"error",{{.*}}"pass":"{{.*}}KVTestBreakPass",{{.*}}"verdict":"not-equivalent"
// REPORT-DAG: "kernel":"negate",{{.*}}"level":"note",{{.*}}"verdict":"equivalent"
// The culprit's counterexample reruns from the IR saved beside the report.
// RUN: %expect-exit 1 %kvalidate replay %t/report.jsonl | FileCheck %s --check-prefix=REPLAY
// REPLAY: replay: the kernels differ
//
// Without the wrong pass nothing is named and the compile succeeds; the
// code is the same as without the plugin.
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate -mllvm -kvalidate-per-pass \
// RUN:   -mllvm -kvalidate-report=%t/clean.jsonl %inputs/gating.cu -o %t/clean.s 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CLEAN --implicit-check-not=error:
// CLEAN: remark: kvalidate: kernel 'from_asm': unsupported
// RUN: not grep -q '"level":"error"' %t/clean.jsonl
// RUN: %clang-cuda -O2 -S %inputs/gating.cu -o %t/plain.s
// RUN: diff %t/clean.s %t/plain.s
//
// In opt, with the same pipeline.
// RUN: %clang-cuda -O2 -Xclang -disable-llvm-passes -S -emit-llvm %inputs/gating.cu -o %t/in.ll
// RUN: not %opt -load-pass-plugin=%plugin -load-pass-plugin=%test-break-plugin \
// RUN:   -passes='default<O2>' -kvalidate-per-pass -kvalidate-kernel=offset %t/in.ll -disable-output 2>&1 \
// RUN:   | FileCheck %s --check-prefix=OPT
// OPT: error: kvalidate: kernel 'offset': not-equivalent: {{.*}}[first pass to break the kernel: '{{.*}}KVTestBreakPass'
