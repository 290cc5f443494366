// A shift by a constant is lowered as a product: x << 4 is x * 16, so the
// checker's index reasoning (solving an index for a thread coordinate, the
// mixed-radix lemmas) sees the same term as in `blockIdx.x * 16`, which -O2
// emits as a shift. A shift by a variable stays a shift.
//
// RUN: %expect-exit 0 %kvalidate --emit-kv %s:origin_shift %s:shift_by \
// RUN:   | FileCheck %s --check-prefix=KV
// KV-LABEL: kv.kernel @{{.*}}origin_shift
// KV: %[[BID:.*]] = kv.sreg bid.x : i32
// KV: %[[C16:.*]] = arith.constant 16 : i32
// KV: arith.muli %[[BID]], %[[C16]] : i32
// KV-NOT: arith.shli
// KV-LABEL: kv.kernel @{{.*}}shift_by
// KV: arith.shli %{{.*}}, %s : i32
//
// The shifted and the multiplied block origin are the same kernel.
// RUN: %expect-exit 0 %kvalidate --assume='blockDim.x <= 16' \
// RUN:   %s:origin_mul %s:origin_shift | FileCheck %s --check-prefix=SAME
// SAME: verdict: equivalent

__global__ void origin_mul(int *out, const int *in, int n) {
  int i = blockIdx.x * 16 + threadIdx.x;
  if (i < n)
    out[i] = in[i] + 1;
}

__global__ void origin_shift(int *out, const int *in, int n) {
  int i = (blockIdx.x << 4) + threadIdx.x;
  if (i < n)
    out[i] = in[i] + 1;
}

__global__ void shift_by(int *out, const int *in, int s) {
  out[threadIdx.x] = in[threadIdx.x] << s;
}
