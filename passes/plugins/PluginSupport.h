//===- PluginSupport.h - what the plugin's passes share ---------*- C++ -*-===//
//
// The pass plugin's options, kernel selection, crash guard and reporting
// (diagnostics, the report file), shared by the end-to-end check
// (Plugin.cpp) and the per-pass check (PerPass.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef KV_PASSES_PLUGINSUPPORT_H
#define KV_PASSES_PLUGINSUPPORT_H

#include "equiv/Driver.h"
#include "equiv/Report.h"
#include "equiv/ReportFile.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Module.h"
#include "llvm/Passes/PassBuilder.h"

#include <optional>
#include <vector>

namespace kv::plugin {

/// The option table's values and the plugin's policy, validated once per
/// process: an invalid value is one error for the whole compile, and
/// nothing is validated then.
struct PluginOptions {
  Options opts;
  FailOn failOn = FailOn::Mismatch;
  std::string reportPath;
  bool perPass = false;
  /// The verdict cache's location ("": off) and secret ("": entries are
  /// not signed).
  std::string cacheDir, cacheSecret;
};
const std::optional<PluginOptions> &options(llvm::LLVMContext &ctx);

/// -kvalidate-disable.
bool disabled();
/// -kvalidate-stats.
bool statsRequested();
bool isDeviceModule(const llvm::Module &m);
/// A kernel defined here that the -kvalidate-kernel filter selects.
bool isSelected(const llvm::Function &f);
/// Warns of each -kvalidate-kernel that selects no kernel of \p m.
void warnUnmatchedKernels(const llvm::Module &m);

/// Set once lowering or checking crashed (caught by crash recovery): the
/// libraries' state may be inconsistent, so nothing more is attempted.
extern bool crashed;
/// The verdict on a kernel whose check crashed (\p what crashed): an error,
/// in the diagnostics and the report like any other verdict.
Validation crashVerdict(llvm::StringRef what);
/// Run \p fn, recovering from a crash inside it where the host enables crash
/// recovery (clang's in-process cc1 does). Returns false after a crash.
bool runGuarded(llvm::function_ref<void()> fn);

/// A diagnostic on kernel \p f at level \p l: an error fails the compile; a
/// warning or a note (a proof) is a remark of -Rpass=kvalidate, so that
/// -Werror cannot fail a compile the policy lets pass.
void diagnose(const llvm::Function &f, const llvm::Twine &msg, Level l);
/// What the policy of \p ctx's compile makes of verdict \p v.
Level levelFor(llvm::LLVMContext &ctx, Verdict v);
/// A trouble of the cache or the report on module \p m: a remark, never a
/// failed compile.
void notice(const llvm::Module &m, const llvm::Twine &msg);
std::string kernelPrefix(const llvm::Function &f);

/// Report \p v on kernel \p f: a remark, warning or error as the policy
/// says, and an entry in \p entries for the report file. \p pass names the
/// pass validated (per-pass mode); \p note is added to the diagnostic;
/// \p names, if given, are the entry's before and after kernels.
void report(const llvm::Function &f, const Validation &v,
            std::vector<ReportEntry> &entries, const std::string &pass = "",
            const std::string &note = "", bool diagnose = true,
            const PairNames *names = nullptr);
/// Saves \p before and \p after, the modules kernel \p f's verdict
/// compared functions \p beforeName and \p afterName of, beside the report
/// file as STEM.KERNEL.TAG.before.ll and .after.ll (STEM: the report's name
/// without its extension; one STEM.KERNEL.TAG.ll where the two are one
/// module), so that `kvalidate replay REPORT` reruns the counterexample;
/// \p names then receives them as FILE:FUNCTION. Returns the diagnostic's
/// note naming the files ("" with no report file; a note of the failure if
/// they cannot be written).
std::string saveForReplay(const llvm::Module &before,
                          llvm::StringRef beforeName, const llvm::Module &after,
                          llvm::StringRef afterName, const llvm::Function &f,
                          llvm::StringRef tag, llvm::StringRef what,
                          std::optional<PairNames> &names);
/// Report a verdict kept by the cache: \p entry holds the verdict's name,
/// its diagnostic text and its JSON fields, as cacheEntry made them.
/// Returns false if the entry is not one.
bool reportCached(const llvm::Function &f, const llvm::json::Object &entry,
                  std::vector<ReportEntry> &entries);
/// What the cache keeps of \p v on \p f.
llvm::json::Object cacheEntry(const llvm::Function &f, const Validation &v);

/// Append \p entries to the report file, if there is one; a write failure
/// is one remark (notice), never an error (the compile goes on).
void writeReport(const llvm::Module &m, std::vector<ReportEntry> &entries);

/// Register the per-pass check's instrumentation (-kvalidate-per-pass).
void registerPerPass(llvm::PassBuilder &pb);
/// At the end of the pipeline: write the per-pass entries of \p m.
void finishPerPass(const llvm::Module &m);

} // namespace kv::plugin

#endif
