//===- Relational.h - relational proofs over the kernels' own IR -*- C++
//-*-===//
//
// The loop method that does not care about the shape of a loop. The two
// kernels' LLVM IR is cut at its loop headers and barriers; a product of
// the two cut graphs pairs the cut points that one thread of each kernel
// reaches together (in lockstep, or one side waiting at a barrier or at the
// end), and a relational invariant at each pair is found by candidate-based
// invariant generation (Houdini): many guesses relating the two kernels'
// values, memories and access sets, of which the largest inductive subset
// is kept. Each path between cut points is one symbolic step of a single
// parameterized thread, so no trip count is needed: a loop of 4096
// iterations is one inductive step.
//
// What the proof shows, for a symbolic thread and any memory at a barrier
// (the same for both kernels): both reach the same barriers, and between
// two of them write the same bytes with the same values, and the after
// kernel reads no byte the before kernel's thread neither read nor wrote.
// With the before kernel free of data races, that makes the after kernel
// race free and both leave the same memory behind, for every launch.
//
//===----------------------------------------------------------------------===//
#ifndef KV_EQUIV_RELATIONAL_H
#define KV_EQUIV_RELATIONAL_H

#include <string>
#include <vector>

namespace llvm {
class Function;
} // namespace llvm

namespace kv {

struct RelationalResult {
  bool proved = false;
  /// How it was proved: the loops and barrier intervals aligned.
  std::string method;
  /// Why not: the construct (with its source line) or the obligation that
  /// failed.
  std::string why;
  /// What the proof rests on, in words.
  std::vector<std::string> assumptions;
};

struct RelationalOptions {
  /// The whole attempt's budget, and each solver query's.
  unsigned timeoutMs = 10000;
  unsigned queryMs = 2000;
  /// Product nodes explored before giving up (the product of two large
  /// kernels' cut graphs grows quadratically).
  unsigned maxNodes = 96;
  /// The before kernel's freedom from races, barrier divergence and
  /// out-of-bounds shared accesses was proved (the verdict says so rather
  /// than assuming it).
  bool beforeSafetyChecked = false;
};

/// Prove that \p after leaves the same memory as \p before for every
/// launch and input, thread for thread. Never claims more than it proves:
/// anything it does not model ends the attempt (proved = false).
RelationalResult proveRelational(const llvm::Function &before,
                                 const llvm::Function &after,
                                 const RelationalOptions &opts = {});

} // namespace kv

#endif // KV_EQUIV_RELATIONAL_H
