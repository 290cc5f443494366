// __syncwarp(mask): a barrier for the threads of one warp. It splits the
// model's intervals like __syncthreads(), and the race check takes two
// accesses it separates as ordered only for two threads of one warp that
// both reach it within its mask.
//
// A block sum finished by the first warp through shared memory, each step
// between two __syncwarp(): equivalent to the tree.
// RUN: %expect-exit 0 %kvalidate --assume="%{W64}" %s:tree %s:warp_steps | FileCheck %s --check-prefix=EQ
// RUN: %expect-exit 0 %kvalidate --cuda-path= --assume="%{W64}" %s:tree %s:warp_steps | FileCheck %s --check-prefix=EQ
// EQ: verdict: equivalent
// EQ: checked: the after kernel has {{.*}}no data race
//
// Without the second __syncwarp() of each step, a lane's next write meets
// another lane's read.
// RUN: %expect-exit 4 %kvalidate --assume="%{W64}" %s:tree %s:warp_steps_missing | FileCheck %s --check-prefix=RACE
// RACE: verdict: race
// RACE-NEXT: reason: after kernel: read-write race on s[{{[0-9]+}}]
//
// Lanes that skip the barrier are not ordered by it.
// RUN: %expect-exit 4 %kvalidate --assume="%{W64}" %s:tree %s:half_warp_barrier | FileCheck %s --check-prefix=RACE

__global__ void tree(int *out, const int *in) {
  __shared__ int s[64];
  unsigned t = threadIdx.x;
  s[t] = in[blockIdx.x * 64 + t];
  __syncthreads();
  for (unsigned h = 32; h > 0; h /= 2) {
    if (t < h)
      s[t] += s[t + h];
    __syncthreads();
  }
  if (t == 0)
    out[blockIdx.x] = s[0];
}

__global__ void warp_steps(int *out, const int *in) {
  __shared__ int s[64];
  unsigned t = threadIdx.x;
  s[t] = in[blockIdx.x * 64 + t];
  __syncthreads();
  if (t < 32) {
    int v = s[t] + s[t + 32];
    for (int o = 16; o > 0; o /= 2) {
      s[t] = v;
      __syncwarp();
      v += s[(t + o) % 32];
      __syncwarp();
    }
    if (t == 0)
      out[blockIdx.x] = v;
  }
}

__global__ void warp_steps_missing(int *out, const int *in) {
  __shared__ int s[64];
  unsigned t = threadIdx.x;
  s[t] = in[blockIdx.x * 64 + t];
  __syncthreads();
  if (t < 32) {
    int v = s[t] + s[t + 32];
    for (int o = 16; o > 0; o /= 2) {
      s[t] = v;
      __syncwarp();
      v += s[(t + o) % 32];
    }
    if (t == 0)
      out[blockIdx.x] = v;
  }
}

__global__ void half_warp_barrier(int *out, const int *in) {
  __shared__ int s[64];
  unsigned t = threadIdx.x;
  s[t] = in[blockIdx.x * 64 + t];
  __syncthreads();
  if (t < 32) {
    int v = s[t] + s[t + 32];
    s[t] = v;
    if (t < 16)
      __syncwarp(0xffff);
    v += s[(t + 16) % 32];
    if (t == 0)
      out[blockIdx.x] = v;
  }
}
