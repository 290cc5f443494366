//===- Assumptions.h - what the verdicts assume -----------------*- C++ -*-===//
//
// Internal to equiv/: one --assume expression parsed for an encoder, and the
// assumptions checkEquivalence lists with its verdict. (parseAssumptions,
// all of --assume at once, is declared in Safety.h.)
//
//===----------------------------------------------------------------------===//
#ifndef KV_EQUIV_ASSUMPTIONS_H
#define KV_EQUIV_ASSUMPTIONS_H

#include "equiv/Checker.h"
#include "smt-encode/Solver.h"
#include "llvm/ADT/StringRef.h"
#include <optional>
#include <string>

namespace kv {

class Encoder;

/// One --assume expression \p text as a Z3 boolean over \p enc's launch
/// dimensions and scalars, or nullopt with \p error set.
std::optional<z3::expr> parseAssumption(Encoder &enc, llvm::StringRef text,
                                        std::string &error);

/// Adds to \p result the assumptions a verdict on \p before and \p after
/// rests on (distinct arrays, CUDA limits, --bits, --assume, the kernels'
/// __builtin_assume, ...). Sets \p bounded, and \p bound to the largest
/// --unroll bound, when a kernel's loops are bounded.
void listAssumptions(KernelOp before, KernelOp after, const CheckOptions &opts,
                     CheckResult &result, bool &bounded, int64_t &bound);

/// False, with \p result's verdict and reason set, when the assumptions
/// admit no launch configuration (or the solver fails on them).
bool admitsLaunch(KernelOp before, const CheckOptions &opts,
                  CheckResult &result);

} // namespace kv

#endif
