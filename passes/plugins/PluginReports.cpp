//===- PluginReports.cpp - the pass plugin's diagnostics and reports ------===//
//
// How the plugin says what it found: clang diagnostics at the kernel's
// definition (errors for what the policy fails, remarks for the rest, so
// that -Werror never overrides the policy), the report file (SARIF or JSON
// lines), and the verdict cache's entries.
//
//===----------------------------------------------------------------------===//
#include "passes/plugins/PluginSupport.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace {

/// "file:line: " of a function's definition, for printers that have no
/// source locations of their own.
std::string functionLocation(const Function &F) {
  const DISubprogram *SP = F.getSubprogram();
  if (!SP)
    return "";
  return (SP->getFilename() + ":" + Twine(SP->getLine()) + ": ").str();
}

/// Errors (the verdicts the policy fails). Clang prints the Unsupported kind
/// as a plain "error:" with the message at the function's location (from
/// debug info, or its own record of where the function is declared, so the
/// location is left empty here). print() is only used by tools without a
/// handler of their own, such as opt, whose default would be
/// "<unknown>:0:0: in function <mangled> <type>: ...".
class KVDiagnostic : public DiagnosticInfoUnsupported {
public:
  KVDiagnostic(const Function &F, const Twine &Msg, DiagnosticSeverity Sev)
      : DiagnosticInfoUnsupported(F, Msg, DiagnosticLocation(), Sev) {}

  void print(DiagnosticPrinter &DP) const override {
    DP << functionLocation(getFunction()) << getMessage();
  }
};

/// Everything that does not fail the compile (a proof, a verdict the policy
/// lets pass, the cache's and the report's troubles): an optimization remark
/// of pass "kvalidate", so -Rpass=kvalidate / -pass-remarks=kvalidate select
/// it and it reaches optimization records, under remark name \p Name. A
/// remark, because -Werror would make a warning an error. print() as above.
class KVRemark : public OptimizationRemark {
public:
  KVRemark(const Function &F, const char *Name)
      : OptimizationRemark("kvalidate", Name, DiagnosticLocation(),
                           &F.getEntryBlock()) {}

  void print(DiagnosticPrinter &DP) const override {
    DP << functionLocation(getFunction()) << getMsg();
  }
};

} // namespace

namespace kv::plugin {

void diagnose(const Function &F, const Twine &Msg, Level L) {
  switch (L) {
  case Level::Error:
    F.getContext().diagnose(KVDiagnostic(F, Msg, DS_Error));
    return;
  case Level::Warning:
  case Level::Note: {
    KVRemark Remark(F, L == Level::Note ? "Equivalent" : "NotProved");
    Remark << Msg.str();
    F.getContext().diagnose(Remark);
    return;
  }
  }
}

Level levelFor(LLVMContext &Ctx, kv::Verdict V) {
  FailOn Policy = FailOn::Mismatch;
  if (const std::optional<PluginOptions> &O = options(Ctx))
    Policy = O->failOn;
  return levelOf(V, Policy);
}

void notice(const Module &M, const Twine &Msg) {
  for (const Function &F : M)
    if (isSelected(F)) {
      KVRemark Remark(F, "Infrastructure");
      Remark << Msg.str();
      M.getContext().diagnose(Remark);
      return;
    }
  M.getContext().diagnose(DiagnosticInfoGeneric(Msg, DS_Remark));
}

std::string kernelPrefix(const Function &F) {
  return kv::diagnosticPrefix(kv::sourceName(F.getName()));
}

namespace {

/// Report a verdict rendered as \p Message, on \p F: a diagnostic as the
/// policy says, and an entry for the report file.
void reportRendered(const Function &F, kv::Verdict Verdict,
                    const std::string &Message, json::Object Fields,
                    std::vector<ReportEntry> &Entries, const std::string &Pass,
                    bool Diagnose, bool Cached) {
  Level L = levelFor(F.getContext(), Verdict);
  ReportEntry E;
  E.kernel = kv::sourceName(F.getName());
  kv::sourceLocation(F, E.file, E.line);
  E.pass = Pass;
  E.verdict = Verdict;
  E.level = L;
  E.message = Message;
  E.fields = std::move(Fields);
  E.cached = Cached;
  Entries.push_back(std::move(E));
  if (Diagnose)
    diagnose(F, Message, L);
}

json::Object fieldsOf(const Function &F, const kv::Validation &V,
                      const std::string &Pass,
                      const kv::PairNames *Saved = nullptr) {
  std::string Stage = Pass.empty() ? "optimization" : Pass;
  kv::PairNames Names{F.getName().str() + " (before " + Stage + ")",
                      F.getName().str() + " (after " + Stage + ")"};
  json::Value Fields = kv::toJSON(V, Saved ? *Saved : Names);
  if (json::Object *O = Fields.getAsObject())
    return std::move(*O);
  return json::Object();
}

} // namespace

void report(const Function &F, const kv::Validation &V,
            std::vector<ReportEntry> &Entries, const std::string &Pass,
            const std::string &Note, bool Diagnose,
            const kv::PairNames *Names) {
  kv::DiagnosticReport D =
      kv::toDiagnostic(V, kv::sourceName(F.getName()), FailOn::Never);
  reportRendered(F, V.result.verdict, D.message + Note,
                 fieldsOf(F, V, Pass, Names), Entries, Pass, Diagnose,
                 /*Cached=*/false);
}

std::string saveForReplay(const Module &Before, StringRef BeforeName,
                          const Module &After, StringRef AfterName,
                          const Function &F, StringRef Tag, StringRef What,
                          std::optional<kv::PairNames> &Names) {
  const std::optional<PluginOptions> &O = options(F.getContext());
  if (!O || O->reportPath.empty())
    return "";
  auto FileSafe = [](StringRef Name) {
    std::string Out;
    for (char C : Name)
      Out += isAlnum(C) || C == '-' || C == '_' || C == '.' ? C : '_';
    return Out.substr(0, 80);
  };
  SmallString<256> Base(O->reportPath);
  sys::path::replace_extension(Base, "");
  std::string Stem = (Base + "." + FileSafe(kv::sourceName(F.getName()))).str();
  if (!Tag.empty())
    Stem += "." + FileSafe(Tag);
  bool One = &Before == &After;
  std::string Paths[2] = {Stem + (One ? ".ll" : ".before.ll"),
                          Stem + (One ? ".ll" : ".after.ll")};
  const Module *Mods[2] = {&Before, &After};
  for (int I = 0; I < (One ? 1 : 2); ++I) {
    std::error_code EC;
    raw_fd_ostream OS(Paths[I], EC, sys::fs::OF_Text);
    if (EC)
      return " [cannot save the IR: " + Paths[I] + ": " + EC.message() + "]";
    Mods[I]->print(OS, nullptr);
  }
  Names = kv::PairNames{Paths[0] + ":" + BeforeName.str(),
                        Paths[1] + ":" + AfterName.str()};
  if (One)
    return " [IR: " + Paths[0] + "]";
  return (" [IR before and after " + What + ": " + Paths[0] + " " + Paths[1] +
          "]")
      .str();
}

json::Object cacheEntry(const Function &F, const kv::Validation &V) {
  kv::DiagnosticReport D =
      kv::toDiagnostic(V, kv::sourceName(F.getName()), FailOn::Never);
  return kv::toCacheEntry({V.result.verdict, D.message, fieldsOf(F, V, "")});
}

bool reportCached(const Function &F, const json::Object &Entry,
                  std::vector<ReportEntry> &Entries) {
  FailOn Policy = FailOn::Mismatch;
  if (const std::optional<PluginOptions> &O = options(F.getContext()))
    Policy = O->failOn;
  std::optional<kv::CachedVerdict> C = kv::fromCacheEntry(Entry, Policy);
  if (!C)
    return false;
  reportRendered(F, C->verdict, C->message + " [cached]", std::move(C->fields),
                 Entries, "", /*Diagnose=*/true, /*Cached=*/true);
  return true;
}

void writeReport(const Module &M, std::vector<ReportEntry> &Entries) {
  const std::optional<PluginOptions> &O = options(M.getContext());
  if (!O || O->reportPath.empty() || Entries.empty())
    return;
  std::string Err;
  if (!appendReport(O->reportPath, Entries, Err))
    notice(M, "kvalidate: cannot write the report: " + Err);
  Entries.clear();
}

} // namespace kv::plugin
