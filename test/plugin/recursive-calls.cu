// The relational proof inlines a kernel's calls, as the optimizer would; a
// device function that calls itself twice doubles the body each round.
// Sixteen rounds took clang to gigabytes and out of memory on a recursive
// interval solver (the plugin tries the relational proof where the model
// cannot take a kernel, here for its recursion). Now the
// inlining stops at 20,000 instructions: the kernel is named unsupported,
// in a compile that stays small.
//
// RUN: sh -c 'ulimit -v 3000000 && exec %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate \
// RUN:   -mllvm -kvalidate-cache= %s -o /dev/null' 2>&1 | FileCheck %s --implicit-check-not=error:
// CHECK: remark: kvalidate: kernel 'bisect': unsupported: before optimization: {{.*}}call nesting deeper than 16 (recursion?){{.*}}; relational proof: before kernel: calls that inline to more than 20000 instructions (recursion?)

struct Range {
  float lo, hi;
};

__device__ float root(float lo, float hi, float c, int depth) {
  float mid = 0.5f * (lo + hi);
  if (depth == 0 || hi - lo < 1e-6f)
    return mid;
  float left = root(lo, mid, c, depth - 1);
  float right = root(mid, hi, c, depth - 1);
  return mid * mid > c ? left : right;
}

__global__ void bisect(float *out, const float *c, Range range, int depth) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = root(range.lo, range.hi, c[i], depth);
}
