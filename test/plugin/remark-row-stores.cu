// A row loop over a symbolic width, which -O2 unrolls at run time (four
// stores per iteration, then a remainder loop), is proved in the plugin
// with no assumptions: each cell's writer is found by solving the store's
// index for the loop's iteration (loops/row-stores.test has the CLI).
//
// REQUIRES: long
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate \
// RUN:   -mllvm -kvalidate-kernel=scale_rows %inputs/row_loops.cu -o %t.s 2>&1 \
// RUN:   | FileCheck %s --implicit-check-not=warning: --implicit-check-not=error:
// CHECK: remark: kvalidate: kernel 'scale_rows': equivalent
// RUN: FileCheck %s --check-prefix=UNROLLED < %t.s
// The PTX shows the unrolled loop: four stores in one iteration.
// UNROLLED: st.global.b32
// UNROLLED: st.global.b32
// UNROLLED: st.global.b32
// UNROLLED: st.global.b32
