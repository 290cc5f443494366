// An inline PTX instruction that is a function of its scalar operands (an
// arithmetic opcode, no special register, no memory, no side effects) is
// one operation named by its text: the same instruction in both kernels is
// the same value, so a rewrite around it is proved, and another
// instruction is not (its value is the GPU's: unknown, not a
// counterexample). A shuffle, a special register or a volatile asm is
// still unsupported, named with its line.
//
// RUN: %expect-exit 0 %kvalidate --cuda-path= --assume='%{1D}' %s:approx %s:approx_reordered | FileCheck %s --check-prefix=EQ
// EQ: verdict: equivalent
// RUN: %expect-exit 2 %kvalidate --cuda-path= --assume='%{1D}' %s:approx %s:approx_other | FileCheck %s --check-prefix=OTHER
// OTHER: verdict: unknown
// OTHER-NOT: counterexample (replayed)
// RUN: %expect-exit 2 %kvalidate --cuda-path= --assume='%{1D}' %s:approx %s:shuffled | FileCheck %s --check-prefix=SHFL
// SHFL: verdict: unsupported
// SHFL-NEXT: reason: after kernel: {{.*}}inline-ptx.cu:[[@LINE+35]]:{{[0-9]+}}: inline assembly
// RUN: %expect-exit 2 %kvalidate --cuda-path= --assume='%{1D}' %s:approx %s:lane_scaled | FileCheck %s --check-prefix=LANE
// LANE: verdict: unsupported
// LANE-NEXT: reason: after kernel: {{.*}}inline-ptx.cu:[[@LINE+40]]:{{[0-9]+}}: inline assembly

__device__ float fast_rcp(float x) {
  float r;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
}

__global__ void approx(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = fast_rcp(in[i]) * 2.0f;
}

__global__ void approx_reordered(const float *in, float *out, int n) {
  int i = threadIdx.x + blockDim.x * blockIdx.x;
  float x = i < n ? in[i] : 0.0f;
  if (i < n)
    out[i] = 2.0f * fast_rcp(x);
}

__global__ void approx_other(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float r;
  asm("sqrt.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(in[i < n ? i : 0]));
  if (i < n)
    out[i] = r * 2.0f;
}

__global__ void shuffled(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float r;
  asm("shfl.sync.idx.b32 %0, %1, 0, 0x1f, 0xffffffff;" : "=f"(r) : "f"(in[i]));
  if (i < n)
    out[i] = fast_rcp(r) * 2.0f;
}

__global__ void lane_scaled(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned lane;
  asm("mov.u32 %0, %%laneid;" : "=r"(lane));
  if (i < n)
    out[i] = fast_rcp(in[i]) * 2.0f + lane;
}
