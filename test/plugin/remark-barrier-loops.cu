// The plugin validates barrier loops with a symbolic trip count
// (test/Inputs/tiles.cu) at -O2. neighbour_direct's loop is runtime-unrolled
// by 4 and its `(t + 1) % blockDim.x` narrowed to an i16 urem (the
// hardware's thread limits make that exact): the quotient and remainder
// abstraction relates the two widths, so the regrouped sum is proved.
// neighbour_far, tile_global_write and tile_one_barrier are shapes the loop
// model leaves out; the relational proof pairs each with its -O2 form
// (rotated: the source tests `r < rounds` at the header, -O2 at the
// bottom, with the counter below `rounds` in between). tile_after_loop
// stays a remark naming the construct, never a verdict.
//
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate \
// RUN:   -mllvm -kvalidate-timeout=300 \
// RUN:   -mllvm -kvalidate-assume='blockDim.x <= 64 && %{1D} && rounds <= 1000' \
// RUN:   -fno-discard-value-names %inputs/tiles.cu -o %t.s 2>&1 \
// RUN:   | FileCheck %s --implicit-check-not=error: --implicit-check-not=remark:
// CHECK-DAG: remark: kvalidate: kernel 'neighbour_direct': equivalent ({{[0-9]+}} ms)
// CHECK-DAG: remark: kvalidate: kernel 'neighbour_staged': equivalent ({{[0-9]+}} ms)
// CHECK-DAG: remark: kvalidate: kernel 'neighbour_wrong': equivalent ({{[0-9]+}} ms)
// CHECK-DAG: tiles.cu:39:17: remark: kvalidate: kernel 'neighbour_far': equivalent ({{[0-9]+}} ms) {{.*}}[proof: relational:
// CHECK-DAG: tiles.cu:52:17: remark: kvalidate: kernel 'tile_after_loop': unsupported: {{.*}}read of a shared array after a barrier loop that stages it
// CHECK-DAG: tiles.cu:64:17: remark: kvalidate: kernel 'tile_global_write': equivalent ({{[0-9]+}} ms) {{.*}}[proof: relational:
// CHECK-DAG: tiles.cu:75:17: remark: kvalidate: kernel 'tile_one_barrier': equivalent ({{[0-9]+}} ms) {{.*}}[proof: relational:

// The solver-heavy lane (test/lit.cfg.py).
// REQUIRES: long
