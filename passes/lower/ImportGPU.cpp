//===- ImportGPU.cpp - gpu-dialect kernels as nvptx LLVM IR ---------------===//
#include "passes/lower/ImportGPU.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVM.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVM.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/Transforms/Passes.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/CodeGen/ExpandReductions.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Scalar/Scalarizer.h"

#include <map>
#include <set>

using namespace mlir;

namespace kv {

void registerGPUImportDialects(DialectRegistry &registry) {
  registry.insert<affine::AffineDialect, arith::ArithDialect,
                  cf::ControlFlowDialect, func::FuncDialect, gpu::GPUDialect,
                  index::IndexDialect, LLVM::LLVMDialect, math::MathDialect,
                  memref::MemRefDialect, NVVM::NVVMDialect, scf::SCFDialect,
                  ub::UBDialect, vector::VectorDialect>();
  // What gpu-to-nvvm collects its patterns from (as mlir-opt registers it).
  arith::registerConvertArithToLLVMInterface(registry);
  cf::registerConvertControlFlowToLLVMInterface(registry);
  registerConvertFuncToLLVMInterface(registry);
  NVVM::registerConvertGpuToNVVMInterface(registry);
  index::registerConvertIndexToLLVMInterface(registry);
  registerConvertMathToLLVMInterface(registry);
  registerConvertMemRefToLLVMInterface(registry);
  registerConvertNVVMToLLVMInterface(registry);
  ub::registerConvertUBToLLVMInterface(registry);
  vector::registerConvertVectorToLLVMInterface(registry);
  registerBuiltinDialectTranslation(registry);
  registerGPUDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
}

bool hasGPUKernels(ModuleOp module) {
  bool found = false;
  module.walk([&](Operation *op) {
    auto f = dyn_cast<gpu::GPUFuncOp>(op);
    found |= (f && f.isKernel()) || isa<gpu::LaunchOp>(op) ||
             (isa<gpu::LaunchFuncOp, scf::ParallelOp>(op) &&
              op->getParentOfType<func::FuncOp>());
    return found ? WalkResult::interrupt() : WalkResult::advance();
  });
  return found;
}

namespace {

/// The SSA name a kernel argument has in its source (`%out` at the
/// argument's location), if the file is at hand.
std::string
sourceName(BlockArgument a,
           std::map<std::string, std::unique_ptr<llvm::MemoryBuffer>> &files) {
  auto loc = dyn_cast<FileLineColLoc>(a.getLoc());
  if (!loc || loc.getLine() == 0)
    return "";
  std::string path = loc.getFilename().str();
  auto it = files.find(path);
  if (it == files.end()) {
    auto buf = llvm::MemoryBuffer::getFile(path);
    it = files.emplace(path, buf ? std::move(*buf) : nullptr).first;
  }
  if (!it->second)
    return "";
  llvm::StringRef text = it->second->getBuffer();
  for (unsigned line = 1; line < loc.getLine(); ++line) {
    size_t nl = text.find('\n');
    if (nl == llvm::StringRef::npos)
      return "";
    text = text.drop_front(nl + 1);
  }
  text = text.drop_front(std::min<size_t>(loc.getColumn() - 1, text.size()));
  if (!text.consume_front("%"))
    return "";
  llvm::StringRef name = text.take_while(
      [](char c) { return llvm::isAlnum(c) || c == '_' || c == '.'; });
  if (name.empty() || llvm::isDigit(name.front()))
    return "";
  return name.str();
}

} // namespace

void nameParameters(ModuleOp module, llvm::Module &m) {
  // Each argument's parameters: one for a scalar or a bare pointer, the
  // descriptor's 3 + 2 * rank for a memref passed as one.
  std::map<std::string, std::unique_ptr<llvm::MemoryBuffer>> files;
  module.walk([&](gpu::GPUFuncOp f) {
    llvm::Function *fn = m.getFunction(f.getName());
    if (!f.isKernel() || !fn)
      return;
    std::vector<std::string> names;
    for (BlockArgument a : f.getArguments()) {
      std::string n = sourceName(a, files);
      if (n.empty())
        return;
      auto mt = dyn_cast<MemRefType>(a.getType());
      if (!mt || fn->arg_size() == f.getNumArguments()) {
        names.push_back(n);
        continue;
      }
      names.push_back(n + ".allocated");
      names.push_back(n);
      names.push_back(n + ".offset");
      for (int64_t d = 0; d < mt.getRank(); ++d)
        names.push_back(n + ".size" + std::to_string(d));
      for (int64_t d = 0; d < mt.getRank(); ++d)
        names.push_back(n + ".stride" + std::to_string(d));
    }
    if (names.size() != fn->arg_size())
      return;
    for (auto [arg, n] : llvm::zip(fn->args(), names))
      arg.setName(n);
  });
}

std::unique_ptr<llvm::Module> gpuKernelsToLLVM(ModuleOp module,
                                               llvm::LLVMContext &llvmCtx,
                                               std::string &err) {
  MLIRContext *ctx = module.getContext();
  // The conversions' diagnostics become the error, first one first.
  std::string diags;
  llvm::raw_string_ostream os(diags);
  ScopedDiagnosticHandler handler(ctx, [&](Diagnostic &d) {
    if (d.getSeverity() != DiagnosticSeverity::Error)
      return success();
    if (!diags.empty())
      os << "\n";
    os << d.getLocation() << ": " << d;
    for (Diagnostic &note : d.getNotes())
      os << "\n  " << note.getLocation() << ": note: " << note;
    return success();
  });

  // A copy of the gpu.modules in a module of their own: the input is left
  // as it is (both sides may name the same file).
  OwningOpRef<ModuleOp> work = ModuleOp::create(module.getLoc());
  bool launches = false, hosts = false;
  module.walk([&](Operation *op) {
    launches |= isa<gpu::LaunchOp>(op);
    hosts |= isa<gpu::LaunchFuncOp, scf::ParallelOp>(op) &&
             op->getParentOfType<func::FuncOp>();
  });
  std::map<std::string, std::string> hostLaunches, hostUnsupported;
  if (launches || hosts) {
    // gpu.launch bodies inside host functions become kernels of their own
    // (upstream gpu-kernel-outlining): FUNC's launch is FUNC_kernel.
    work = cast<ModuleOp>(module->clone());
    PassManager outline(ctx, ModuleOp::getOperationName());
    outline.addPass(createGpuKernelOutliningPass());
    if (launches && failed(outline.run(*work))) {
      err = "the gpu.launch kernels cannot be outlined: " +
            (diags.empty() ? std::string("no diagnostic") : diags);
      return nullptr;
    }
    // And the host functions themselves, as one-thread kernels.
    if (failed(buildHostKernels(*work, hostLaunches, hostUnsupported, err))) {
      if (!diags.empty())
        err += ": " + diags;
      return nullptr;
    }
    // Only the device code is lowered.
    for (Operation &op : llvm::make_early_inc_range(*work->getBody()))
      if (!isa<gpu::GPUModuleOp>(op))
        op.erase();
  } else {
    OpBuilder b(work->getBodyRegion());
    module.walk([&](gpu::GPUModuleOp g) { b.clone(*g.getOperation()); });
  }

  // The kernels as written, for their parameters' names.
  OwningOpRef<ModuleOp> written = cast<ModuleOp>(work->clone());
  for (auto g : work->getOps<gpu::GPUModuleOp>()) {
    PassManager pm(ctx, gpu::GPUModuleOp::getOperationName());
    // Subviews and strided layouts as plain address arithmetic (affine),
    // as the memref-to-LLVM conversion expects them.
    pm.addPass(memref::createExpandStridedMetadataPass());
    pm.addPass(createLowerAffinePass());
    pm.addPass(createSCFToControlFlowPass());
    // Memrefs of static shape as bare pointers: a kernel's parameters are
    // then those of its CUDA twin (one pointer per array). A memref of
    // dynamic shape needs its descriptor (pointers, offset, sizes, strides
    // as parameters of their own), for the whole gpu.module.
    ConvertGpuOpsToNVVMOpsOptions toNVVM;
    toNVVM.useBarePtrCallConv = true;
    g.walk([&](gpu::GPUFuncOp f) {
      for (Type t : f.getArgumentTypes())
        if (auto m = dyn_cast<MemRefType>(t))
          if (!m.hasStaticShape() || !m.getLayout().isIdentity())
            toNVVM.useBarePtrCallConv = false;
    });
    pm.addPass(createConvertGpuOpsToNVVMOps(toNVVM));
    pm.addPass(createReconcileUnrealizedCastsPass());
    // Folds the memref descriptors' insert/extract pairs away.
    pm.addPass(createCanonicalizerPass());
    if (failed(pm.run(g))) {
      err = "the gpu kernels do not lower to LLVM"
            " (upstream gpu-to-nvvm conversion): " +
            (diags.empty() ? std::string("no diagnostic") : diags);
      return nullptr;
    }
  }

  // The gpu.modules' contents, side by side in one LLVM module.
  OwningOpRef<ModuleOp> flat = ModuleOp::create(module.getLoc());
  OpBuilder fb(flat->getBodyRegion());
  llvm::StringSet<> names;
  for (auto g : llvm::make_early_inc_range(work->getOps<gpu::GPUModuleOp>()))
    for (Operation &op : g.getBody()->without_terminator()) {
      if (auto sym =
              op.getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName()))
        if (!names.insert(sym.getValue()).second && isa<LLVM::LLVMFuncOp>(op) &&
            !cast<LLVM::LLVMFuncOp>(op).isExternal()) {
          err = "two gpu.modules define '" + sym.getValue().str() +
                "' (name the kernel in a file with one of them)";
          return nullptr;
        }
      if (auto f = dyn_cast<LLVM::LLVMFuncOp>(op);
          f && f.isExternal() && names.count(f.getName()) &&
          flat->lookupSymbol(f.getName()))
        continue;
      fb.clone(op);
    }
  // Debug locations from the MLIR ones: unsupported constructs are named
  // at their line in the .mlir file.
  PassManager di(ctx, ModuleOp::getOperationName());
  di.addPass(LLVM::createDIScopeForLLVMFuncOpPass());
  if (failed(di.run(*flat))) {
    err = "the gpu kernels' locations do not translate: " + diags;
    return nullptr;
  }
  std::unique_ptr<llvm::Module> m =
      translateModuleToLLVMIR(*flat, llvmCtx, "gpu-kernels");
  if (!m) {
    err = "the gpu kernels do not translate to LLVM IR: " +
          (diags.empty() ? std::string("no diagnostic") : diags);
    return nullptr;
  }
  // Fixed-size vector operations (vector.load, vector.reduction, ...) as
  // scalar ones, which the lowering into kv reads: reductions expanded,
  // then every vector instruction split into its elements.
  {
    llvm::LoopAnalysisManager lam;
    llvm::FunctionAnalysisManager fam;
    llvm::CGSCCAnalysisManager cgam;
    llvm::ModuleAnalysisManager mam;
    llvm::PassBuilder pb;
    pb.registerModuleAnalyses(mam);
    pb.registerCGSCCAnalyses(cgam);
    pb.registerFunctionAnalyses(fam);
    pb.registerLoopAnalyses(lam);
    pb.crossRegisterProxies(lam, fam, cgam, mam);
    llvm::ScalarizerPassOptions split;
    split.ScalarizeLoadStore = true;
    llvm::FunctionPassManager fpm;
    fpm.addPass(llvm::ExpandReductionsPass());
    fpm.addPass(llvm::ScalarizerPass(split));
    llvm::ModulePassManager mpm;
    mpm.addPass(llvm::createModuleToFunctionPassAdaptor(std::move(fpm)));
    mpm.run(*m, mam);
  }
  nameParameters(*written, *m);
  for (const auto &[name, record] : hostLaunches)
    if (llvm::Function *f = m->getFunction(name))
      f->addFnAttr(kHostLaunchesAttr, record);
  for (const auto &[name, why] : hostUnsupported)
    if (llvm::Function *f = m->getFunction(name))
      f->addFnAttr(kUnsupportedAttr, "host function '" + name + "': " + why);
  return m;
}

} // namespace kv

std::vector<std::string> kv::dropUnusedDescriptorParts(llvm::Function *&f) {
  std::set<std::string> names;
  for (llvm::Argument &a : f->args())
    names.insert(a.getName().str());
  // A part is `X.allocated`, `X.offset`, `X.sizeN` or `X.strideN` beside
  // the aligned pointer `X` (nameParameters).
  auto isPart = [&](llvm::StringRef n) {
    auto [base, part] = n.rsplit('.');
    if (part.empty() || !names.count(base.str()))
      return false;
    if (part == "allocated" || part == "offset")
      return true;
    for (llvm::StringRef p : {"size", "stride"})
      if (part.consume_front(p) && !part.empty() &&
          llvm::all_of(part, llvm::isDigit))
        return true;
    return false;
  };
  std::vector<std::string> dropped;
  std::vector<llvm::Argument *> kept;
  for (llvm::Argument &a : f->args()) {
    if (a.hasName() && isPart(a.getName()) && a.use_empty())
      dropped.push_back(a.getName().str());
    else
      kept.push_back(&a);
  }
  if (dropped.empty())
    return dropped;
  std::vector<llvm::Type *> types;
  std::vector<llvm::AttributeSet> paramAttrs;
  llvm::AttributeList attrs = f->getAttributes();
  for (llvm::Argument *a : kept) {
    types.push_back(a->getType());
    paramAttrs.push_back(attrs.getParamAttrs(a->getArgNo()));
  }
  auto *type = llvm::FunctionType::get(f->getReturnType(), types, false);
  llvm::Function *g = llvm::Function::Create(
      type, f->getLinkage(), f->getAddressSpace(), "", f->getParent());
  g->takeName(f);
  g->setCallingConv(f->getCallingConv());
  g->setAttributes(llvm::AttributeList::get(f->getContext(), attrs.getFnAttrs(),
                                            attrs.getRetAttrs(), paramAttrs));
  llvm::SmallVector<std::pair<unsigned, llvm::MDNode *>> md;
  f->getAllMetadata(md);
  for (auto &[kind, node] : md)
    g->setMetadata(kind, node);
  g->splice(g->begin(), f);
  for (auto [old, now] : llvm::zip(kept, g->args())) {
    now.takeName(old);
    old->replaceAllUsesWith(&now);
  }
  // Module metadata naming the kernel (nvvm.annotations) follows it.
  f->replaceAllUsesWith(g);
  f->eraseFromParent();
  f = g;
  return dropped;
}
