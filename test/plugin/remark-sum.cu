// Accumulator loops with a symbolic trip count inside clang: with
// -fno-unroll-loops, -O2 rotates the loops, hoists the row offsets and
// rewrites the exit tests, and the plugin proves each kernel's pipeline.
// At plain -O2 the row totals are unrolled four times with a remainder
// loop, the dot products twice with the last term after the loop; the sums
// regroup, and the plugin proves every kernel.
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
// (One kernel of each unrolled shape: a remainder loop, a last term.)
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate \
// RUN:   -mllvm -kvalidate-timeout=120 -mllvm -kvalidate-assume='%{1D}' \
// RUN:   -mllvm -kvalidate-kernel=row_total -mllvm -kvalidate-kernel=row_dot \
// RUN:   %inputs/accumulate.cu -o %t.s 2>&1 \
// RUN:   | FileCheck %s --check-prefix=UNROLLED --implicit-check-not=warning: --implicit-check-not=error: --implicit-check-not=remark:
// UNROLLED-DAG: remark: kvalidate: kernel 'row_total': equivalent ({{[0-9]+}} ms)
// UNROLLED-DAG: remark: kvalidate: kernel 'row_dot': equivalent ({{[0-9]+}} ms)

// The solver-heavy lane (test/lit.cfg.py).
// REQUIRES: long
