//===- Report.h - one report layer for every front door ---------*- C++ -*-===//
//
// A Validation rendered as the command line's text, as one JSON object, or
// as a compiler diagnostic (the pass plugin's remark or warning). Every
// front door reports through these, so a verdict reads the same everywhere.
//
//===----------------------------------------------------------------------===//
#ifndef KV_EQUIV_REPORT_H
#define KV_EQUIV_REPORT_H

#include "equiv/Driver.h"
#include "equiv/ReportFile.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>

namespace kv {

/// What the pair was called on the way in (FILE:KERNEL).
struct PairNames {
  std::string before, after;
};

/// The command line's verdict block: verdict, reason, proof, the kernels,
/// every assumption, the counterexample or defect, the time.
void printText(llvm::raw_ostream &os, const Validation &v,
               const PairNames &names);

/// One JSON object: verdict, before, after, assumptions, time_ms, reason,
/// found_by, proof, unroll, counterexample, defect.
llvm::json::Value toJSON(const Validation &v, const PairNames &names);

/// A verdict as a compiler diagnostic on kernel \p kernel.
struct DiagnosticReport {
  enum Kind { Remark, Warning, Error } kind;
  std::string message;
};
/// An error where \p policy fails the build on the verdict, else a warning
/// (a remark for a proof).
DiagnosticReport toDiagnostic(const Validation &v, llvm::StringRef kernel,
                              FailOn policy);

/// The "kvalidate: kernel 'NAME': " prefix of every diagnostic.
std::string diagnosticPrefix(llvm::StringRef kernel);

/// What the verdict cache keeps of a validation, in both plugins: the
/// verdict, its diagnostic text and its JSON fields.
struct CachedVerdict {
  Verdict verdict;
  std::string message;
  llvm::json::Object fields;
};
llvm::json::Object toCacheEntry(const CachedVerdict &c);
/// Whether the cache keeps verdict \p v: proofs, and the verdicts that
/// decide nothing (unknown, unsupported), so that a rebuild of unchanged
/// code does not pay their budget again (the budget is in the key). A
/// not-equivalent or a defect is found again, with a counterexample
/// replayed on the IR; an error (a crash) too.
bool cacheable(Verdict v);
/// The entry read back; none if it is not one, not cacheable, or a verdict
/// \p policy fails the build on: a cache entry alone never fails a build.
std::optional<CachedVerdict> fromCacheEntry(const llvm::json::Object &entry,
                                            FailOn policy);

} // namespace kv

#endif
