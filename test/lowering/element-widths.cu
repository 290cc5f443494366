// One array, several access widths: an array's element is its narrowest
// access (in either kernel of the pair), and a wider access is that many
// elements, little-endian. An optimized struct copy loads 8 bytes where the
// source read 4-byte fields; a kernel may read a word and then its halves.
//
// The after kernel's wide accesses split into the before kernel's fields.
// REQUIRES: long
// RUN: %expect-exit 1 %kvalidate %s:bump_first %s:bump_wrong | FileCheck %s --check-prefix=WIDER
// WIDER: verdict: not-equivalent
// WIDER: counterexample (replayed):
// The before kernel re-lowered with the after kernel's narrower fields.
// RUN: %expect-exit 0 %kvalidate %s:bump_words %s:bump_first | FileCheck %s --check-prefix=NARROWER
// NARROWER: verdict: equivalent
// Within one kernel: a word, then its halves (the lowering restarts with
// 4-byte elements).
// RUN: %expect-exit 0 %kvalidate %s:word_then_halves %s:halves | FileCheck %s --check-prefix=MIXED
// MIXED: verdict: equivalent
//
// In clang at -O2 the struct copy becomes 8-byte loads and stores.
// RUN: %clang-cuda -O2 -S -fpass-plugin=%plugin -Rpass=kvalidate %s -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=PLUGIN --implicit-check-not=warning:
// PLUGIN-DAG: remark: kvalidate: kernel 'bump_first': equivalent
// PLUGIN-DAG: remark: kvalidate: kernel 'word_then_halves': equivalent

struct Quad {
  int a, b, c, d;
};

__global__ void bump_first(Quad *out, const Quad *in) {
  long t = blockIdx.x * blockDim.x + threadIdx.x;
  Quad q = in[t];
  q.a += 1;
  out[t] = q;
}

// As 8-byte words: a is the low half of the first (little-endian).
__global__ void bump_words(long *out, const long *in) {
  long t = blockIdx.x * blockDim.x + threadIdx.x;
  long lo = in[2 * t], hi = in[2 * t + 1];
  lo = (lo & ~0xffffffffL) | (unsigned)((int)lo + 1);
  out[2 * t] = lo;
  out[2 * t + 1] = hi;
}

// Adds 1 to the whole word: the carry reaches b when a is -1.
__global__ void bump_wrong(long *out, const long *in) {
  long t = blockIdx.x * blockDim.x + threadIdx.x;
  long lo = in[2 * t], hi = in[2 * t + 1];
  out[2 * t] = lo + 1;
  out[2 * t + 1] = hi;
}

__global__ void word_then_halves(int *out, const long *in) {
  long t = blockIdx.x * blockDim.x + threadIdx.x;
  long w = in[t];
  int high = ((const int *)in)[2 * t + 1];
  out[t] = (int)w + high;
}

__global__ void halves(int *out, const long *in) {
  long t = blockIdx.x * blockDim.x + threadIdx.x;
  const int *p = (const int *)in;
  out[t] = p[2 * t] + p[2 * t + 1];
}
