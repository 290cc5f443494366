//===- ReportFile.h - verdicts for build systems and code review -*- C++
//-*-===//
//
// The policy that turns a verdict into a build failure (--fail-on), and the
// report files both front doors append to (--report=FILE): JSON lines, or
// SARIF 2.1.0 when FILE ends in .sarif, so that code-review tools annotate
// the kernel. Many compiles of one build may write one file at once: each
// append holds a lock, and a SARIF file is rewritten whole, never torn.
//
//===----------------------------------------------------------------------===//
#ifndef KV_EQUIV_REPORTFILE_H
#define KV_EQUIV_REPORTFILE_H

#include "equiv/Checker.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/JSON.h"

#include <optional>
#include <string>

namespace llvm {
class Function;
} // namespace llvm

namespace kv {

/// kvalidate's version, for --version, reports and cache keys.
const char *versionString();

/// Which verdicts fail a build.
enum class FailOn {
  Mismatch, // not-equivalent, and a kernel found defective (the default)
  Unknown,  // those, and every verdict that is not a proof
  Never,    // nothing: every verdict is a warning at most
};
std::optional<FailOn> parseFailOn(llvm::StringRef text);

/// How much a verdict weighs under a policy (SARIF's levels).
enum class Level { Note, Warning, Error };
Level levelOf(Verdict v, FailOn policy);
const char *levelName(Level l);

/// One result of a report: a kernel pair, or one pass on a kernel.
struct ReportEntry {
  std::string kernel; // source name
  std::string file;   // the kernel's source file, if known
  unsigned line = 0;  // its line, if known
  std::string pass;   // -kvalidate-per-pass: the pass validated
  Verdict verdict = Verdict::Error;
  Level level = Level::Note;
  std::string message;       // the diagnostic's text
  llvm::json::Object fields; // toJSON of the validation
  bool cached = false;
};

/// Where kernel \p f is defined: from its debug info, else its module's
/// source file and the line that declares it there (0 if not found).
void sourceLocation(const llvm::Function &f, std::string &file, unsigned &line);

/// Write \p text to \p path through a temporary file and a rename, so that
/// a process killed half-way leaves the old file, not half of a new one.
bool writeFileAtomically(llvm::StringRef path, llvm::StringRef text,
                         std::string &err);

/// Append \p entries to \p path. Returns false with \p err on failure.
bool appendReport(llvm::StringRef path, llvm::ArrayRef<ReportEntry> entries,
                  std::string &err);

} // namespace kv

#endif
