//===- Debug.h - kvalidate's debugging aids ---------------------*- C++ -*-===//
//
// Debug output of one kind is on with the hidden option
// --kv-debug=KIND[,KIND...] (-mllvm -kv-debug=... in clang, or $KV_DEBUG;
// "all" for every kind but strategies); queries are written as SMT-LIB files
// with --kv-dump-smt=PREFIX. (LLVM_DEBUG and -debug-only would be the usual
// way, but Debian's LLVM is built without assertions, where both compile to
// nothing.) Kinds in use:
//   checker   the per-array queries: models, refinement rounds
//   driver    the driver's attempts (--unroll-exact's bounds)
//   encoder   read chains, regrouped sums, side-query outcomes
//   lockstep  the interval-by-interval proof
//   safety    the race, divergence and bounds queries
//   regroup   the sum regrouping proofs in detail
//   rlimit    the resource count of each portfolio check
//   products  each abstracted product the refinement makes exact
//   substats  one line per side query: name, outcome, ms, resource count
//   strategies each main query again with four solver strategies alone
//   compile   the clang runs that compile .cu inputs (precompiled headers)
//
//===----------------------------------------------------------------------===//
#ifndef KV_SMT_DEBUG_H
#define KV_SMT_DEBUG_H

#include "llvm/ADT/StringRef.h"
#include <string>

namespace kv {

/// Whether --kv-debug selected \p kind (or "all").
bool debugEnabled(llvm::StringRef kind);

/// The file a query of \p kind should be dumped to: PREFIX-KIND-N.smt2 with
/// N counting per kind, or "" without --kv-dump-smt. \p tag, when given,
/// replaces the counter (the per-array query names its array).
std::string dumpPath(llvm::StringRef kind, llvm::StringRef tag = "");

/// Write \p smt2 to \p path (best effort: a debugging aid).
void dumpTo(const std::string &path, llvm::StringRef smt2);

} // namespace kv

/// Run the statements \p X when --kv-debug selects \p KIND.
#define KV_DEBUG(KIND, X)                                                      \
  do {                                                                         \
    if (::kv::debugEnabled(KIND)) {                                            \
      X;                                                                       \
    }                                                                          \
  } while (false)

#endif
