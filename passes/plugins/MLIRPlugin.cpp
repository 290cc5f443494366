//===- MLIRPlugin.cpp - kvalidate as an mlir-opt pass plugin --------------===//
//
// libkvalidate-mlir.so:
//   mlir-opt-22 --load-pass-plugin=libkvalidate-mlir.so
//     --pass-pipeline='builtin.module(kvalidate-snapshot, PIPELINE,
//                      kvalidate-check)' in.mlir
// (one command line)
// kvalidate-snapshot keeps the module's gpu kernels as they are before the
// pipeline (lowered to LLVM IR as the command line lowers them: ImportGPU);
// kvalidate-check lowers them again and validates each kernel's pair with
// the driver every front door calls. Verdicts are MLIR diagnostics at the
// kernel: a remark for a proof, a warning, or an error where the policy
// (fail-on) fails the run. Neither pass changes the module.
//
//===----------------------------------------------------------------------===//
#include "equiv/Driver.h"
#include "equiv/Options.h"
#include "equiv/Report.h"
#include "equiv/ReportFile.h"
#include "equiv/VerdictCache.h"
#include "kv/KVDialect.h"
#include "passes/lower/ImportGPU.h"
#include "passes/lower/LowerToKV.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/JSON.h"

#include <map>
#include <memory>
#include <mutex>
#include <set>

using namespace mlir;

namespace {

/// The kernels before the pipeline, per module.
struct Snapshot {
  std::unique_ptr<llvm::LLVMContext> ctx;
  std::unique_ptr<llvm::Module> module;
};

std::mutex snapshotsMutex;
std::map<Operation *, Snapshot> &snapshots() {
  static std::map<Operation *, Snapshot> s;
  return s;
}

/// The kernel's own op (gpu.func before lowering, llvm.func after, the
/// func.func of a host function's kernel) for its location.
Location kernelLoc(ModuleOp m, llvm::StringRef name) {
  Location loc = m.getLoc();
  m.walk([&](Operation *op) {
    if (!isa<gpu::GPUFuncOp, LLVM::LLVMFuncOp, func::FuncOp>(op))
      return WalkResult::advance();
    auto sym = op->getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName());
    if (!sym || sym.getValue() != name)
      return WalkResult::advance();
    loc = op->getLoc();
    return WalkResult::interrupt();
  });
  return loc;
}

/// The driver with the plugins' defaults, in a context of its own (the kv
/// kernels and their scratch modules stay out of mlir-opt's).
struct PairValidator {
  MLIRContext ctx;
  kv::Options opts = kv::pluginDefaults();

  explicit PairValidator(unsigned timeoutSecs)
      : ctx([] {
          DialectRegistry registry;
          kv::registerKVDialects(registry);
          return registry;
        }()) {
    ctx.loadAllAvailableDialects();
    opts.timeoutSecs = timeoutSecs;
  }

  /// \p before against \p after, the two sides of \p step ("the pipeline",
  /// "pass 'cse'").
  kv::Validation validate(llvm::Function &before, llvm::Function &after,
                          const std::string &step) {
    kv::KernelInput src, opt;
    src.function = &before;
    src.label = "before " + step;
    src.isSource = true;
    opt.function = &after;
    opt.label = "after " + step;
    OwningOpRef<ModuleOp> scratch = ModuleOp::create(UnknownLoc::get(&ctx));
    ScopedDiagnosticHandler quiet(&ctx, [](Diagnostic &) { return success(); });
    kv::Driver d(src, opt, *scratch, opts);
    return d.validate();
  }
};

/// Verdicts as MLIR diagnostics at the kernel, as the policy weighs them,
/// and as entries of the report file (report=FILE), written at the end of
/// the pass; a report that cannot be written is a warning, never a failure.
struct Reporter {
  ModuleOp module;
  kv::FailOn policy;
  std::string path;
  std::vector<kv::ReportEntry> entries;
  bool failed = false;

  Reporter(ModuleOp module, kv::FailOn policy, std::string path)
      : module(module), policy(policy), path(std::move(path)) {}
  ~Reporter() {
    if (path.empty() || entries.empty())
      return;
    std::string err;
    if (!kv::appendReport(path, entries, err))
      emitWarning(module.getLoc())
          << "kvalidate: cannot write the report: " << err;
  }

  /// \p message on kernel \p f (lowered, its debug location the gpu.func's)
  /// with the validation's JSON \p fields; \p pass in per-pass mode.
  void add(const llvm::Function &f, kv::Verdict verdict,
           const std::string &message, llvm::json::Object fields,
           const std::string &pass, bool cached, bool diagnose = true) {
    kv::ReportEntry e;
    e.kernel = f.getName().str();
    kv::sourceLocation(f, e.file, e.line);
    e.pass = pass;
    e.verdict = verdict;
    e.level = kv::levelOf(verdict, policy);
    e.message = message;
    e.fields = std::move(fields);
    e.cached = cached;
    Location loc = kernelLoc(module, f.getName());
    kv::Level level = e.level;
    entries.push_back(std::move(e));
    if (!diagnose)
      return;
    switch (level) {
    case kv::Level::Note:
      emitRemark(loc) << message;
      break;
    case kv::Level::Warning:
      emitWarning(loc) << message;
      break;
    case kv::Level::Error:
      emitError(loc) << message;
      failed = true;
      break;
    }
  }

  /// \p v on \p f, the pair named after \p step.
  void add(const llvm::Function &f, const kv::Validation &v,
           const std::string &step, const std::string &pass,
           const std::string &note = "", bool diagnose = true) {
    add(f, v.result.verdict, messageOf(f, v) + note, fieldsOf(f, v, step), pass,
        /*cached=*/false, diagnose);
  }

  static std::string messageOf(const llvm::Function &f,
                               const kv::Validation &v) {
    return kv::toDiagnostic(v, f.getName(), kv::FailOn::Never).message;
  }
  static llvm::json::Object fieldsOf(const llvm::Function &f,
                                     const kv::Validation &v,
                                     const std::string &step) {
    kv::PairNames names{f.getName().str() + " (before " + step + ")",
                        f.getName().str() + " (after " + step + ")"};
    llvm::json::Value j = kv::toJSON(v, names);
    if (llvm::json::Object *o = j.getAsObject())
      return std::move(*o);
    return llvm::json::Object();
  }
};

std::string printed(const llvm::Module &m) {
  std::string s;
  llvm::raw_string_ostream os(s);
  m.print(os, nullptr);
  return s;
}

struct SnapshotPass
    : public PassWrapper<SnapshotPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(SnapshotPass)
  StringRef getArgument() const override { return "kvalidate-snapshot"; }
  StringRef getDescription() const override {
    return "Keep the module's gpu kernels for kvalidate-check (the module "
           "is not changed)";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    kv::registerGPUImportDialects(registry);
  }
  void runOnOperation() override {
    markAllAnalysesPreserved();
    ModuleOp m = getOperation();
    if (!kv::hasGPUKernels(m))
      return;
    Snapshot s;
    s.ctx = std::make_unique<llvm::LLVMContext>();
    std::string err;
    s.module = kv::gpuKernelsToLLVM(m, *s.ctx, err);
    if (!s.module) {
      emitWarning(m.getLoc())
          << "kvalidate: the kernels are not validated: " << err;
      return;
    }
    std::lock_guard<std::mutex> lock(snapshotsMutex);
    snapshots()[m.getOperation()] = std::move(s);
  }
};

struct CheckPass : public PassWrapper<CheckPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(CheckPass)
  CheckPass() = default;
  CheckPass(const CheckPass &other) : PassWrapper(other) {}
  StringRef getArgument() const override { return "kvalidate-check"; }
  StringRef getDescription() const override {
    return "Validate each gpu kernel against its kvalidate-snapshot: a "
           "remark, warning or error per kernel (the module is not changed)";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    kv::registerGPUImportDialects(registry);
  }

  Option<unsigned> timeout{*this, "timeout",
                           llvm::cl::desc("Seconds per kernel (0: none)"),
                           llvm::cl::init(60)};
  Option<std::string> failOn{
      *this, "fail-on",
      llvm::cl::desc("Verdicts that are errors: mismatch (not-equivalent and "
                     "defects), unknown (also unknown and unsupported), "
                     "never"),
      llvm::cl::init("mismatch")};
  ListOption<std::string> assume{
      *this, "assume",
      llvm::cl::desc("Preconditions, as the command line's --assume")};
  Option<std::string> report{
      *this, "report",
      llvm::cl::desc("Append one result per kernel to FILE: JSON lines, or "
                     "SARIF 2.1.0 when FILE ends in .sarif")};
  Option<std::string> cache{
      *this, "cache",
      llvm::cl::desc("Keep verdicts in DIR (or redis://HOST:PORT) so that an "
                     "unchanged kernel is not proved again (default: "
                     "kvalidate/verdicts in the user's cache directory; "
                     "cache=off turns it off)")};

  void runOnOperation() override {
    markAllAnalysesPreserved();
    ModuleOp m = getOperation();
    std::optional<kv::FailOn> policy = kv::parseFailOn(failOn);
    if (!policy) {
      emitError(m.getLoc()) << "kvalidate-check: fail-on must be mismatch, "
                               "unknown or never, got '"
                            << failOn << "'";
      return signalPassFailure();
    }
    Snapshot before;
    {
      std::lock_guard<std::mutex> lock(snapshotsMutex);
      auto it = snapshots().find(m.getOperation());
      if (it == snapshots().end()) {
        if (kv::hasGPUKernels(m))
          emitWarning(m.getLoc())
              << "kvalidate-check: no kvalidate-snapshot of this module "
                 "earlier in the pipeline; nothing validated";
        return;
      }
      before = std::move(it->second);
      snapshots().erase(it);
    }
    llvm::LLVMContext &llvmCtx = *before.ctx;
    std::string err;
    std::unique_ptr<llvm::Module> after = kv::gpuKernelsToLLVM(m, llvmCtx, err);
    if (!after) {
      emitWarning(m.getLoc()) << "kvalidate: the kernels after the pipeline "
                                 "are not validated: "
                              << err;
      return;
    }
    PairValidator checker(timeout);
    for (const std::string &a : assume)
      checker.opts.assumptions.push_back(a);

    // A verdict depends on both kernels' code (their modules, for the
    // functions they call), the options and kvalidate itself.
    std::string dir =
        cache.hasValue() ? cache.getValue() : kv::defaultVerdictCacheDir();
    if (dir == "off")
      dir.clear();
    // A typo (http://...) must not become a directory named "http:".
    if (std::string why = kv::VerdictCache::checkLocation(dir); !why.empty()) {
      emitError(m.getLoc()) << "kvalidate-check: cache: " << why;
      return signalPassFailure();
    }
    kv::VerdictCache verdicts(dir);
    bool cacheWarned = !verdicts.warning().empty();
    if (cacheWarned)
      emitWarning(m.getLoc())
          << "kvalidate: the verdict cache is off: " << verdicts.warning()
          << "; going on without it";
    std::string beforeText, afterText;
    if (verdicts.enabled()) {
      beforeText = printed(*before.module);
      afterText = printed(*after);
    }

    Reporter out(m, *policy, report);
    for (llvm::Function &f : *before.module) {
      if (!kv::isKernel(f) || f.isDeclaration())
        continue;
      llvm::Function *g = after->getFunction(f.getName());
      if (!g || g->isDeclaration()) {
        emitWarning(kernelLoc(m, f.getName()))
            << kv::diagnosticPrefix(f.getName())
            << "not validated: the pipeline removed it";
        continue;
      }
      std::optional<kv::VerdictCache::Key> key;
      if (verdicts.enabled()) {
        key = kv::VerdictCache::key({"mlir-plugin", beforeText, afterText,
                                     f.getName().str(),
                                     kv::optionsFingerprint(checker.opts)});
        if (std::optional<llvm::json::Object> hit = verdicts.lookup(*key))
          if (std::optional<kv::CachedVerdict> c =
                  kv::fromCacheEntry(*hit, *policy)) {
            out.add(f, c->verdict, c->message + " [cached]",
                    std::move(c->fields), "", /*cached=*/true);
            continue;
          }
      }
      kv::Validation v = checker.validate(f, *g, "the pipeline");
      out.add(f, v, "the pipeline", "");
      // Proofs, unknown and unsupported are kept (kv::cacheable).
      kv::Verdict got = v.result.verdict;
      if (!key || !kv::cacheable(got))
        continue;
      llvm::json::Object entry =
          kv::toCacheEntry({got, Reporter::messageOf(f, v),
                            Reporter::fieldsOf(f, v, "the pipeline")});
      std::string cerr;
      if (!verdicts.store(*key, entry, cerr) && !cacheWarned) {
        cacheWarned = true;
        emitWarning(m.getLoc())
            << "kvalidate: cannot keep verdicts in the cache: " << cerr;
      }
    }
    if (out.failed)
      signalPassFailure();
  }
};

/// \p pipeline's top-level elements: "a,b{x=1,y=2},c(d,e)" -> a, b{..}, c(..).
std::vector<std::string> splitPipeline(llvm::StringRef pipeline) {
  std::vector<std::string> out;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= pipeline.size(); ++i) {
    char c = i < pipeline.size() ? pipeline[i] : ',';
    if (c == '{' || c == '(')
      ++depth;
    else if (c == '}' || c == ')')
      --depth;
    else if (c == ',' && depth == 0) {
      llvm::StringRef e = pipeline.slice(start, i).trim();
      if (!e.empty())
        out.push_back(e.str());
      start = i + 1;
    }
  }
  return out;
}

std::string printed(const llvm::Function &f) {
  std::string s;
  llvm::raw_string_ostream os(s);
  f.print(os);
  return s;
}

/// kvalidate-per-pass{pipeline=...}: runs the pipeline's passes one at a
/// time on a copy of the module and validates every kernel a pass changed
/// against the kernel just before it; the first pass after which a kernel
/// is not equivalent is named (the module itself is not changed).
struct PerPassPass : public PassWrapper<PerPassPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(PerPassPass)
  PerPassPass() = default;
  PerPassPass(const PerPassPass &other) : PassWrapper(other) {}
  StringRef getArgument() const override { return "kvalidate-per-pass"; }
  StringRef getDescription() const override {
    return "Validate each pass of `pipeline` on the gpu kernels, on a copy "
           "of the module, and name the first pass that breaks a kernel";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    kv::registerGPUImportDialects(registry);
  }
  Option<std::string> pipeline{
      *this, "pipeline",
      llvm::cl::desc("The passes to validate one by one, as in "
                     "builtin.module(...)")};
  Option<unsigned> timeout{*this, "timeout",
                           llvm::cl::desc("Seconds per kernel and pass"),
                           llvm::cl::init(60)};
  Option<std::string> report{
      *this, "report",
      llvm::cl::desc("Append one result per kernel and pass that changed it "
                     "to FILE: JSON lines, or SARIF 2.1.0 when FILE ends in "
                     ".sarif")};

  void runOnOperation() override {
    markAllAnalysesPreserved();
    ModuleOp m = getOperation();
    if (!kv::hasGPUKernels(m))
      return;
    OwningOpRef<ModuleOp> copy = cast<ModuleOp>(m->clone());
    auto ctx = std::make_unique<llvm::LLVMContext>();
    std::string err;
    std::unique_ptr<llvm::Module> prev = kv::gpuKernelsToLLVM(*copy, *ctx, err);
    if (!prev) {
      emitWarning(m.getLoc())
          << "kvalidate: the kernels are not validated: " << err;
      return;
    }
    PairValidator checker(timeout);
    Reporter out(m, kv::FailOn::Mismatch, report);
    std::set<std::string> broken;
    unsigned step = 0;
    for (const std::string &e : splitPipeline(pipeline)) {
      ++step;
      PassManager pm(m.getContext(), ModuleOp::getOperationName());
      std::string perr;
      llvm::raw_string_ostream pos(perr);
      if (mlir::failed(parsePassPipeline(e, pm, pos))) {
        emitError(m.getLoc())
            << "kvalidate-per-pass: cannot parse pass '" << e << "': " << perr;
        return signalPassFailure();
      }
      if (mlir::failed(pm.run(*copy))) {
        emitWarning(m.getLoc()) << "kvalidate-per-pass: pass '" << e
                                << "' failed on the copy; validation stops";
        return;
      }
      std::unique_ptr<llvm::Module> now =
          kv::gpuKernelsToLLVM(*copy, *ctx, err);
      if (!now) {
        emitWarning(m.getLoc()) << "kvalidate-per-pass: after pass '" << e
                                << "' the kernels are not validated: " << err;
        return;
      }
      for (llvm::Function &f : *prev) {
        if (!kv::isKernel(f) || f.isDeclaration() ||
            broken.count(f.getName().str()))
          continue;
        llvm::Function *g = now->getFunction(f.getName());
        if (!g || g->isDeclaration() || printed(f) == printed(*g))
          continue;
        kv::Validation v = checker.validate(f, *g, "pass '" + e + "'");
        // Only the first pass that breaks a kernel is a diagnostic; the
        // report has every pass that changed one.
        bool breaks = kv::levelOf(v.result.verdict, kv::FailOn::Mismatch) ==
                      kv::Level::Error;
        std::string note;
        if (breaks) {
          broken.insert(f.getName().str());
          note = " [first pass to break the kernel: '" + e + "', pass " +
                 std::to_string(step) + " of the pipeline]";
        }
        out.add(f, v, "pass '" + e + "'", e, note, /*diagnose=*/breaks);
      }
      prev = std::move(now);
    }
    if (out.failed)
      signalPassFailure();
  }
};

} // namespace

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "kvalidate", LLVM_VERSION_STRING, []() {
            PassRegistration<SnapshotPass>();
            PassRegistration<CheckPass>();
            PassRegistration<PerPassPass>();
          }};
}
