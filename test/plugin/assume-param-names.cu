// -kvalidate-assume may name the kernel's scalar parameters by their source
// names. clang discards IR value names by default and emits only line tables
// for optimized device code even with -g, so the names come from
// -fno-discard-value-names, from full debug info when there is some, or else
// from the kernel's definition in the source file (at the line debug info
// gives, or the one definition of that name in the main file).
//
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate -fno-discard-value-names \
// RUN:   -mllvm -kvalidate-kernel=copy_reset_empty -mllvm -kvalidate-assume='n > 0' %s -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --implicit-check-not=warning:
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate -Xclang -debug-info-kind=constructor \
// RUN:   -mllvm -kvalidate-kernel=copy_reset_empty -mllvm -kvalidate-assume='n > 0' %s -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --implicit-check-not=warning:
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate \
// RUN:   -mllvm -kvalidate-kernel=copy_reset_empty -mllvm -kvalidate-assume='n > 0' %s -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --implicit-check-not=warning:
// CHECK: remark: kvalidate: kernel 'copy_reset_empty': equivalent ({{[0-9]+}} ms) [assumptions: pointer parameters out, in point to{{.*}}n > 0 (--assume)
//
// Without debug info or -Rpass (no line to start from) the definition is
// found by name; an unknown name lists the known ones.
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate -mllvm -kvalidate-kernel=copy_reset_empty \
// RUN:   -mllvm -kvalidate-assume='count > 0' %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=BYNAME
// BYNAME: remark: kvalidate: kernel 'copy_reset_empty': error: cannot parse --assume='count > 0': column 1: unknown name 'count' (known: blockDim.{x,y,z}, gridDim.{x,y,z}, n)
//
// A parameter list made by a macro has no names to read: the parameters are
// arg0, arg1, ... and the error says how to get the source names.
// RUN: %clang-cuda -O2 -g -S -fpass-plugin=%plugin -Rpass=kvalidate -mllvm -kvalidate-kernel=copy_macro_params \
// RUN:   -mllvm -kvalidate-assume='n > 0' %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=NONAMES
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate -mllvm -kvalidate-kernel=copy_macro_params \
// RUN:   -mllvm -kvalidate-assume='arg2 > 0' %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=ARGN
// NONAMES: remark: kvalidate: kernel 'copy_macro_params': error: cannot parse --assume='n > 0': column 1: unknown name 'n' (known: blockDim.{x,y,z}, gridDim.{x,y,z}, arg2); the IR has no parameter names: compile with -fno-discard-value-names, or use argN
// ARGN: remark: kvalidate: kernel 'copy_macro_params': equivalent ({{[0-9]+}} ms) [assumptions: {{.*}}arg2 > 0 (--assume)

__global__ void copy_reset_empty(int *out, const int *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i];
  if (i == 0 && n <= 0)
    out[0] = 0;
}

#define COPY_PARAMS int *out, const int *in, int n
__global__ void copy_macro_params(COPY_PARAMS) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i];
}
