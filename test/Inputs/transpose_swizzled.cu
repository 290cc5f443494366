// kvalidate test input: tiled transpose, plain tile vs XOR-swizzled tile.
//
// Kernels:
//   transpose_naive     direct global->global transpose (same as transpose.cu).
//   transpose_tiled     __shared__ int tile[TILE][TILE]  (same as transpose.cu):
//                       stores tile[ty][tx], reads tile[tx][ty].
//   transpose_swizzled  same tile, but the column index is XOR-swizzled with
//                       the row index: the element of logical cell (r, c) is
//                       kept at physical cell tile[r][c ^ r].
//                         store: logical (ty, tx) -> tile[ty][tx ^ ty]
//                         read:  logical (tx, ty) -> tile[tx][ty ^ tx]
//                       so a column-wise read touches 16 distinct columns
//                       (no bank conflicts) without padding.
//
// Why the swizzle is a correct permutation: TILE = 16 is a power of two, so
// for 0 <= r, c < 16 the value c ^ r is again in [0, 16), and for a fixed row
// r the map c -> c ^ r is its own inverse, hence a bijection of [0, 16).
// Distinct threads therefore store to distinct cells (no race), and the read
// of logical (tx, ty) finds exactly the value stored by thread (tx'=ty,
// ty'=tx), the same thread the plain tiled kernel reads from.  This needs only
// tx, ty < 16; it does NOT need blockDim.x to be a power of two (e.g. with a
// 3x3 block 1 ^ 2 = 3 lands outside [0,3) but still inside the 16-wide row
// and still without collisions).
//
// Expected verdicts (out and in assumed not to alias):
//   transpose_swizzled.cu:transpose_tiled transpose_swizzled.cu:transpose_swizzled
//     --assume='blockDim.x == blockDim.y && blockDim.x <= 16 && blockDim.z == 1'
//       => EQUIVALENT
//   transpose_swizzled.cu:transpose_naive transpose_swizzled.cu:transpose_swizzled
//     same --assume => EQUIVALENT; with a non-square block => NOT EQUIVALENT,
//     same counterexample as transpose.cu (gridDim=(1,1,1), blockDim=(2,1,1),
//     width=2, height=1: out[1] = in[1] vs unwritten).
//   blockDim.z == 1 / gridDim.z == 1 only matter for race freedom (same-value
//   duplicate writes), exactly as in transpose.cu.

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

__global__ void transpose_swizzled(int *out, const int *in, int width, int height) {
  __shared__ int tile[TILE][TILE];
  int tx = threadIdx.x;
  int ty = threadIdx.y;

  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height)
    tile[ty][tx ^ ty] = in[y * width + x];

  __syncthreads();

  int x2 = blockIdx.y * blockDim.y + threadIdx.x;
  int y2 = blockIdx.x * blockDim.x + threadIdx.y;
  if (x2 < height && y2 < width)
    out[y2 * height + x2] = tile[tx][ty ^ tx];
}
