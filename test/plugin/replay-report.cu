// A counterexample the plugin reports can be rerun: with -kvalidate-report,
// the modules a not-equivalent kernel was compared in are saved beside the
// report, the diagnostic names them, and the report's entry names them as
// its before and after kernels, so that `kvalidate replay REPORT` runs both
// on the counterexample. The test-only wrong pass (test/lib) adds one to the
// first constant added in each kernel: 'shift' breaks, 'halve' adds none.
//
// RUN: rm -rf %t && mkdir %t
// RUN: not %clang-cuda -O2 -S -fpass-plugin=%plugin -fpass-plugin=%test-break-plugin \
// RUN:   -mllvm -kvalidate-cache= -mllvm -kvalidate-report=%t/r.jsonl %s -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=DIAG
// DIAG: error: kvalidate: kernel 'shift': not-equivalent: {{.*}}(replayed on {{.*}} [IR before and after optimization: {{.*}}r.shift.before.ll {{.*}}r.shift.after.ll]
// RUN: FileCheck %s --check-prefix=REPORT < %t/r.jsonl
// REPORT: "after":"{{.*}}r.shift.after.ll:_Z5shiftPKiPii","assumptions"
// REPORT-SAME: "before":"{{.*}}r.shift.before.ll:_Z5shiftPKiPii"
//
// The saved counterexample reproduces the difference from the files alone.
// RUN: %expect-exit 1 %kvalidate replay %t/r.jsonl | FileCheck %s --check-prefix=REPLAY
// REPLAY: replay: the kernels differ
// REPLAY: replay: run on
//
// The culprit of -kvalidate-per-pass is saved the same way, and so is the
// end-to-end verdict: two counterexamples in one report, each rerun.
// RUN: not %clang-cuda -O2 -S -fpass-plugin=%plugin -fpass-plugin=%test-break-plugin \
// RUN:   -mllvm -kvalidate-per-pass -mllvm -kvalidate-cache= \
// RUN:   -mllvm -kvalidate-report=%t/p.jsonl %s -o /dev/null 2>/dev/null
// RUN: %expect-exit 1 %kvalidate replay %t/p.jsonl | FileCheck %s --check-prefix=FIRST
// FIRST: replay: note: {{.*}}p.jsonl has 2 verdicts with a counterexample; this is the first (--entry=N picks another)
// FIRST: replay: the kernels differ
// RUN: %expect-exit 1 %kvalidate replay --entry=2 %t/p.jsonl | FileCheck %s --check-prefix=REPLAY
// RUN: %expect-exit 3 %kvalidate replay --entry=3 %t/p.jsonl 2>&1 | FileCheck %s --check-prefix=ENTRY
// ENTRY: error: {{.*}}p.jsonl: --entry=3, but the file has 2 verdict(s) with a counterexample

__global__ void shift(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i] + 9;
}

__global__ void halve(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i] / 2;
}
