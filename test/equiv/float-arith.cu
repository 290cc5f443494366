// Float arithmetic is kept uninterpreted: the same operations on the same
// operands are equal, and nothing else is known about them.
//
// The kernels are 1-D: with blockDim.y > 1, two threads share an i and one
// reads y[i] while the other writes it (a race), hence %{1D}.
//
// The same computation written with a temporary: equivalent, and the verdict
// says what it rests on.
// RUN: %expect-exit 0 %kvalidate --assume='%{1D}' %s:saxpy %s:saxpy_temp | FileCheck %s --check-prefix=SAME
// SAME: verdict: equivalent
// SAME: - floating-point and other uninterpreted operations give equal results on equal operands
//
// y + a*x instead of a*x + y is the same IEEE value, but commutativity is not
// part of the model: the honest answer is unknown (exit 2), never
// not-equivalent, since no counterexample can be confirmed.
// RUN: %expect-exit 2 %kvalidate --assume='%{1D}' %s:saxpy %s:saxpy_commuted | FileCheck %s --check-prefix=COMM
// COMM: verdict: unknown
// COMM-NEXT: reason: {{.+}}
// COMM-NOT: counterexample

__global__ void saxpy(float *y, const float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}

__global__ void saxpy_temp(float *y, const float *x, float a, int n) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  if (n > i) {
    float ax = a * x[i];
    float yi = y[i];
    y[i] = ax + yi;
  }
}

__global__ void saxpy_commuted(float *y, const float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = y[i] + a * x[i];
}
