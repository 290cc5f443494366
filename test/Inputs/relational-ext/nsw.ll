; One store of a kernel pair in test/loops/relational-extensions.test.
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"
define ptx_kernel void @k(ptr %p, i32 %a) {
  %s = add nsw i32 %a, 1
  %x = sext i32 %s to i64
  %q = getelementptr inbounds i32, ptr %p, i64 %x
  store i32 7, ptr %q, align 4
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  ret void
}
declare void @llvm.nvvm.barrier.cta.sync.aligned.all(i32)
