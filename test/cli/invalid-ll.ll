; IR that parses but does not pass the LLVM verifier is an input error too.
; RUN: %expect-exit 3 %kvalidate %s:k %s:k 2>&1 | FileCheck %s
; CHECK: kvalidate: error: {{.*}}invalid-ll.ll: invalid LLVM IR:
; CHECK-SAME: Instruction does not dominate all uses!
; CHECK-NOT: verdict:

target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @k(ptr %p) {
  %a = add i32 %b, 1
  %b = add i32 %a, 1
  store i32 %b, ptr %p
  ret void
}
