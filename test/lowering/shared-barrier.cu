// --emit-kv prints both kernels as kv.kernel ops: kernel parameters first,
// then shared arrays, global/shared accesses as kv.read/kv.write guarded by
// the path condition, and __syncthreads() as kv.barrier.
//
// RUN: %expect-exit 0 %kvalidate --emit-kv %s:reverse_block %s:reverse_block | FileCheck %s

// CHECK: module {
// CHECK-LABEL: kv.kernel @_Z13reverse_blockPiPKii attributes {arg_names = ["out", "in", "n", "buf"], source_name = "reverse_block"} {
// CHECK-NEXT: ^bb0(%out: !kv.global<i32>, %in: !kv.global<i32>, %n: i32, %buf: !kv.shared<i32, 128>):
// CHECK-DAG: %[[TID:.*]] = kv.sreg tid.x : i32
// CHECK-DAG: %[[BDIM:.*]] = kv.sreg bdim.x : i32
// CHECK-DAG: %[[BID:.*]] = kv.sreg bid.x : i32
// CHECK: %[[I:.*]] = arith.addi %{{.*}}, %[[TID]] : i32
// CHECK: %[[LOADG:.*]] = arith.cmpi slt, %[[I]], %n : i32
// CHECK: %[[V:.*]] = kv.read %in[%{{.*}}] if %[[LOADG]] : !kv.global<i32>, i64 -> i32
// CHECK: kv.write %buf[%{{.*}}] = %[[V]] if %[[LOADG]] : !kv.shared<i32, 128>, i64, i32
// CHECK-NOT: kv.write
// CHECK: kv.barrier
// CHECK-NOT: kv.barrier
// CHECK: %[[R:.*]] = kv.read %buf[%{{.*}}] if %{{.*}} : !kv.shared<i32, 128>, i64 -> i32
// CHECK: kv.write %out[%{{.*}}] = %[[R]] if %{{.*}} : !kv.global<i32>, i64, i32
// CHECK-NOT: kv.write
// CHECK-NOT: kv.barrier
// CHECK: }
// The second copy of the same kernel gets a fresh symbol.
// CHECK-LABEL: kv.kernel @_Z13reverse_blockPiPKii.1 attributes

#define B 128

__global__ void reverse_block(int *out, const int *in, int n) {
  __shared__ int buf[B];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    buf[threadIdx.x] = in[i];
  __syncthreads();
  int j = blockIdx.x * blockDim.x + (blockDim.x - 1 - threadIdx.x);
  if (j < n)
    out[j] = buf[blockDim.x - 1 - threadIdx.x];
}
