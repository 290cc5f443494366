// Folds inside clang, with no assumptions at all: -O2 rotates each loop,
// hoists the row offsets, turns h * 31 into a shift and a subtraction and
// the ternary into smax; the plugin aligns each kernel's loop before and
// after the pipeline. (At plain -O2 the loops are also unrolled at run
// time, which needs a U:1 alignment: not yet.)
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
