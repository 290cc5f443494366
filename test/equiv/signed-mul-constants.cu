// A product the before kernel computes with nsw (signed overflow is
// undefined in C++) of operands that --assume makes constant: k * -3 with
// k == 2 is -6, no overflow. Z3 4.8.12 folds its own signed-overflow check
// of two constants as if they were unsigned (2 * 0xfffffffd "overflows"),
// which ruled this execution out and made the pair below "equivalent". The
// solver is asked directly (no concrete runs before the proof, no bounded
// hunt), so the verdict is its own.
//
// REQUIRES: long
// RUN: %expect-exit 1 %kvalidate --run-first=0 --hunt=0 --assume='k == 2' \
// RUN:   %s:scale_neg %s:scale_neg_plus1 | FileCheck %s
// CHECK:      verdict: not-equivalent
// CHECK:      counterexample (replayed):
// CHECK:        k = 2
// CHECK:        mismatch: out[{{[0-9]+}}]: before = -6, after = -5
//
// Two negative constants: k * -3 with k == -2 is 6.
// RUN: %expect-exit 1 %kvalidate --run-first=0 --hunt=0 --assume='k == -2' \
// RUN:   %s:scale_neg %s:scale_neg_plus1 | FileCheck %s --check-prefix=NEG
// NEG:      verdict: not-equivalent
// NEG:        mismatch: out[{{[0-9]+}}]: before = 6, after = 7
//
// Where the product does overflow, the before kernel has undefined
// behaviour at every launch and anything the after kernel does is allowed.
// RUN: %kvalidate --run-first=0 --hunt=0 --assume='k == 1073741824' \
// RUN:   %s:scale_neg %s:scale_neg_plus1 | FileCheck %s --check-prefix=UB
// UB:      verdict: equivalent
//
// Two parameters, both negative and fixed: a * b is 131072.
// RUN: %expect-exit 1 %kvalidate --run-first=0 --hunt=0 \
// RUN:   --assume='a == -65536 && b == -2' %s:product %s:product_plus1 \
// RUN:   | FileCheck %s --check-prefix=TWO
// TWO:      verdict: not-equivalent
// TWO:        mismatch: out[{{[0-9]+}}]: before = 131072, after = 131073

__global__ void scale_neg(int *out, int k) {
  out[blockIdx.x * blockDim.x + threadIdx.x] = k * -3;
}

__global__ void scale_neg_plus1(int *out, int k) {
  out[blockIdx.x * blockDim.x + threadIdx.x] = k * -3 + 1;
}

__global__ void product(int *out, int a, int b) {
  out[blockIdx.x * blockDim.x + threadIdx.x] = a * b;
}

__global__ void product_plus1(int *out, int a, int b) {
  out[blockIdx.x * blockDim.x + threadIdx.x] = a * b + 1;
}
