// A loop with __syncthreads() and a symbolic trip count whose shared array
// is a tile (written in one barrier interval of an iteration, read in a
// later one) is one kv.iter loop: the tile's writes go to an expanded
// array (one slice of 2^32 cells per iteration), a read becomes the value
// its writer stored (the writer's thread id solved from the write index),
// and kv.prove ops state what the checker must show.
//
// RUN: %expect-exit 0 %kvalidate --emit-kv %inputs/tiles.cu:neighbour_staged %inputs/tiles.cu:neighbour_staged | FileCheck %s
// CHECK-LABEL: kv.kernel @_Z16neighbour_stagedPiPKii attributes {arg_names = ["out", "in", "rounds", "tile", "tile.staged"]
// CHECK-NEXT: %tile: !kv.shared<i32, 64>, %tile.staged: !kv.shared<i32, 0>
// CHECK-NOT: kv.barrier
// CHECK: %[[K:.*]] = kv.iter from %{{.*}} step %{{.*}} while slt %{{.*}} if %true
// CHECK: %[[V:.*]] = kv.read %in[%{{.*}}]
// CHECK: %[[SLICE:.*]] = arith.muli %[[K]], %c4294967296_i64 : i64
// CHECK: kv.prove %{{.*}}, "staged shared-array write in bounds"
// CHECK-NEXT: kv.write %tile.staged[%{{.*}}] = %[[V]]
// The neighbour's value: in[] read at the writer's index, (t + 1) % blockDim.x.
// CHECK: %[[W:.*]] = arith.remui
// CHECK: %[[N:.*]] = kv.read %in[%{{.*}}]
// CHECK: kv.prove %{{.*}}, "a thread of the block wrote the staged shared cell in this iteration"
// CHECK: kv.prove %{{.*}}, "staged shared-array read in bounds"
// CHECK: %[[S:.*]] = kv.sum %[[N]] over %[[K]] : i32
// CHECK-NOT: kv.read %tile
// CHECK: kv.write %out[%{{.*}}] = %[[S]]
// CHECK-LABEL: kv.kernel @_Z16neighbour_stagedPiPKii.1

// What the model does not take says why.
// RUN: %expect-exit 2 %kvalidate --emit-kv %inputs/tiles.cu:tile_after_loop %inputs/tiles.cu:tile_after_loop | FileCheck %s --check-prefix=AFTER
// AFTER: reason: before kernel: {{.*}}tiles.cu:61:16: read of a shared array after a barrier loop that stages it
// RUN: %expect-exit 2 %kvalidate --emit-kv %inputs/tiles.cu:tile_global_write %inputs/tiles.cu:tile_global_write | FileCheck %s --check-prefix=GLOBAL
// GLOBAL: reason: before kernel: {{.*}}tiles.cu:67:3: loop whose trip count is not a constant {{.*}}; as a loop model: write to global memory in a loop with a symbolic trip count and a __syncthreads()
// RUN: %expect-exit 2 %kvalidate --emit-kv %inputs/tiles.cu:tile_one_barrier %inputs/tiles.cu:tile_one_barrier | FileCheck %s --check-prefix=ONE
// ONE: as a loop model: shared array read after the last __syncthreads() of a loop iteration and written before the first
