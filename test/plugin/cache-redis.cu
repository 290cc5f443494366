// -kvalidate-cache=redis://HOST:PORT keeps verdicts in a Redis shared by a
// build farm: the second compile of the same code is a cache hit. A Redis
// that cannot be reached is one remark, and the compile goes on uncached.
// REQUIRES: redis
//
// RUN: rm -rf %t && mkdir %t
// RUN: with-redis %t/redis '%clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate \
// RUN:   -mllvm -kvalidate-cache=$REDIS_URL -mllvm -kvalidate-kernel=offset %inputs/gating.cu \
// RUN:   -o %t/cold.s 2> %t/cold && %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate \
// RUN:   -mllvm -kvalidate-cache=$REDIS_URL -mllvm -kvalidate-kernel=offset \
// RUN:   -mllvm -kvalidate-report=%t/warm.jsonl %inputs/gating.cu -o %t/warm.s 2> %t/warm'
// RUN: FileCheck %s --check-prefix=COLD --implicit-check-not=warning: < %t/cold
// COLD: remark: kvalidate: kernel 'offset': equivalent ({{[0-9]+}} ms) [assumptions:
// COLD-NOT: [cached]
// RUN: FileCheck %s --check-prefix=WARM --implicit-check-not=warning: < %t/warm
// WARM: remark: kvalidate: kernel 'offset': equivalent ({{[0-9]+}} ms) [assumptions: {{.*}}] [cached]
// RUN: FileCheck %s --check-prefix=WARMJ < %t/warm.jsonl
// WARMJ: "cached":true,{{.*}}"kernel":"offset"
//
// Nothing listens on port 1: a remark (-Rpass=kvalidate), then the
// kernel is proved; -Werror does not make the remark an error.
// RUN: %clang-cuda -O2 -S -Werror -fpass-plugin=%plugin -Rpass=kvalidate \
// RUN:   -mllvm -kvalidate-cache=redis://127.0.0.1:1 -mllvm -kvalidate-kernel=offset \
// RUN:   %inputs/gating.cu -o %t/down.s 2>&1 | FileCheck %s --check-prefix=DOWN
// DOWN: remark: kvalidate: the verdict cache is off: redis://127.0.0.1:1 is unreachable ({{.*}}); going on without it
// DOWN: remark: kvalidate: kernel 'offset': equivalent
// (A malformed redis:// is an error: test/plugin/cache.cu.)
