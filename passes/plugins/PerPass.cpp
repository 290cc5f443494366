//===- PerPass.cpp - the pass that broke a kernel -------------------------===//
//
// -kvalidate-per-pass: pass instrumentation validates each pass that
// changed a kernel against the kernel as it was before that pass, and names
// the first pass after which a kernel is no longer equivalent (the
// opt-bisect-limit idea, in one compile). A pass that changed nothing is
// skipped: it preserved all analyses, or the kernel prints the same. The
// IR before and after the culprit is saved next to the report file.
//
// The kernel before a pass is a clone of the module, taken again after
// each pass that changed a kernel. Its `nsw`/`nuw` flags are taken as the
// preconditions of that step, as the source's are for the whole pipeline.
//
//===----------------------------------------------------------------------===//
#include "passes/lower/LowerToKV.h"
#include "passes/plugins/PluginSupport.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Analysis/CGSCCPassManager.h"
#include "llvm/Analysis/LazyCallGraph.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/PassInstrumentation.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <map>
#include <memory>
#include <mutex>
#include <set>

using namespace llvm;

namespace kv::plugin {
namespace {

/// Per device module: the state every kernel is compared against.
struct PassState {
  std::string moduleId;
  /// The module after the last pass that changed a kernel.
  std::unique_ptr<Module> baseline;
  /// Each selected kernel's printed IR in the baseline.
  std::map<std::string, std::string> text;
  /// Kernels whose culprit has been named: later passes are not validated.
  std::set<std::string> broken;
  /// Kernels whose steps were unsupported for one reason, and how many
  /// times in a row: past maxUnsupportedRun, the construct is taken to stay
  /// and the kernel's later passes are not validated one by one (the
  /// end-to-end check still is).
  std::map<std::string, std::pair<std::string, unsigned>> unsupportedRun;
  /// Passes that changed some kernel so far (their number in messages).
  unsigned changes = 0;
  std::unique_ptr<mlir::MLIRContext> ctx;
  std::vector<ReportEntry> entries;
};

/// Consecutive unsupported steps (one reason) after which a kernel's later
/// passes are not validated one by one.
constexpr unsigned maxUnsupportedRun = 3;

std::mutex StatesMutex;

/// Heap-allocated and never destroyed, like the snapshots (Plugin.cpp).
std::map<const Module *, PassState> &states() {
  static auto *Map = new std::map<const Module *, PassState>;
  return *Map;
}

/// Pass managers, adaptors and analysis plumbing: their inner passes are
/// validated one by one.
bool isPlumbing(StringRef pass) {
  for (StringRef s :
       {"PassManager", "PassAdaptor", "AnalysisManagerProxy",
        "RequireAnalysisPass", "InvalidateAnalysisPass", "VerifierPass",
        "PrintModulePass", "PrintFunctionPass", "DevirtSCCRepeatedPass",
        "RepeatedPass", "StartPass", "CheckPass"})
    if (pass.contains(s))
      return true;
  return false;
}

const Module *moduleOf(const Any &ir) {
  if (const auto *m = llvm::any_cast<const Module *>(&ir))
    return *m;
  if (const auto *f = llvm::any_cast<const Function *>(&ir))
    return (*f)->getParent();
  if (const auto *c = llvm::any_cast<const LazyCallGraph::SCC *>(&ir))
    return (*c)->begin() == (*c)->end()
               ? nullptr
               : (*c)->begin()->getFunction().getParent();
  if (const auto *l = llvm::any_cast<const Loop *>(&ir))
    return (*l)->getHeader()->getParent()->getParent();
  return nullptr;
}

/// The selected kernels a pass on \p ir may have changed.
std::vector<const Function *> kernelsOf(const Any &ir, const Module &m) {
  std::vector<const Function *> out;
  auto add = [&](const Function &f) {
    if (isSelected(f))
      out.push_back(&f);
  };
  if (const auto *f = llvm::any_cast<const Function *>(&ir))
    add(**f);
  else if (const auto *c = llvm::any_cast<const LazyCallGraph::SCC *>(&ir))
    for (const LazyCallGraph::Node &n : **c)
      add(n.getFunction());
  else if (const auto *l = llvm::any_cast<const Loop *>(&ir))
    add(*(*l)->getHeader()->getParent());
  else
    for (const Function &f : m)
      add(f);
  return out;
}

/// \p f's body as text, without the `define` line and attribute group
/// numbers (`#3`): a pass that only infers function or parameter attributes
/// (PostOrderFunctionAttrsPass) changes nothing the model sees, and is not
/// validated.
std::string printed(const Function &f) {
  std::string text;
  raw_string_ostream os(text);
  f.print(os);
  StringRef body(text);
  // Comments before the definition, then the `define ... {` line.
  size_t open = body.find("{\n");
  if (open != StringRef::npos)
    body = body.drop_front(open + 2);
  std::string s = body.str();
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    out += s[i];
    if (s[i] == '#' && (i == 0 || s[i - 1] == ' '))
      while (i + 1 < s.size() && isDigit(s[i + 1]))
        ++i;
  }
  return out;
}

PassState *stateFor(const Module &m, bool create) {
  auto it = states().find(&m);
  if (it != states().end() && it->second.moduleId != m.getModuleIdentifier()) {
    // A stale entry of a module since freed: its clone may be destroyed.
    states().erase(it);
    it = states().end();
  }
  if (it != states().end())
    return &it->second;
  if (!create)
    return nullptr;
  PassState &s = states()[&m];
  s.moduleId = m.getModuleIdentifier();
  s.baseline = CloneModule(m);
  for (const Function &f : m)
    if (isSelected(f))
      s.text[f.getName().str()] = printed(f);
  return &s;
}

/// The device module a pass on \p ir works on, when per-pass mode
/// validates that pass (the options in \p opts); else null.
const Module *perPassModule(StringRef passID, const Any &ir,
                            const PluginOptions *&opts) {
  if (disabled() || crashed || isPlumbing(passID))
    return nullptr;
  const Module *m = moduleOf(ir);
  if (!m || !isDeviceModule(*m))
    return nullptr;
  const std::optional<PluginOptions> &o = options(m->getContext());
  if (!o || !o->perPass)
    return nullptr;
  opts = &*o;
  return m;
}

void afterPass(StringRef passID, const Any &ir, const PreservedAnalyses &pa) {
  const PluginOptions *opts = nullptr;
  const Module *m =
      pa.areAllPreserved() ? nullptr : perPassModule(passID, ir, opts);
  if (!m)
    return;
  std::lock_guard<std::mutex> lock(StatesMutex);
  PassState *s = stateFor(*m, /*create=*/false);
  if (!s)
    return;
  bool changed = false;
  for (const Function *f : kernelsOf(ir, *m)) {
    std::string name = f->getName().str();
    std::string now = printed(*f);
    auto it = s->text.find(name);
    if (it == s->text.end() || it->second == now)
      continue;
    it->second = std::move(now);
    if (!changed)
      ++s->changes;
    changed = true;
    Function *before = s->baseline->getFunction(name);
    if (!before || s->broken.count(name))
      continue;
    auto run = s->unsupportedRun.find(name);
    if (run != s->unsupportedRun.end() &&
        run->second.second >= maxUnsupportedRun)
      continue;
    if (!s->ctx) {
      mlir::DialectRegistry registry;
      kv::registerKVDialects(registry);
      s->ctx = std::make_unique<mlir::MLIRContext>(
          registry, mlir::MLIRContext::Threading::DISABLED);
      s->ctx->loadAllAvailableDialects();
    }
    kv::KernelInput src, opt;
    src.function = before;
    src.label = ("before " + passID).str();
    src.isSource = true;
    // The driver only reads the IR it is given.
    opt.function = const_cast<Function *>(f);
    opt.label = ("after " + passID).str();
    kv::Validation v;
    mlir::OwningOpRef<mlir::ModuleOp> into =
        mlir::ModuleOp::create(mlir::UnknownLoc::get(s->ctx.get()));
    bool finished = runGuarded([&] {
      mlir::ScopedDiagnosticHandler quiet(
          s->ctx.get(), [](mlir::Diagnostic &) { return mlir::success(); });
      kv::Driver d(src, opt, *into, opts->opts);
      v = d.validate();
    });
    if (!finished) {
      (void)into.release(); // not safe to destroy after a crash
      report(*f,
             crashVerdict(("kvalidate crashed while checking this kernel "
                           "after pass '" +
                           passID + "'")
                              .str()),
             s->entries, passID.str());
      return;
    }
    Verdict verdict = v.result.verdict;
    if (verdict == Verdict::Unsupported) {
      // The construct, without the "before PASS: " that names the step.
      StringRef why = v.result.reason;
      if (size_t colon = why.find(": "); colon != StringRef::npos)
        why = why.drop_front(colon + 2);
      auto &[last, count] = s->unsupportedRun[name];
      count = last == why ? count + 1 : 1;
      last = why.str();
    } else {
      s->unsupportedRun.erase(name);
    }
    bool breaks = levelOf(verdict, FailOn::Mismatch) == Level::Error;
    if (!breaks) {
      // A step that is proved, or not decided: an entry in the report; the
      // end-to-end check speaks for the pipeline.
      report(*f, v, s->entries, passID.str(), "", /*diagnose=*/false);
      s->entries.back().level = Level::Note;
      continue;
    }
    s->broken.insert(name);
    // The IR before and after the pass, beside the report: where the
    // culprit's counterexample reruns (kvalidate replay).
    std::optional<PairNames> saved;
    std::string savedNote =
        opts->reportPath.empty()
            ? " [the IR before and after it is saved with -kvalidate-report]"
            : saveForReplay(*s->baseline, f->getName(), *m, f->getName(), *f,
                            std::to_string(s->changes) + "-" + passID.str(),
                            "the pass", saved);
    std::string note = " [first pass to break the kernel: '" + passID.str() +
                       "', change " + std::to_string(s->changes) +
                       " of the pipeline to the module]" + savedNote;
    // Say which pass it was, first of all.
    kv::Validation named = v;
    named.result.reason =
        "after pass '" + passID.str() + "': " + named.result.reason;
    report(*f, named, s->entries, passID.str(), note, /*diagnose=*/true,
           saved ? &*saved : nullptr);
  }
  if (changed)
    s->baseline = CloneModule(*m);
}

} // namespace

void registerPerPass(PassBuilder &pb) {
  PassInstrumentationCallbacks *pic = pb.getPassInstrumentationCallbacks();
  if (!pic)
    return;
  pic->registerBeforeNonSkippedPassCallback(
      [](StringRef passID, const Any &ir) {
        const PluginOptions *opts = nullptr;
        const Module *m = perPassModule(passID, ir, opts);
        if (!m)
          return;
        std::lock_guard<std::mutex> lock(StatesMutex);
        stateFor(*m, /*create=*/true);
      });
  pic->registerAfterPassCallback(afterPass);
}

void finishPerPass(const Module &m) {
  std::vector<ReportEntry> entries;
  {
    std::lock_guard<std::mutex> lock(StatesMutex);
    auto it = states().find(&m);
    if (it == states().end())
      return;
    entries = std::move(it->second.entries);
    if (!crashed)
      states().erase(it);
    else
      (void)it->second.ctx.release();
  }
  writeReport(m, entries);
}

} // namespace kv::plugin
