// Device functions declared here and defined in another translation unit
// (-fgpu-rdc): one of scalars to a scalar is a function of its operands,
// the same in both kernels, an assumption the verdict lists. A difference
// through it cannot be run (its body is elsewhere): unknown, never a
// counterexample nobody ran. One that takes a pointer or returns nothing
// may do anything to memory: unsupported, named with its line.
//
// RUN: %expect-exit 0 %kvalidate %s:offset_hash %s:offset_hash_split | FileCheck %s --check-prefix=EQ
// RUN: %expect-exit 0 %kvalidate --cuda-path= %s:scaled %s:scaled | FileCheck %s --check-prefix=EQ2
// EQ: verdict: equivalent
// EQ: - device function hash (no body here, defined in another translation unit) is a function of its arguments: no effects, no reads of memory the kernels write
// EQ2: verdict: equivalent
//
// RUN: %expect-exit 2 %kvalidate --timeout=30 %s:offset_hash %s:offset_hash_shifted | FileCheck %s --check-prefix=UNK
// UNK: verdict: unknown
// UNK-NEXT: reason: {{.*}}cannot replay uninterpreted operation 'extern:{{.*}}hash
//
// RUN: %expect-exit 2 %kvalidate %s:through_pointer %s:through_pointer | FileCheck %s --check-prefix=PTR
// PTR: verdict: unsupported
// PTR-NEXT: reason: before kernel: {{.*}}external-functions.cu:[[@LINE+41]]:{{[0-9]+}}: call to external function 'touch' that takes or returns a pointer, or returns nothing (what it does to memory is unknown)
//
// Inside clang at -O2, compiling for relocatable device code.
// RUN: %clang-cuda -fgpu-rdc -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate %s -o %t.s 2>&1 \
// RUN:   | FileCheck %s --check-prefix=O2 --implicit-check-not=error:
// O2-DAG: remark: kvalidate: kernel 'offset_hash': equivalent
// O2-DAG: remark: kvalidate: kernel 'scaled': equivalent

extern __device__ int hash(int);
extern __device__ float gain(float, int);
extern __device__ void touch(int *);

__global__ void offset_hash(int *out, const int *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = hash(in[i]) + 1;
}

__global__ void offset_hash_split(int *out, const int *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  int h = hash(in[i]);
  out[i] = 1 + h;
}

__global__ void offset_hash_shifted(int *out, const int *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = hash(in[i] + 1) + 1;
}

__global__ void scaled(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = gain(in[i], 3);
}

__global__ void through_pointer(int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    touch(out + i);
}
