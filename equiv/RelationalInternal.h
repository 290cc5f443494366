//===- RelationalInternal.h - one kernel's side of a relational proof
//------===//
//
// One kernel prepared for the relational proof (a private copy, its calls
// inlined and its private variables in registers, its barriers at the
// start of blocks) and the symbolic execution of one step: from a cut
// point to every cut point reachable without passing another one.
//
// Values are bit-vectors of their width (pointers 64 bits, floats their
// bits, vectors their lanes concatenated, i1 one bit); memory is one array
// of bytes, with an array of booleans for the bytes written and one for
// the bytes read since the last barrier. Float operations and intrinsics
// that touch no memory are uninterpreted functions of their operands,
// shared by the two kernels: equal operands give equal results, and
// nothing else is assumed.
//
//===----------------------------------------------------------------------===//
#ifndef KV_EQUIV_RELATIONALINTERNAL_H
#define KV_EQUIV_RELATIONALINTERNAL_H

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Module.h"

#include <z3++.h>

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace kv::rel {

/// The symbols both kernels share: parameters by position, special
/// registers, globals by name, uninterpreted functions by name.
class Shared {
public:
  explicit Shared(z3::context &c) : ctx(c) {}
  z3::context &ctx;
  z3::expr arg(unsigned i, unsigned bits);
  z3::expr sreg(const std::string &name);
  z3::expr global(const std::string &name, uint64_t size);
  z3::expr apply(const std::string &fn, const std::vector<z3::expr> &args,
                 unsigned bits);
  /// Facts about the launch and the globals' placement that hold on every
  /// real launch (thread ids below the block's size, globals disjoint).
  z3::expr facts();
  /// The parameters and special registers made so far.
  std::vector<z3::expr> symbols() const {
    std::vector<z3::expr> r;
    for (auto &[n, e] : syms)
      if (n[0] != '@')
        r.push_back(e);
    return r;
  }
  z3::sort memSort() { return ctx.array_sort(ctx.bv_sort(64), ctx.bv_sort(8)); }
  z3::sort setSort() {
    return ctx.array_sort(ctx.bv_sort(64), ctx.bool_sort());
  }
  z3::expr emptySet() {
    return z3::const_array(ctx.bv_sort(64), ctx.bool_val(false));
  }
  unsigned fresh = 0;

private:
  std::map<std::string, z3::expr> syms;
  std::map<std::string, uint64_t> globalSizes;
  std::map<std::string, z3::func_decl> fns;
};

/// A side's state at a cut point: the values live there, its memory and
/// what it wrote and read since the last barrier.
struct State {
  std::unordered_map<const llvm::Value *, z3::expr> vals;
  /// Where each of them is poison.
  std::unordered_map<const llvm::Value *, z3::expr> poison;
  std::optional<z3::expr> mem, wr, rd;
  /// Integers sign-extended to 64 bits, the extension distributed over the
  /// arithmetic that computed them (for an address in the next iteration
  /// of a step taken several times over).
  std::unordered_map<const llvm::Value *, z3::expr> wide;
  /// Where each of them is not the value's extension (an operation it
  /// distributes over wraps, or the value is poison).
  std::unordered_map<const llvm::Value *, z3::expr> wideWraps;
  /// At a warp exchange both kernels reach: its result and where it is
  /// poison, the same for both (a function of the other lanes' operands,
  /// which the obligation at the exchange shows equal).
  std::optional<std::pair<z3::expr, z3::expr>> exchange;
};

/// One way out of a step: the cut point reached (null: the kernel
/// returns), under which condition, in which state.
struct Exit {
  llvm::BasicBlock *cut = nullptr;
  z3::expr cond;
  State state;
};

struct Step {
  std::vector<Exit> exits;
  /// Where the step has undefined behaviour (or reaches a trap, an
  /// unreachable, a false llvm.assume): the before kernel is assumed free
  /// of it, the after kernel must be shown free of it.
  z3::expr ub;
  /// The terms of `ub` and the instructions they come from (debugging).
  std::vector<std::pair<const llvm::Instruction *, z3::expr>> ubSites;
  /// Facts that hold in every execution of the step: an extension to 64
  /// bits equals its distribution over the arithmetic under it, unless an
  /// operation it relied on wraps. With them the solver matches the two
  /// forms of an address (`sext(k * n + t)` in one kernel, the source's
  /// `sext(t) + sext(k) * sext(n)`) by congruence instead of bit-blasting
  /// both multipliers.
  std::vector<z3::expr> lemmas;
  /// The same values both ways: (extension, distribution).
  std::vector<std::pair<z3::expr, z3::expr>> forms;
  /// The addresses it reads and writes (the first 64).
  std::vector<z3::expr> addrs;
  /// The step's values, guesses for the other kernel's invariants.
  std::vector<z3::expr> terms;
  /// The addresses it reads and how many bytes.
  std::vector<std::pair<z3::expr, unsigned>> loads;
  /// The operands of its integer comparisons (loop bounds among them).
  std::vector<z3::expr> compared;
  /// From a warp exchange: the intrinsic, and its operands with their
  /// poison.
  unsigned exchangeOp = 0;
  std::vector<std::pair<z3::expr, z3::expr>> exchangeArgs;
};

/// Whether \p i is a warp exchange the proof pairs across the kernels: a
/// shuffle, a vote or a reduction over the lanes of a mask
/// (`shfl.sync`, `vote.sync`, `redux.sync`).
bool isExchangeCall(const llvm::Instruction &i);

class Side {
public:
  Side(Shared &sh, bool isSource) : sh(sh), isSource(isSource) {}
  /// Copy and prepare \p f; false (and `why`) where it uses what the method
  /// does not model.
  bool prepare(const llvm::Function &f);
  /// One step from \p cut (a barrier cut: after its barrier) in \p in.
  std::optional<Step> step(llvm::BasicBlock *cut, const State &in);
  /// \p u iterations of the loop headed by \p cut as one step: the step
  /// taken again from each exit back to the header; exits elsewhere end it
  /// early.
  std::optional<Step> steps(llvm::BasicBlock *cut, const State &in, unsigned u);

  Shared &sh;
  bool isSource;
  std::string why;
  llvm::Function *fn = nullptr;
  llvm::BasicBlock *entry = nullptr;
  std::vector<llvm::BasicBlock *> cuts;
  /// The cuts, those that start with a barrier, and those that start with
  /// a warp exchange.
  llvm::DenseSet<llvm::BasicBlock *> isCut, isBarrier, isExchange;
  /// The values a state at each cut holds: its phis and live-in values.
  llvm::DenseMap<llvm::BasicBlock *, std::vector<llvm::Value *>> live;
  /// Values computed once per thread before any loop or barrier: their
  /// terms (over parameters and the initial memory) hold everywhere.
  std::unordered_map<const llvm::Value *, z3::expr> stable, stablePoison;
  /// The constants the kernel compares with (loop bounds), by width.
  std::set<std::pair<unsigned, uint64_t>> bounds;
  /// The blocks only the first step runs.
  llvm::DenseSet<llvm::BasicBlock *> once;
  /// Per loop header, the bytes its body reads and writes and its barriers
  /// (to tell how many source iterations an unrolled iteration covers).
  unsigned loopWork(llvm::BasicBlock *header) const;
  llvm::LoopInfo &loops() { return *li; }
  /// "file:line" of an instruction, where the IR says.
  static std::string where(const llvm::Instruction &i);

private:
  std::unique_ptr<llvm::Module> module;
  std::unique_ptr<llvm::DominatorTree> dt;
  std::unique_ptr<llvm::LoopInfo> li;
  bool fail(const std::string &w) {
    if (why.empty())
      why = w;
    return false;
  }
  void computeLiveness();
};

} // namespace kv::rel

#endif // KV_EQUIV_RELATIONALINTERNAL_H
