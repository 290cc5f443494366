// -kvalidate-fail-on sets clang's exit status through error diagnostics:
// mismatch (the default) fails the compile on a not-equivalent kernel,
// unknown also on an unsupported one, never on nothing. A verdict the policy
// lets pass is a remark (-Rpass=kvalidate); test/plugin/werror.cu shows that
// clang's -Werror changes none of this. The deliberately
// wrong pass of test/lib breaks 'offset' and 'offset_twice' (it adds one to
// a constant); 'from_asm' is unsupported; the rest stay equivalent.
//
// RUN: not %clang-cuda -O2 -S -fpass-plugin=%plugin -fpass-plugin=%test-break-plugin -Rpass=kvalidate \
// RUN:   %inputs/gating.cu -o %t.s 2> %t.default
// RUN: FileCheck %s --check-prefix=MISMATCH < %t.default
// MISMATCH-DAG: error: kvalidate: kernel 'offset': not-equivalent: {{.*}}out[{{[0-9]+}}] is {{-?[0-9]+}} before optimization, {{-?[0-9]+}} after (replayed on
// MISMATCH-DAG: error: kvalidate: kernel 'offset_twice': not-equivalent:
// MISMATCH-DAG: remark: kvalidate: kernel 'from_asm': unsupported: {{.*}}inline assembly
// MISMATCH: 2 errors generated
//
// The same with -kvalidate-fail-on=mismatch spelled out, and with the old
// -kvalidate-werror: the same status.
// RUN: not %clang-cuda -O2 -S -fpass-plugin=%plugin -fpass-plugin=%test-break-plugin -Rpass=kvalidate \
// RUN:   -mllvm -kvalidate-fail-on=mismatch %inputs/gating.cu -o %t.s 2>&1 | FileCheck %s --check-prefix=MISMATCH
// RUN: not %clang-cuda -O2 -S -fpass-plugin=%plugin -fpass-plugin=%test-break-plugin -Rpass=kvalidate \
// RUN:   -mllvm -kvalidate-werror -mllvm -kvalidate-fail-on=never %inputs/gating.cu -o %t.s 2>&1 \
// RUN:   | FileCheck %s --check-prefix=MISMATCH
//
// never: every verdict is a remark, the compile succeeds and the PTX is
// written.
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -fpass-plugin=%test-break-plugin -Rpass=kvalidate \
// RUN:   -mllvm -kvalidate-fail-on=never %inputs/gating.cu -o %t.never.s 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NEVER --implicit-check-not=error: --implicit-check-not=warning:
// NEVER-DAG: remark: kvalidate: kernel 'offset': not-equivalent
// NEVER-DAG: remark: kvalidate: kernel 'offset_twice': not-equivalent
// NEVER-DAG: remark: kvalidate: kernel 'from_asm': unsupported
// RUN: FileCheck %s --check-prefix=PTX < %t.never.s
// PTX: .visible .entry _Z6offsetPKiPii(
//
// unknown: a kernel that is not proved fails the compile too, even where
// no pass is wrong.
// RUN: not %clang-cuda -O2 -S -fpass-plugin=%plugin -mllvm -kvalidate-fail-on=unknown \
// RUN:   %inputs/gating.cu -o %t.s 2>&1 | FileCheck %s --check-prefix=UNKNOWN --implicit-check-not=warning:
// UNKNOWN: error: kvalidate: kernel 'from_asm': unsupported
// UNKNOWN: 1 error generated
// A correct compile with the default policy: exit status 0.
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate %inputs/gating.cu -o %t.s 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CLEAN --implicit-check-not=error: --implicit-check-not=warning:
// CLEAN: remark: kvalidate: kernel 'from_asm': unsupported
//
// An invalid policy is one error, and nothing is validated.
// RUN: not %clang-cuda -O2 -S -fpass-plugin=%plugin -mllvm -kvalidate-fail-on=sometimes \
// RUN:   %inputs/gating.cu -o %t.s 2>&1 | FileCheck %s --check-prefix=BAD --implicit-check-not=kernel
// BAD: error: kvalidate: invalid option: -kvalidate-fail-on must be one of mismatch|unknown|never, got 'sometimes'; nothing is validated
