// Loops with breaks and data-dependent exits (Inputs/breaks.cu) compiled at
// -O2 with the plugin and no assumptions, as a real build would. -O2 rotates
// each loop: its header's exit test runs once before the loop and then at
// the end of every iteration. The checker aligns the rotated loop with the
// source's, iteration by iteration, with no trip count: a search with
// `break`, the same search written `while (k < n && row[k] != key)` (-O2
// splits the test and rotates its first half alone; the lowering makes one
// exit of each conjunct), a copy that stops after a write, and a float sum
// whose exit reads the accumulator.
//
// These are the model's proofs: with no time budget they run to the end
// before the relational proof would (with one, a loaded machine can hand a
// slow float sum to the relational proof, which then names itself).
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate \
// RUN:   -mllvm -kvalidate-timeout=0 \
// RUN:   -mllvm -kvalidate-kernel=find -mllvm -kvalidate-kernel=copy_to_zero \
// RUN:   -mllvm -kvalidate-kernel=sum_until -mllvm -kvalidate-kernel=sum_until_for \
// RUN:   -mllvm -kvalidate-kernel=find_ptr -mllvm -kvalidate-kernel=chase \
// RUN:   %inputs/breaks.cu -o %t.s 2>&1 \
// RUN:   | FileCheck %s --implicit-check-not=warning: --implicit-check-not=error:
// CHECK-DAG: remark: kvalidate: kernel 'find': equivalent ({{[0-9]+}} ms) [{{.*}}the loop with breaks or data-dependent exits at {{.*}}breaks.cu:46:3 stops within 2^31 iterations{{.*}}] [proof: loops aligned: 1 loop with breaks or data-dependent exits proved iteration by iteration (same start, same exits, same update), for any trip count (1 rotated: {{.*}})]
// CHECK-DAG: remark: kvalidate: kernel 'copy_to_zero': equivalent ({{[0-9]+}} ms) [{{.*}}] [proof: loops aligned: 1 loop with breaks {{.*}}(1 rotated: {{.*}})]
// CHECK-DAG: remark: kvalidate: kernel 'sum_until': equivalent ({{[0-9]+}} ms) [{{.*}}] [proof: loops aligned: 1 loop with breaks {{.*}}(1 rotated: {{.*}})]
// CHECK-DAG: remark: kvalidate: kernel 'sum_until_for': equivalent ({{[0-9]+}} ms) [{{.*}}] [proof: loops aligned: 1 loop with breaks {{.*}}(1 rotated: {{.*}})]
// A pointer chase: -O2 moves its load into the loop and carries the index;
// the source's running value is that load.
// CHECK-DAG: remark: kvalidate: kernel 'chase': equivalent ({{[0-9]+}} ms) [{{.*}}] [proof: loops aligned: 1 loop with breaks {{.*}}(1 with the source's running value computed by the other loop from its own{{.*}})]
// CHECK-DAG: remark: kvalidate: kernel 'find_ptr': equivalent ({{[0-9]+}} ms) [{{.*}}] [proof: loops aligned: 1 loop with breaks {{.*}}(1 rotated: {{.*}})]
//
// The code the plugin compiles is unchanged.
// RUN: %clang-cuda -O2 -S %inputs/breaks.cu -o %t.plain.s
// RUN: diff %t.plain.s %t.s

// The solver-heavy lane (test/lit.cfg.py).
// REQUIRES: long
