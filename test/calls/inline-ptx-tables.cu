// Two things libdevice's sinf and cosf are made of, in kernels of our own:
// inline PTX of a 64-bit multiply-add in two halves (`mad.lo.cc.u32` then
// `madc.hi.u32`), modelled and replayed exactly; and a table that only
// this module's code can reach and only reads (a `static __device__`
// array), which is a constant as -O2 makes it one, not an input.
//
// RUN: %expect-exit 0 %kvalidate %s:asm_mad %s:wide_mad | FileCheck %s --check-prefix=EQ
// RUN: %expect-exit 0 %kvalidate --cuda-path= %s:lookup %s:lookup_switch | FileCheck %s --check-prefix=EQ
// EQ: verdict: equivalent
//
// The carry dropped: a counterexample, replayed on both kernels' IR.
// RUN: %expect-exit 1 %kvalidate %s:asm_mad %s:wide_mad_no_carry | FileCheck %s --check-prefix=NE
// NE: verdict: not-equivalent
// NE: counterexample (replayed):
// NE: replayed on: the LLVM IR of both kernels
//
// Inside clang at -O2, where the table is folded into the code.
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate %s -o %t.s 2>&1 \
// RUN:   | FileCheck %s --check-prefix=O2 --implicit-check-not=error:
// O2-DAG: remark: kvalidate: kernel 'asm_mad': equivalent
// O2-DAG: remark: kvalidate: kernel 'lookup': equivalent

__global__ void asm_mad(unsigned *lo, unsigned *hi, const unsigned *a,
                        const unsigned *b, const unsigned *c) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned l, h;
  asm("{\n\t"
      "mad.lo.cc.u32   %0, %2, %3, %4;\n\t"
      "madc.hi.u32     %1, %2, %3,  0;\n\t"
      "}"
      : "=r"(l), "=r"(h)
      : "r"(a[i]), "r"(b[i]), "r"(c[i]));
  lo[i] = l;
  hi[i] = h;
}

__global__ void wide_mad(unsigned *lo, unsigned *hi, const unsigned *a,
                         const unsigned *b, const unsigned *c) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned long long w = (unsigned long long)a[i] * b[i] + c[i];
  lo[i] = (unsigned)w;
  hi[i] = (unsigned)(w >> 32);
}

__global__ void wide_mad_no_carry(unsigned *lo, unsigned *hi,
                                  const unsigned *a, const unsigned *b,
                                  const unsigned *c) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned long long w = (unsigned long long)a[i] * b[i];
  lo[i] = (unsigned)w + c[i];
  hi[i] = (unsigned)(w >> 32);
}

static __device__ int digits[4] = {3, 1, 4, 1};

__global__ void lookup(int *out, const int *in) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = digits[in[i] & 3];
}

__global__ void lookup_switch(int *out, const int *in) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  switch (in[i] & 3) {
  case 0:
    out[i] = 3;
    break;
  case 2:
    out[i] = 4;
    break;
  default:
    out[i] = 1;
  }
}
