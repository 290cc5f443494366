//===- SavedCex.h - kvalidate replay CEX.json -------------------*- C++ -*-===//
//
// The command line's replay of a saved counterexample (kvalidate --json).
//
//===----------------------------------------------------------------------===//
#ifndef KV_UTILS_SAVEDCEX_H
#define KV_UTILS_SAVEDCEX_H

#include "equiv/Checker.h"
#include "kv/KVDialect.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <map>
#include <string>

namespace llvm {
class Function;
} // namespace llvm

namespace kv_cli {

/// The counterexample of a saved --json verdict.
struct SavedCex {
  /// The launch, and the after kernel's where it has its own.
  kv::LaunchConfig cfg, afterCfg;
  std::map<std::string, int64_t> scalars;
  std::map<std::string, std::map<uint64_t, int64_t>> arrays;
};

/// Reads the \p entry-th verdict with a counterexample of \p path (one
/// verdict, or a report of one per line; \p entryGiven: --entry was
/// given), with its kernels and --unroll; false with \p err set.
bool readSavedCex(llvm::StringRef path, unsigned entry, bool entryGiven,
                  SavedCex &out, std::string &before, std::string &after,
                  unsigned &unroll, std::string &err);

/// Run both kernels on the saved launch and inputs (cells not listed and
/// uninitialized shared memory are 0) and compare every global cell either
/// writes. Exit 1 when they differ, 0 when they agree. With \p irOnly,
/// \p before and \p after are the signatures of the LLVM IR, which runs
/// alone; else the kv models, whose runs the LLVM IR's (where there is
/// one) must match. With \p orIR, a model that does not run returns -1
/// (the IR alone is run instead).
int replaySaved(kv::KernelOp before, kv::KernelOp after, const SavedCex &cex,
                unsigned bits, const llvm::Function *beforeIR,
                const llvm::Function *afterIR, bool irOnly = false,
                bool orIR = false);

} // namespace kv_cli

#endif
