// kvalidate test input: small kernels for exercising CLI paths and --assume.
// All are 1D: i = blockIdx.x * blockDim.x + threadIdx.x.  For the same reason
// as in stencil.cu, threads that differ only in threadIdx.y/z or blockIdx.y/z
// write the same value to the same cell (benign write-write races, identical
// in both kernels of every pair); a tool that checks race freedom needs
//   blockDim.y == 1 && blockDim.z == 1 && gridDim.y == 1 && gridDim.z == 1
// added to every --assume below.  Output equivalence does not need them.
//
// Pairs and expected verdicts (out and in assumed not to alias):
//
//   misc.cu:copy misc.cu:copy2                      no --assume => EQUIVALENT
//     copy2 is copy with the index written threadIdx.x + blockDim.x*blockIdx.x
//     and the guard written n > i: identical 32-bit values and conditions.
//
//   misc.cu:copy misc.cu:copy_ptr
//     --assume='gridDim.x <= 65535 && blockDim.x <= 1024' => EQUIVALENT
//     no --assume => NOT EQUIVALENT if the tool allows the full CUDA range
//     gridDim.x <= 2^31-1 (if it already bounds gridDim.x by 65535 it is
//     EQUIVALENT without --assume).  copy indexes with the int i, which clang
//     sign-extends to 64 bits (in[i] = in + 4*sext(i)); copy_ptr first offsets
//     the pointers by the unsigned blockIdx.x*blockDim.x (zero-extended) and
//     then by threadIdx.x.  They agree as long as the global index fits in
//     [0, 2^31).  Counterexample: gridDim=(2^30+1,1,1), blockDim=(2,1,1),
//     n=1: in block 2^30, thread 0 has blockIdx.x*blockDim.x = 2^31, so
//     i = (int)2^31 = -2^31 < 1 = n; copy writes out[-2^31] = in[-2^31],
//     copy_ptr writes out[+2^31] = in[+2^31] (element offsets).  Different
//     cells are written.
//
//   misc.cu:scale misc.cu:scale_by2
//     --assume='k == 2' => EQUIVALENT   (in[i]*2 == in[i]+in[i] mod 2^32)
//     no --assume       => NOT EQUIVALENT: gridDim=(1,1,1), blockDim=(1,1,1),
//       n=1, k=0, in={1}, out={9}: scale writes out[0] = 1*0 = 0, scale_by2
//       writes out[0] = 1+1 = 2.
//
//   misc.cu:scale misc.cu:scale_skip_zero
//     --assume='k != 0' => EQUIVALENT
//     no --assume       => NOT EQUIVALENT: gridDim=(1,1,1), blockDim=(1,1,1),
//       n=1, k=0, in={1}, out={9}: scale writes out[0] = 0, scale_skip_zero
//       writes nothing, out[0] stays 9.
//
//   misc.cu:copy misc.cu:copy_reset_empty
//     --assume='n > 0'  => EQUIVALENT (the extra write needs n <= 0)
//     no --assume       => NOT EQUIVALENT: gridDim=(1,1,1), blockDim=(1,1,1),
//       n=0, in={1}, out={9}: copy writes nothing (0 < 0 false), out = {9};
//       copy_reset_empty: i=0, i == 0 && n <= 0 -> out[0] = 0, out = {0}.
//
//   misc.cu:copy misc.cu:noop      no --assume => NOT EQUIVALENT
//     gridDim=(1,1,1), blockDim=(1,1,1), n=1, in={1}, out={9}: copy gives
//     out={1}, noop leaves {9}.
//     With --assume='n <= 0 && gridDim.x <= 65535 && blockDim.x <= 1024'
//     => EQUIVALENT (no thread has i < n, since 0 <= i < 2^31).
//
//   misc.cu:noop misc.cu:noop2     no --assume => EQUIVALENT (no writes)
//
//   CLI error paths (not verdicts):
//     misc.cu:copy misc.cu:copy_extra_arg   parameter lists differ
//       (int*, const int*, int) vs (int*, const int*, int, int): the tool
//       should reject the pair (or report it cannot compare), not crash.
//     misc.cu:copy misc.cu:does_not_exist   unknown kernel name.
//     misc.cu:copy misc.cu:copy2 --assume='n > 0 && n < 0'
//       contradictory assumption: vacuously EQUIVALENT; a warning is nice.
//     misc.cu:scale misc.cu:scale_by2 --assume='k =='   malformed assumption.

__global__ void copy(int *out, const int *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i];
}

__global__ void copy2(int *out, const int *in, int n) {
  int i = threadIdx.x + blockDim.x * blockIdx.x;
  if (n > i)
    out[i] = in[i];
}

__global__ void copy_ptr(int *out, const int *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const int *src = in + blockIdx.x * blockDim.x;  // unsigned offset
    int *dst = out + blockIdx.x * blockDim.x;
    dst[threadIdx.x] = src[threadIdx.x];
  }
}

__global__ void copy_reset_empty(int *out, const int *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i];
  if (i == 0 && n <= 0)
    out[0] = 0;
}

__global__ void copy_extra_arg(int *out, const int *in, int n, int /*unused*/) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i];
}

__global__ void scale(int *out, const int *in, int n, int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i] * k;
}

__global__ void scale_by2(int *out, const int *in, int n, int /*k*/) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i] + in[i];
}

__global__ void scale_skip_zero(int *out, const int *in, int n, int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && k != 0)
    out[i] = in[i] * k;
}

__global__ void noop(int * /*out*/, const int * /*in*/, int /*n*/) {
}

__global__ void noop2(int *out, const int *in, int n) {
  // Reads but never writes global memory.
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = (i < n) ? in[i] : 0;
  (void)v;
  (void)out;
}
