// approximate-math.cu's kernels with the CUDA SDK: libdevice's bodies run,
// and only their PTX approximations (ex2.approx, rsqrt.approx, ...) are
// bounded, by the error the PTX ISA states for each. Against the -O2 IR
// too, where the bodies are inlined.
// REQUIRES: cuda-sdk
// RUN: %expect-exit 0 %kvalidate --cuda-path=/usr/local/cuda --timeout=60 %S/approximate-math.cu:sigmoid %S/approximate-math.cu:sigmoid_staged | FileCheck %s --check-prefix=SAME
// SAME: verdict: equivalent
// RUN: %clang-path -x cuda --cuda-device-only --cuda-gpu-arch=sm_80 --cuda-path=/usr/local/cuda \
// RUN:   -Wno-unknown-cuda-version -O2 -S -emit-llvm %S/approximate-math.cu -o %t.ll
// RUN: %expect-exit 1 %kvalidate --cuda-path=/usr/local/cuda --timeout=60 %S/approximate-math.cu:sigmoid %t.ll:sigmoid_unnegated | FileCheck %s --check-prefix=DIFF
// RUN: %expect-exit 1 %kvalidate --cuda-path=/usr/local/cuda --timeout=60 %S/approximate-math.cu:sigmoid %S/approximate-math.cu:sigmoid_unnegated | FileCheck %s --check-prefix=DIFF
// RUN: %expect-exit 1 %kvalidate --cuda-path=/usr/local/cuda --timeout=60 %S/approximate-math.cu:wave %t.ll:wave_shifted | FileCheck %s --check-prefix=DIFF
// RUN: %expect-exit 1 %kvalidate --cuda-path=/usr/local/cuda --timeout=60 %S/approximate-math.cu:fast_decay %t.ll:fast_decay_halved | FileCheck %s --check-prefix=DIFF
// RUN: %expect-exit 1 %kvalidate --cuda-path=/usr/local/cuda --timeout=60 %S/approximate-math.cu:normalize %t.ll:normalize_unsquared | FileCheck %s --check-prefix=DIFF
// DIFF: verdict: not-equivalent
// DIFF: replayed on: the LLVM IR of both kernels
