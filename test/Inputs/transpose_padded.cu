// kvalidate test input: tiled transpose, plain tile vs padded tile.
//
// Kernels:
//   transpose_naive   direct global->global transpose (same as transpose.cu).
//   transpose_tiled   __shared__ int tile[TILE][TILE]   (same as transpose.cu).
//   transpose_padded  __shared__ int tile[TILE][TILE+1]: one extra column so
//                     the column-wise read tile[tx][ty] hits different banks.
//                     Only the shared-memory layout changes; the padding
//                     column is never read or written.
//
// Expected verdicts (out and in assumed not to alias):
//   transpose_padded.cu:transpose_tiled transpose_padded.cu:transpose_padded
//     --assume='blockDim.x == blockDim.y && blockDim.x <= 16 && blockDim.z == 1'
//       => EQUIVALENT.
//     Both kernels move the same element through the same (ty,tx)->(tx,ty)
//     cell; the only difference is the row stride of the shared array (16 vs
//     17), invisible in global memory.  blockDim.z == 1 (and gridDim.z == 1)
//     only for race freedom, as in transpose.cu: z-layers write identical
//     values to identical cells.
//     Do NOT test this pair without blockDim.x == blockDim.y: with a
//     non-square block both kernels read tile cells that were never loaded
//     (e.g. gridDim=(1,1,1), blockDim=(2,1,1), width=1, height=2: thread
//     tx=1 reads tile[1][0], but only tile[0][0] was loaded), so the verdict
//     depends on how the tool models uninitialized shared memory (independent
//     arbitrary values per kernel -> NOT EQUIVALENT).  Likewise for
//     blockDim.x > 16, tile[ty][16] aliases tile[ty+1][0] in the 16-wide
//     array but is the padding cell in the 17-wide one: out-of-bounds
//     behaviour, not a meaningful test.
//
//   transpose_padded.cu:transpose_naive transpose_padded.cu:transpose_padded
//     same assumptions => EQUIVALENT; without blockDim.x == blockDim.y =>
//     NOT EQUIVALENT with the counterexample of transpose.cu
//     (gridDim=(1,1,1), blockDim=(2,1,1), width=2, height=1).

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

  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height)
    tile[ty][tx] = in[y * width + x];

  __syncthreads();

  int x2 = blockIdx.y * blockDim.y + threadIdx.x;
  int y2 = blockIdx.x * blockDim.x + threadIdx.y;
  if (x2 < height && y2 < width)
    out[y2 * height + x2] = tile[tx][ty];
}

__global__ void transpose_padded(int *out, const int *in, int width, int height) {
  __shared__ int tile[TILE][TILE + 1];
  int tx = threadIdx.x;
  int ty = threadIdx.y;

  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height)
    tile[ty][tx] = in[y * width + x];

  __syncthreads();

  int x2 = blockIdx.y * blockDim.y + threadIdx.x;
  int y2 = blockIdx.x * blockDim.x + threadIdx.y;
  if (x2 < height && y2 < width)
    out[y2 * height + x2] = tile[tx][ty];
}
