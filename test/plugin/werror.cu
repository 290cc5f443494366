// Under clang's -Werror the policy (-kvalidate-fail-on) alone decides which
// verdicts fail the compile. A verdict the policy lets pass is a remark
// (-Rpass=kvalidate), which -Werror leaves alone; one the policy
// fails is an error with or without -Werror. The test-only wrong pass
// (test/lib) adds one to the constant of 'bump' (not-equivalent); the model
// does not take the inline assembly of 'seven' (unsupported); 'twice' stays
// equivalent.
//
// mismatch (the default): the broken kernel fails the compile, the
// unsupported one does not, and nothing else is printed.
// RUN: not %clang-cuda -O2 -S -Werror -fpass-plugin=%plugin -fpass-plugin=%test-break-plugin \
// RUN:   %s -o %t.s 2>&1 | FileCheck %s --check-prefix=MISMATCH --implicit-check-not=warning: \
// RUN:   --implicit-check-not=seven
// MISMATCH: error: kvalidate: kernel 'bump': not-equivalent: {{.*}}(replayed on
// MISMATCH: 1 error generated
// -Rpass=kvalidate shows what was not proved and did not fail.
// RUN: not %clang-cuda -O2 -S -Werror -fpass-plugin=%plugin -fpass-plugin=%test-break-plugin \
// RUN:   -Rpass=kvalidate %s -o %t.s 2>&1 | FileCheck %s --check-prefix=MISMATCH-R --implicit-check-not=warning:
// MISMATCH-R-DAG: error: kvalidate: kernel 'bump': not-equivalent
// MISMATCH-R-DAG: werror.cu:[[@LINE+40]]:{{[0-9]+}}: remark: kvalidate: kernel 'seven': unsupported: {{.*}}inline assembly{{.*}} [-Rpass=kvalidate]
//
// unknown: both fail the compile.
// RUN: not %clang-cuda -O2 -S -Werror -fpass-plugin=%plugin -fpass-plugin=%test-break-plugin \
// RUN:   -mllvm -kvalidate-fail-on=unknown %s -o %t.s 2>&1 | FileCheck %s --check-prefix=UNKNOWN \
// RUN:   --implicit-check-not=warning:
// UNKNOWN-DAG: error: kvalidate: kernel 'bump': not-equivalent
// UNKNOWN-DAG: error: kvalidate: kernel 'seven': unsupported
// UNKNOWN: 2 errors generated
//
// never: nothing fails the compile, -Werror or not; the PTX is written.
// RUN: %clang-cuda -O2 -S -Werror -fpass-plugin=%plugin -fpass-plugin=%test-break-plugin \
// RUN:   -mllvm -kvalidate-fail-on=never -Rpass=kvalidate %s -o %t.never.s 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NEVER --implicit-check-not=warning: --implicit-check-not=error:
// NEVER-DAG: remark: kvalidate: kernel 'bump': not-equivalent
// NEVER-DAG: remark: kvalidate: kernel 'seven': unsupported
// RUN: FileCheck %s --check-prefix=PTX < %t.never.s
// PTX: .visible .entry _Z4bumpPKiPii(
//
// A correct build under -Werror and the default policy: status 0, silent.
// RUN: %clang-cuda -O2 -S -Werror -fpass-plugin=%plugin %s -o %t.clean.s 2>&1 | count 0
//
// A report that cannot be written is a remark too.
// RUN: touch %t.file
// RUN: %clang-cuda -O2 -S -Werror -fpass-plugin=%plugin -Rpass=kvalidate \
// RUN:   -mllvm -kvalidate-report=%t.file/r.jsonl %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPORT
// REPORT: remark: kvalidate: cannot write the report: {{.*}} [-Rpass=kvalidate]

__global__ void bump(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i] + 5;
}

__global__ void twice(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i] << 1;
}

__global__ void seven(int *out) {
  int v;
  asm("mov.u32 %0, 7;" : "=r"(v));
  out[threadIdx.x] = v;
}
