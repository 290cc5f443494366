// A barrier loop staging a fixed-size tile: threads past the tile's size
// would write outside it. In the plugin, where the kernels are assumed free
// of out-of-bounds shared accesses, the staged-loop model's bounds
// conditions follow from that assumption (listed as such) rather than
// failing on such launches: the model proves the loop, in milliseconds,
// where the pair used to fall to the relational proof. The command line
// checks bounds: there the launch with too many threads is the verdict.
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate -mllvm -kvalidate-cache= \
// RUN:   %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=PLUGIN --implicit-check-not=error:
// PLUGIN: remark: kvalidate: kernel 'tile_rounds': equivalent
// PLUGIN-SAME: the before kernel has staged shared-array write in bounds at {{.*}}staged-bounds.cu:[[@LINE+13]]:{{[0-9]+}}, staged shared-array read in bounds at {{.*}} (as it has no out-of-bounds shared access, assumed)
// PLUGIN-SAME: [proof: loops aligned
//
// RUN: %expect-exit 4 %kvalidate --cuda-path= %s:tile_rounds %s:tile_rounds_scaled | FileCheck %s --check-prefix=CLI
// CLI: verdict: out-of-bounds
// CLI: confirmed:

#define T 64
__global__ void tile_rounds(const float *in, float *out, int rounds) {
  __shared__ float tile[T];
  int t = threadIdx.x;
  float acc = 0.0f;
  for (int r = 0; r < rounds; ++r) {
    tile[t] = in[r * T + t];
    __syncthreads();
    acc += tile[t] * 2.0f;
    __syncthreads();
  }
  out[blockIdx.x * blockDim.x + t] = acc;
}

__global__ void tile_rounds_scaled(const float *in, float *out, int rounds) {
  __shared__ float tile[T];
  int t = threadIdx.x;
  float acc = 0.0f;
  for (int r = 0; r < rounds; ++r) {
    tile[t] = 2.0f * in[r * T + t];
    __syncthreads();
    acc += tile[t];
    __syncthreads();
  }
  out[blockIdx.x * blockDim.x + t] = acc;
}
