// A kernel's budget covers all of its validation, the lowering included. A
// barrier loop of 100,000 iterations with a wide body: the lowering unrolls
// it 1024 times, fails to model it (its reads are not staged), and unrolls
// it again for each attempt; before the lowering checked the budget this
// compile took 14.6 s at -kvalidate-timeout=5. Under an address-space cap,
// it ends `unknown` with the budget as the reason, close to the budget
// (what the plugin adds to the compile), clang exits 0, and the PTX is
// the same as without the plugin. (`timeout` only guards against a hang.)
//
// RUN: timed %t.without.ms %clang-cuda -O2 -S %s -o %t.without.s
// RUN: sh -c 'ulimit -v 4000000 && exec timed %t.with.ms timeout 60 %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate -mllvm -kvalidate-timeout=5 -mllvm -kvalidate-cache= %s -o %t.with.s' 2>&1 | FileCheck %s --check-prefix=TIME
// RUN: cmp %t.without.s %t.with.s
// The bound is the budget plus 30 %: alone the compile takes 5.1 s, but the
// suite runs two tests at once on two cores, where it took up to 6.0 s
// (the compile this guards against took 14.6 s).
// RUN: sh -c 'test $(( $(cat %t.with.ms) - $(cat %t.without.ms) )) -le 6500'
// Where the lowering finishes its 1024 copies inside the budget (a fast
// machine), the loop is named unsupported and the budget still ends the rest.
// TIME: remark: kvalidate: kernel 'barrier_loop': {{unknown: budget|unsupported: .*; then the budget}}: time (5 s per kernel
// TIME-NOT: kvalidate: kernel
//
// The memory bound: the unrolled model's size is capped by it (about a
// thousand lowered instructions per MB), so a small bound stops the
// unrolling long before the time does.
// RUN: sh -c 'ulimit -v 4000000 && exec timed %t.mem.ms timeout 60 %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate -mllvm -kvalidate-timeout=30 -mllvm -kvalidate-max-memory=20 -mllvm -kvalidate-cache= %s -o %t.mem.s' 2>&1 | FileCheck %s --check-prefix=MEM
// RUN: cmp %t.without.s %t.mem.s
// RUN: sh -c 'test $(( $(cat %t.mem.ms) - $(cat %t.without.ms) )) -le 5500'
// MEM: remark: kvalidate: kernel 'barrier_loop': unknown: budget: memory (the unrolled model passed 20000 lowered instructions; the bound is 20 MB per kernel

#define N 256
#define STEP(k)                                                                \
  acc = acc * (k + 3) + tile[(t + k) % N] * tile[(t * (k + 1)) % N] - (k ^ acc);

__global__ void barrier_loop(int *out, const int *in) {
  __shared__ int tile[N];
  unsigned t = threadIdx.x;
  int acc = 0;
  for (int it = 0; it < 100000; ++it) {
    tile[t % N] = in[(it * N + t) & 4095] + acc;
    __syncthreads();
    STEP(1) STEP(2) STEP(3) STEP(4) STEP(5) STEP(6) STEP(7) STEP(8)
    STEP(9) STEP(10) STEP(11) STEP(12) STEP(13) STEP(14) STEP(15) STEP(16)
    __syncthreads();
  }
  out[blockIdx.x * blockDim.x + t] = acc;
}
