// Texture fetches (tex2D, tex1Dfetch through clang's texture headers: one
// inline `tex.*` instruction LLVM takes as a pure function of its
// operands) are uninterpreted functions of the texture object and the
// coordinates, one per component: the same fetch in both kernels is the
// same texel, so a rewrite around it is proved, in the plugin against -O2
// and from the command line. A texture's content is not an input the runs
// know: a pair that fetches different texels is never `equivalent`, and
// (with no run to confirm a difference) `unknown`.
// REQUIRES: cuda-sdk
// RUN: %clang-path -x cuda --cuda-device-only --cuda-gpu-arch=sm_80 --cuda-path=/usr/local/cuda \
// RUN:   -Wno-unknown-cuda-version -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate -mllvm -kvalidate-cache= \
// RUN:   %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=PLUGIN --implicit-check-not=error:
// PLUGIN-DAG: remark: kvalidate: kernel 'smooth': equivalent
// PLUGIN-DAG: remark: kvalidate: kernel 'smooth_swapped': equivalent
// PLUGIN-DAG: remark: kvalidate: kernel 'gather': equivalent
//
// RUN: %expect-exit 0 %kvalidate --cuda-path=/usr/local/cuda %s:smooth %s:smooth_swapped | FileCheck %s --check-prefix=SAME
// SAME: verdict: equivalent
// RUN: %expect-exit 2 %kvalidate --cuda-path=/usr/local/cuda --timeout=20 %s:smooth %s:smooth_shifted | FileCheck %s --check-prefix=OTHER
// OTHER: verdict: unknown
#include <cuda_runtime.h>

__global__ void smooth(cudaTextureObject_t tex, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h)
    out[y * w + x] = 0.5f * tex2D<float>(tex, x + 0.5f, y + 0.5f) +
                     0.25f * tex2D<float>(tex, x + 1.5f, y + 0.5f);
}

// The two fetches in the other order, the weights applied after.
__global__ void smooth_swapped(cudaTextureObject_t tex, float *out, int w,
                               int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h)
    return;
  float right = tex2D<float>(tex, x + 1.5f, y + 0.5f);
  float here = tex2D<float>(tex, x + 0.5f, y + 0.5f);
  out[y * w + x] = 0.25f * right + 0.5f * here;
}

// The right neighbour one texel further.
__global__ void smooth_shifted(cudaTextureObject_t tex, float *out, int w,
                               int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h)
    out[y * w + x] = 0.5f * tex2D<float>(tex, x + 0.5f, y + 0.5f) +
                     0.25f * tex2D<float>(tex, x + 2.5f, y + 0.5f);
}

__global__ void gather(cudaTextureObject_t tex, const int *idx, int *out,
                       int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = tex1Dfetch<int>(tex, idx[i]) + tex1Dfetch<int>(tex, i);
}
