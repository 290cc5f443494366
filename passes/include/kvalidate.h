/*===- kvalidate.h - reference annotations for kvalidate ------------------===*
 *
 * Name the kernel an optimized kernel must compute the same outputs as, and
 * every compile with the kvalidate pass plugin proves it:
 *
 *   #include <kvalidate.h>
 *
 *   __global__ void transpose_naive(float *out, const float *in, int n);
 *
 *   KV_EQUIVALENT_TO(transpose_naive, "blockDim.x == blockDim.y")
 *   __global__ void transpose_tiled(float *out, const float *in, int n) {...}
 *
 * The reference is a kernel defined in the same translation unit, named as
 * in kvalidate (its source name, or its name without template arguments if
 * that is unique), with parameters in the same order. The optional second
 * argument is one string of assumptions, a C expression over blockDim.*,
 * gridDim.* and the scalar parameters by name (join several with &&). The
 * plugin (clang -fpass-plugin=libkvalidate.so) reports the verdict on the
 * annotated kernel, as for the -O2 pipeline, under -kvalidate-fail-on.
 * Without the plugin the annotation does nothing.
 *
 *===----------------------------------------------------------------------===*/
#ifndef KVALIDATE_H
#define KVALIDATE_H

#define KV_EQUIVALENT_TO(reference, ...)                                       \
  __attribute__((                                                              \
      annotate("kvalidate.equivalent_to=" #reference ";" __VA_ARGS__)))

#endif
