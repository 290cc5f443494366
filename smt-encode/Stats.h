//===- Stats.h - where the time goes ------------------------------*- C++
//-*-===//
//
// Wall time per phase of a validation (--stats, -kvalidate-stats):
// lowering, run-first, bound-runs, safety, lockstep, equivalence, solver,
// replay. The phases nest (the solver's time is part of safety's and
// equivalence's); each is the sum over its calls. Cheap enough to be always
// on.
//
//===----------------------------------------------------------------------===//
#ifndef KV_SMTENCODE_STATS_H
#define KV_SMTENCODE_STATS_H

#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <string>

namespace kv::stats {

/// Add \p ms to \p phase (one more call).
void add(const char *phase, double ms);
/// Forget every phase.
void reset();
/// One line per phase in first-seen order: "  phase   ms   calls".
void print(llvm::raw_ostream &os);

/// Times the scope as one call of \p phase.
class Scoped {
public:
  explicit Scoped(const char *phase)
      : phase(phase), start(std::chrono::steady_clock::now()) {}
  ~Scoped() {
    add(phase, std::chrono::duration<double, std::milli>(
                   std::chrono::steady_clock::now() - start)
                   .count());
  }

private:
  const char *phase;
  std::chrono::steady_clock::time_point start;
};

} // namespace kv::stats

#endif
