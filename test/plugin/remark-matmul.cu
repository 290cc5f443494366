// Matrix multiply and tile loops inside clang at -O2. The naive kernel's
// accumulation loop is unrolled twice (an odd n's last term after the
// loop); the tiled kernels keep their barrier loop over the tiles, rotated
// (the short one tests the counter before its increment), with the inner
// loop over a tile fully unrolled. The plugin proves each pipeline for
// every n that is a multiple of the tile. (The barrier loops of tiles.cu:
// remark-barrier-loops.cu.)
//
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate -fno-discard-value-names \
// RUN:   -mllvm -kvalidate-timeout=300 \
// RUN:   -mllvm -kvalidate-assume='blockDim.x == 16 && blockDim.y == 16 && blockDim.z == 1 && gridDim.z == 1 && n % 16 == 0 && n > 0 && gridDim.x * 16 == n && gridDim.y * 16 == n' \
// RUN:   %inputs/matmul.cu -o %t.s 2>&1 \
// RUN:   | FileCheck %s --implicit-check-not=warning: --implicit-check-not=error:
// CHECK-DAG: remark: kvalidate: kernel 'matmul_naive': equivalent ({{[0-9]+}} ms)
// CHECK-DAG: remark: kvalidate: kernel 'matmul_tiled': equivalent ({{[0-9]+}} ms)
// CHECK-DAG: remark: kvalidate: kernel 'matmul_tiled_short': equivalent ({{[0-9]+}} ms)

// With no assumptions at all: the tiled kernel states its block shape
// (-DSTATE_BLOCK, `if (...) __builtin_unreachable();`), and n is any int.
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate -mllvm -kvalidate-cache= \
// RUN:   -mllvm -kvalidate-timeout=300 -mllvm -kvalidate-kernel=matmul_tiled \
// RUN:   -DSTATE_BLOCK -DTILE=4 %inputs/matmul.cu -o %t.s 2>&1 \
// RUN:   | FileCheck %s --check-prefix=STATED --implicit-check-not=warning: --implicit-check-not=error:
// STATED: remark: kvalidate: kernel 'matmul_tiled': equivalent ({{[0-9]+}} ms) [assumptions: {{.*}}the before kernel reaches no __builtin_unreachable() (undefined behaviour)

// The solver-heavy lane (test/lit.cfg.py).
// REQUIRES: long
