// kvalidate test input: matrix transpose, naive vs shared-memory tiled.
//
// Kernels (all compute out[x*height + y] = in[y*width + x] for every
// 0 <= x < width, 0 <= y < height covered by the grid; in is height rows of
// width ints, out is width rows of height ints):
//   transpose_naive        one thread per element, direct global->global.
//   transpose_tiled        classic coalesced transpose through
//                          __shared__ int tile[TILE][TILE], TILE = 16; block
//                          origins taken from blockDim (so any square block of
//                          side <= TILE works), block coordinates swapped for
//                          the write-back.
//   transpose_tiled_const  the textbook form whose block origins use the
//                          constant TILE instead of blockDim: only correct
//                          when the block is exactly TILE x TILE.
//
// Expected verdicts (out and in are assumed not to alias):
//   transpose.cu:transpose_naive transpose.cu:transpose_tiled
//     --assume='blockDim.x == blockDim.y && blockDim.x <= 16 && blockDim.z == 1'
//       => EQUIVALENT
//     Exactly what is needed:
//       * blockDim.x == blockDim.y : the write-back reads tile[tx][ty]; with a
//         non-square block that cell is either never loaded or the write-back
//         thread set does not cover the same out cells (counterexample below).
//       * blockDim.x <= 16 (hence blockDim.y <= 16): tile indices stay inside
//         tile[16][16]; with 17 the accesses leave the row / the array.
//       * blockDim.z == 1 is NOT needed for equal outputs: every value a
//         thread loads/writes is independent of threadIdx.z, so the z-layers
//         of a block write identical values to the same tile cells and the
//         same out cells.  But those are (benign, same-value) write-write
//         races on shared memory (tiled) and on global memory (both), so a
//         tool that requires / checks race freedom needs blockDim.z == 1.
//         Likewise gridDim.z > 1 duplicates whole blocks -> benign global
//         write-write races in both kernels; race-free needs gridDim.z == 1.
//       With only --assume='blockDim.x == blockDim.y && blockDim.x <= 16'
//       the final outputs are still equal (EQUIVALENT if races are not checked).
//
//   transpose.cu:transpose_naive transpose.cu:transpose_tiled   (no --assume,
//   or any assumption allowing a non-square block)
//       => NOT EQUIVALENT.  Hand-checked counterexample (smallest):
//          gridDim = (1,1,1), blockDim = (2,1,1), width = 2, height = 1,
//          in = {5, 7}, out initially {0, 0}.
//          naive: thread tx=0: x=0,y=0, 0<2 && 0<1 -> out[0*1+0] = in[0*2+0] = 5
//                 thread tx=1: x=1,y=0, 1<2 && 0<1 -> out[1*1+0] = in[0*2+1] = 7
//                 => out = {5, 7}
//          tiled: load:  tx=0: x=0,y=0 -> tile[0][0] = in[0] = 5
//                        tx=1: x=1,y=0 -> tile[0][1] = in[1] = 7
//                 store: x2 = blockIdx.y*blockDim.y + tx = tx,
//                        y2 = blockIdx.x*blockDim.x + ty = 0
//                        tx=0: x2=0 < height=1 && y2=0 < width=2
//                              -> out[0*1+0] = tile[0][0] = 5
//                        tx=1: x2=1 < height=1 is false -> no write
//                 => out = {5, 0}
//          out[1] differs (7 vs 0).  See README-counterexamples.md.
//
//   transpose.cu:transpose_naive transpose.cu:transpose_tiled_const
//     --assume='blockDim.x == 16 && blockDim.y == 16 && blockDim.z == 1'
//       => EQUIVALENT  (then it is literally transpose_tiled)
//     --assume='blockDim.x == blockDim.y && blockDim.x <= 16 && blockDim.z == 1'
//       => NOT EQUIVALENT: gridDim=(2,1,1), blockDim=(1,1,1), width=2,
//          height=1: block 1 uses x = 1*16+0 = 16 >= width, so out[1] is never
//          written (naive writes out[1] = in[1]).
//
//   transpose.cu:transpose_tiled transpose.cu:transpose_tiled_const
//     same verdicts as naive vs tiled_const.

#define TILE 16

__global__ void transpose_naive(int *out, const int *in, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height)
    out[x * height + y] = in[y * width + x];
}

__global__ void transpose_tiled(int *out, const int *in, int width, int height) {
  __shared__ int tile[TILE][TILE];
  int tx = threadIdx.x;
  int ty = threadIdx.y;

  // Load the input tile whose origin is (blockIdx.x, blockIdx.y) * blockDim.
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height)
    tile[ty][tx] = in[y * width + x];

  __syncthreads();

  // Write it to the transposed position: block coordinates swapped, and each
  // thread reads the transposed tile cell so that global writes stay
  // contiguous in threadIdx.x.
  int x2 = blockIdx.y * blockDim.y + threadIdx.x;  // column of out (< height)
  int y2 = blockIdx.x * blockDim.x + threadIdx.y;  // row of out    (< width)
  if (x2 < height && y2 < width)
    out[y2 * height + x2] = tile[tx][ty];
}

__global__ void transpose_tiled_const(int *out, const int *in, int width, int height) {
  __shared__ int tile[TILE][TILE];
  int tx = threadIdx.x;
  int ty = threadIdx.y;

  int x = blockIdx.x * TILE + tx;
  int y = blockIdx.y * TILE + ty;
  if (x < width && y < height)
    tile[ty][tx] = in[y * width + x];

  __syncthreads();

  int x2 = blockIdx.y * TILE + tx;
  int y2 = blockIdx.x * TILE + ty;
  if (x2 < height && y2 < width)
    out[y2 * height + x2] = tile[tx][ty];
}
