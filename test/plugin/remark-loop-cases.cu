// Kernels whose loops run log2(blockDim.x) steps: the plugin proves each
// -O2 pipeline by cases on blockDim.x (the source is kept and lowered again
// for each power-of-two block size the assumptions allow), and says so.
//
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate \
// RUN:   -mllvm -kvalidate-assume='%{POW2} && %{1D} && blockDim.x <= 256' \
// RUN:   -mllvm -kvalidate-kernel=sum_interleaved -mllvm -kvalidate-kernel=sum_halving \
// RUN:   %inputs/block_reduce.cu -o %t.s 2>&1 \
// RUN:   | FileCheck %s --check-prefix=REDUCE --implicit-check-not=warning: --implicit-check-not=error:
// REDUCE-DAG: remark: kvalidate: kernel 'sum_interleaved': equivalent ({{[0-9]+}} ms) [{{.*}}proof by cases: each of the 9 values of blockDim.x that the assumptions allow (1, 2, 4, 8, 16, 32, ..., 256)
// REDUCE-DAG: remark: kvalidate: kernel 'sum_halving': equivalent
//
// The scans for one block size.
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate \
// RUN:   -mllvm -kvalidate-assume='blockDim.x == 32 && %{1D}' \
// RUN:   %inputs/block_scan.cu -o %t.s 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SCAN --implicit-check-not=warning: --implicit-check-not=error:
// SCAN-DAG: remark: kvalidate: kernel 'scan_steps': equivalent ({{[0-9]+}} ms) [{{.*}}blockDim.x == 32 (the only values the assumptions allow
// SCAN-DAG: remark: kvalidate: kernel 'scan_tree': equivalent
// SCAN-DAG: remark: kvalidate: kernel 'scan_tree_bug': equivalent
//
// Twins of both with no assumption at all (the other kernels of each file
// are proved the same way; plugin/remark-unroll-exact.cu has more): without an assumption that
// bounds the block size there is no split. Each loop runs at most 10
// iterations for every block size, which the checker proves, so it is
// unrolled that far and the pipeline is proved interval by interval, for
// every launch (plugin/remark-unroll-exact.cu has more). In Blelloch's
// down-sweep -O2 rewrites the index (t + 1) * 2 * d - 1 by distributivity:
// those writes match with exact products.
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate \
// RUN:   -mllvm -kvalidate-kernel=sum_strided -mllvm -kvalidate-kernel=sum_halving \
// RUN:   %inputs/block_reduce.cu -o %t.s 2>&1 \
// RUN:   | FileCheck %s --check-prefix=EXACT --implicit-check-not=warning: --implicit-check-not=error:
// EXACT-DAG: remark: kvalidate: kernel 'sum_strided': equivalent ({{[0-9]+}} ms) [{{.*}}checked: the after kernel has a loop that runs at most 10 iterations (unrolled that far) at {{.*}}block_reduce.cu:{{[0-9]+}}:3 (proved)] [proof: {{.*}}loops unrolled exactly: each loop the model cannot count runs at most 10 iterations (proved)
// EXACT-DAG: remark: kvalidate: kernel 'sum_halving': equivalent ({{[0-9]+}} ms) [{{.*}}] [proof: interval by interval: {{.*}}; loops unrolled exactly
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate \
// RUN:   -mllvm -kvalidate-kernel=scan_tree %inputs/block_scan.cu -o %t.s 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SCAN-ANY --implicit-check-not=warning: --implicit-check-not=error:
// SCAN-ANY: remark: kvalidate: kernel 'scan_tree': equivalent ({{[0-9]+}} ms) [{{.*}}] [proof: interval by interval: {{.*}}; loops unrolled exactly
// Without exact unrolling the relational proof takes the loop: one step
// around it, whatever blockDim.x is.
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate \
// RUN:   -mllvm -kvalidate-unroll-exact=0 \
// RUN:   -mllvm -kvalidate-kernel=sum_strided %inputs/block_reduce.cu -o %t.s 2>&1 \
// RUN:   | FileCheck %s --check-prefix=RELATIONAL
// RELATIONAL: remark: kvalidate: kernel 'sum_strided': equivalent ({{[0-9]+}} ms) {{.*}}[proof: relational: {{.*}}1 loop
// Without it too the loop is unsupported, as a remark, and the code is
// unchanged.
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate \
// RUN:   -mllvm -kvalidate-unroll-exact=0 -mllvm -kvalidate-relational=false \
// RUN:   -mllvm -kvalidate-kernel=sum_strided %inputs/block_reduce.cu -o %t.s 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NOSPLIT
// NOSPLIT: remark: kvalidate: kernel 'sum_strided': unsupported: {{.*}}loop whose trip count is not a constant {{.*}}(no case split: the assumptions allow more than 64 values of blockDim.x)

// The solver-heavy lane (test/lit.cfg.py).
// REQUIRES: long
