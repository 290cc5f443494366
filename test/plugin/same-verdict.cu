// The command line and the pass plugin are two front doors of one driver and
// one report layer: the same pair (this kernel before and after opt's -O2)
// gets the same verdict, proof method and assumptions through both. The CLI
// runs with --safety-checks=false, the plugin's default, so that the race
// and bounds checks are assumptions in both.
//
// RUN: %clang-cuda -O2 -Xclang -disable-llvm-passes -S -emit-llvm %s -o %t.ll
// RUN: %opt -passes='default<O2>' %t.ll -S -o %t.opt.ll
// RUN: %kvalidate --safety-checks=false %t.ll:tree_sum %t.opt.ll:tree_sum > %t.cli
// (No verdict cache: a cached remark ends in [cached].)
// RUN: %opt -load-pass-plugin=%plugin -passes='kvalidate-start,default<O2>,kvalidate-check' \
// RUN:   -kvalidate-cache= -pass-remarks=kvalidate %t.ll -disable-output 2> %t.plugin
// RUN: FileCheck %s --check-prefix=CLI < %t.cli
// RUN: FileCheck %s --check-prefix=PLUGIN < %t.plugin
//
// The assumptions, one per line, and the proof method are the same text.
// RUN: sed -n 's/^    - //p' %t.cli > %t.cli.assumed
// RUN: sed -n 's/.*\[assumptions: \(.*\)\] \[proof: .*/\1/p' %t.plugin | sed 's/; /\n/g' > %t.plugin.assumed
// RUN: diff %t.cli.assumed %t.plugin.assumed
// RUN: sed -n 's/^  proof: //p' %t.cli > %t.cli.proof
// RUN: sed -n 's/.*\] \[proof: \(.*\)\]$/\1/p' %t.plugin > %t.plugin.proof
// RUN: diff %t.cli.proof %t.plugin.proof
// RUN: FileCheck %s --check-prefix=ASSUMED < %t.plugin.assumed
//
// CLI: verdict: equivalent
// CLI-NEXT: proof: interval by interval
// PLUGIN: remark: kvalidate: kernel 'tree_sum<64u>': equivalent ({{[0-9]+}} ms) [assumptions: {{.*}}] [proof: interval by interval
// ASSUMED: pointer parameters src, partial point to distinct, non-overlapping arrays
// ASSUMED: the before kernel has no signed integer overflow
// ASSUMED: both kernels are free of data races, barrier divergence and out-of-bounds shared accesses

// A block's tree sum over dynamic shared memory; -O2 unrolls the levels (the
// block size is a template parameter) and reorders the additions' operands.
template <unsigned Threads>
__global__ void tree_sum(const int *src, int *partial, unsigned count) {
  extern __shared__ int acc[];
  unsigned lane = threadIdx.x;
  unsigned at = blockIdx.x * (2 * Threads) + lane;
  int v = at < count ? src[at] : 0;
  if (at + Threads < count)
    v += src[at + Threads];
  acc[lane] = v;
  __syncthreads();
  for (unsigned half = Threads / 2; half > 0; half /= 2) {
    if (lane < half)
      acc[lane] = v = v + acc[lane + half];
    __syncthreads();
  }
  if (lane == 0)
    partial[blockIdx.x] = v;
}
template __global__ void tree_sum<64>(const int *, int *, unsigned);
