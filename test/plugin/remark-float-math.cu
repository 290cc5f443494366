// Float kernels in the plugin at -O2 with no assumption. libdevice's sinf
// and expf (the GPU's own approximations: pure calls, uninterpreted and
// equal on both sides) are proved. So is a box blur along a row (the float
// sum of the in-bounds neighbours divided by their int count): -O2 turns
// `(float)samples` into `uitofp nneg`, which is the signed conversion of a
// non-negative int, and the commuted `in[x - 1] + 0.0` is `0.0 + in[x - 1]`.
// The 3x3 box blur is not yet: x + (-0.0) is x now (-O2 may fold
// `c ? r + x : r` into `r + (c ? x : -0.0)`), but the sum of up to nine
// conditional neighbours times out (open). What matters for a build is that
// it is no false alarm: unknown (and where the proof leaves time in the
// budget, runs on pseudo-random inputs agree; on a loaded machine the proof
// may use all of it).
// REQUIRES: long
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate -mllvm -kvalidate-timeout=10 %s -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --implicit-check-not=error: --implicit-check-not=not-equivalent
// CHECK-DAG: remark: kvalidate: kernel 'box_blur': unknown: {{.*}}{{(runs on pseudo-random inputs found no difference|the time budget ran out|budget: time)}}
// CHECK-DAG: remark: kvalidate: kernel 'row_blur': equivalent ({{[0-9]+}} ms)
// CHECK-DAG: remark: kvalidate: kernel 'wave': equivalent ({{[0-9]+}} ms)
// CHECK-DAG: remark: kvalidate: kernel 'wave_commuted': equivalent ({{[0-9]+}} ms)
//
// From the command line, the same math with its operands commuted.
// RUN: %expect-exit 0 %kvalidate --assume='%{1D}' %s:wave %s:wave_commuted | FileCheck %s --check-prefix=CLI
// CLI: verdict: equivalent

__global__ void row_blur(float *out, const float *in, int n) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x >= n)
    return;
  float r = 0.0f;
  int samples = 0;
  for (int dx = -1; dx <= 1; ++dx)
    if (x + dx >= 0 && x + dx < n) {
      r += in[x + dx];
      ++samples;
    }
  out[x] = r / samples;
}

__global__ void box_blur(float *out, const float *img, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h)
    return;
  float r = 0.0f;
  int samples = 0;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx) {
      int sx = x + dx, sy = y + dy;
      if (sx >= 0 && sx < w && sy >= 0 && sy < h) {
        r += img[sy * w + sx];
        ++samples;
      }
    }
  out[y * w + x] = r / samples;
}

// libdevice's functions, as the CUDA headers declare them (without the SDK
// they stay external calls).
extern "C" __device__ __attribute__((const)) float __nv_sinf(float);
extern "C" __device__ __attribute__((const)) float __nv_expf(float);

__global__ void wave(float *out, const float *in, float k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = in[i];
  out[i] = __nv_sinf(v * k) + __nv_expf(-v) * 0.5f;
}

__global__ void wave_commuted(float *out, const float *in, float k) {
  int i = threadIdx.x + blockDim.x * blockIdx.x;
  float v = in[i];
  out[i] = 0.5f * __nv_expf(-v) + __nv_sinf(k * v);
}
