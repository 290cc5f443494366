// A kernel the model cannot express gets a remark with the reason and the
// construct's location; the compile succeeds and the PTX is produced.
//
// REQUIRES: long
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate -mllvm -kvalidate-relational=false %s -o %t.s 2>&1 | FileCheck %s
// (The source's loop walks a pointer kept in a private variable, which the
// loop model does not take; the relational proof, off here, proves it:
// RELATIONAL below.)
// CHECK: unsupported-warning.cu:[[@LINE+14]]:17: remark: kvalidate: kernel 'walk_row': unsupported: before optimization: {{.*}}unsupported-warning.cu:[[@LINE+16]]:{{[0-9]+}}: loop whose trip count is not a constant {{.*}}; as a loop model: pointer stored to a private variable in a loop with a symbolic trip count
// CHECK: remark: kvalidate: kernel 'copy': equivalent
// RUN: FileCheck %s --check-prefix=PTX < %t.s
// PTX: .visible .entry _Z8walk_rowPiPKii(
//
// -kvalidate-werror turns only not-equivalent verdicts into errors.
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate -mllvm -kvalidate-werror -mllvm -kvalidate-relational=false %s -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=WERROR --implicit-check-not=error:
// WERROR: remark: kvalidate: kernel 'walk_row': unsupported
//
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate -mllvm -kvalidate-kernel=walk_row %s -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=RELATIONAL
// RELATIONAL: remark: kvalidate: kernel 'walk_row': equivalent ({{[0-9]+}} ms) {{.*}}[proof: relational:

__global__ void walk_row(int *out, const int *in, int n) {
  int acc = 0;
  for (const int *p = in; p != in + n; ++p)
    acc += *p;
  out[threadIdx.x] = acc;
}

__global__ void copy(int *out, const int *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i];
}
