// The plugin validates the -O2 pipeline of kernels with grid-stride loops
// (symbolic trip counts, no barrier): the optimizer rotates them into a
// guarded do-while, which the loop model (kv.iter, do_while) counts from the
// same iterations as the source's for loop.
//
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate -fno-discard-value-names \
// RUN:   -mllvm -kvalidate-timeout=120 \
// RUN:   -mllvm -kvalidate-kernel=axpy_each -mllvm -kvalidate-kernel=axpy_grid_stride \
// RUN:   -mllvm -kvalidate-kernel=axpy_grid_stride_past_end -mllvm -kvalidate-kernel=axpy_block_steps \
// RUN:   -mllvm -kvalidate-assume='gridDim.x <= 65535 && %{1D} && n <= 1000000' \
// RUN:   %inputs/grid_stride.cu -o %t.s 2>&1 \
// RUN:   | FileCheck %s --check-prefix=AXPY --implicit-check-not=warning: --implicit-check-not=error:
// AXPY-DAG: remark: kvalidate: kernel 'axpy_each': equivalent ({{[0-9]+}} ms)
// AXPY-DAG: remark: kvalidate: kernel 'axpy_grid_stride': equivalent ({{[0-9]+}} ms) [assumptions: {{.*}}a countable loop at
// AXPY-DAG: remark: kvalidate: kernel 'axpy_grid_stride_past_end': equivalent ({{[0-9]+}} ms)
// AXPY-DAG: remark: kvalidate: kernel 'axpy_block_steps': equivalent ({{[0-9]+}} ms)
//
// Nested 2-D grid-stride loops.
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate -fno-discard-value-names \
// RUN:   -mllvm -kvalidate-timeout=300 -mllvm -kvalidate-kernel=mask_grid_stride_2d \
// RUN:   -mllvm -kvalidate-assume='gridDim.x <= 65535 && blockDim.z == 1 && gridDim.z == 1 && w > 0 && h > 0 && w <= 32768 && h <= 32768' \
// RUN:   %inputs/grid_stride.cu -o %t.s 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NESTED --implicit-check-not=error:
// NESTED: remark: kvalidate: kernel 'mask_grid_stride_2d': equivalent ({{[0-9]+}} ms)
//
// The plugin leaves the code alone: the same PTX with and without it.
// RUN: %clang-cuda -O2 -S %inputs/grid_stride.cu -o %t.plain.s
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -mllvm -kvalidate-kernel=axpy_grid_stride \
// RUN:   %inputs/grid_stride.cu -o %t.plugin.s 2>/dev/null
// RUN: diff %t.plain.s %t.plugin.s

// The solver-heavy lane (test/lit.cfg.py).
// REQUIRES: long
