// The bounded search (--hunt) gives the integer scalars small domains
// (0..32) so that loops they count split into cases; a scalar the
// assumptions pin keeps their value instead. Here n == 100 would leave the
// search no case at all (this used to crash in describeCase), and the
// pinned grid (16M threads) is too large for a replay, so the verdict is unknown, with
// the search's own finding.
//
// RUN: %expect-exit 2 %kvalidate --assume='blockDim.y == 16' --assume='gridDim.x == 1048576' \
// RUN:   --assume='n == 100' %s:copy_rows %s:copy_rows_plus | FileCheck %s
// CHECK:      verdict: unknown
// CHECK-NEXT:   reason: in the case blockDim.y == 16: {{.*}}launch of {{[0-9]+}} threads exceeds the limit {{.*}}; the bounded search (--hunt) with loops unrolled 16 times ended unknown: in the case blockDim.y == 16:
// CHECK:        n == 100 (--assume)

__global__ void copy_rows(float *o, const float *in, int n) {
  for (int i = 0; i < 16; i += blockDim.y)
    o[blockIdx.x * 16 + i] = in[i];
}

__global__ void copy_rows_plus(float *o, const float *in, int n) {
  for (int i = 0; i < 16; i += blockDim.y)
    o[blockIdx.x * 16 + i] = in[i] + 1.0f;
}
