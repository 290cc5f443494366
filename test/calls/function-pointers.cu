// Calls through pointers to functions the kernel names: each possible
// target is called under the condition that it is the one (a select, a
// join of branches, a constant table the kernel indexes), as a switch over
// the targets would be; replays follow the pointer.
//
// RUN: %expect-exit 0 %kvalidate %s:by_choice %s:inline_choice | FileCheck %s --check-prefix=EQ
// RUN: %expect-exit 0 %kvalidate --cuda-path= %s:by_table %s:inline_choice | FileCheck %s --check-prefix=EQ
// RUN: %expect-exit 0 %kvalidate %s:by_data %s:inline_data | FileCheck %s --check-prefix=EQ
// EQ: verdict: equivalent
//
// The table's wrong entry: a counterexample, replayed through the pointer.
// RUN: %expect-exit 1 %kvalidate %s:by_table %s:by_table_wrong | FileCheck %s --check-prefix=NE
// NE: verdict: not-equivalent
// NE: counterexample (replayed):
// NE: replayed on: the LLVM IR of both kernels
//
// A target the kernel cannot name: a parameter, or a __device__ table the
// host may write.
// RUN: %expect-exit 2 %kvalidate %s:by_parameter %s:by_parameter | FileCheck %s --check-prefix=PARAM
// PARAM: verdict: unsupported
// PARAM-NEXT: reason: before kernel: {{.*}}function-pointers.cu:[[@LINE+58]]:{{[0-9]+}}: call through a pointer to a function the model cannot name
// RUN: %expect-exit 2 %kvalidate %s:by_device_table %s:by_device_table | FileCheck %s --check-prefix=DEV
// DEV: verdict: unsupported
// DEV-NEXT: reason: before kernel: {{.*}}function-pointers.cu:[[@LINE+62]]:{{[0-9]+}}: pointer loaded from shared/global memory
//
// Inside clang at -O2.
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate %s -o %t.s 2>&1 \
// RUN:   | FileCheck %s --check-prefix=O2 --implicit-check-not=error:
// O2-DAG: remark: kvalidate: kernel 'by_choice': equivalent
// O2-DAG: remark: kvalidate: kernel 'by_table': equivalent
// O2-DAG: remark: kvalidate: kernel 'by_table_wrong': equivalent
// O2-DAG: remark: kvalidate: kernel 'by_data': equivalent

typedef int (*Unary)(int);

__device__ int doubled(int x) { return 2 * x; }
__device__ int tripled(int x) { return 3 * x; }
__device__ int shifted(int x) { return x + 7; }

__global__ void by_choice(int *out, const int *in, int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  Unary f = k ? tripled : doubled;
  out[i] = f(in[i]);
}

__global__ void inline_choice(int *out, const int *in, int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = k ? 3 * in[i] : in[i] + in[i];
}

__global__ void by_table(int *out, const int *in, int k) {
  const Unary ops[3] = {doubled, tripled, shifted};
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = ops[k != 0](in[i]);
}

__global__ void by_table_wrong(int *out, const int *in, int k) {
  const Unary ops[3] = {doubled, tripled, shifted};
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = ops[(k != 0) * 2](in[i]);
}

// Each thread picks by its own input.
__global__ void by_data(int *out, const int *in) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  Unary f = doubled;
  if (in[i] > 5)
    f = shifted;
  out[i] = f(in[i]);
}

__global__ void inline_data(int *out, const int *in) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i] > 5 ? in[i] + 7 : 2 * in[i];
}

__global__ void by_parameter(int *out, const int *in, Unary f) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = f(in[i]);
}

__device__ Unary deviceOps[2] = {doubled, tripled};

__global__ void by_device_table(int *out, const int *in, int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = deviceOps[k & 1](in[i]);
}
