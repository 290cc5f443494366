//===- RelationalStepper.h - one step of one kernel, symbolically -*- C++
//-*-===//
//
// The execution of one step between cut points, shared by the instruction
// semantics (RelationalExec.cpp) and the walk over a step's blocks
// (RelationalSide.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef KV_EQUIV_RELATIONALSTEPPER_H
#define KV_EQUIV_RELATIONALSTEPPER_H

#include "equiv/RelationalInternal.h"

#include "llvm/IR/Operator.h"

#include <unordered_set>

namespace kv::rel {

/// The bits of a value of type \p t, or 0 where the proof does not model it.
unsigned bitsOf(llvm::Type *t, const llvm::DataLayout &dl);

/// The execution of one step: blocks in topological order, each with the
/// condition under which it runs and the memory it starts with.
class Stepper {
public:
  Stepper(Side &s, const State &in)
      : side(s), sh(s.sh), ctx(s.sh.ctx),
        dl(s.fn->getParent()->getDataLayout()), ub(ctx.bool_val(false)),
        vals(in.vals), pois(in.poison), wideIn(in.wide),
        wideInWraps(in.wideWraps) {}

  std::optional<Step> run(llvm::BasicBlock *start, const State &in);

  std::string why;

private:
  struct Incoming {
    llvm::BasicBlock *from;
    z3::expr cond, mem, wr, rd;
  };
  Side &side;
  Shared &sh;
  z3::context &ctx;
  const llvm::DataLayout &dl;
  z3::expr ub;
  std::unordered_map<const llvm::Value *, z3::expr> vals;
  /// Where each value is poison (LLVM's deferred undefined behaviour: an
  /// overflowing `nsw` add, say), for the values that may be.
  std::unordered_map<const llvm::Value *, z3::expr> pois;
  /// State::wide of the state the step starts in.
  std::unordered_map<const llvm::Value *, z3::expr> wideIn, wideInWraps;
  /// The instructions this step computed (the others in `vals` were
  /// carried in from an earlier step).
  std::unordered_set<const llvm::Value *> local;
  std::vector<z3::expr> terms;
  std::vector<std::pair<z3::expr, unsigned>> loads;
  /// The operands of its integer comparisons.
  std::vector<z3::expr> compared;
  /// The poison the current instruction's own flags add.
  std::optional<z3::expr> flagged;
  // The current block's path condition and memory.
  std::optional<z3::expr> cond, mem, wr, rd;

  bool fail(const std::string &w) {
    if (why.empty())
      why = w;
    return false;
  }
  std::optional<z3::expr> get(llvm::Value *v);
  std::optional<z3::expr> constant(llvm::Constant *c);
  std::optional<z3::expr> gep(llvm::GEPOperator &g);
  /// A conversion of \p src (whose value is \p v); \p nneg: a `zext nneg`,
  /// whose operand is non-negative where it is not poison.
  std::optional<z3::expr> cast(unsigned op, llvm::Value *src, z3::expr v,
                               llvm::Type *from, llvm::Type *to,
                               bool nneg = false);
  /// \p v extended to \p bits, through the arithmetic that does not wrap.
  /// Where it went through any, a lemma relates the two forms (see
  /// Step::lemmas).
  std::optional<z3::expr> widen(llvm::Value *v, unsigned bits, bool sext);
  std::optional<z3::expr> widenRec(llvm::Value *v, unsigned bits, bool sext,
                                   unsigned depth);
  /// While widening: where the distribution is not exact (an operation
  /// whose flags it relied on overflows, a carried wide form that is not
  /// its value's extension); after it, that or the value's poison.
  std::optional<z3::expr> widenWraps;
  /// Adds \p c to widenWraps.
  void wrapsIf(const z3::expr &c) {
    widenWraps = widenWraps ? (*widenWraps || c) : c;
  }
  std::vector<z3::expr> lemmas;
  std::vector<std::pair<z3::expr, z3::expr>> forms;
  std::vector<z3::expr> addrs;
  /// The instruction exec runs, and the overflows its flags exclude.
  const llvm::Instruction *current = nullptr;
  std::unordered_map<const llvm::Value *, z3::expr> overflows;
  bool exec(llvm::Instruction &i);
  bool call(llvm::CallBase &c);
  void undefined(const z3::expr &c) {
    ub = ub || (*cond && c);
    ubSites.push_back({current, *cond && c});
  }
  /// Each instruction that may make the step undefined, and where: the
  /// terms of `ub`, for --kv-debug=relational.
  std::vector<std::pair<const llvm::Instruction *, z3::expr>> ubSites;
  z3::expr bit(const z3::expr &b) {
    return z3::ite(b, ctx.bv_val(1, 1), ctx.bv_val(0, 1));
  }
  z3::expr isTrue(const z3::expr &b1) { return b1 == ctx.bv_val(1, 1); }
  z3::expr signBit(unsigned w) {
    return z3::shl(ctx.bv_val(1, w), ctx.bv_val(w - 1, w));
  }
  z3::expr load(const z3::expr &addr, unsigned bytes);
  void store(const z3::expr &addr, const z3::expr &bits, unsigned bytes);
  /// Poison where \p v is.
  z3::expr P(llvm::Value *v);
  /// A use that is undefined behaviour on poison (a branch, an address, a
  /// divisor, a stored value).
  void strict(llvm::Value *v) { undefined(P(v)); }
  /// An overflow that the instruction's flags say does not happen: in the
  /// source, C's rule (undefined behaviour); in optimized IR, poison.
  void flag(const z3::expr &overflow) {
    if (current) {
      auto it = overflows.find(current);
      if (it == overflows.end())
        overflows.emplace(current, overflow);
      else
        it->second = it->second || overflow;
    }
    if (side.isSource)
      undefined(overflow);
    else
      flagged = flagged ? (*flagged || overflow) : overflow;
  }
  /// The result of \p i: poison where an operand is (or its flags say).
  void set(llvm::Instruction &i, const z3::expr &e);
  void setRaw(llvm::Instruction &i, const z3::expr &e, const z3::expr &p) {
    vals.insert_or_assign(&i, e);
    pois.insert_or_assign(&i, p);
    local.insert(&i);
    if (terms.size() < 400)
      terms.push_back(e);
  }
};

} // namespace kv::rel

#endif // KV_EQUIV_RELATIONALSTEPPER_H
