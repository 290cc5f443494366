// The plugin validates the -O2 pipeline of kernels with grid-stride loops
// (symbolic trip counts, no barrier) with no assumptions, as a real build
// would: the optimizer rotates them into a guarded do-while, which the loop
// model (kv.iter, do_while) counts from the same iterations as the source's
// for loop. Where n near INT_MAX makes the variable wrap around, the loops
// are aligned instead: both run the iterations of a loop with their bounds
// (the proof names a launch where it wraps, or, on a loaded machine, says
// that the solver's budget for finding one ran out).
//
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate -fno-discard-value-names \
// RUN:   -mllvm -kvalidate-timeout=120 \
// RUN:   -mllvm -kvalidate-kernel=axpy_grid_stride -mllvm -kvalidate-kernel=axpy_block_steps \
// RUN:   %inputs/grid_stride.cu -o %t.axpy.s 2>&1 \
// RUN:   | FileCheck %s --check-prefix=AXPY --implicit-check-not=warning: --implicit-check-not=error:
// AXPY-DAG: remark: kvalidate: kernel 'axpy_grid_stride': equivalent ({{[0-9]+}} ms) [{{.*}}] [proof: loops aligned: the loop at {{.*}}grid_stride.cu:13:3 ({{e.g. gridDim .*|not proved countable within the solver's budget}}) runs the same iterations in both kernels where the model does not count it (the variable may wrap around)
// AXPY-DAG: remark: kvalidate: kernel 'axpy_block_steps': equivalent ({{[0-9]+}} ms) [{{.*}}] [proof: loops aligned: the loop at {{.*}}grid_stride.cu:30:3
//
// Nested 2-D grid-stride loops.
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate -fno-discard-value-names \
// RUN:   -mllvm -kvalidate-timeout=300 -mllvm -kvalidate-kernel=mask_grid_stride_2d \
// RUN:   %inputs/grid_stride.cu -o %t.s 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NESTED --implicit-check-not=error:
// NESTED: remark: kvalidate: kernel 'mask_grid_stride_2d': equivalent ({{[0-9]+}} ms) [{{.*}}] [proof: loops aligned: the loops at {{.*}}grid_stride.cu:48:3 {{.*}}, {{.*}}grid_stride.cu:50:5
//
// The plugin leaves the code alone: the same PTX as without it (the first
// run's output, two kernels validated).
// RUN: %clang-cuda -O2 -S -fno-discard-value-names %inputs/grid_stride.cu -o %t.plain.s
// RUN: diff %t.plain.s %t.axpy.s

// The solver-heavy lane (test/lit.cfg.py).
// REQUIRES: long
