// The plugin validates the -O2 pipelines of the remaining test inputs,
// each under the launch assumptions its kernels are written for: the
// padded and swizzled transposes, the deliberately wrong kernels (each is
// its own pipeline's source: wrong against the naive one, not against its
// -O2 IR), and the scalar kernels of misc.cu, which need no assumption.
//
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate \
// RUN:   -mllvm -kvalidate-timeout=300 -mllvm -kvalidate-assume='%{SQ16}' \
// RUN:   %inputs/transpose_padded.cu -o %t.s 2>&1 \
// RUN:   | FileCheck %s --check-prefix=PADDED --implicit-check-not=warning: --implicit-check-not=error:
// PADDED-DAG: remark: kvalidate: kernel 'transpose_naive': equivalent ({{[0-9]+}} ms)
// PADDED-DAG: remark: kvalidate: kernel 'transpose_tiled': equivalent ({{[0-9]+}} ms)
// PADDED-DAG: remark: kvalidate: kernel 'transpose_padded': equivalent ({{[0-9]+}} ms)
//
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate \
// RUN:   -mllvm -kvalidate-timeout=300 -mllvm -kvalidate-assume='%{SQ16}' \
// RUN:   -mllvm -kvalidate-kernel=transpose_swizzled \
// RUN:   %inputs/transpose_swizzled.cu -o %t.s 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SWIZZLED --implicit-check-not=warning: --implicit-check-not=error:
// SWIZZLED: remark: kvalidate: kernel 'transpose_swizzled': equivalent ({{[0-9]+}} ms)
//
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate \
// RUN:   -mllvm -kvalidate-timeout=300 -mllvm -kvalidate-assume='%{SQ16}' \
// RUN:   -mllvm -kvalidate-kernel=transpose_tiled_wrong_index \
// RUN:   -mllvm -kvalidate-kernel=transpose_tiled_wrong_block \
// RUN:   %inputs/wrong.cu -o %t.s 2>&1 \
// RUN:   | FileCheck %s --check-prefix=WRONGT --implicit-check-not=warning: --implicit-check-not=error:
// WRONGT-DAG: remark: kvalidate: kernel 'transpose_tiled_wrong_index': equivalent ({{[0-9]+}} ms)
// WRONGT-DAG: remark: kvalidate: kernel 'transpose_tiled_wrong_block': equivalent ({{[0-9]+}} ms)
//
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate \
// RUN:   -mllvm -kvalidate-timeout=400 -mllvm -kvalidate-assume='%{B256}' \
// RUN:   -mllvm -kvalidate-kernel=stencil_wrong_guard \
// RUN:   -mllvm -kvalidate-kernel=stencil_wrong_halo \
// RUN:   %inputs/wrong.cu -o %t.s 2>&1 \
// RUN:   | FileCheck %s --check-prefix=WRONGS --implicit-check-not=warning: --implicit-check-not=error:
// WRONGS-DAG: remark: kvalidate: kernel 'stencil_wrong_guard': equivalent ({{[0-9]+}} ms)
// WRONGS-DAG: remark: kvalidate: kernel 'stencil_wrong_halo': equivalent ({{[0-9]+}} ms)
//
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate \
// RUN:   %inputs/misc.cu -o %t.s 2>&1 \
// RUN:   | FileCheck %s --check-prefix=MISC --implicit-check-not=warning: --implicit-check-not=error:
// MISC-DAG: remark: kvalidate: kernel 'copy': equivalent ({{[0-9]+}} ms)
// MISC-DAG: remark: kvalidate: kernel 'copy2': equivalent ({{[0-9]+}} ms)
// MISC-DAG: remark: kvalidate: kernel 'copy_ptr': equivalent ({{[0-9]+}} ms)
// MISC-DAG: remark: kvalidate: kernel 'copy_reset_empty': equivalent ({{[0-9]+}} ms)
// MISC-DAG: remark: kvalidate: kernel 'copy_extra_arg': equivalent ({{[0-9]+}} ms)
// MISC-DAG: remark: kvalidate: kernel 'scale': equivalent ({{[0-9]+}} ms)
// MISC-DAG: remark: kvalidate: kernel 'scale_by2': equivalent ({{[0-9]+}} ms)
// MISC-DAG: remark: kvalidate: kernel 'scale_skip_zero': equivalent ({{[0-9]+}} ms)
// MISC-DAG: remark: kvalidate: kernel 'noop': equivalent ({{[0-9]+}} ms)
// MISC-DAG: remark: kvalidate: kernel 'noop2': equivalent ({{[0-9]+}} ms)

// The solver-heavy lane (test/lit.cfg.py).
// REQUIRES: long
