// Loops counting down inside clang: -O2 unrolls them four times with a
// remainder loop, counting the unrolled iterations up and the index down
// (signed: reassociated, sign-extended index sums); the plugin proves the
// pipelines. An unsigned counter tested `k >= 0` never stops: unsupported,
// with the launch that enters it.
//
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate -fno-discard-value-names \
// RUN:   -mllvm -kvalidate-timeout=300 -mllvm -kvalidate-assume='%{1D} && n <= 100000' \
// RUN:   -mllvm -kvalidate-kernel=sum_rows_rev_unsigned -mllvm -kvalidate-kernel=sum_rows_forever \
// RUN:   -mllvm -kvalidate-kernel=sum_rows_rev -mllvm -kvalidate-kernel=sum_rows_rev_shifted \
// RUN:   %inputs/rowsum.cu -o %t.s 2>&1 | FileCheck %s --implicit-check-not=error:
// CHECK-DAG: rowsum.cu:34:17: remark: kvalidate: kernel 'sum_rows_rev_unsigned': equivalent ({{[0-9]+}} ms) [assumptions: {{.*}} && n <= 100000 (--assume)
// CHECK-DAG: rowsum.cu:50:17: remark: kvalidate: kernel 'sum_rows_forever': unsupported: before kernel: loop that the model cannot count: {{.*}}rowsum.cu:53:3
// CHECK-DAG: rowsum.cu:10:17: remark: kvalidate: kernel 'sum_rows_rev': equivalent ({{[0-9]+}} ms)
// CHECK-DAG: rowsum.cu:26:17: remark: kvalidate: kernel 'sum_rows_rev_shifted': equivalent ({{[0-9]+}} ms)
// CHECK-NOT: kernel 'sum_rows'

// The solver-heavy lane (test/lit.cfg.py).
// REQUIRES: long
