//===- PluginOptions.cpp - the pass plugin's options and selection --------===//
//
// The plugin's command-line options (-mllvm -kvalidate-... in clang), their
// validation once per process, which kernels are selected, and the crash
// guard every check runs under (PluginSupport.h).
//
//===----------------------------------------------------------------------===//
#include "equiv/VerdictCache.h"
#include "passes/plugins/PluginSupport.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/MemoryBuffer.h"

#include <mutex>
#include <string>

using namespace llvm;

//===----------------------------------------------------------------------===//
// Options (-mllvm -kvalidate-... in clang)
//===----------------------------------------------------------------------===//

// A category of their own keeps them out of the kvalidate tool's --help,
// which links the same library.
static cl::OptionCategory PluginCategory("kvalidate pass plugin options");

// The option table shared with the command line (equiv/Options.def).
#define KV_OPTION_PREFIX "kvalidate-"
#define KV_OPTION_PLUGIN 1
#define KV_OPTION_CATEGORY PluginCategory
#include "equiv/OptionTable.inc"

// The plugin's own.
static cl::opt<std::string> FailOnOpt(
    "kvalidate-fail-on", cl::cat(PluginCategory),
    cl::value_desc("mismatch|unknown|never"),
    cl::desc("Which verdicts are errors, and so fail the compile: mismatch "
             "(default: not-equivalent, and a defective kernel), unknown "
             "(those, and every verdict that is not a proof), never (all "
             "warnings). The compiled code is the same either way"));
static cl::opt<bool>
    Werror("kvalidate-werror", cl::cat(PluginCategory),
           cl::desc("Same as -kvalidate-fail-on=mismatch (the default)"));
static cl::opt<std::string> ReportOpt(
    "kvalidate-report", cl::cat(PluginCategory), cl::value_desc("FILE"),
    cl::desc("Append each verdict to FILE: SARIF 2.1.0 if FILE ends in "
             ".sarif, else one JSON object per line; with "
             "-kvalidate-per-pass, the IR before and after a pass that "
             "breaks a kernel is saved next to it"));
static cl::opt<bool> PerPassOpt(
    "kvalidate-per-pass", cl::cat(PluginCategory),
    cl::desc("Also validate each pass that changes a kernel, and name the "
             "first pass that breaks its equivalence"));
static cl::opt<bool> StatsOpt(
    "kvalidate-stats", cl::cat(PluginCategory),
    cl::desc("Print the time of each phase of each kernel's validation "
             "on stderr"));
static cl::opt<std::string> CacheOpt(
    "kvalidate-cache", cl::cat(PluginCategory), cl::value_desc("DIR"),
    cl::desc("Keep proofs in DIR, or in a Redis with redis://HOST:PORT, keyed "
             "by a hash of the two kernels' IR, the options and kvalidate's "
             "build: an unchanged kernel is not proved again (default: "
             "kvalidate/verdicts in the user's cache directory; an empty DIR "
             "turns the cache off)"));
static cl::opt<std::string> CacheKeyOpt(
    "kvalidate-cache-key", cl::cat(PluginCategory), cl::value_desc("FILE"),
    cl::desc("Sign the cache's entries with the secret in FILE (HMAC-SHA256) "
             "and use only entries signed with it"));
static cl::list<std::string>
    OnlyKernels("kvalidate-kernel", cl::cat(PluginCategory),
                cl::desc("Only validate the kernel with this source or "
                         "symbol name (repeatable)"));
static cl::opt<bool> Disable("kvalidate-disable", cl::cat(PluginCategory),
                             cl::desc("Do not validate anything"));

//===----------------------------------------------------------------------===//
// Options and selection (diagnostics and reports: PluginReports.cpp)
//===----------------------------------------------------------------------===//

namespace kv::plugin {

bool crashed = false;

bool disabled() { return Disable; }

bool statsRequested() { return StatsOpt; }

bool isDeviceModule(const Module &M) { return M.getTargetTriple().isNVPTX(); }

bool isSelected(const Function &F) {
  if (F.isDeclaration() || !kv::isKernel(F))
    return false;
  if (OnlyKernels.empty())
    return true;
  std::string Src = kv::sourceName(F.getName());
  return any_of(OnlyKernels, [&](const std::string &K) {
    return K == Src || K == F.getName();
  });
}

kv::Validation crashVerdict(StringRef What) {
  kv::Validation V;
  V.result.verdict = kv::Verdict::Error;
  V.result.reason =
      (What + "; validation is off for the rest of this compilation").str();
  return V;
}

bool runGuarded(function_ref<void()> Fn) {
  CrashRecoveryContext CRC;
  if (CRC.RunSafely(Fn))
    return true;
  crashed = true;
  return false;
}

/// Read the cache's secret from \p Path into \p Secret; the reason if it
/// cannot be had. A trailing newline is not part of it.
static std::string readCacheKey(StringRef Path, std::string &Secret) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buf = MemoryBuffer::getFile(Path);
  if (!Buf)
    return "-kvalidate-cache-key: cannot read '" + Path.str() +
           "': " + Buf.getError().message();
  Secret = (*Buf)->getBuffer().rtrim("\r\n").str();
  if (Secret.empty())
    return "-kvalidate-cache-key: '" + Path.str() + "' is empty";
  return "";
}

const std::optional<PluginOptions> &options(LLVMContext &Ctx) {
  static std::optional<PluginOptions> Opts;
  static bool Read = false;
  static std::mutex M;
  std::lock_guard<std::mutex> Lock(M);
  if (!Read) {
    Read = true;
    std::string Error;
    std::optional<kv::Options> Table = readOptionTable(Error);
    std::optional<FailOn> Policy = parseFailOn(FailOnOpt);
    if (Table && !Policy)
      Error = "-kvalidate-fail-on must be one of mismatch|unknown|never, "
              "got '" +
              FailOnOpt + "'";
    if (Table && Policy) {
      Opts.emplace();
      Opts->opts = *Table;
      Opts->failOn = *Policy;
      // -kvalidate-werror predates the policy; it never weakens it.
      if (Werror && Opts->failOn == FailOn::Never)
        Opts->failOn = FailOn::Mismatch;
      Opts->reportPath = ReportOpt;
      Opts->perPass = PerPassOpt;
      Opts->cacheDir = CacheOpt.getNumOccurrences()
                           ? CacheOpt.getValue()
                           : kv::defaultVerdictCacheDir();
      Error = kv::VerdictCache::checkLocation(Opts->cacheDir);
      if (!Error.empty())
        Error = "-kvalidate-cache: " + Error;
      else if (!CacheKeyOpt.empty())
        Error = readCacheKey(CacheKeyOpt, Opts->cacheSecret);
      if (!Error.empty())
        Opts.reset();
    }
    if (!Opts) {
      Ctx.diagnose(DiagnosticInfoGeneric("kvalidate: invalid option: " + Error +
                                             "; nothing is validated",
                                         DS_Error));
    }
  }
  return Opts;
}

/// One warning per device module for each -kvalidate-kernel that selects
/// none of its kernels, with the kernels it has: a misspelt name would
/// otherwise validate nothing and say nothing. A warning of clang's group
/// backend-plugin: the configuration is wrong, not the code.
void warnUnmatchedKernels(const Module &M) {
  if (OnlyKernels.empty())
    return;
  std::string Have;
  for (const Function &F : M)
    if (!F.isDeclaration() && kv::isKernel(F))
      Have += (Have.empty() ? "" : ", ") + kv::sourceName(F.getName());
  for (const std::string &K : OnlyKernels) {
    bool Found = any_of(M, [&](const Function &F) {
      return !F.isDeclaration() && kv::isKernel(F) &&
             (F.getName() == K || kv::sourceName(F.getName()) == K);
    });
    if (Found)
      continue;
    M.getContext().diagnose(DiagnosticInfoGeneric(
        "kvalidate: -kvalidate-kernel=" + K + " names no kernel of " +
            M.getSourceFileName() + " (" +
            (Have.empty() ? std::string("it has none")
                          : "its kernels: " + Have) +
            ")",
        DS_Warning));
  }
}

} // namespace kv::plugin
