; -O2 narrows `(t + 1) % blockDim.x` to an i16 urem of truncated operands,
; exact because threadIdx.x < blockDim.x <= 1024. The narrow and the 32-bit
; remainder are one abstracted function of the zero-extended operands.
; Truncating a scalar parameter is not exact: the counterexample's divisor
; has bits above the low 16, and it replays.
;
; RUN: %expect-exit 0 %kvalidate %s:rot_wide %s:rot_narrow | FileCheck %s --check-prefix=EQ
; EQ: verdict: equivalent
;
; RUN: %expect-exit 1 %kvalidate --json %s:rot_param_wide %s:rot_param_narrow | FileCheck %s --check-prefix=NE
; NE: "mismatch":{"after":{{-?[0-9]+}},"array":"out","before":{{-?[0-9]+}},"index":{{[0-9]+}}},"replayed":true
; NE-SAME: "verdict":"not-equivalent"

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @rot_wide(ptr %out, ptr %in) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %n = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %b = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %t1 = add i32 %t, 1
  %r = urem i32 %t1, %n
  %ri = zext i32 %r to i64
  %src = getelementptr inbounds i32, ptr %in, i64 %ri
  %v = load i32, ptr %src
  %bn = mul i32 %b, %n
  %g = add i32 %bn, %t
  %gi = zext i32 %g to i64
  %dst = getelementptr inbounds i32, ptr %out, i64 %gi
  store i32 %v, ptr %dst
  ret void
}

define ptx_kernel void @rot_narrow(ptr %out, ptr %in) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %n = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %b = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %t16 = trunc i32 %t to i16
  %t1 = add i16 %t16, 1
  %n16 = trunc i32 %n to i16
  %r16 = urem i16 %t1, %n16
  %ri = zext i16 %r16 to i64
  %src = getelementptr inbounds i32, ptr %in, i64 %ri
  %v = load i32, ptr %src
  %bn = mul i32 %b, %n
  %g = add i32 %bn, %t
  %gi = zext i32 %g to i64
  %dst = getelementptr inbounds i32, ptr %out, i64 %gi
  store i32 %v, ptr %dst
  ret void
}

define ptx_kernel void @rot_param_wide(ptr %out, ptr %in, i32 %n) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %t1 = add i32 %t, 1
  %r = urem i32 %t1, %n
  %ri = zext i32 %r to i64
  %src = getelementptr inbounds i32, ptr %in, i64 %ri
  %v = load i32, ptr %src
  %ti = zext i32 %t to i64
  %dst = getelementptr inbounds i32, ptr %out, i64 %ti
  store i32 %v, ptr %dst
  ret void
}

define ptx_kernel void @rot_param_narrow(ptr %out, ptr %in, i32 %n) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %t16 = trunc i32 %t to i16
  %t1 = add i16 %t16, 1
  %n16 = trunc i32 %n to i16
  %r16 = urem i16 %t1, %n16
  %ri = zext i16 %r16 to i64
  %src = getelementptr inbounds i32, ptr %in, i64 %ri
  %v = load i32, ptr %src
  %ti = zext i32 %t to i64
  %dst = getelementptr inbounds i32, ptr %out, i64 %ti
  store i32 %v, ptr %dst
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()

; The solver-heavy lane (test/lit.cfg.py).
; REQUIRES: long
