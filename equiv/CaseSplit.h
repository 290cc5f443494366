//===- CaseSplit.h - proofs by cases on launch dimensions -------*- C++ -*-===//
//
// A loop whose trip count depends on blockDim.x (a tree reduction, a scan)
// cannot be unrolled for a symbolic block size, and two kernels whose loops
// build different trees cannot be aligned iteration by iteration. When the
// assumptions leave the values that fix the trip count a finite domain
// (blockDim.x a power of two: 11 values within CUDA's limit of 1024), the
// pair is checked once per value, with the loops unrolled: a complete proof
// over that domain, reported as such.
//
//===----------------------------------------------------------------------===//
#ifndef KV_EQUIV_CASESPLIT_H
#define KV_EQUIV_CASESPLIT_H

#include "equiv/Checker.h"
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kv {

/// One case: values of launch dimensions ("blockDim.x") and scalar
/// parameters (by source name).
using Case = std::vector<std::pair<std::string, int64_t>>;

/// "blockDim.x == 64 && n == 3".
std::string describeCase(const Case &c);

/// Every value of \p names that the CUDA limits, opts.assumptions and the
/// values already fixed in \p fixed allow, each extending \p fixed; nullopt
/// with \p why when there are more than \p limit (or the solver cannot
/// tell). \p signature supplies the parameters' names and types.
std::optional<std::vector<Case>>
enumerateCases(KernelOp signature, const std::vector<std::string> &names,
               const Case &fixed, const CheckOptions &opts, unsigned limit,
               std::string &why);

/// The front end's side of a split: lower both kernels with the values of
/// \p pins folded in (LowerOptions::pins). With \p reportSplit, a loop whose
/// trip count depends only on launch dimensions and scalars stops the
/// lowering: fill \p splitOn with their names and \p signature with a
/// kernel carrying the parameters. Any other failure fills \p failure. The
/// kernels returned (and \p signature) belong to the caller of this
/// function, which erases them when done.
struct LoweredPair {
  KernelOp before, after;
};
using LowerPairFn = std::function<std::optional<LoweredPair>(
    const Case &pins, bool reportSplit, std::vector<std::string> &splitOn,
    KernelOp &signature, CheckResult &failure)>;

/// Ends a LowerPairFn whose lowering asked for a split on \p names, keeping
/// the kernel \p kept as the signature: the before kernel, if \p lowered
/// has it already, names the cases instead (and \p kept is erased).
void requestSplit(const std::vector<std::string> &names, KernelOp kept,
                  LoweredPair &lowered, std::vector<std::string> &splitOn,
                  KernelOp &signature);

/// checkEquivalence, splitting into cases where a loop needs it: at most
/// \p maxCases checks. Without such loops it is one checkEquivalence.
/// \p check runs one case (checkEquivalence or the baseline); \p initial
/// holds values known from the start (the baseline's launch).
CheckResult checkByCases(
    const LowerPairFn &lower, const CheckOptions &opts, unsigned maxCases,
    const std::function<CheckResult(KernelOp, KernelOp, const CheckOptions &)>
        &check,
    const Case &initial = {});

} // namespace kv

#endif
