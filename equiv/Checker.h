//===- Checker.h - equivalence of two kv kernels ----------------*- C++ -*-===//
//
// The verdicts kvalidate gives, and the entry point that checks a pair of
// kv.kernel ops with the single-parameterized-thread encoding.
//
//===----------------------------------------------------------------------===//
#ifndef KV_EQUIV_CHECKER_H
#define KV_EQUIV_CHECKER_H

#include "kv/KVDialect.h"
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kv {

enum class Verdict {
  Equivalent,    // proved for every launch and input under the assumptions
  NotEquivalent, // with a counterexample that replays
  Unknown,       // timeout, or an obligation the encoding could not discharge
  Unsupported,   // a construct the model cannot express
  Error,         // bad input or usage
};
const char *verdictName(Verdict v);
/// Documented exit status: 0 equivalent, 1 not-equivalent, 2 unknown or
/// unsupported, 3 error.
int exitCode(Verdict v);

struct Counterexample {
  uint64_t gridDim[3] = {1, 1, 1}, blockDim[3] = {1, 1, 1};
  /// Scalar parameters by source name (as signed values of their width).
  std::vector<std::pair<std::string, int64_t>> scalars;
  /// Input cells that matter, per global array (element index -> value).
  std::map<std::string, std::map<int64_t, int64_t>> arrays;
  std::string mismatchArray;
  int64_t mismatchIndex = 0;
  int64_t before = 0, after = 0;
  /// Both kernels were run concretely on this input and differ.
  bool replayed = false;
};

struct CheckOptions {
  unsigned bits = 32;
  unsigned timeoutSecs = 0; // 0: no limit
  /// --assume expressions (C syntax over blockDim/gridDim and scalars).
  std::vector<std::string> assumptions;
};

struct CheckResult {
  Verdict verdict = Verdict::Unknown;
  /// Why (for unknown/unsupported/error), or a one-line summary.
  std::string reason;
  /// Everything the verdict rests on, in words.
  std::vector<std::string> assumptions;
  std::optional<Counterexample> counterexample;
  double timeMs = 0;
};

/// Check that \p before and \p after write the same values to every global
/// array cell for every launch configuration and input. The kernels' scalar
/// and array parameters are matched by position.
CheckResult checkEquivalence(KernelOp before, KernelOp after,
                             const CheckOptions &opts);

} // namespace kv

#endif
