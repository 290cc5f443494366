// A deep chain of reads: a loop of 1000 rounds, each reading what other
// threads wrote in the round before, unrolled into 2000 barrier intervals.
// The interval-by-interval proof settles it at once; without it
// (-kvalidate-no-lockstep, as in timeout.cu) the query's read chains go
// through every interval, and the compile grew past a 4 GB address space
// in 12 s at -kvalidate-timeout=5 (LLVM ERROR: out of memory) before the
// encoder and the index lemmas checked the budget. Under that cap, the
// kernel now ends `unknown` with the budget as the reason within the budget
// plus 10 %, clang exits 0, and the PTX is unchanged.
//
// RUN: timed %t.without.ms %clang-cuda -O2 -S %s -o %t.without.s
// RUN: sh -c 'ulimit -v 4000000 && exec timed %t.with.ms timeout 60 %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate -mllvm -kvalidate-no-lockstep -mllvm -kvalidate-timeout=5 -mllvm -kvalidate-cache= %s -o %t.with.s' 2>&1 | FileCheck %s
// RUN: cmp %t.without.s %t.with.s
// RUN: sh -c 'test $(( $(cat %t.with.ms) - $(cat %t.without.ms) )) -le 5500'
// CHECK: remark: kvalidate: kernel 'read_chain': unknown: {{budget: time \(5 s per kernel|timeout: the time budget ran out while encoding}}
// CHECK-NOT: kvalidate: kernel
//
// The command line's --timeout is the same budget (its safety checks, on
// by default, walked the query's terms for 12 s): the validation's own time
// is within the budget plus 10 %, and the whole run, with the inputs'
// compile, within 8 s even on a loaded machine. A case's own deadline, in
// whole seconds, may stop the encoding just before the kernel's.
// RUN: sh -c 'ulimit -v 4000000 && exec timed %t.cli.ms %expect-exit 2 timeout 60 %kvalidate --cuda-path= --no-lockstep --timeout=5 %s:read_chain %s:read_chain' | FileCheck %s --check-prefix=CLI
// RUN: sh -c 'test $(cat %t.cli.ms) -le 8000'
// CLI: verdict: unknown
// CLI-NEXT: reason: {{budget: time \(5 s per kernel|timeout: the time budget ran out while encoding}}
// CLI: time: {{([0-9]{1,3}|[0-4][0-9]{3}|5[0-4][0-9]{2})}} ms

#define N 128

__global__ void read_chain(int *out, const int *in) {
  __shared__ int buf[N];
  unsigned t = threadIdx.x % N;
  buf[t] = in[t];
  __syncthreads();
  for (int r = 0; r < 1000; ++r) {
    int v = buf[(t + r) % N] + buf[(t * 3 + 1) % N];
    __syncthreads();
    buf[t] = v;
    __syncthreads();
  }
  out[t] = buf[t];
}
