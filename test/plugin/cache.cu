// -kvalidate-cache=DIR keeps verdicts keyed by a hash of the module before
// and after the pipeline, the kernel, the options and kvalidate's build: a
// second compile of the same code reports the verdict without proving it
// again, and says so ([cached]; "cached":true in the report).
//
// REQUIRES: long
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
// A cache that cannot be written is one remark (-Rpass=kvalidate),
// which -Werror leaves alone; the compile goes on.
// RUN: touch %t/file
// RUN: %clang-cuda -O2 -S -Werror -fpass-plugin=%plugin -Rpass=kvalidate \
// RUN:   -mllvm -kvalidate-cache=%t/file/cache -mllvm -kvalidate-kernel=offset -mllvm -kvalidate-kernel=negate \
// RUN:   %inputs/gating.cu -o %t/o.s 2>&1 | FileCheck %s --check-prefix=UNWRITABLE
// UNWRITABLE-COUNT-1: remark: kvalidate: cannot keep verdicts in the cache: cannot create {{.*}}file/cache
// UNWRITABLE: remark: kvalidate: kernel 'negate': equivalent
//
// An entry edited by hand (its checksum left as it was) is a miss; so is an
// entry copied under another key, checksum and all.
// RUN: rm -rf %t/tamper && %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate -mllvm -kvalidate-cache=%t/tamper \
// RUN:   -mllvm -kvalidate-kernel=offset -mllvm -kvalidate-kernel=negate %inputs/gating.cu -o %t/o.s 2> /dev/null
// RUN: tamper-cache edit %t/tamper
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate -mllvm -kvalidate-cache=%t/tamper \
// RUN:   -mllvm -kvalidate-kernel=offset -mllvm -kvalidate-kernel=negate %inputs/gating.cu -o %t/o.s 2>&1 \
// RUN:   | FileCheck %s --check-prefix=MISS2
// RUN: tamper-cache swap %t/tamper
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate -mllvm -kvalidate-cache=%t/tamper \
// RUN:   -mllvm -kvalidate-kernel=offset -mllvm -kvalidate-kernel=negate %inputs/gating.cu -o %t/o.s 2>&1 \
// RUN:   | FileCheck %s --check-prefix=MISS2
// MISS2-NOT: [cached]
// MISS2-NOT: EQUIVALENT
// MISS2: remark: kvalidate: kernel 'offset': equivalent
// MISS2-NOT: [cached]
// MISS2: remark: kvalidate: kernel 'negate': equivalent
// MISS2-NOT: [cached]
//
// -kvalidate-cache-key=FILE signs the entries (HMAC-SHA256, as Python's
// hmac computes it); an entry signed with another key, or a forged one
// whose checksum was computed again, is a miss under the key. Without a key
// the checksum alone guards against accidents, not against a forger.
// RUN: rm -rf %t/signed && echo secret-one > %t/key1 && echo secret-two > %t/key2
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate -mllvm -kvalidate-cache=%t/signed \
// RUN:   -mllvm -kvalidate-cache-key=%t/key1 -mllvm -kvalidate-kernel=offset %inputs/gating.cu -o %t/o.s 2> /dev/null
// RUN: tamper-cache sign %t/signed %t/key1 | FileCheck %s --check-prefix=SIGNED
// SIGNED: signed: 1 ok
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate -mllvm -kvalidate-cache=%t/signed \
// RUN:   -mllvm -kvalidate-cache-key=%t/key1 -mllvm -kvalidate-kernel=offset %inputs/gating.cu -o %t/o.s 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SIGNWARM
// SIGNWARM: remark: kvalidate: kernel 'offset': equivalent ({{[0-9]+}} ms) [assumptions: {{.*}}] [cached]
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate -mllvm -kvalidate-cache=%t/signed \
// RUN:   -mllvm -kvalidate-cache-key=%t/key2 -mllvm -kvalidate-kernel=offset %inputs/gating.cu -o %t/o.s 2>&1 \
// RUN:   | FileCheck %s --check-prefix=COLD
// RUN: tamper-cache forge %t/signed
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate -mllvm -kvalidate-cache=%t/signed \
// RUN:   -mllvm -kvalidate-kernel=offset %inputs/gating.cu -o %t/o.s 2>&1 | FileCheck %s --check-prefix=FORGED
// FORGED: remark: kvalidate: kernel 'offset': EQUIVALENT {{.*}}[cached]
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate -mllvm -kvalidate-cache=%t/signed \
// RUN:   -mllvm -kvalidate-cache-key=%t/key2 -mllvm -kvalidate-kernel=offset %inputs/gating.cu -o %t/o.s 2>&1 \
// RUN:   | FileCheck %s --check-prefix=COLD
//
// A key file that cannot be read, or is empty, is an error for the compile.
// RUN: touch %t/empty-key
// RUN: not %clang-cuda -O2 -S -fpass-plugin=%plugin -mllvm -kvalidate-cache=%t/signed \
// RUN:   -mllvm -kvalidate-cache-key=%t/no-such-key %inputs/gating.cu -o %t/o.s 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NOKEY --implicit-check-not=kernel
// NOKEY: error: kvalidate: invalid option: -kvalidate-cache-key: cannot read '{{.*}}no-such-key': {{.*}}; nothing is validated
// RUN: not %clang-cuda -O2 -S -fpass-plugin=%plugin -mllvm -kvalidate-cache=%t/signed \
// RUN:   -mllvm -kvalidate-cache-key=%t/empty-key %inputs/gating.cu -o %t/o.s 2>&1 \
// RUN:   | FileCheck %s --check-prefix=EMPTYKEY --implicit-check-not=kernel
// EMPTYKEY: error: kvalidate: invalid option: -kvalidate-cache-key: '{{.*}}empty-key' is empty; nothing is validated
//
// A not-equivalent verdict is never taken from the cache: it is found
// again, its counterexample replayed (verdicts that fail a build are not
// kept).
// RUN: rm -rf %t/broken
// RUN: not %clang-cuda -O2 -S -fpass-plugin=%plugin -fpass-plugin=%test-break-plugin \
// RUN:   -mllvm -kvalidate-cache=%t/broken -mllvm -kvalidate-kernel=offset %inputs/gating.cu -o %t/o.s 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BROKEN
// RUN: not %clang-cuda -O2 -S -fpass-plugin=%plugin -fpass-plugin=%test-break-plugin \
// RUN:   -mllvm -kvalidate-cache=%t/broken -mllvm -kvalidate-kernel=offset %inputs/gating.cu -o %t/o.s 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BROKEN
// BROKEN: error: kvalidate: kernel 'offset': not-equivalent: {{.*}}(replayed on
// BROKEN-NOT: [cached]
// RUN: not ls %t/broken/*/*.json
//
// A location that is neither a directory nor redis://HOST:PORT is an error
// that names it, not a directory called "http:".
// RUN: cd %t && not %clang-cuda -O2 -S -fpass-plugin=%plugin -mllvm -kvalidate-cache=http://x \
// RUN:   %inputs/gating.cu -o %t/o.s 2>&1 | FileCheck %s --check-prefix=SCHEME --implicit-check-not=kernel
// SCHEME: error: kvalidate: invalid option: -kvalidate-cache: 'http://x' is not a directory or a Redis: scheme 'http://' is not supported (only redis://HOST:PORT); nothing is validated
// RUN: not ls %t/http:
// RUN: not %clang-cuda -O2 -S -fpass-plugin=%plugin -mllvm -kvalidate-cache=redis://localhost:port \
// RUN:   %inputs/gating.cu -o %t/o.s 2>&1 | FileCheck %s --check-prefix=BADPORT --implicit-check-not=kernel
// BADPORT: error: kvalidate: invalid option: -kvalidate-cache: 'redis://localhost:port' has a bad port 'port' (expected redis://HOST:PORT, PORT in 1..65535); nothing is validated
// RUN: not %clang-cuda -O2 -S -fpass-plugin=%plugin -mllvm -kvalidate-cache=redis://:6379 \
// RUN:   %inputs/gating.cu -o %t/o.s 2>&1 | FileCheck %s --check-prefix=NOHOST --implicit-check-not=kernel
// NOHOST: error: kvalidate: invalid option: -kvalidate-cache: 'redis://:6379' names no host (expected redis://HOST:PORT); nothing is validated
//
// An empty DIR turns the cache off.
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate -mllvm -kvalidate-cache= \
// RUN:   -mllvm -kvalidate-kernel=offset %inputs/gating.cu -o %t/o.s 2>&1 | FileCheck %s --check-prefix=COLD
