; LLVM IR that does not parse is an input error (exit 3) that quotes the
; parser's message with its line and column.
; RUN: %expect-exit 3 %kvalidate %s:k %s:k 2>&1 | FileCheck %s
; CHECK: kvalidate: error: cannot read {{.*}}malformed-ll.ll: {{.*}}malformed-ll.ll:[[@LINE+6]]:20: error: use of undefined value '%q'
; CHECK-NOT: verdict: {{(not-)?equivalent}}

target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @k(ptr %p) {
  store i32 0, ptr %q
  ret void
}
