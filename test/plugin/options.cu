// The plugin's -mllvm -kvalidate-* options.
//
// -kvalidate-disable: nothing is validated, nothing printed.
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate \
// RUN:   -mllvm -kvalidate-disable %s -o /dev/null 2>&1 | count 0
//
// -kvalidate-kernel=NAME: only that kernel (source or mangled name).
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate \
// RUN:   -mllvm -kvalidate-kernel=scale2 %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=ONLY
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate \
// RUN:   -mllvm -kvalidate-kernel=_Z6scale2PiPKii %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=ONLY
// ONLY-NOT: kernel 'copy'
// ONLY: remark: kvalidate: kernel 'scale2': equivalent
// ONLY-NOT: kernel 'copy'
//
// A -kvalidate-kernel that names no kernel of the module is one warning
// (clang's group backend-plugin) with the kernels it has, not silence.
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate -mllvm -kvalidate-kernel=nosuch \
// RUN:   -mllvm -kvalidate-kernel=copy %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOSUCH
// NOSUCH-COUNT-1: warning: kvalidate: -kvalidate-kernel=nosuch names no kernel of {{.*}}options.cu (its kernels: copy, scale2) [-Wbackend-plugin]
// NOSUCH-NOT: nosuch
// NOSUCH: remark: kvalidate: kernel 'copy': equivalent
// NOSUCH-NOT: nosuch
//
// An assumption nested 20,000 levels deep (parentheses or unary operators)
// is one error for the compile, not a stack overflow in clang.
// RUN: python3 -c "print('-mllvm -kvalidate-assume=' + '(' * 20000 + 'n>0' + ')' * 20000)" > %t.parens.rsp
// RUN: not %clang-cuda -O2 -S -fpass-plugin=%plugin @%t.parens.rsp %s -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=DEEP --implicit-check-not=kernel
// RUN: python3 -c "print('-mllvm -kvalidate-assume=' + '!' * 20000 + 'n')" > %t.nots.rsp
// RUN: not %clang-cuda -O2 -S -fpass-plugin=%plugin @%t.nots.rsp %s -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=DEEP --implicit-check-not=kernel
// DEEP: error: kvalidate: invalid option: -kvalidate-assume: assumption nested too deeply (more than 256 levels); nothing is validated
//
// -kvalidate-bits=N: the width shows in the assumptions.
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate \
// RUN:   -mllvm -kvalidate-bits=16 %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=BITS
// BITS: kernel 'copy': equivalent ({{[0-9]+}} ms) [assumptions: {{.*}}integers are 16-bit words
//
// -kvalidate-assume=EXPR over launch dimensions, listed in the remark.
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate \
// RUN:   -mllvm -kvalidate-assume='blockDim.x <= 128' -mllvm -kvalidate-assume='gridDim.y == 1' \
// RUN:   %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=DIMS
// DIMS: kernel 'copy': equivalent ({{[0-9]+}} ms) [assumptions: {{.*}}blockDim.x <= 128 (--assume); gridDim.y == 1 (--assume)
//
// A malformed assumption is an error verdict per kernel, a remark under the
// default policy; the compile goes on.
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate \
// RUN:   -mllvm -kvalidate-assume='blockDim.x <=' %s -o %t.s 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: remark: kvalidate: kernel 'copy': error: cannot parse --assume='blockDim.x <=': column {{[0-9]+}}: expression expected
// BAD: remark: kvalidate: kernel 'scale2': error: cannot parse --assume='blockDim.x <='
// RUN: FileCheck %s --check-prefix=PTX < %t.s
// PTX: .visible .entry _Z4copyPiPKii(

__global__ void copy(int *out, const int *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i];
}

__global__ void scale2(int *out, const int *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i] * 2;
}
