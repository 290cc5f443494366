//===- IndexMap.h - write indices as mixed-radix numbers -------*- C++ -*-===//
//
// A write index as a mixed-radix number of thread and block ids and loop
// iterations (IndexMaps.cpp), and the free functions of the encoder's
// machine arithmetic. Split from Encoder.h, which includes it.
//
//===----------------------------------------------------------------------===//
#ifndef KV_SMTENCODE_INDEXMAP_H
#define KV_SMTENCODE_INDEXMAP_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/StringRef.h"
#include <cstdint>
#include <optional>
#include <string>
#include <vector>
#include <z3++.h>

namespace kv {

/// "l * r does not overflow as a signed product", exactly (not Z3 4.8.12's
/// bvsmul_noovfl alone, which is wrong on negative constants).
z3::expr signedMulFits(const z3::expr &l, const z3::expr &r);

/// kv.apply "fcmp.PRED" (or "fcmp.ftz.PRED", subnormal operands compared
/// as zeros, as `setp.ftz` does) of two floats or doubles, exactly: IEEE
/// fixes a comparison bit for bit, and -O2 rewrites comparisons freely
/// (`!(|x| <= inf)` into `x uno 0`). None for other operations and widths.
std::optional<z3::expr> exactFloatCompare(llvm::StringRef fn, const z3::expr &a,
                                          const z3::expr &b);

/// Writes with a mixed-radix index (IndexMaps.cpp).
struct IndexMap {
  struct Digit {
    std::string name;
    mlir::Operation *loop = nullptr; // iteration digits
    int axis = -1;                   // id digits
    bool block = false;
    std::vector<std::string> range; // factor atoms
    int64_t rangeConst = 1;
    /// A part of an id digit (coordinateDigits only): its quotient by
    /// subBy (`threadIdx.x / 16`), or with subRem its remainder.
    int64_t subBy = 0;
    bool subRem = false;
  };
  /// Least significant first.
  std::vector<Digit> digits;
  /// The narrowest width a partial sum of the index passes through.
  unsigned narrowWidth = 64;
  /// The whole index is a sum in narrowWidth bits, extended once: at the
  /// last thread it is P - 1.
  bool narrowWhole = false;
  /// Every operation of the index is a signed no-wrap one (assumed in
  /// the trusted kernel) or a launch-index term.
  bool noWrap = true;
};

} // namespace kv

#endif // KV_SMTENCODE_INDEXMAP_H
