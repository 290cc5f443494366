// A .cu input that clang cannot compile: exit 3 with clang's diagnostics.
// RUN: %expect-exit 3 %kvalidate %s:k %s:k 2>&1 | FileCheck %s
// CHECK: kvalidate: error: cannot compile {{.*}}malformed-cu.cu:
// CHECK: malformed-cu.cu:[[@LINE+3]]:{{[0-9]+}}: error: use of undeclared identifier 'undeclared_thing'
// CHECK-NOT: verdict:

__global__ void k(int *out) { out[0] = undeclared_thing; }
