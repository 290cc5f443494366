// A switch with several targets is lowered arm by arm; read-only tables with
// a known initializer (a const local array's initializer, the lookup table
// -O2 makes of a switch) are constants, while a __constant__ array, which
// the host may write, stays an input.
//
// RUN: %expect-exit 0 %kvalidate --assume='%{1D}' %s:pick_switch %s:pick_select | FileCheck %s --check-prefix=EQ
// RUN: %expect-exit 0 %kvalidate --assume='%{1D}' %s:table_local %s:pick_select | FileCheck %s --check-prefix=EQ
// EQ: verdict: equivalent
//
// One case moved (5 to 6), and one table entry changed: replayed.
// RUN: %expect-exit 1 %kvalidate --assume='%{1D}' %s:pick_switch %s:pick_moved | FileCheck %s --check-prefix=NE
// RUN: %expect-exit 1 %kvalidate --assume='%{1D}' %s:table_local %s:table_wrong | FileCheck %s --check-prefix=NE
// NE: verdict: not-equivalent
// NE: counterexample (replayed):
// NE: replayed on: the LLVM IR of both kernels
//
// The same table as __constant__ memory: its contents are an input.
// RUN: %expect-exit 1 %kvalidate --assume='%{1D}' %s:table_local %s:table_constant | FileCheck %s --check-prefix=CONST
// CONST: verdict: not-equivalent
// CONST: input weights[{{[0-7]}}] = {{-?[0-9]+}}
//
// Such arrays are matched by name, whatever order the kernels read them in.
// RUN: %expect-exit 0 %kvalidate --assume='%{1D}' %s:blend %s:blend_swapped | FileCheck %s --check-prefix=EQ
//
// The plugin at -O2, where the switch becomes a lookup table.
// RUN: %clang-cuda -O2 -S -emit-llvm -o - %s | FileCheck %s --check-prefix=IR
// IR: @switch.table.{{.*}} = private unnamed_addr constant
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=PLUGIN
// PLUGIN-DAG: remark: kvalidate: kernel 'pick_switch': equivalent
// PLUGIN-DAG: remark: kvalidate: kernel 'pick_moved': equivalent
// PLUGIN-DAG: remark: kvalidate: kernel 'table_local': equivalent
// PLUGIN-DAG: remark: kvalidate: kernel 'table_constant': equivalent
// PLUGIN-NOT: warning:

__global__ void pick_switch(int *out, const int *in) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int r;
  switch (in[i] & 7) {
  case 0: r = 3; break;
  case 1: r = 9; break;
  case 2: r = -4; break;
  case 3: r = 12; break;
  case 5: r = 11; break;
  default: r = 0; break;
  }
  out[i] = r;
}

__global__ void pick_select(int *out, const int *in) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int k = in[i] & 7;
  out[i] = k == 0 ? 3 : k == 1 ? 9 : k == 2 ? -4 : k == 3 ? 12 : k == 5 ? 11 : 0;
}

__global__ void pick_moved(int *out, const int *in) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int r;
  switch (in[i] & 7) {
  case 0: r = 3; break;
  case 1: r = 9; break;
  case 2: r = -4; break;
  case 3: r = 12; break;
  case 6: r = 11; break;
  default: r = 0; break;
  }
  out[i] = r;
}

__global__ void table_local(int *out, const int *in) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int t[8] = {3, 9, -4, 12, 0, 11, 0, 0};
  out[i] = t[in[i] & 7];
}

__global__ void table_wrong(int *out, const int *in) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int t[8] = {3, 9, -4, 12, 0, 11, 1, 0};
  out[i] = t[in[i] & 7];
}

__constant__ int weights[8] = {3, 9, -4, 12, 0, 11, 0, 0};

__global__ void table_constant(int *out, const int *in) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = weights[in[i] & 7];
}

__constant__ int scale[4], shift[4];

__global__ void blend(int *out, const int *in) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int s = scale[i & 3];
  out[i] = in[i] * s + shift[i & 3];
}

__global__ void blend_swapped(int *out, const int *in) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int h = shift[i & 3];
  out[i] = h + in[i] * scale[i & 3];
}
