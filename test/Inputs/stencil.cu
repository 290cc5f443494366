// kvalidate test input: 1D 3-point stencil, naive vs shared memory with halo.
//
// Kernels:
//   stencil_naive            out[i] = in[i-1] + in[i] + in[i+1] for
//                            1 <= i < n-1, straight from global memory.
//   stencil_shared           block loads in[base-1 .. base+blockDim.x] into
//                            __shared__ int s[BLOCK+2] (BLOCK = 256):
//                            s[tid+1] = in[i] by every thread with i < n,
//                            s[0] (left halo) by tid == 0, s[blockDim.x+1]
//                            (right halo) by tid == blockDim.x-1, each guarded
//                            by the array bounds; barrier; compute from s.
//   stencil_shared_overread  as stencil_shared but the halo guards are
//                            deliberately loose: the left halo is loaded
//                            without i >= 1 (reads in[-1] when i == 0) and the
//                            right halo with i + 1 <= n (reads in[n] when
//                            i == n-1).  Those cells are only ever read by a
//                            thread whose own guard 1 <= i < n-1 is false, so
//                            the extra loads are dead: outputs are unchanged.
//
// Expected verdicts (out and in assumed not to alias):
//   stencil.cu:stencil_naive stencil.cu:stencil_shared
//     --assume='blockDim.x <= 256 && blockDim.y == 1 && blockDim.z == 1 && n >= 0'
//       => EQUIVALENT
//   stencil.cu:stencil_naive stencil.cu:stencil_shared_overread
//   stencil.cu:stencil_shared stencil.cu:stencil_shared_overread
//     same --assume => EQUIVALENT
//
// Exactly which assumptions matter:
//   * blockDim.x <= 256: s has BLOCK+2 = 258 cells, the right halo goes to
//     s[blockDim.x+1].  With blockDim.x = 257 the last thread writes s[258],
//     out of bounds.  This is the only assumption needed for equal outputs
//     (modulo the n caveat below).
//   * blockDim.y == 1 && blockDim.z == 1: i does not depend on threadIdx.y/z,
//     so the y/z layers of a block write the SAME values to the SAME s cells
//     (shared write-write race) and the SAME out cells (global write-write
//     race, in both kernels).  The outputs are still equal, so these two are
//     only needed if the tool requires race freedom.  For the same reason
//     gridDim.y == 1 && gridDim.z == 1 is needed for inter-block race
//     freedom of the global writes (in both kernels).
//   * n >= 0 (any n > INT_MIN would do): stencil_naive tests i < n - 1.  clang
//     emits n - 1 as `add nsw`.  If the tool treats signed overflow as
//     undefined (nsw violation = no behaviour), n = INT_MIN is excluded
//     anyway and the pair is equivalent with just blockDim.x <= 256.  If it
//     models plain two's-complement wraparound, n = INT_MIN gives
//     n - 1 = INT_MAX: stencil_naive computes out[i] for every i >= 1 while
//     stencil_shared loads nothing (i < n is false), so it sums
//     uninitialized shared cells -> counterexample, e.g. gridDim=(1,1,1),
//     blockDim=(2,1,1), n=-2147483648: naive writes out[1]=in[0]+in[1]+in[2],
//     shared writes out[1]=s[1]+s[2]+s[3] (never loaded).
//     Including n >= 0 makes the expected verdict independent of that choice.
//
// Correctness argument for stencil_shared (thread tid, global index i,
// 1 <= i < n-1): s[tid+1] = in[i] (its own load, i < n); s[tid] = in[i-1]
// (loaded by thread tid-1 since i-1 < n, or by tid == 0 as the left halo since
// i >= 1 && i-1 < n); s[tid+2] = in[i+1] (loaded by thread tid+1 since
// i+1 < n, or by tid == blockDim.x-1 as the right halo since i+1 < n).  With
// blockDim.x == 1 the single thread loads s[0], s[1], s[2] itself.  Each cell
// has exactly one writer: s[0] by tid 0, s[k+1] by tid k, s[blockDim.x+1] by
// the last thread.

#define BLOCK 256

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

__global__ void stencil_shared_overread(int *out, const int *in, int n) {
  __shared__ int s[BLOCK + 2];
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x;

  if (i < n)
    s[tid + 1] = in[i];
  if (tid == 0 && i - 1 < n)               // no i >= 1: may read in[-1]
    s[0] = in[i - 1];
  if (tid == (int)blockDim.x - 1 && i + 1 <= n)  // <= : may read in[n]
    s[tid + 2] = in[i + 1];

  __syncthreads();

  if (i >= 1 && i < n - 1)
    out[i] = s[tid] + s[tid + 1] + s[tid + 2];
}
