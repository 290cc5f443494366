// Accumulator loops with a symbolic trip count inside clang: with
// -fno-unroll-loops, -O2 rotates the loops, hoists the row offsets and
// rewrites the exit tests, and the plugin proves each kernel's pipeline.
// With runtime unrolling (plain -O2) the unrolled loop and its remainder
// are not modelled yet: unsupported, as a warning.
//
// RUN: %clang-cuda -O2 -fno-unroll-loops -S -fpass-plugin=%plugin -Rpass=kvalidate \
// RUN:   -mllvm -kvalidate-timeout=120 -mllvm -kvalidate-assume='%{1D}' \
// RUN:   %inputs/accumulate.cu -o %t.s 2>&1 \
// RUN:   | FileCheck %s --implicit-check-not=warning: --implicit-check-not=error:
// CHECK-DAG: remark: kvalidate: kernel 'row_total': equivalent ({{[0-9]+}} ms)
// CHECK-DAG: remark: kvalidate: kernel 'row_total_ptr': equivalent ({{[0-9]+}} ms)
// CHECK-DAG: remark: kvalidate: kernel 'row_total_late': equivalent ({{[0-9]+}} ms)
// CHECK-DAG: remark: kvalidate: kernel 'row_dot': equivalent ({{[0-9]+}} ms)
// CHECK-DAG: remark: kvalidate: kernel 'row_dot_swapped': equivalent ({{[0-9]+}} ms)
//
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate \
// RUN:   -mllvm -kvalidate-kernel=row_total -mllvm -kvalidate-assume='%{1D}' \
// RUN:   %inputs/accumulate.cu -o %t.s 2>&1 | FileCheck %s --check-prefix=UNROLLED
// UNROLLED: warning: kvalidate: kernel 'row_total': unsupported: after optimization: {{.*}}value computed in a loop with a symbolic trip count, used after the loop
