// Loops whose trip count follows the block size, or halves an int, compiled
// at -O2 with the plugin and no assumptions, as a real build would: the
// model cannot count them and there are too many block sizes to split on,
// but the checker proves that each stops within a few iterations for every
// launch (kv.prove at the cut), so they are unrolled that far and the proof
// holds for every block size and every n (tree reductions, a float sum, a
// Hillis-Steele scan). A digit count (a counter halving an int) and a
// Collatz step count (no bound at all) are loops with a data-dependent exit
// instead, aligned with their -O2 forms, which rotate them
// (loops/breaks.test).
//
// (digits_short, digits' twin for the command line, is left out.)
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate \
// RUN:   -mllvm -kvalidate-kernel=max_halving -mllvm -kvalidate-kernel=sum_doubling \
// RUN:   -mllvm -kvalidate-kernel=fsum_halving -mllvm -kvalidate-kernel=scan_doubling \
// RUN:   -mllvm -kvalidate-kernel=digits -mllvm -kvalidate-kernel=collatz_steps \
// RUN:   %inputs/tree_loops.cu -o %t.s 2>&1 \
// RUN:   | FileCheck %s --implicit-check-not=warning: --implicit-check-not=error:
// CHECK-DAG: remark: kvalidate: kernel 'max_halving': equivalent ({{[0-9]+}} ms) [{{.*}}checked: the before kernel has a loop that runs at most 10 iterations (unrolled that far) at {{.*}}tree_loops.cu:21:3 (proved); {{.*}}] [proof: interval by interval: {{.*}}; loops unrolled exactly: each loop the model cannot count runs at most 10 iterations (proved) and is unrolled that far]
// CHECK-DAG: remark: kvalidate: kernel 'sum_doubling': equivalent ({{[0-9]+}} ms) [{{.*}}runs at most 10 iterations (unrolled that far) at {{.*}}tree_loops.cu:35:3 (proved)
// CHECK-DAG: remark: kvalidate: kernel 'fsum_halving': equivalent ({{[0-9]+}} ms) [{{.*}}loops unrolled exactly
// CHECK-DAG: remark: kvalidate: kernel 'scan_doubling': equivalent ({{[0-9]+}} ms) [{{.*}}loops unrolled exactly
// CHECK-DAG: remark: kvalidate: kernel 'digits': equivalent ({{[0-9]+}} ms) [{{.*}}[proof: loops aligned: 1 loop with breaks or data-dependent exits {{.*}}(1 rotated: {{.*}})]
// CHECK-DAG: remark: kvalidate: kernel 'collatz_steps': equivalent ({{[0-9]+}} ms) [{{.*}}the loop with breaks or data-dependent exits at {{.*}}tree_loops.cu:85:3 stops within 2^31 iterations{{.*}}] [proof: loops aligned: 1 loop with breaks {{.*}}(1 rotated: {{.*}})]
//
// The code the plugin compiles is unchanged.
// RUN: %clang-cuda -O2 -S %inputs/tree_loops.cu -o %t.plain.s
// RUN: diff %t.plain.s %t.s

// The solver-heavy lane (test/lit.cfg.py).
// REQUIRES: long
