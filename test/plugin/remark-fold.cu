// Folds inside clang, with no assumptions at all: -O2 rotates each loop,
// hoists the row offsets and a row test out of the loop (a conditional
// update of the accumulator in the source), turns h * 31 into a shift and a
// subtraction and the ternary into smax; the plugin aligns each kernel's loop before and
// after the pipeline.
//
// RUN: %clang-cuda -O2 -fno-unroll-loops -S -fpass-plugin=%plugin -Rpass=kvalidate \
// RUN:   %inputs/folds.cu -o %t.s 2>&1 \
// RUN:   | FileCheck %s --implicit-check-not=warning: --implicit-check-not=error:
// CHECK-DAG: remark: kvalidate: kernel 'fdot': equivalent ({{[0-9]+}} ms) {{.*}}[proof: loops aligned
// CHECK-DAG: remark: kvalidate: kernel 'fdot_ptr': equivalent ({{[0-9]+}} ms) {{.*}}[proof: loops aligned
// CHECK-DAG: remark: kvalidate: kernel 'fdot_reversed': equivalent ({{[0-9]+}} ms) {{.*}}[proof: loops aligned
// CHECK-DAG: remark: kvalidate: kernel 'hash_rows': equivalent ({{[0-9]+}} ms) {{.*}}[proof: loops aligned
// CHECK-DAG: remark: kvalidate: kernel 'hash_shift': equivalent ({{[0-9]+}} ms) {{.*}}[proof: loops aligned
// CHECK-DAG: remark: kvalidate: kernel 'hash_seed': equivalent ({{[0-9]+}} ms) {{.*}}[proof: loops aligned
// CHECK-DAG: remark: kvalidate: kernel 'run_max': equivalent ({{[0-9]+}} ms) {{.*}}[proof: loops aligned
// CHECK-DAG: remark: kvalidate: kernel 'run_max_ternary': equivalent ({{[0-9]+}} ms) {{.*}}[proof: loops aligned
// CHECK-DAG: remark: kvalidate: kernel 'fdot_guarded': equivalent ({{[0-9]+}} ms) {{.*}}[proof: loops aligned
// CHECK-DAG: remark: kvalidate: kernel 'fdot_odd_rows': equivalent ({{[0-9]+}} ms) {{.*}}[proof: loops aligned
//
// At plain -O2 the loops are also unrolled at run time: the hashes by 4
// with a remainder loop (on two paths: fewer than 4 columns, and after the
// unrolled loop), the dot products by 2 with the last column after the
// loop. Each unrolled loop aligns 4:1 or 2:1 with the source loop, each
// remainder 1:1 from where the unrolled loop stopped.
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate \
// RUN:   -mllvm -kvalidate-kernel=fdot -mllvm -kvalidate-kernel=hash_rows \
// RUN:   -mllvm -kvalidate-kernel=hash_shift %inputs/folds.cu -o %t.s 2>&1 \
// RUN:   | FileCheck %s --check-prefix=UNROLLED --implicit-check-not=warning: --implicit-check-not=error:
// UNROLLED-DAG: remark: kvalidate: kernel 'fdot': equivalent ({{[0-9]+}} ms) {{.*}}[proof: loops aligned
// UNROLLED-DAG: remark: kvalidate: kernel 'hash_rows': equivalent ({{[0-9]+}} ms) {{.*}}[proof: loops aligned
// UNROLLED-DAG: remark: kvalidate: kernel 'hash_shift': equivalent ({{[0-9]+}} ms) {{.*}}[proof: loops aligned
//
// The running maximum written at each column, unrolled 4 times, is not
// proved yet: the writer of a cell among the unrolled loop's four writes
// is not found (unknown, never a false alarm).

// The solver-heavy lane (test/lit.cfg.py).
// REQUIRES: long
