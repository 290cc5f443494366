// By-value struct and array parameters: each scalar inside is a parameter of
// the model, named after its field (`p.scale`, `b.lo.1`), held in the
// thread's own copy of the struct; a pointer field is an array like a
// pointer parameter. Replays build the struct's bytes from those values.
//
// A struct of three floats, read directly and through a copy.
// RUN: %expect-exit 0 %kvalidate %s:affine %s:affine_copy | FileCheck %s --check-prefix=EQ
// RUN: %expect-exit 0 %kvalidate --cuda-path= %s:affine %s:affine_copy | FileCheck %s --check-prefix=EQ
// EQ: verdict: equivalent
//
// One field for another: a counterexample that names the fields.
// RUN: %expect-exit 1 %kvalidate %s:affine %s:affine_wrong_field | FileCheck %s --check-prefix=NE
// NE: verdict: not-equivalent
// NE: counterexample (replayed):
// NE: scalars: p.scale = {{.*}}, p.offset = {{.*}}, p.bias = {{.*}}
// NE: replayed on: the LLVM IR of both kernels
//
// A struct with a count, a pointer and an array; the field names reach
// --assume. Writing the thread's own copy changes nothing the caller sees.
// RUN: %expect-exit 0 %kvalidate --assume="v.n <= 4096" %s:window %s:window_local_copy | FileCheck %s --check-prefix=EQ
// RUN: %expect-exit 1 %kvalidate --assume="v.n <= 4096" %s:window %s:window_wrong_lane | FileCheck %s --check-prefix=NE2
// NE2: verdict: not-equivalent
// NE2: input v.in[{{[0-9]+}}] =
// NE2: replayed on: the LLVM IR of both kernels
//
// Inside clang at -O2 (the struct stays a `byval` parameter there).
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate %s -o %t.s 2>&1 \
// RUN:   | FileCheck %s --check-prefix=O2 --implicit-check-not=warning: --implicit-check-not=error:
// O2-DAG: remark: kvalidate: kernel 'affine': equivalent
// O2-DAG: remark: kvalidate: kernel 'affine_copy': equivalent
// O2-DAG: remark: kvalidate: kernel 'affine_wrong_field': equivalent
// O2-DAG: remark: kvalidate: kernel 'window': equivalent
// O2-DAG: remark: kvalidate: kernel 'window_local_copy': equivalent
// O2-DAG: remark: kvalidate: kernel 'window_wrong_lane': equivalent

struct Affine {
  float scale, offset, bias;
};

__global__ void affine(Affine p, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = p.scale * (float)i + p.offset - p.bias;
}

__global__ void affine_copy(Affine p, float *out) {
  Affine q = p;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = q.scale * (float)i + q.offset - q.bias;
}

__global__ void affine_wrong_field(Affine p, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = p.scale * (float)i + p.bias - p.bias;
}

struct Window {
  int n;
  const int *in;
  int lanes[2];
};

__global__ void window(Window v, int *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < v.n)
    out[i] = v.in[i] * v.lanes[0] + v.lanes[1];
}

__global__ void window_local_copy(Window v, int *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  // The parameter is this thread's copy: changing it is local.
  v.lanes[1] += v.in[i < v.n ? i : 0] * v.lanes[0];
  if (i < v.n)
    out[i] = v.lanes[1];
}

__global__ void window_wrong_lane(Window v, int *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < v.n)
    out[i] = v.in[i] * v.lanes[1] + v.lanes[1];
}
