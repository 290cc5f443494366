//===- RelationalProduct.h - the product of two kernels' cut graphs -*- C++
//-*-===//
//
// The relational proof's product (pairs of cut points, the steps between
// them), its candidates and queries, shared by Relational.cpp (building and
// checking the product), RelationalHoudini.cpp (finding the invariants) and
// RelationalQuery.cpp (the solver queries).
//
//===----------------------------------------------------------------------===//

#ifndef KV_EQUIV_RELATIONALPRODUCT_H
#define KV_EQUIV_RELATIONALPRODUCT_H

#include "equiv/Relational.h"
#include "equiv/RelationalInternal.h"

#include "kv/Budget.h"

#include <chrono>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <vector>

namespace kv::rel {

using Clock = std::chrono::steady_clock;

/// Meet: both at a barrier, or both returned. Exchange: both at a warp
/// exchange (shuffle, vote, reduction). Bad: one waits where the other
/// cannot join it.
enum class Kind { Entry, Lockstep, OnlyBefore, OnlyAfter, Meet, Exchange, Bad };

struct Node {
  llvm::BasicBlock *cut[2]; // null: returned
  Kind kind;
  State st[2];
  /// After a barrier both kernels see the same memory, which the other
  /// threads wrote: one fresh array.
  std::optional<z3::expr> afterBarrier;
  /// At an Exchange: its result, one fresh symbol for both kernels (and
  /// not poison), and the obligation that makes that sound (the same
  /// intrinsic with the same operands, none poison, for the
  /// symbolic thread and so for every lane).
  std::optional<std::pair<z3::expr, z3::expr>> exchanged;
  std::optional<z3::expr> exchangeClaim;
  /// Candidates as assumed (at the source of an edge) and as goals (at its
  /// target): an equality of arrays is a goal at one fresh address, which
  /// the solver decides without extensionality.
  std::vector<z3::expr> cands, goals;
  std::vector<bool> alive;
  /// What the before kernel reads in its step from here (address, bytes).
  std::vector<std::pair<z3::expr, unsigned>> ahead;
  /// The states the before kernel's step from here leaves: the after kernel
  /// may already stand there (a rotated loop leaves one test early).
  std::vector<State> aheadStates;
  /// The condition of each of those exits, and where that step is
  /// undefined (the before kernel's own, assumed absent).
  std::vector<z3::expr> aheadConds;
  std::optional<z3::expr> aheadUB;
  /// Edge::forms of that step.
  std::vector<std::pair<z3::expr, z3::expr>> aheadForms;
  /// The facts between arrays, the last candidates: (kind, exit).
  std::vector<std::pair<int, int>> facts;
  std::vector<unsigned> out; // edges
};

struct Edge {
  unsigned from, to;
  /// The step's condition, the before kernel's freedom from undefined
  /// behaviour, and the target's state bound to the step's result.
  z3::expr hyp;
  /// The target's symbols and the terms the step gives them.
  std::vector<std::pair<z3::expr, z3::expr>> subst;
  bool before, after; // which kernels step
  /// The exits' conditions alone, and where the before kernel's step is
  /// undefined (for running the product on concrete values).
  z3::expr cond, ub;
  /// The before kernel's values extended to 64 bits, as extension and as
  /// distribution: equal wherever its step is defined (its flags hold), so
  /// a query may write either (the one the after kernel's terms share).
  std::vector<std::pair<z3::expr, z3::expr>> forms;
  /// The after kernel's addresses in the step.
  std::vector<z3::expr> afterAddrs;
};

/// Queries without array theory. Memories and access sets are store chains
/// over a few base arrays; a query reads them at finitely many addresses
/// (the loads and the fresh address of a goal). Each read of a chain
/// becomes an if-then-else over its stores down to a read of a base array,
/// and each fact between base arrays (equal memories, the reads covered)
/// is instantiated at every address a base array is read at, which is
/// complete for such facts. What is left is bit-vectors and the base
/// arrays' reads as uninterpreted functions, which the solver bit-blasts.
class ArrayElim {
public:
  explicit ArrayElim(z3::context &c) : ctx(c) {}
  z3::expr rewrite(const z3::expr &e);
  /// Reads of base arrays so far: (array, address).
  std::vector<std::pair<z3::expr, z3::expr>> reads;

private:
  z3::context &ctx;
  std::unordered_map<unsigned, z3::expr> done;
  std::map<std::pair<unsigned, unsigned>, z3::expr> selects;
  z3::expr select(const z3::expr &arr, const z3::expr &idx);
};

class Product {
public:
  Product(const RelationalOptions &o, z3::context &c)
      : opts(o), ctx(c), sh(c), sides{Side(sh, true), Side(sh, false)} {}
  RelationalResult run(const llvm::Function &before,
                       const llvm::Function &after);

private:
  const RelationalOptions &opts;
  z3::context &ctx;
  Shared sh;
  Side sides[2];
  std::vector<Node> nodes;
  std::vector<Edge> edges;
  std::map<std::pair<llvm::BasicBlock *, llvm::BasicBlock *>, unsigned> index;
  /// Per node, the after kernel's undefined behaviour in its step.
  std::vector<std::pair<unsigned, z3::expr>> afterUB;
  /// Per entry of afterUB: the source's hypotheses and the after kernel's
  /// sites of undefined behaviour (for --kv-debug=relational).
  std::vector<std::pair<
      z3::expr, std::vector<std::pair<const llvm::Instruction *, z3::expr>>>>
      afterUBSites;
  std::optional<z3::expr> background;
  /// The model of the last satisfiable query.
  std::optional<z3::model> lastModel;
  Clock::time_point deadline;
  std::string why;
  unsigned queries = 0;
  /// Each query's limit, where not the options' (the obligations, a few
  /// queries that decide the proof, get longer).
  unsigned queryMs = 0;

  unsigned node(llvm::BasicBlock *b, llvm::BasicBlock *a);
  bool explore();
  /// Whether \p e mentions no node's symbols: a value that holds wherever
  /// it is used.
  bool closed(const z3::expr &e);
  std::unordered_map<unsigned, bool> closedMemo;
  std::set<unsigned> closedIds;
  std::vector<z3::expr> closedTerms;
  /// Closed terms the kernels compare with (a loop's bound that is a
  /// parameter): the limits of the counters' range candidates.
  std::vector<z3::expr> limits;
  std::map<unsigned, std::vector<z3::expr>[2]> stepTerms;
  bool houdini();
  /// \p e with the initial memory each byte a different function of its
  /// address: a run's memory.
  z3::expr concreteInitial(const z3::expr &e);
  std::optional<std::pair<z3::expr_vector, z3::expr_vector>> initialBytes;
  /// Drops the candidates a run of the product from \p e's target, on the
  /// values of \p m, falsifies; the nodes whose candidates changed.
  std::set<unsigned> simulate(const z3::model &m, const Edge &e,
                              bool exact = false);
  /// Runs the product from its entry on a few pseudo-random launches and
  /// inputs, dropping the candidates false on the way (cheaper than the
  /// queries that would drop them one round after another).
  void sample();
  bool definedAhead(unsigned id, const z3::expr &ub);
  bool obligations();
  void dump(const z3::expr *model_of = nullptr);
  std::string name(unsigned id) const;
  /// Whether the invariant at \p from, the step \p e (if any), \p claim
  /// and the failure of one of \p goals (claims about the target) can hold
  /// together; where they can, \p truth gets each goal's value.
  z3::check_result decide(unsigned from, const Edge *e, const z3::expr &claim,
                          const std::vector<z3::expr> &goals,
                          std::vector<bool> *truth);
  /// A goal about every address, \p g at a fresh address, by cases.
  z3::expr byCases(const z3::expr &g);
  bool timeUp() { return Clock::now() > deadline || budget::exceeded(); }
};

/// The memories (k = 0), written bytes (1), the read bytes covered (2, 3)
/// or the facts about the before kernel's next step (4, 5, 6) at address
/// \p x.
z3::expr pointwise(const Node &n, int k, const z3::expr &x, int j = -1);

/// \p f with its bit-vector sums and products (up to 64 bits) as sums of
/// monomials in one order (RelationalCanon.cpp).
z3::expr canonicalArithmetic(const z3::expr &f);
/// Whether \p e is one of a node's fresh symbols for a value.
bool fresh(const z3::expr &e);
/// The candidates of node \p n, from the terms of each kernel's step and
/// the symbols and bounds both share.
void guess(Node &n, const std::vector<z3::expr> *terms,
           const std::vector<z3::expr> &symbols,
           std::set<std::pair<unsigned, uint64_t>> bounds,
           const std::vector<z3::expr> &limits, z3::context &ctx);

} // namespace kv::rel

#endif // KV_EQUIV_RELATIONALPRODUCT_H
