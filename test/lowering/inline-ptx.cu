// An inline PTX instruction that is a function of its scalar operands (an
// arithmetic opcode, no special register, no memory, no side effects) is
// one operation named by its text: the same instruction in both kernels is
// the same value, so a rewrite around it is proved, and another
// instruction is not. A run bounds PTX's `.approx` instructions by their
// stated error (rcp.approx against sqrt.approx: a counterexample where the
// bounds are disjoint). Reads of the lane registers (%laneid, %lanemask_*, as
// cooperative groups make them) are exact. Other inline assembly without
// effects is an unknown value: where a result depends on it the pair is
// unsupported, named with the asm's line and the line that uses it; a
// volatile asm is unsupported.
//
// RUN: %expect-exit 0 %kvalidate --cuda-path= --assume='%{1D}' %s:approx %s:approx_reordered | FileCheck %s --check-prefix=EQ
// EQ: verdict: equivalent
// RUN: %expect-exit 1 %kvalidate --cuda-path= --assume='%{1D}' %s:approx %s:approx_other | FileCheck %s --check-prefix=OTHER
// OTHER: verdict: not-equivalent
// OTHER: replayed on: the LLVM IR of both kernels
// RUN: %expect-exit 2 %kvalidate --cuda-path= --assume='%{1D}' %s:approx %s:shuffled | FileCheck %s --check-prefix=SHFL
// SHFL: verdict: unsupported
// SHFL-NEXT: reason: after kernel: {{.*}}inline-ptx.cu:[[@LINE+43]]:{{[0-9]+}}: inline assembly at {{.*}}inline-ptx.cu:[[@LINE+41]]:{{[0-9]+}}, whose value the model does not know, used
// RUN: %expect-exit 0 %kvalidate --cuda-path= --assume='%{1D}' %s:lane_plain %s:lane_asm | FileCheck %s --check-prefix=LANE
// LANE: verdict: equivalent
// RUN: %expect-exit 1 %kvalidate --cuda-path= --assume='%{1D}' %s:lane_plain %s:lane_wrong | FileCheck %s --check-prefix=LANE-WRONG
// LANE-WRONG: verdict: not-equivalent
// LANE-WRONG: replayed on: the LLVM IR of both kernels
// RUN: %expect-exit 2 %kvalidate --cuda-path= --assume='%{1D}' %s:approx %s:volatile_asm | FileCheck %s --check-prefix=VOLATILE
// VOLATILE: verdict: unsupported
// VOLATILE-NEXT: reason: after kernel: {{.*}}inline-ptx.cu:[[@LINE+64]]:{{[0-9]+}}: inline assembly
// VOLATILE: assumptions: none (nothing was checked)

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

__global__ void lane_plain(int *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = (threadIdx.x & 31) * 3 + (threadIdx.x & 31);
}

// The lane, and the count of the lanes below it (lanemask_lt), as
// cooperative groups read them.
__global__ void lane_asm(int *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned lane, below;
  asm("mov.u32 %0, %%laneid;" : "=r"(lane));
  asm("mov.u32 %0, %%lanemask_lt;" : "=r"(below));
  out[i] = lane * 3 + __popc(below);
}

__global__ void lane_wrong(int *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned lane, upto;
  asm("mov.u32 %0, %%laneid;" : "=r"(lane));
  asm("mov.u32 %0, %%lanemask_le;" : "=r"(upto));
  out[i] = lane * 3 + __popc(upto);
}

__global__ void volatile_asm(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float r;
  asm volatile("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(in[i]));
  if (i < n)
    out[i] = r * 2.0f;
}
