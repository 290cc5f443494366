// -kvalidate-cache=DIR keeps verdicts keyed by a hash of the module before
// and after the pipeline, the kernel, the options and kvalidate's build: a
// second compile of the same code reports the verdict without proving it
// again, and says so ([cached]; "cached":true in the report).
//
// RUN: rm -rf %t && mkdir %t
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate \
// RUN:   -mllvm -kvalidate-cache=%t/cache -mllvm -kvalidate-report=%t/cold.jsonl \
// RUN:   -mllvm -kvalidate-kernel=offset -mllvm -kvalidate-kernel=negate %inputs/gating.cu -o %t/cold.s 2>&1 \
// RUN:   | FileCheck %s --check-prefix=COLD
// COLD: remark: kvalidate: kernel 'offset': equivalent ({{[0-9]+}} ms) [assumptions:
// COLD-NOT: [cached]
// RUN: not grep -q cached %t/cold.jsonl
//
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate \
// RUN:   -mllvm -kvalidate-cache=%t/cache -mllvm -kvalidate-report=%t/warm.jsonl \
// RUN:   -mllvm -kvalidate-kernel=offset -mllvm -kvalidate-kernel=negate %inputs/gating.cu -o %t/warm.s 2>&1 \
// RUN:   | FileCheck %s --check-prefix=WARM
// WARM: remark: kvalidate: kernel 'offset': equivalent ({{[0-9]+}} ms) [assumptions: {{.*}}] [cached]
// WARM: remark: kvalidate: kernel 'negate': equivalent ({{[0-9]+}} ms) [assumptions: {{.*}}] [cached]
// RUN: FileCheck %s --check-prefix=WARMJ < %t/warm.jsonl
// WARMJ: "cached":true,{{.*}}"kernel":"offset"
// WARMJ: "cached":true,{{.*}}"kernel":"negate"
// The code is the same either way.
// RUN: diff %t/cold.s %t/warm.s
//
// Another option value is another key: proved again.
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate -mllvm -kvalidate-bits=16 \
// RUN:   -mllvm -kvalidate-cache=%t/cache -mllvm -kvalidate-kernel=offset %inputs/gating.cu -o %t/o.s 2>&1 \
// RUN:   | FileCheck %s --check-prefix=COLD
//
// A damaged entry is a miss, and is replaced.
// RUN: python3 -c "import glob; [open(f, 'w').write('{\"key\":') for f in glob.glob('%t/cache/*/*.json')]"
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate \
// RUN:   -mllvm -kvalidate-cache=%t/cache -mllvm -kvalidate-kernel=offset %inputs/gating.cu -o %t/o.s 2>&1 \
// RUN:   | FileCheck %s --check-prefix=COLD
//
// A cache that cannot be written is one warning; the compile goes on.
// RUN: touch %t/file
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate \
// RUN:   -mllvm -kvalidate-cache=%t/file/cache -mllvm -kvalidate-kernel=offset -mllvm -kvalidate-kernel=negate \
// RUN:   %inputs/gating.cu -o %t/o.s 2>&1 | FileCheck %s --check-prefix=UNWRITABLE
// UNWRITABLE-COUNT-1: warning: kvalidate: cannot keep verdicts in the cache: cannot create {{.*}}file/cache
// UNWRITABLE: remark: kvalidate: kernel 'negate': equivalent
//
// An empty DIR turns the cache off.
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate -mllvm -kvalidate-cache= \
// RUN:   -mllvm -kvalidate-kernel=offset %inputs/gating.cu -o %t/o.s 2>&1 | FileCheck %s --check-prefix=COLD
