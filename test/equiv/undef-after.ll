; An undefined value (undef, poison, a freeze of them) is any value: in the
; before kernel the proof may pick one (0), in the after kernel the GPU
; does, so no verdict may rest on a choice there. Two freezes of poison
; subtracted are not 0 in the after kernel: never `equivalent` to a kernel
; that writes 0; the other way round it is (0 is one of its values).
; RUN: %expect-exit 2 %kvalidate %s:zero %s:freeze_diff | FileCheck %s --check-prefix=AFTER
; AFTER: verdict: unknown
; RUN: %expect-exit 0 %kvalidate %s:freeze_diff %s:zero | FileCheck %s --check-prefix=BEFORE
; RUN: %expect-exit 0 %kvalidate %s:zero %s:dead_undef | FileCheck %s --check-prefix=BEFORE
; BEFORE: verdict: equivalent

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @zero(ptr %out) {
  %i = call i64 @global_id()
  %p = getelementptr i32, ptr %out, i64 %i
  store i32 0, ptr %p
  ret void
}

define ptx_kernel void @freeze_diff(ptr %out) {
  %x = freeze i32 poison
  %y = freeze i32 poison
  %d = sub i32 %x, %y
  %i = call i64 @global_id()
  %p = getelementptr i32, ptr %out, i64 %i
  store i32 %d, ptr %p
  ret void
}

; An undef on a path no thread takes changes nothing.
define ptx_kernel void @dead_undef(ptr %out) {
entry:
  %i = call i64 @global_id()
  %big = icmp ugt i64 %i, 4294967296
  br i1 %big, label %never, label %join
never:
  br label %join
join:
  %v = phi i32 [ undef, %never ], [ 0, %entry ]
  %p = getelementptr i32, ptr %out, i64 %i
  store i32 %v, ptr %p
  ret void
}

define internal i64 @global_id() {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %b = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %n = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %bn = mul i32 %b, %n
  %g = add i32 %bn, %t
  %i = zext i32 %g to i64
  ret i64 %i
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
