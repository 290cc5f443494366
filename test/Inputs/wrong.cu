// kvalidate test input: deliberately buggy variants.  Every "wrong" kernel is
// expected NOT EQUIVALENT to its reference, even under the assumptions that
// make the correct version equivalent.  Hand-checked counterexamples are given
// per kernel (and in README-counterexamples.md).  The transpose
// counterexamples read only loaded shared cells.  The stencil ones read one
// never-loaded shared cell in the buggy kernel; the argument at each kernel
// shows the verdict is NOT EQUIVALENT for any model of uninitialized shared
// memory (fixed 0 or arbitrary).
//
// References (copies of the correct kernels, so this file is self-contained):
//   transpose_naive, transpose_tiled   (as in transpose.cu, TILE = 16)
//   stencil_naive, stencil_shared      (as in stencil.cu, BLOCK = 256)
//
// Pairs and expected verdicts:
//   wrong.cu:transpose_naive wrong.cu:transpose_tiled_wrong_index
//     --assume='blockDim.x == blockDim.y && blockDim.x <= 16 && blockDim.z == 1'
//       => NOT EQUIVALENT
//   wrong.cu:transpose_naive wrong.cu:transpose_tiled_wrong_block
//     --assume='blockDim.x == blockDim.y && blockDim.x <= 16 && blockDim.z == 1'
//       => NOT EQUIVALENT (needs >= 2 blocks to show)
//   wrong.cu:stencil_naive wrong.cu:stencil_wrong_guard
//     --assume='blockDim.x <= 256 && blockDim.y == 1 && blockDim.z == 1 && n >= 0'
//       => NOT EQUIVALENT
//   wrong.cu:stencil_naive wrong.cu:stencil_wrong_halo
//     --assume='blockDim.x <= 256 && blockDim.y == 1 && blockDim.z == 1 && n >= 0'
//       => NOT EQUIVALENT (needs a block boundary at i == n-2)
//   Sanity: wrong.cu:transpose_naive wrong.cu:transpose_tiled and
//   wrong.cu:stencil_naive wrong.cu:stencil_shared are EQUIVALENT under the
//   same --assume lines.

#define TILE 16
#define BLOCK 256

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

// BUG: reads tile[tx][tx] instead of tile[tx][ty] (diagonal only).
// Counterexample: gridDim=(1,1,1), blockDim=(2,2,1), width=2, height=1,
// in = {5, 7}, out initially {0, 0}.
//   naive: only y = ty = 0 passes y < 1; x = tx in {0,1}:
//          out[x*1+0] = in[0*2+x]  -> out[0] = 5, out[1] = 7.
//   wrong: load (ty = 0 only): tile[0][0] = in[0] = 5, tile[0][1] = in[1] = 7.
//          store: x2 = tx must be < height = 1 -> tx = 0; y2 = ty < width = 2:
//            (tx=0,ty=0): out[0*1+0] = tile[0][0] = 5
//            (tx=0,ty=1): out[1*1+0] = tile[0][0] = 5   (correct: tile[0][1] = 7)
//          -> out = {5, 5}.   out[1]: 7 vs 5.
// Only loaded cells are read (tile[0][0]), so no uninitialized-memory caveat.
__global__ void transpose_tiled_wrong_index(int *out, const int *in, int width, int height) {
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
    out[y2 * height + x2] = tile[tx][tx];
}

// BUG: forgets to swap the block coordinates for the write-back
// (x2 uses blockIdx.x, y2 uses blockIdx.y).  Correct whenever the grid is a
// single block (or blockIdx.x == blockIdx.y), so the tool must reason about
// more than one block.
// Counterexample: gridDim=(2,1,1), blockDim=(1,1,1), width=2, height=1,
// in = {5, 7}, out initially {0, 0}.
//   naive: block 0: x=0,y=0 -> out[0] = in[0] = 5
//          block 1: x=1,y=0 -> out[1*1+0] = in[0*2+1] = 7   -> out = {5, 7}
//   wrong: block 0: tile[0][0] = in[0] = 5; x2 = 0, y2 = 0, 0<1 && 0<2
//                   -> out[0] = 5
//          block 1: tile[0][0] = in[1] = 7; x2 = blockIdx.x*1+0 = 1,
//                   1 < height = 1 false -> no write        -> out = {5, 0}
//   out[1]: 7 vs 0.
__global__ void transpose_tiled_wrong_block(int *out, const int *in, int width, int height) {
  __shared__ int tile[TILE][TILE];
  int tx = threadIdx.x;
  int ty = threadIdx.y;

  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height)
    tile[ty][tx] = in[y * width + x];

  __syncthreads();

  int x2 = blockIdx.x * blockDim.x + threadIdx.x;
  int y2 = blockIdx.y * blockDim.y + threadIdx.y;
  if (x2 < height && y2 < width)
    out[y2 * height + x2] = tile[tx][ty];
}

__global__ void stencil_naive(int *out, const int *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= 1 && i < n - 1)
    out[i] = in[i - 1] + in[i] + in[i + 1];
}

__global__ void stencil_shared(int *out, const int *in, int n) {
  __shared__ int s[BLOCK + 2];
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x;

  if (i < n)
    s[tid + 1] = in[i];
  if (tid == 0 && i >= 1 && i - 1 < n)
    s[0] = in[i - 1];
  if (tid == (int)blockDim.x - 1 && i + 1 < n)
    s[tid + 2] = in[i + 1];

  __syncthreads();

  if (i >= 1 && i < n - 1)
    out[i] = s[tid] + s[tid + 1] + s[tid + 2];
}

// BUG: output guard i < n instead of i < n-1, so thread i = n-1 also writes
// out[n-1], which the naive kernel never writes.
// Counterexample: gridDim=(1,1,1), blockDim=(2,1,1), n=2,
// in = {1, 2}, out initially {0, 0}.
//   naive: i=0: 0 >= 1 false; i=1: 1 < n-1 = 1 false -> nothing written,
//          out = {0, 0}.
//   wrong: loads s[1] = in[0] = 1, s[2] = in[1] = 2; left halo skipped
//          (i = 0); right halo (tid 1): i+1 = 2 < 2 false -> s[3] not loaded.
//          i=1: 1 >= 1 && 1 < 2 -> out[1] = s[1] + s[2] + s[3] = 3 + s[3].
//   out[1]: 0 vs 3 + s[3].  s[3] is uninitialized; whatever value the tool
//   gives it (fixed 0, or arbitrary), the initial out[1] can be chosen
//   different from 3 + s[3] (it is an independent input), so the pair is
//   NOT EQUIVALENT under every model.  With s[3] modeled as 0: 0 vs 3.
__global__ void stencil_wrong_guard(int *out, const int *in, int n) {
  __shared__ int s[BLOCK + 2];
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x;

  if (i < n)
    s[tid + 1] = in[i];
  if (tid == 0 && i >= 1 && i - 1 < n)
    s[0] = in[i - 1];
  if (tid == (int)blockDim.x - 1 && i + 1 < n)
    s[tid + 2] = in[i + 1];

  __syncthreads();

  if (i >= 1 && i < n)
    out[i] = s[tid] + s[tid + 1] + s[tid + 2];
}

// BUG: right-halo guard off by one (i + 2 < n instead of i + 1 < n).  Wrong
// only when the last thread of a block is the last computing element
// (i == n-2): then s[tid+2] should hold in[n-1] but is never loaded.
// Counterexample: gridDim=(2,1,1), blockDim=(1,1,1), n=3,
// in = {1, 2, 4}, out initially {0, 0, 0}.
//   naive: i=0 skipped; i=1: 1 >= 1 && 1 < 2 -> out[1] = 1 + 2 + 4 = 7.
//   wrong: block 1 (i=1, tid=0, last thread of its block):
//          s[1] = in[1] = 2; left halo: s[0] = in[0] = 1;
//          right halo: i+2 = 3 < 3 false -> s[2] NOT loaded.
//          out[1] = s[0] + s[1] + s[2] = 3 + s[2].
//   out[1]: 7 vs 3 + s[2].  Equal only if s[2] == 4 == in[2]; in[2] is an
//   independent input, so the pair is NOT EQUIVALENT under every model of
//   uninitialized shared memory (with s[2] modeled as 0: 7 vs 3).
//   With gridDim=(1,1,1), blockDim=(3,1,1), n=3 the bug is invisible: the
//   only computing thread is i=1 (tid 1, not the last thread), and the s[3]
//   it reads was loaded by thread 2 (i=2 < 3) as its own element in[2].
__global__ void stencil_wrong_halo(int *out, const int *in, int n) {
  __shared__ int s[BLOCK + 2];
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x;

  if (i < n)
    s[tid + 1] = in[i];
  if (tid == 0 && i >= 1 && i - 1 < n)
    s[0] = in[i - 1];
  if (tid == (int)blockDim.x - 1 && i + 2 < n)
    s[tid + 2] = in[i + 1];

  __syncthreads();

  if (i >= 1 && i < n - 1)
    out[i] = s[tid] + s[tid + 1] + s[tid + 2];
}
