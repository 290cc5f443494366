//===- Plugin.cpp - kvalidate as an LLVM pass plugin ----------------------===//
//
// Translation validation inside clang and opt. At the start of the optimizer
// pipeline every CUDA kernel of an nvptx module is lowered into kv (the
// "before" model); at the end the optimized kernel is lowered too and the pair
// is checked for equivalence. Results go through LLVMContext diagnostics so
// that clang prints them at the kernel's source location. The policy
// (-kvalidate-fail-on) alone decides which verdicts fail the compile, so
// that clang's -Werror cannot turn one it lets pass into an error:
//
//   a verdict the policy fails error, with the counterexample or the reason
//   any other verdict          remark, shown with -Rpass=kvalidate (clang) or
//                              -pass-remarks=kvalidate (opt)
//
// Clang has no warning that -Werror leaves a warning, and a plugin cannot
// tell whether -Werror is on: a verdict that must not fail the build is a
// remark, a proof or not. So are the cache's and the report's troubles.
//
// Lowering the snapshot right away, instead of cloning the module, keeps no
// second copy of the IR alive in the LLVMContext (a clone would share
// constants, metadata and use lists with the module being optimized) and
// lowering only reads the IR.
//
// The passes never modify the IR and preserve all analyses. The host half of
// a CUDA compile (any module that is not nvptx) is left alone entirely.
//
//===----------------------------------------------------------------------===//
#include "equiv/Relational.h"
#include "equiv/VerdictCache.h"
#include "kv/Budget.h"
#include "passes/lower/LowerToKV.h"
#include "passes/plugins/PluginSupport.h"
#include "smt-encode/Stats.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Plugins/PassPlugin.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>

using namespace llvm;

using namespace kv::plugin;
using kv::Level;
using kv::ReportEntry;

namespace {

//===----------------------------------------------------------------------===//
// Snapshots
//===----------------------------------------------------------------------===//

/// The kv models of one module's kernels at the start of the pipeline.
struct Snapshot {
  struct Kernel {
    kv::KernelOp Op;     // null if lowering failed
    std::string Failure; // why, if it failed
    /// A loop's trip count depends on launch dimensions or scalars, or the
    /// model cannot count it: the check lowers the source
    /// (Snapshot::Source) again, once per case or unrolled exactly.
    bool NeedsSource = false;
    /// The lowering's time, part of the kernel's budget; and whether the
    /// budget ran out in it (Failure then says so).
    double LowerMs = 0;
    bool BudgetStop = false;
  };
  /// The key (start module, kernel, options) of what the lowering before the
  /// pipeline made of \p F: its failure, or, once a verdict is cached, that
  /// the check may lower the source itself.
  kv::VerdictCache::Key lowerKey(const Function &F) const {
    return kv::VerdictCache::key({"plugin-snapshot", SourceText,
                                  F.getName().str(),
                                  kv::optionsFingerprint(Opts)});
  }
  kv::Options Opts;
  /// The verdict cache, its secret, and the module's text at the start for
  /// its keys.
  std::string CacheDir, CacheSecret, SourceText;

  std::string ModuleId;
  /// Taken by an explicit kvalidate-start: only an explicit kvalidate-check
  /// consumes it, so that the two delimit what is validated even around a
  /// default<O2> that carries the extension-point passes.
  bool Explicit = false;
  // Declared before Module so that the module is destroyed first.
  std::unique_ptr<mlir::MLIRContext> Ctx;
  mlir::OwningOpRef<mlir::ModuleOp> Module;
  std::map<std::string, Kernel> Kernels; // by symbol name
  /// KV_EQUIVALENT_TO: a kernel (by symbol) and the reference it names,
  /// with its assumptions; checked source against source.
  struct Reference {
    std::string Kernel, Ref, Assume;
  };
  std::vector<Reference> Refs;
  /// The module as it was at the start, kept for kernels that need a proof
  /// by cases and for the bounded search (--hunt): their source is lowered
  /// again for each case and with the search's bound.
  std::unique_ptr<llvm::Module> Source;
};

std::mutex SnapshotsMutex;

/// Snapshots between the start and the check pass, by module. Heap-allocated
/// and never destroyed: one left behind (a pipeline with a start but no check)
/// must not run MLIR destructors during static destruction at exit.
std::map<const Module *, std::unique_ptr<Snapshot>> &snapshots() {
  static auto *Map = new std::map<const Module *, std::unique_ptr<Snapshot>>;
  return *Map;
}

/// The selected kernels annotated with KV_EQUIVALENT_TO (kvalidate.h): an
/// `annotate("kvalidate.equivalent_to=REF;ASSUMPTIONS")` attribute, which
/// clang lists in @llvm.global.annotations.
std::vector<Snapshot::Reference> referenceAnnotations(Module &M) {
  std::vector<Snapshot::Reference> Out;
  GlobalVariable *GA = M.getGlobalVariable("llvm.global.annotations");
  auto *CA = GA && GA->hasInitializer()
                 ? dyn_cast<ConstantArray>(GA->getInitializer())
                 : nullptr;
  if (!CA)
    return Out;
  for (const Use &U : CA->operands()) {
    auto *CS = dyn_cast<ConstantStruct>(U.get());
    if (!CS || CS->getNumOperands() < 2)
      continue;
    auto *Fn = dyn_cast<Function>(CS->getOperand(0)->stripPointerCasts());
    auto *Str =
        dyn_cast<GlobalVariable>(CS->getOperand(1)->stripPointerCasts());
    if (!Fn || !isSelected(*Fn) || !Str || !Str->hasInitializer())
      continue;
    auto *Data = dyn_cast<ConstantDataArray>(Str->getInitializer());
    if (!Data || !Data->isCString())
      continue;
    StringRef Text = Data->getAsCString();
    if (!Text.consume_front("kvalidate.equivalent_to="))
      continue;
    auto [Ref, Assume] = Text.split(';');
    Out.push_back({Fn->getName().str(), Ref.trim().str(), Assume.trim().str()});
  }
  return Out;
}

std::unique_ptr<Snapshot> takeSnapshot(Module &M, const PluginOptions &PO) {
  const kv::Options &Opts = PO.opts;
  auto S = std::make_unique<Snapshot>();
  S->ModuleId = M.getModuleIdentifier();
  S->Opts = Opts;
  S->CacheDir = PO.cacheDir;
  S->CacheSecret = PO.cacheSecret;
  if (!S->CacheDir.empty()) {
    // The whole module: a kernel's model depends on what it calls.
    raw_string_ostream OS(S->SourceText);
    M.print(OS, nullptr);
  }
  // A lowering that failed before: its failure again, without the cost;
  // not where the policy fails the build on it (a cache entry alone never
  // fails a build).
  kv::VerdictCache Cache(PO.failOn == kv::FailOn::Unknown ? std::string()
                                                          : S->CacheDir,
                         S->CacheSecret);
  for (Function &F : M) {
    if (!isSelected(F))
      continue;
    if (!S->Ctx) {
      mlir::DialectRegistry Registry;
      kv::registerKVDialects(Registry);
      // No thread pool inside someone else's compiler process.
      S->Ctx = std::make_unique<mlir::MLIRContext>(
          Registry, mlir::MLIRContext::Threading::DISABLED);
      S->Ctx->loadAllAvailableDialects();
      S->Module = mlir::ModuleOp::create(mlir::UnknownLoc::get(S->Ctx.get()));
    }
    if (Cache.enabled())
      if (std::optional<json::Object> Hit = Cache.lookup(S->lowerKey(F))) {
        std::optional<StringRef> Failure = Hit->getString("failure");
        std::optional<bool> Stop = Hit->getBoolean("budget_stop");
        if (Failure && Stop) {
          Snapshot::Kernel &K = S->Kernels[F.getName().str()];
          K.Failure = Failure->str();
          K.BudgetStop = *Stop;
          continue;
        }
        if (Hit->getBoolean("deferred").value_or(false)) {
          S->Kernels[F.getName().str()].NeedsSource = true;
          continue;
        }
      }
    Snapshot::Kernel &K = S->Kernels[F.getName().str()];
    kv::Unsupported Split;
    // The lowering (unrolling) is part of the kernel's budget.
    auto LowerStart = std::chrono::steady_clock::now();
    mlir::FailureOr<kv::KernelOp> Op = mlir::failure();
    {
      kv::budget::Scope Budget({Opts.timeoutSecs, Opts.maxMemoryMB});
      Op = kv::lowerFunction(F, *S->Module, /*isSource=*/true, Opts.unroll, {},
                             /*reportSplit=*/true, Split, K.Failure);
      if (kv::budget::stopped() != kv::budget::Kind::None) {
        K.BudgetStop = true;
        K.Failure = kv::budget::reason();
        if (mlir::succeeded(Op))
          Op->erase();
        Op = mlir::failure();
        Split.splitOn.clear();
      }
    }
    K.LowerMs = std::chrono::duration<double, std::milli>(
                    std::chrono::steady_clock::now() - LowerStart)
                    .count();
    if (mlir::succeeded(Op)) {
      K.Op = *Op;
      // A loop with breaks may not align with its -O2 form (rotated): the
      // driver then lowers the source again without them.
      K.Op.walk([&](kv::BreakOp) { K.NeedsSource = true; });
    } else if (!Split.splitOn.empty()) {
      Split.signature.erase();
      K.NeedsSource = true;
    } else if (Opts.unrollExact && !Opts.unroll &&
               kv::loopNotCounted(K.Failure)) {
      K.NeedsSource = true;
    } else if (Cache.enabled()) {
      std::string Err;
      (void)Cache.store(
          S->lowerKey(F),
          json::Object{{"failure", K.Failure}, {"budget_stop", K.BudgetStop}},
          Err);
    }
  }
  S->Refs = referenceAnnotations(M);
  // The source module is kept for every compile that validates a kernel:
  // besides the proofs by cases, the bounded search and the references, a
  // counterexample then runs on the source's own IR too, not only on its
  // kv model. A lowering bug becomes an internal error instead of a false
  // not-equivalent, which would fail a correct build. (A clone costs a few
  // milliseconds per module.)
  if (!S->Kernels.empty())
    S->Source = CloneModule(M);
  return S;
}

/// The kernel of \p M that \p Name names as kvalidate's FILE:KERNEL does:
/// its source name, its mangled name, or its source name without template
/// arguments if only one kernel has that.
Function *findKernel(Module &M, StringRef Name) {
  Function *ByBase = nullptr;
  unsigned Bases = 0;
  for (Function &F : M) {
    if (F.isDeclaration() || !kv::isKernel(F))
      continue;
    std::string Src = kv::sourceName(F.getName());
    if (Src == Name || F.getName() == Name)
      return &F;
    if (StringRef(Src).take_until([](char C) { return C == '<'; }) == Name) {
      ByBase = &F;
      ++Bases;
    }
  }
  return Bases == 1 ? ByBase : nullptr;
}

/// KV_EQUIVALENT_TO: each annotated kernel against its reference, both as
/// written (the module at the start of the pipeline), reported on the
/// annotated kernel.
void checkReferences(Module &M, Snapshot &S, const kv::VerdictCache &Cache,
                     std::vector<ReportEntry> &Entries) {
  for (const Snapshot::Reference &R : S.Refs) {
    if (crashed || !S.Source)
      return;
    Function *Live = M.getFunction(R.Kernel);
    Function *Kernel = S.Source->getFunction(R.Kernel);
    if (!Live || !Kernel)
      continue;
    std::string Pass = "KV_EQUIVALENT_TO(" + R.Ref + ")";
    std::string Prefix = kernelPrefix(*Live);
    std::string Subject = kv::diagnosticPrefix(
        kv::sourceName(Live->getName()) + "' against its reference '" + R.Ref);
    kv::Options Opts = S.Opts;
    if (!R.Assume.empty())
      Opts.assumptions.push_back(R.Assume);
    std::optional<kv::VerdictCache::Key> Key;
    if (Cache.enabled()) {
      Key = kv::VerdictCache::key({"reference", S.SourceText, R.Kernel, R.Ref,
                                   kv::optionsFingerprint(Opts)});
      if (std::optional<json::Object> Hit = Cache.lookup(*Key))
        if (reportCached(*Live, *Hit, Entries))
          continue;
    }
    kv::Validation V;
    Function *Ref = findKernel(*S.Source, R.Ref);
    if (!Ref) {
      V.result.verdict = kv::Verdict::Error;
      V.result.reason = "KV_EQUIVALENT_TO names '" + R.Ref +
                        "', which is not a kernel defined in this file";
    } else {
      mlir::OwningOpRef<mlir::ModuleOp> Into =
          mlir::ModuleOp::create(mlir::UnknownLoc::get(S.Ctx.get()));
      kv::KernelInput Src, Opt;
      Src.function = Ref;
      Src.label = "reference kernel '" + R.Ref + "'";
      Src.isSource = true;
      Opt.function = Kernel;
      Opt.label = "kernel '" + kv::sourceName(R.Kernel) + "'";
      bool Finished = runGuarded([&] {
        mlir::ScopedDiagnosticHandler Quiet(
            S.Ctx.get(), [](mlir::Diagnostic &) { return mlir::success(); });
        kv::Driver D(Src, Opt, *Into, Opts);
        V = D.validate();
      });
      if (!Finished) {
        (void)Into.release(); // not safe to destroy after a crash
        report(*Live,
               crashVerdict("kvalidate crashed while checking this kernel "
                            "against its reference"),
               Entries);
        return;
      }
    }
    // Say which pair this is: the kernel against its reference. Both are
    // in the source module, which a report saves for the replay.
    std::optional<kv::PairNames> Saved;
    std::string Note;
    if (V.result.verdict == kv::Verdict::NotEquivalent &&
        V.result.counterexample && Ref)
      Note = saveForReplay(*S.Source, Ref->getName(), *S.Source,
                           Kernel->getName(), *Live, "reference", "", Saved);
    size_t Before = Entries.size();
    report(*Live, V, Entries, Pass, Note, /*Diagnose=*/false, /*Names=*/
           Saved ? &*Saved : nullptr);
    ReportEntry &E = Entries.back();
    if (Entries.size() > Before && StringRef(E.message).starts_with(Prefix))
      E.message = Subject + E.message.substr(Prefix.size());
    diagnose(*Live, E.message, E.level);
    if (Key && kv::cacheable(V.result.verdict)) {
      json::Object Entry = cacheEntry(*Live, V);
      Entry["message"] = E.message;
      std::string Err;
      (void)Cache.store(*Key, Entry, Err);
    }
  }
}

void checkModule(Module &M, Snapshot &S) {
  mlir::OwningOpRef<mlir::ModuleOp> After;
  std::vector<ReportEntry> Entries;
  scope_exit Flush([&] { writeReport(M, Entries); });
  kv::VerdictCache Cache(S.CacheDir, S.CacheSecret);
  std::string AfterText;
  bool CacheWarned = false;
  if (!Cache.warning().empty()) {
    // A cache that is down must not fail the build: one warning, and the
    // kernels are proved.
    CacheWarned = true;
    notice(M, "kvalidate: the verdict cache is off: " + Cache.warning() +
                  "; going on without it");
  }

  // Module order, so that reports come out in source order.
  for (Function &F : M) {
    if (crashed)
      return;
    if (!isSelected(F))
      continue;
    auto It = S.Kernels.find(F.getName().str());
    if (It == S.Kernels.end())
      continue;
    const Snapshot::Kernel &Before = It->second;
    // A verdict an earlier compile found for the same source, optimized
    // module, options and kvalidate.
    std::optional<kv::VerdictCache::Key> Key;
    if (Cache.enabled()) {
      if (AfterText.empty()) {
        raw_string_ostream OS(AfterText);
        M.print(OS, nullptr);
      }
      Key = kv::VerdictCache::key({"plugin", S.SourceText, AfterText,
                                   F.getName().str(),
                                   kv::optionsFingerprint(S.Opts)});
      if (std::optional<json::Object> Hit = Cache.lookup(*Key))
        if (reportCached(F, *Hit, Entries))
          continue;
    }
    if (!Before.Op && !Before.NeedsSource) {
      kv::Validation V;
      V.result.verdict =
          Before.BudgetStop ? kv::Verdict::Unknown : kv::Verdict::Unsupported;
      V.result.reason = Before.BudgetStop
                            ? Before.Failure
                            : "before optimization: " + Before.Failure;
      // What the model does not take (a barrier loop of thousands of
      // iterations, say) the relational proof over the two IRs may.
      Function *Src = S.Source ? S.Source->getFunction(F.getName()) : nullptr;
      if (!Before.BudgetStop && Src && S.Opts.relational &&
          S.Opts.assumptions.empty() && S.Opts.bits == 32) {
        kv::RelationalOptions RO;
        // Half of what the kernel's budget leaves after the lowering.
        double Left = S.Opts.timeoutSecs * 1000.0 - Before.LowerMs;
        RO.timeoutMs = S.Opts.timeoutSecs
                           ? (unsigned)std::clamp(Left / 2, 0.0, 8000.0)
                           : 8000u;
        auto Start = std::chrono::steady_clock::now();
        kv::RelationalResult R;
        bool Finished = RO.timeoutMs >= 500 && runGuarded([&] {
                          R = kv::proveRelational(*Src, F, RO);
                        });

        if (Finished && R.proved) {
          V.result.verdict = kv::Verdict::Equivalent;
          V.result.reason.clear();
          V.result.method = R.method;
          V.result.assumptions = R.assumptions;
          V.result.timeMs = std::chrono::duration<double, std::milli>(
                                std::chrono::steady_clock::now() - Start)
                                .count() +
                            Before.LowerMs;
        } else if (Finished && !R.why.empty()) {
          V.result.reason += "; relational proof: " + R.why;
        }
      }
      report(F, V, Entries);
      if (Key && kv::cacheable(V.result.verdict)) {
        std::string Err;
        if (!Cache.store(*Key, cacheEntry(F, V), Err) && !CacheWarned) {
          CacheWarned = true;
          notice(M, "kvalidate: cannot keep verdicts in the cache: " + Err);
        }
      }
      continue;
    }
    if (!After)
      After = mlir::ModuleOp::create(mlir::UnknownLoc::get(S.Ctx.get()));

    kv::KernelInput Src, Opt;
    Src.function = S.Source ? S.Source->getFunction(F.getName()) : nullptr;
    Src.kernel = Before.Op;
    Src.kernelUnroll = S.Opts.unroll;
    Src.label = "before optimization";
    Src.isSource = true;
    Src.spentMs = Before.LowerMs;
    Opt.function = &F;
    Opt.label = "after optimization";
    kv::Validation V;
    kv::stats::reset();
    bool Finished = runGuarded([&] {
      // The checker's own MLIR diagnostics would bypass clang; its verdict
      // and reason carry what matters.
      mlir::ScopedDiagnosticHandler Quiet(
          S.Ctx.get(), [](mlir::Diagnostic &) { return mlir::success(); });
      kv::Driver D(Src, Opt, *After, S.Opts);
      V = D.validate();
    });
    if (!Finished) {
      (void)After.release(); // not safe to destroy after a crash
      report(F, crashVerdict("kvalidate crashed while checking this kernel"),
             Entries);
      return;
    }
    // A counterexample anyone can rerun: with a report file, both modules
    // are saved beside it and the report's entry names them.
    std::optional<kv::PairNames> Saved;
    std::string Note;
    if (V.result.verdict == kv::Verdict::NotEquivalent &&
        V.result.counterexample && S.Source)
      Note = saveForReplay(*S.Source, F.getName(), M, F.getName(), F, "",
                           "optimization", Saved);
    report(F, V, Entries, "", Note, /*Diagnose=*/true,
           Saved ? &*Saved : nullptr);
    if (statsRequested()) {
      errs() << kernelPrefix(F) << "time per phase (total "
             << (int64_t)V.result.timeMs << " ms):\n";
      kv::stats::print(errs());
    }
    // Proofs, unknown and unsupported are kept (kv::cacheable): a cached
    // not-equivalent would fail a build on the cache's word alone, and an
    // error is a crash to see again. An unknown depends on the budget (in
    // the key) and on the machine's load: one that a quieter machine would
    // prove stays unknown until the code, options or kvalidate change.
    if (Key && kv::cacheable(V.result.verdict)) {
      std::string Err;
      if (!Cache.store(*Key, cacheEntry(F, V), Err) && !CacheWarned) {
        CacheWarned = true;
        notice(M, "kvalidate: cannot keep verdicts in the cache: " + Err);
      }
      // The next compile of this source skips the lowering at the start.
      if (Before.Op || Before.NeedsSource)
        (void)Cache.store(S.lowerKey(F), json::Object{{"deferred", true}}, Err);
    }
  }
  checkReferences(M, S, Cache, Entries);
}

//===----------------------------------------------------------------------===//
// Passes
//===----------------------------------------------------------------------===//

/// kvalidate-start: snapshot the module's kernels.
struct StartPass : PassInfoMixin<StartPass> {
  /// Registered by name rather than at the pipeline-start extension point.
  bool Explicit;

  explicit StartPass(bool Explicit) : Explicit(Explicit) {}

  PreservedAnalyses run(Module &M, ModuleAnalysisManager &) {
    if (disabled() || crashed || !isDeviceModule(M))
      return PreservedAnalyses::all();
    const std::optional<PluginOptions> &Opts = options(M.getContext());
    if (!Opts)
      return PreservedAnalyses::all();
    {
      std::lock_guard<std::mutex> Lock(SnapshotsMutex);
      auto It = snapshots().find(&M);
      if (It != snapshots().end()) {
        // Same address and name: ours, and the extension point keeps what an
        // explicit kvalidate-start took earlier (opt -passes='kvalidate-start,
        // default<O2>,kvalidate-check'). Otherwise a stale one from a module
        // that has since been freed.
        if (!Explicit && It->second->ModuleId == M.getModuleIdentifier())
          return PreservedAnalyses::all();
        snapshots().erase(It);
      }
    }
    warnUnmatchedKernels(M);
    std::unique_ptr<Snapshot> S;
    if (!runGuarded([&] { S = takeSnapshot(M, *Opts); })) {
      // The partial snapshot is leaked: its destructors may not be safe.
      (void)S.release();
      std::vector<ReportEntry> Entries;
      for (Function &F : M)
        if (isSelected(F))
          report(F,
                 crashVerdict("kvalidate crashed while lowering the kernels"),
                 Entries, "", "", /*Diagnose=*/Entries.empty());
      writeReport(M, Entries);
      return PreservedAnalyses::all();
    }
    if (S->Kernels.empty())
      return PreservedAnalyses::all();
    S->Explicit = Explicit;
    std::lock_guard<std::mutex> Lock(SnapshotsMutex);
    snapshots()[&M] = std::move(S);
    return PreservedAnalyses::all();
  }

  static bool isRequired() { return true; }
};

/// kvalidate-check: check the kernels against the snapshot and report. The
/// snapshot is consumed: one report per kernel even when both the explicit
/// and the extension-point passes are in the pipeline.
struct CheckPass : PassInfoMixin<CheckPass> {
  bool Explicit;

  explicit CheckPass(bool Explicit) : Explicit(Explicit) {}

  PreservedAnalyses run(Module &M, ModuleAnalysisManager &) {
    if (disabled() || !isDeviceModule(M))
      return PreservedAnalyses::all();
    std::unique_ptr<Snapshot> S;
    {
      std::lock_guard<std::mutex> Lock(SnapshotsMutex);
      auto It = snapshots().find(&M);
      if (It == snapshots().end() || (It->second->Explicit && !Explicit))
        return PreservedAnalyses::all();
      S = std::move(It->second);
      snapshots().erase(It);
    }
    if (crashed) {
      (void)S.release(); // see StartPass: not safe to destroy after a crash
      return PreservedAnalyses::all();
    }
    if (S->ModuleId != M.getModuleIdentifier())
      return PreservedAnalyses::all(); // stale, from a freed module
    checkModule(M, *S);
    finishPerPass(M);
    if (crashed)
      (void)S.release();
    return PreservedAnalyses::all();
  }

  static bool isRequired() { return true; }
};

void registerCallbacks(PassBuilder &PB) {
  registerPerPass(PB);
  // -O0 has nothing to validate: no snapshot, so the check is silent too.
  PB.registerPipelineStartEPCallback(
      [](ModulePassManager &MPM, OptimizationLevel Level) {
        if (Level != OptimizationLevel::O0)
          MPM.addPass(StartPass(/*Explicit=*/false));
      });
  PB.registerOptimizerLastEPCallback(
      [](ModulePassManager &MPM, OptimizationLevel Level, ThinOrFullLTOPhase) {
        if (Level != OptimizationLevel::O0)
          MPM.addPass(CheckPass(/*Explicit=*/false));
      });
  PB.registerPipelineParsingCallback(
      [](StringRef Name, ModulePassManager &MPM,
         ArrayRef<PassBuilder::PipelineElement>) {
        if (Name == "kvalidate-start") {
          MPM.addPass(StartPass(/*Explicit=*/true));
          return true;
        }
        if (Name == "kvalidate-check") {
          MPM.addPass(CheckPass(/*Explicit=*/true));
          return true;
        }
        return false;
      });
}

} // namespace

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "kvalidate", "0.1", registerCallbacks};
}
