// Verdicts that decide nothing (unknown, unsupported) are cached too, under
// a key that holds the budget: a rebuild of unchanged code does not pay
// the budget again. A policy that fails the build on them does not take
// them from the cache (a cache entry alone never fails a build): they are
// found again.
//
// RUN: rm -rf %t && mkdir %t
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate -mllvm -kvalidate-timeout=2 \
// RUN:   -mllvm -kvalidate-kernel=staged_matvec -mllvm -kvalidate-cache=%t/cache %s -o %t/cold.s 2>&1 | FileCheck %s --check-prefix=COLD
// COLD: remark: kvalidate: kernel 'staged_matvec': unknown: budget: time (2 s per kernel
// COLD-NOT: [cached]
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate -mllvm -kvalidate-timeout=2 \
// RUN:   -mllvm -kvalidate-kernel=staged_matvec -mllvm -kvalidate-cache=%t/cache %s -o %t/warm.s 2>&1 | FileCheck %s --check-prefix=WARM
// WARM: remark: kvalidate: kernel 'staged_matvec': unknown: budget: time (2 s per kernel{{.*}}) [cached]
// RUN: diff %t/cold.s %t/warm.s
//
// Another budget is another key.
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate -mllvm -kvalidate-timeout=1 \
// RUN:   -mllvm -kvalidate-kernel=staged_matvec -mllvm -kvalidate-cache=%t/cache %s -o %t/o.s 2>&1 | FileCheck %s --check-prefix=OTHER
// OTHER: remark: kvalidate: kernel 'staged_matvec': unknown: budget: time (1 s per kernel
// OTHER-NOT: [cached]
//
// -kvalidate-fail-on=unknown: validated again, and the compile fails.
// RUN: not %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate -mllvm -kvalidate-timeout=2 \
// RUN:   -mllvm -kvalidate-fail-on=unknown -mllvm -kvalidate-kernel=staged_matvec -mllvm -kvalidate-cache=%t/cache %s -o %t/o.s 2>&1 \
// RUN:   | FileCheck %s --check-prefix=STRICT
// STRICT: error: kvalidate: kernel 'staged_matvec': unknown: budget: time (2 s per kernel
// STRICT-NOT: [cached]
//
// A kernel whose lowering before the pipeline alone takes a second or
// more (a barrier loop of 100,000 iterations, unrolled 1024 times, or until
// the budget runs out): once its verdict is cached, the rebuild skips that
// lowering too, and costs about a plain compile.
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate -mllvm -kvalidate-timeout=2 \
// RUN:   -mllvm -kvalidate-kernel=long_loop -mllvm -kvalidate-cache=%t/cache2 %s -o %t/o.s 2>&1 \
// RUN:   | FileCheck %s --check-prefix=LONG
// RUN: timed %t/warm.ms %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate -mllvm -kvalidate-timeout=2 \
// RUN:   -mllvm -kvalidate-kernel=long_loop -mllvm -kvalidate-cache=%t/cache2 %s -o %t/o.s 2>&1 \
// RUN:   | FileCheck %s --check-prefix=LONGWARM
// RUN: sh -c 'test $(cat %t/warm.ms) -lt 1000'
// LONG: remark: kvalidate: kernel 'long_loop': {{unknown: budget: time|unsupported: before optimization}}
// LONG-NOT: [cached]
// LONGWARM: remark: kvalidate: kernel 'long_loop': {{unknown: budget: time|unsupported: before optimization}}{{.*}} [cached]

#define T 16

// A mat-vec that stages the vector through two shared buffers: more than
// two seconds to decide.
__global__ void staged_matvec(const int *m, const int *v, int *out, int n) {
  __shared__ int part[2][T];
  unsigned t = threadIdx.x;
  int row = blockIdx.x * T + t;
  int acc = 0;
  part[0][t] = v[t];
  __syncthreads();
  for (int k = 0; k < n / T; ++k) {
    if (k + 1 < n / T)
      part[(k + 1) % 2][t] = v[(k + 1) * T + t];
    for (int j = 0; j < T; ++j)
      acc += m[row * n + k * T + j] * part[k % 2][j];
    __syncthreads();
  }
  out[row] = acc;
}

#define N 256
#define STEP(k)                                                                \
  acc = acc * (k + 3) + tile[(t + k) % N] * tile[(t * (k + 1)) % N] - (k ^ acc);

__global__ void long_loop(int *out, const int *in) {
  __shared__ int tile[N];
  unsigned t = threadIdx.x;
  int acc = 0;
  for (int it = 0; it < 100000; ++it) {
    tile[t % N] = in[(it * N + t) & 4095] + acc;
    __syncthreads();
    STEP(1) STEP(2) STEP(3) STEP(4) STEP(5) STEP(6) STEP(7) STEP(8)
    __syncthreads();
  }
  out[blockIdx.x * blockDim.x + t] = acc;
}
