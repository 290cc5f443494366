// The plugin validates kernels with shared memory and barriers: the -O2
// output of each kernel of the test inputs against its source, under the
// launch assumptions the kernels are written for (-kvalidate-assume; the
// source kernel's out-of-bounds shared accesses are undefined behaviour and
// excluded, its races are not).
//
// The transposes, for square blocks of side <= 16. The budget is wall-clock:
// 15 s timed transpose_tiled out when the machine ran three jobs at once;
// each takes about 10 s idle.
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate \
// RUN:   -mllvm -kvalidate-timeout=120 \
// RUN:   -mllvm -kvalidate-assume='%{SQ16}' %inputs/transpose.cu -o %t.s 2>&1 \
// RUN:   | FileCheck %s --check-prefix=TRANSPOSE --implicit-check-not=warning: --implicit-check-not=error:
// TRANSPOSE-DAG: remark: kvalidate: kernel 'transpose_naive': equivalent ({{[0-9]+}} ms)
// TRANSPOSE-DAG: remark: kvalidate: kernel 'transpose_tiled': equivalent ({{[0-9]+}} ms)
// Block origins blockIdx.x * 16, which -O2 turns into a shift: the lowering
// reads `shl x, 4` as x * 16, the form the index reasoning knows.
// TRANSPOSE-DAG: remark: kvalidate: kernel 'transpose_tiled_const': equivalent ({{[0-9]+}} ms)
//
// The 1-D stencils with a shared halo, for 1-D launches of <= 256 threads.
// Each takes about 30 s of one core: the budget leaves room for a loaded
// machine.
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate \
// RUN:   -mllvm -kvalidate-timeout=400 -mllvm -kvalidate-assume='%{B256}' %inputs/stencil.cu -o %t.s 2>&1 \
// RUN:   | FileCheck %s --check-prefix=STENCIL --implicit-check-not=warning: --implicit-check-not=error:
// STENCIL-DAG: remark: kvalidate: kernel 'stencil_naive': equivalent ({{[0-9]+}} ms)
// STENCIL-DAG: remark: kvalidate: kernel 'stencil_shared': equivalent ({{[0-9]+}} ms)
// STENCIL-DAG: remark: kvalidate: kernel 'stencil_shared_overread': equivalent ({{[0-9]+}} ms)
//
// Float copies through shared memory need no assumption at all.
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate \
// RUN:   %inputs/float_copy.cu -o %t.s 2>&1 \
// RUN:   | FileCheck %s --check-prefix=FLOAT --implicit-check-not=warning: --implicit-check-not=error:
// FLOAT-DAG: remark: kvalidate: kernel 'float_copy_direct': equivalent ({{[0-9]+}} ms)
// FLOAT-DAG: remark: kvalidate: kernel 'float_copy_shared': equivalent ({{[0-9]+}} ms)
// FLOAT-DAG: remark: kvalidate: kernel 'float_copy_shared_mirror': equivalent ({{[0-9]+}} ms)
//
// The constant-trip-count block sums (BLOCK = 256 values), for the block
// size they are written for; the loops are fully unrolled at -O2. The short
// one is wrong against the others but is its own -O2 pipeline's source.
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate \
// RUN:   -mllvm -kvalidate-timeout=120 \
// RUN:   -mllvm -kvalidate-assume='blockDim.x == 256 && %{1D}' %inputs/reduce.cu -o %t.s 2>&1 \
// RUN:   | FileCheck %s --check-prefix=REDUCE --implicit-check-not=warning: --implicit-check-not=error:
// REDUCE-DAG: remark: kvalidate: kernel 'reduce_interleaved': equivalent ({{[0-9]+}} ms)
// REDUCE-DAG: remark: kvalidate: kernel 'reduce_strided': equivalent ({{[0-9]+}} ms)
// REDUCE-DAG: remark: kvalidate: kernel 'reduce_short': equivalent ({{[0-9]+}} ms)
