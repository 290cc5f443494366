// A kernel whose encoding outlasts the budget: defects.cu's sum_barrier
// without a block size builds read chains through eight unrolled barrier
// intervals, each read with several candidate writers. The encoder stops
// at the deadline, so clang finishes about when the budget ends (the outer
// `timeout` only guards against a hang), reports `unknown` with the reason
// (under load the kernel's budget may stop it first, which says so too),
// and emits the same PTX as without the plugin. (-kvalidate-no-lockstep turns
// off the interval-by-interval proof, which settles this kernel at once:
// remark-lockstep.cu.)
//
// RUN: %clang-cuda -O2 -S %inputs/defects.cu -o %t.without.s
// RUN: timeout 120 %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate \
// RUN:   -mllvm -kvalidate-no-lockstep -mllvm -kvalidate-timeout=2 -mllvm -kvalidate-kernel=sum_barrier \
// RUN:   -mllvm -kvalidate-cache= \
// RUN:   %inputs/defects.cu -o %t.with.s 2>&1 | FileCheck %s
// RUN: cmp %t.without.s %t.with.s
// CHECK: defects.cu:18:17: remark: kvalidate: kernel 'sum_barrier': unknown: {{(timeout: |budget: time \([^)]*\); )}}the time budget ran out while encoding the query, before the solver ran
// CHECK-NOT: kvalidate: kernel
