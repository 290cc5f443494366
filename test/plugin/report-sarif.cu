// -kvalidate-report=FILE.sarif writes a SARIF 2.1.0 log with one result per
// kernel: rule = verdict, level from the policy, the kernel's source line
// (without -g too), the verdict's fields as properties. A second compile adds
// its results to the same log.
//
// RUN: rm -rf %t && mkdir %t
// RUN: not %clang-cuda -O2 -S -fpass-plugin=%plugin -fpass-plugin=%test-break-plugin \
// RUN:   -mllvm -kvalidate-report=%t/kv.sarif %inputs/gating.cu -o %t/out.s 2>/dev/null
// RUN: check-sarif %t/kv.sarif 5 | FileCheck %s --check-prefix=VALID5
// VALID5: check-sarif: 5 results
// RUN: FileCheck %s < %t/kv.sarif
// CHECK:      "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
// CHECK:      "level": "error",
// CHECK:      "name": "offset"
// CHECK:      "uri": "file://{{.*}}gating.cu"
// CHECK:      "startLine": 5
// CHECK:      "message": {
// CHECK-NEXT:   "text": "kvalidate: kernel 'offset': not-equivalent: {{.*}}"
// CHECK:      "properties": {
// CHECK:        "counterexample": {
// CHECK:        "verdict": "not-equivalent"
// CHECK:      "ruleId": "not-equivalent"
// CHECK:      "level": "note",
// CHECK:      "name": "quads"
// CHECK:      "startLine": 11
// CHECK:      "ruleId": "equivalent"
// CHECK:      "level": "warning",
// CHECK:      "name": "from_asm"
// CHECK:      "ruleId": "unsupported"
// CHECK:      "version": "2.1.0"
//
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -mllvm -kvalidate-kernel=negate \
// RUN:   -mllvm -kvalidate-report=%t/kv.sarif %inputs/gating.cu -o %t/out.s
// RUN: check-sarif %t/kv.sarif 6 | FileCheck %s --check-prefix=VALID6
// VALID6: check-sarif: 6 results
//
// JSON lines for any other name; a report that cannot be written is a
// remark (-Rpass=kvalidate), never a failed compile, -Werror or not.
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -mllvm -kvalidate-kernel=negate \
// RUN:   -mllvm -kvalidate-report=%t/kv.jsonl %inputs/gating.cu -o %t/out.s
// RUN: FileCheck %s --check-prefix=JSONL < %t/kv.jsonl
// JSONL: {"after":"{{.*}}","assumptions":[{{.*}}],"before":"{{.*}}",{{("cached":true,)?}}"file":"{{.*}}gating.cu","kernel":"negate","level":"note","line":19,"message":"kvalidate: kernel 'negate': equivalent {{.*}}","proof":"{{.*}}","time_ms":{{[0-9]+}},"verdict":"equivalent"}
// RUN: %clang-cuda -O2 -S -Werror -fpass-plugin=%plugin -Rpass=kvalidate -mllvm -kvalidate-kernel=negate \
// RUN:   -mllvm -kvalidate-report=%t/no/such/dir/kv.jsonl %inputs/gating.cu -o %t/out.s 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NODIR
// NODIR: remark: kvalidate: cannot write the report: cannot lock {{.*}}kv.jsonl.lock
//
// A file that is not a SARIF log is not overwritten.
// RUN: echo 'not json' > %t/other.sarif
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate -mllvm -kvalidate-kernel=negate \
// RUN:   -mllvm -kvalidate-report=%t/other.sarif %inputs/gating.cu -o %t/out.s 2>&1 \
// RUN:   | FileCheck %s --check-prefix=OTHER
// OTHER: remark: kvalidate: cannot write the report: {{.*}}other.sarif exists and is not a SARIF log; not overwritten
// RUN: grep -q 'not json' %t/other.sarif
