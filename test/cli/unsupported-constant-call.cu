// A call through a function pointer made from an integer is unsupported, and
// the reason names the line: the cast is a constant expression, evaluated
// as an instruction that belongs to no function (this used to crash).
//
// RUN: %expect-exit 2 %kvalidate %s:call_five %s:call_five | FileCheck %s
// CHECK: verdict: unsupported
// CHECK-NEXT: reason: before kernel: {{.*}}unsupported-constant-call.cu:[[@LINE+13]]:11: pointer/integer cast
// CHECK-NOT: counterexample
//
// The plugin reports it (a remark under the default policy), and the
// compile goes on.
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate %s -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=PLUGIN
// PLUGIN: remark: kvalidate: kernel 'call_five': unsupported: before optimization: {{.*}}unsupported-constant-call.cu:[[@LINE+6]]:11: pointer/integer cast
// PLUGIN-NOT: crashed

typedef void (*Handler)(int *);

__global__ void call_five(int *p) {
  Handler h = (Handler)5;
  h(p);
}
