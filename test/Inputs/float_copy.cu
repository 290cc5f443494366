// kvalidate test input: float data moved through shared memory, no float
// arithmetic.  Values are only loaded and stored, so equivalence is about bit
// patterns (NaN payloads, -0.0 etc. must be preserved, which plain
// loads/stores do).
//
// Kernels (1D, i = blockIdx.x * blockDim.x + threadIdx.x, BLOCK = 256):
//   float_copy_direct         if (i < n) out[i] = in[i];
//   float_copy_shared         buf[tid] = in[i]; barrier; out[i] = buf[tid]
//                             (each thread reads back its own cell).
//   float_copy_shared_mirror  buf[tid] = in[i]; barrier; thread tid then
//                             writes element j = base + (blockDim.x-1-tid)
//                             from buf[blockDim.x-1-tid], i.e. from the cell
//                             another thread loaded: real cross-thread
//                             communication through shared memory.
//
// Expected verdicts (out and in assumed not to alias):
//   float_copy.cu:float_copy_direct float_copy.cu:float_copy_shared
//     --assume='blockDim.x <= 256 && blockDim.y == 1 && blockDim.z == 1'
//       => EQUIVALENT
//   float_copy.cu:float_copy_direct float_copy.cu:float_copy_shared_mirror
//     same --assume => EQUIVALENT
//   float_copy.cu:float_copy_shared float_copy.cu:float_copy_shared_mirror
//     same --assume => EQUIVALENT
//   As in stencil.cu, blockDim.y == 1 && blockDim.z == 1 (and gridDim.y ==
//   gridDim.z == 1) are needed only for race freedom: y/z layers store the
//   same value into the same buf cell and the same out cell.  blockDim.x <=
//   256 keeps buf[tid] in bounds.
//
// Why the mirror kernel is right: thread t' = blockDim.x-1-t loaded
// buf[t'] = in[base + t'] iff base + t' < n.  Thread t computes
// j = blockIdx.x*blockDim.x + (blockDim.x-1-threadIdx.x) in unsigned 32-bit
// arithmetic, which is bit-for-bit the i of thread t', and writes out[j] under
// the same condition j < n, so every element with index < n is written with
// in[j] by exactly one thread, as in the direct copy.  buf cells that were
// not loaded are never read.

#define BLOCK 256

__global__ void float_copy_direct(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i];
}

__global__ void float_copy_shared(float *out, const float *in, int n) {
  __shared__ float buf[BLOCK];
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    buf[tid] = in[i];
  __syncthreads();
  if (i < n)
    out[i] = buf[tid];
}

__global__ void float_copy_shared_mirror(float *out, const float *in, int n) {
  __shared__ float buf[BLOCK];
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    buf[tid] = in[i];
  __syncthreads();
  int mt = blockDim.x - 1 - threadIdx.x;                     // mirrored thread
  int j = blockIdx.x * blockDim.x + (blockDim.x - 1 - threadIdx.x);
  if (j < n)
    out[j] = buf[mt];
}
