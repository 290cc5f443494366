//===- Encoder.h - kv kernels to Z3, one parameterized thread ---*- C++ -*-===//
//
// PUG_para's encoding. A thread is a tuple of symbolic ids; a kv value is
// encoded for a given thread. A read of array A at index i in barrier
// interval j is the value A held after interval j-1: a fresh symbolic writer
// thread w, an ite chain over the writes of interval j instantiated for w,
// and otherwise the value after interval j-2. The side condition "if w wrote
// nothing there, no thread did" is an obligation: it is quantified, and the
// checker either instantiates it (sound for proofs: fewer constraints) or
// passes the quantified form to Z3.
//
//===----------------------------------------------------------------------===//
#ifndef KV_SMTENCODE_ENCODER_H
#define KV_SMTENCODE_ENCODER_H

#include "kv/KVDialect.h"
#include "smt-encode/IndexMap.h"
#include "smt-encode/KernelModel.h"
#include "llvm/ADT/DenseMap.h"
#include <array>
#include <chrono>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <tuple>
#include <z3++.h>

namespace kv {

class Encoder {
public:
  /// Where regroupSums keeps what it proved (else its own cache).
  RegroupCache *regroupCache = nullptr;
  /// Where alignFolds keeps what it proved (else nothing is kept).
  AlignCache *alignCache = nullptr;
  Encoder(z3::context &ctx, unsigned bits, KernelOp paramSource);

  z3::context &ctx;
  unsigned bits;
  /// Array indices (element numbers) are exact 64-bit values at any --bits.
  static constexpr unsigned indexBits = 64;
  /// The launch dimensions: both kernels', or where the after kernel has
  /// a launch of its own (KernelModel::launch), the before kernel's.
  std::vector<z3::expr> bdim, gdim;
  /// The after kernel's own launch dimensions (after.blockDim.x, ...):
  /// made on first use, empty while the kernels share one launch.
  std::vector<z3::expr> afterBdim, afterGdim;
  std::vector<z3::expr> afterBdimSymbols, afterGdimSymbols;
  bool separateLaunches() const { return !afterBdim.empty(); }
  void makeAfterLaunch();
  /// The dimensions of launch \p launch (Thread::launch).
  std::vector<z3::expr> &bdimOf(unsigned launch);
  std::vector<z3::expr> &gdimOf(unsigned launch);
  /// Threads of another launch as launch L's thread of the same
  /// coordinates, by (thread id, L): candidates(), across launches.
  std::map<std::pair<unsigned, unsigned>, Thread *> relaunched;
  /// The launch of the threads made without one given: the kernel's, in
  /// an encoder of one kernel that runs in the after kernel's launch.
  unsigned threadLaunch = 0;
  /// Scalars and initial global arrays, by parameter position (shared by the
  /// two kernels).
  std::vector<std::optional<z3::expr>> params;
  std::vector<std::string> paramNames;
  /// bdim, gdim and params as constructed: the symbols that facts are
  /// written in, which pinDetermined may since have replaced by numerals.
  std::vector<z3::expr> bdimSymbols, gdimSymbols;
  std::vector<std::optional<z3::expr>> paramSymbols;
  /// Those symbols, each with what stands for it now (its numeral where
  /// pinDetermined made one, else itself) and its dimension (0-2 blockDim,
  /// 3-5 gridDim, -1 a scalar).
  struct LaunchVar {
    z3::expr sym, now;
    int dim;
  };
  std::vector<LaunchVar> launchVars();
  /// Whether a scalar parameter's C type is unsigned.
  std::vector<bool> paramUnsigned;
  /// Constraints every model must satisfy (ranges, side conditions).
  z3::expr_vector side;
  /// The part of `side` about loops: iteration ranges and facts of their
  /// products. The small candidate queries need them too.
  z3::expr_vector loopFacts;
  std::vector<Obligation> obligations;
  std::deque<Thread> threads;
  /// Threads of side proofs (regroupSums), kept out of `threads`; made
  /// while `shadow` is set.
  std::deque<Thread> shadowThreads;
  bool shadow = false;
  /// Encode products, quotients and remainders of two non-constant values
  /// as uninterpreted functions. The query then knows less (congruence
  /// only), so `unsat` is still a proof; it is much easier to solve.
  bool abstractNonlinear = false;
  /// The abstracted applications: (application, precise term).
  std::vector<std::pair<z3::expr, z3::expr>> abstracted;
  /// Every read of an input cell in the encoding: (argument, index).
  struct InitialRead {
    unsigned arg;
    z3::expr index;
    /// The reader is in range and the read is performed.
    z3::expr live;
  };
  std::vector<InitialRead> initialReads;
  /// Set when a kv op has no encoding; the query is then not built.
  std::string unsupported;

  z3::sort bvSort(unsigned w) { return ctx.bv_sort(w); }
  unsigned widthOf(mlir::Type t);
  /// The launch limits; without \p products, only those that need no
  /// multiplier (the block's thread count and the global index's range are
  /// launchProducts).
  z3::expr launchConstraints(bool products = true);
  z3::expr launchProducts();
  /// The launch dimensions and scalar parameters equal to their values in
  /// \p m: its negation steers a solver to another launch.
  z3::expr sameLaunchAs(const z3::model &m) {
    z3::expr same = ctx.bool_val(true);
    for (unsigned l = 0; l < (separateLaunches() ? 2u : 1u); ++l)
      for (int i = 0; i < 3; ++i)
        same = same && gdimOf(l)[i] == m.eval(gdimOf(l)[i], true) &&
               bdimOf(l)[i] == m.eval(bdimOf(l)[i], true);
    for (auto &prm : params)
      if (prm && !prm->is_array())
        same = same && *prm == m.eval(*prm, true);
    return same;
  }
  /// Allow grids whose global thread index (gridDim * blockDim along an
  /// axis) does not fit in an int; by default it is assumed to.
  bool hugeGrids = false;
  /// --fp=real: each float operation (fadd, fsub, fmul, fdiv, fneg, fma)
  /// also has a real value, the exact result of the operation on its
  /// operands' real values (realOf); float constants have their exact
  /// values. The bit patterns stay uninterpreted.
  bool realFloats = false;
  /// The real value of a float (32 bits) or double (64 bits) pattern.
  z3::expr realOf(const z3::expr &bits) {
    unsigned w = bits.get_sort().bv_size();
    z3::sort_vector dom(ctx);
    dom.push_back(bits.get_sort());
    return z3::function(("real.f" + std::to_string(w)).c_str(), dom,
                        ctx.real_sort())(bits);
  }
  /// Facts tying the real value of \p result of float operation \p fn to
  /// its operands' (none for other operations).
  void realFacts(llvm::StringRef fn, const std::vector<z3::expr> &ops,
                 const z3::expr &result);
  /// A fresh thread in range; in the block of `sameBlock` if given (and
  /// then of its launch), else of launch \p launch (-1: threadLaunch).
  Thread &freshThread(const Thread *sameBlock, unsigned depth, int launch = -1);
  /// A thread with given coordinates (range constraints not added), of
  /// launch \p launch (-1: threadLaunch).
  Thread &makeThread(std::vector<z3::expr> tid, std::vector<z3::expr> bid,
                     unsigned depth, int launch = -1);
  z3::expr inRange(const Thread &t);
  // Warps (Warps.cpp).
  /// tid.x + bdim.x * (tid.y + bdim.y * tid.z).
  z3::expr linearId(const Thread &t);
  /// The linear id of lane \p lane of \p t's warp.
  z3::expr laneSource(const Thread &t, const z3::expr &lane);
  /// The thread of lane \p lane of \p t's warp, in \p t's block.
  Thread &laneThread(const Thread &t, const z3::expr &lane);
  z3::expr laneDivRem(bool rem, const z3::expr &l, const z3::expr &r);
  /// An upper bound of \p v (unsigned) in every valid launch, from thread
  /// ids, constants and the operations between them, if one is known.
  std::optional<uint64_t> maxUnsigned(mlir::Value v, unsigned depth = 0);
  z3::expr shuffleValue(KernelModel &k, ShuffleOp op, const Thread &t);
  z3::expr ballotValue(KernelModel &k, BallotOp op, const Thread &t);
  z3::expr sameBlock(const Thread &a, const Thread &b);
  // Atomic updates (AtomicTotals.cpp).
  /// \p start folded with what the atomic writes of array \p arg in
  /// \p interval by the threads of \p blockOf's block make of cell \p index.
  z3::expr blockTotal(KernelModel &k, unsigned arg, unsigned interval,
                      const z3::expr &index, const Thread &blockOf,
                      unsigned depth, const z3::expr &start);
  /// How the block totals were formed (threads enumerated, one updater, a
  /// class of equal summands).
  unsigned totalsEnumerated = 0, totalsUnique = 0, totalsAbstract = 0;
  /// Whether \p a and \p b are the same thread of the same block.
  z3::expr sameThread(const Thread &a, const Thread &b);

  z3::expr value(KernelModel &k, mlir::Value v, const Thread &t);
  /// The name and operand order under which kv.apply \p fn of \p ops is
  /// encoded (commutative float operations sorted, comparisons mirrored).
  std::string canonicalApply(std::string fn, std::vector<z3::expr> &ops);
  /// The operand pairs of commutative applications formed so far (by term
  /// ids, with the terms kept alive so that the ids stay theirs).
  std::set<std::tuple<std::string, unsigned, unsigned>> commutedPairs;
  std::vector<z3::expr> commutedTerms;
  /// Thread t's iteration number in loop \p it.
  z3::expr iterVar(IterOp it, const Thread &t);
  /// Iteration t.iters[it] of loop \p it runs for thread t.
  z3::expr live(KernelModel &k, IterOp it, const Thread &t);
  /// Where loop \p it, entered by t, is not the model's count of it: a
  /// step that is not positive, 2^31 iterations, wraparound (kv.iter).
  /// With \p eitherForm, for the loop tested at the top or at the bottom
  /// alike, so that two such loops with equal bounds agree on it.
  z3::expr uncountable(KernelModel &k, IterOp it, const Thread &t,
                       bool eitherForm = false);
  /// Every loop \p op depends on runs the iteration t is at.
  z3::expr liveAll(KernelModel &k, mlir::Operation *op, const Thread &t);
  /// The guard of a kv.read / kv.write for t, with liveLoops.
  z3::expr accessGuard(KernelModel &k, mlir::Operation *access,
                       const Thread &t);
  /// a and b are one thread at one iteration of the loops in \p loops.
  z3::expr sameInstance(const Thread &a, const Thread &b,
                        const std::vector<mlir::Operation *> &loops);
  /// The loops that the writes of array `arg` in `interval` depend on.
  std::vector<mlir::Operation *> writeLoops(KernelModel &k, unsigned arg,
                                            unsigned interval);
  /// The product l * r as the encoding of arith.muli has it.
  z3::expr mulTerm(const z3::expr &l, const z3::expr &r);
  z3::expr exactProduct(const z3::expr &l, const z3::expr &r);
  /// Array `arg` after intervals 0..interval (interval < 0: initial).
  /// Candidate writers (threads derived from the reader, the anchors, and
  /// the write indices solved for one coordinate) are tried first: under
  /// race freedom a candidate that is in range and writes the cell is the
  /// writer. Otherwise a fresh writer (`writer` if given) decides.
  z3::expr arrayValue(KernelModel &k, unsigned arg, int interval,
                      const z3::expr &index, const Thread &reader,
                      unsigned depth, const Thread *writer = nullptr,
                      std::optional<z3::expr> readGuard = std::nullopt);
  /// The non-parameterized encoding (--threads) replaces the encoding of
  /// reads: array `arg` after intervals 0..interval, at `index`, as thread
  /// t's block sees it.
  std::function<z3::expr(KernelModel &k, unsigned arg, int interval,
                         const z3::expr &index, const Thread &t)>
      readHook;
  /// Facts every launch satisfies (limits, --assume): context of the small
  /// queries that prune candidates.
  z3::expr facts;
  /// Replace the launch dimensions and scalars that `facts` fix to one
  /// value (blockDim.x == 16) by that numeral: products with them become
  /// linear. Call before any thread is encoded.
  void pinDetermined();
  /// The sums' values in \p m (KV_DEBUG).
  void dumpSums(const z3::model &m);
  /// Side queries' deterministic limits (checkSmall) and wall-clock
  /// backstops. Z3 counts 3-6k per ms on these queries: 10M is about what
  /// the former 2 s subquery timeout allowed, and pins usually take under
  /// 1M (KV_SUBSTATS).
  unsigned subqueryRlimit = 10000000, subqueryMs = 20000;
  /// The most symbolic threads one query may have (EncodeTimeout beyond).
  static constexpr unsigned defaultMaxThreads = 2000;
  unsigned maxThreads = defaultMaxThreads;
  /// proveUnsat's strategy (equation solving first or not) that decided
  /// the last side query of each kind.
  std::map<std::string, bool> sideStrategy;
  /// The launch values and scalars of satisfiableAtSample, and the
  /// numerals they take (both empty when no sample fits the facts).
  std::optional<std::pair<z3::expr_vector, z3::expr_vector>> sample;
  unsigned pinRlimit = 20000000;
  /// The end of the check's time budget (none when unset). Past it,
  /// encoding throws EncodeTimeout and side queries get no more time.
  std::optional<std::chrono::steady_clock::time_point> deadline;
  /// Throws EncodeTimeout when the deadline has passed, or the kernel's
  /// budget (kv/Budget.h) has run out.
  void checkDeadline() const;
  /// checkDeadline's calls: the query's size, against the budget's cap.
  mutable uint64_t encodeSteps = 0;
  /// \p ms, or what is left before the deadline when that is less.
  unsigned withinDeadline(unsigned ms) const;
  /// The kernel whose preconditions (__builtin_assume) and absence of
  /// undefined behaviour (shared-array accesses in bounds) are assumed.
  KernelModel *trusted = nullptr;
  /// The other kernel, whose --unroll bounds (kv.assume {bound}) are
  /// assumed as well: a bounded check excludes longer loops in both.
  KernelModel *bounded = nullptr;
  /// Whether threadFacts include in-bounds accesses to fixed-size shared
  /// arrays (off while that is what is being checked).
  bool assumeInBounds = true;
  /// Whether \p v depends on the special register \p sreg (if given), or
  /// on a read of an array.
  bool dependsOn(mlir::Value v, std::optional<SReg> sreg = std::nullopt);
  /// Whether \p e applies a product, quotient or overflow check abstracted
  /// so far (abstractNonlinear).
  bool mentionsAbstracted(const z3::expr &e);
  /// The trusted kernel's assumptions that depend on array contents, for
  /// thread t (true when t is not in range).
  /// With \p onlyEncoded, only the facts whose reads are encoded for t
  /// already (a fact that needs new reads pulls in new threads).
  z3::expr dataFacts(const Thread &t, bool onlyEncoded = false);
  /// Those facts for thread t (true when t is not in range).
  z3::expr threadFacts(const Thread &t);
  /// The trusted kernel's assumptions outside loops that read no arrays
  /// (a launch shape stated with __builtin_unreachable(), no overflow in
  /// its row offset), for thread t when it is in range: what a side query
  /// about one thread's terms needs of the launch.
  z3::expr straightAssumes(const Thread &t);
  /// a == b where `when` holds.
  struct Equation {
    z3::expr when, a, b;
  };
  /// Whether hyps imply every equation of \p eqs and not \p otherwise:
  /// place by place where the two sides of each differ below a common
  /// shape, else as one query.
  bool proveEqual(const z3::expr &hyps, llvm::ArrayRef<Equation> eqs,
                  const z3::expr &otherwise, const char *what);
  bool proveUnsat(const z3::expr &f, const char *what = "subquery",
                  unsigned rlimitScale = 1);
  /// Whether \p f (with the loop facts) is satisfiable where the launch
  /// dimensions and scalars take one small sample value the facts admit:
  /// as numerals they make products linear, so a model is found in a few
  /// milliseconds where the full query bit-blasts multipliers. False says
  /// nothing (no sample fits, or f needs other values).
  bool satisfiableAtSample(const z3::expr &f, const char *what);
  /// The launch dimensions and scalars that are not numerals, and one
  /// small value for each that the facts admit (both empty if none of the
  /// few tried fits).
  const std::pair<z3::expr_vector, z3::expr_vector> &samplePoint();
  /// Whether \p m's launch dimensions and scalars (as a replay reads them)
  /// do not break the facts: a counterexample outside them (the --assume, the
  /// launch limits) is no counterexample, whichever query made the model.
  bool factsHoldIn(const z3::model &m);
  /// The facts with every abstracted application replaced by its precise
  /// term: what evaluating them at a point must use (a product left
  /// uninterpreted decides nothing).
  z3::expr preciseFacts();
  /// Threads that usually write what a given thread reads: the writers of
  /// the output cell in both kernels.
  std::vector<const Thread *> anchors;
  /// Facts about writes whose index is a mixed-radix number of the
  /// thread's ids and iterations (IndexMaps.cpp) for the final output cell
  /// \p cell: its writer among the anchors writes below the product of
  /// the digits' ranges, and the trusted kernel's last thread bounds it.
  /// Also part of the candidate queries' context.
  void radixLemmas(const z3::expr &cell);
  /// The two kernels and the output array the lemmas are about (set by
  /// the checker: no mixed-radix writers without them).
  KernelModel *radixPair[2] = {nullptr, nullptr};
  unsigned radixArg = 0;
  bool radixDone = false;
  z3::expr_vector radixFacts{ctx};
  /// The reader of the final output cells.
  const Thread *host = nullptr;
  /// Some read was encoded as one case per thread of its block
  /// (perThreadValue): the query is best refuted per thread id too.
  bool perThreadCases = false;
  /// Candidates are generated up to this thread depth.
  unsigned maxCandidateDepth = 2;
  /// The obligations as quantified formulas ("if the fresh writer wrote
  /// nothing to the cell, no thread of the block / grid did"), for those
  /// whose writes' guards and indices do not read arrays.
  z3::expr_vector quantifiedObligations();
  /// Write \p w by thread t happens and hits cell \p index.
  z3::expr hits(KernelModel &k, WriteOp w, const z3::expr &index,
                const Thread &t);
  /// Some write of `interval` by thread t hits array[index].
  z3::expr hitAny(KernelModel &k, unsigned arg, unsigned interval,
                  const z3::expr &index, const Thread &t);
  z3::expr toIndex(const z3::expr &e);
  /// The value \p w writes, where it hits cell \p index: its index's
  /// value there is the cell, its guard true.
  z3::expr hitValue(KernelModel &k, WriteOp w, const z3::expr &index,
                    const Thread &t);
  /// \p v where it is used only under \p guard: the guard's conjuncts
  /// replaced by true inside it.
  z3::expr underGuard(const z3::expr &v, const z3::expr &guard);
  z3::expr resize(const z3::expr &e, unsigned to, bool isSigned);
  bool isShared(KernelModel &k, unsigned arg);
  /// Solve `v(t) == rhs` for one unknown of t, the result of the ops
  /// \p isTarget accepts (a coordinate's sreg, a loop's kv.iter): the
  /// unknown's new value at \p width bits, the rest of t as in \p base.
  /// With \p bySymbols, through products with symbolic values too (a
  /// quotient).
  std::optional<z3::expr>
  solveFor(KernelModel &k, mlir::Value v,
           llvm::function_ref<bool(mlir::Operation *)> isTarget, unsigned width,
           const z3::expr &rhs, const Thread &base, bool bySymbols = false);

  /// Fresh symbols for n / d and n % d (unsigned), defined by division
  /// with remainder on the abstracted product q * d: no divider in the
  /// query.
  std::pair<z3::expr, z3::expr> quotient(const z3::expr &n, const z3::expr &d);
  /// n / m: the other factors where n is a product with the factor m, else
  /// a quotient symbol.
  z3::expr dividedBy(const z3::expr &n, const z3::expr &m);

  /// Value written to array[index] by t's last hitting write of `interval`,
  /// else `otherwise`.
  /// With \p atIndex, each write's value is read where it hits the cell
  /// (hitValue); without, as \p t computes it (its own terms, where the
  /// cell is a free variable).
  z3::expr writeChain(KernelModel &k, unsigned arg, unsigned interval,
                      const z3::expr &index, const Thread &t,
                      z3::expr otherwise, bool atIndex = true);

  /// The abstracted product l * r (one argument order for both).
  z3::expr productApp(z3::expr l, z3::expr r);
  /// "l * r does not overflow as a signed product", abstracted (a
  /// predicate refined lazily like the products).
  z3::expr nowrapMulApp(const z3::expr &l, const z3::expr &r);
  /// l * r, abstracted where products are, with its exact value recorded
  /// for the refinement.
  z3::expr exactlyAbstracted(const z3::expr &l, const z3::expr &r);
  /// "l * r does not overflow as an unsigned product", abstracted likewise.
  z3::expr unsignedNoWrap(const z3::expr &l, const z3::expr &r);
  /// Thread t's global index along each axis fits in an int, stated on the
  /// abstracted products blockIdx * blockDim (true when products are exact,
  /// with --huge-grids, or below 32 bits). Valid for threads in range.
  z3::expr globalIndexFacts(const Thread &t);
  /// Instances of the mixed-radix lemma for the terms a*h + b of \p
  /// assertions that share a factor h: if a1*h + b1 == a2*h + b2 where
  /// neither side wraps and b1, b2 < h, then a1 == a2 and b1 == b2. The
  /// lemmas are valid for exact products, so adding them keeps every
  /// abstraction sound; they spare the solver the non-linear reasoning
  /// behind "row * width + column is injective". "Does not wrap" is
  /// decided from bounds on a and h (linear); with \p exactFits also by a
  /// precise overflow check (a multiplier per instance).
  z3::expr_vector indexLemmas(const z3::expr_vector &assertions,
                              bool exactFits = false);

  /// A read hook for proofs that hold for any memory: array `arg` after
  /// `interval` is the uninterpreted function `name`.arg@interval of the
  /// reader's block (shared) or of the index alone (global); before the
  /// first interval it is the kernel's input (or uninitialized shared
  /// memory) as usual.
  z3::expr intervalState(const std::string &name, KernelModel &k, unsigned arg,
                         int interval, const z3::expr &index, const Thread &t);

  /// The uninterpreted function \p name of a block and a cell, applied to
  /// \p blockOf's block and \p index (a per-block array's content).
  z3::expr blockCell(const std::string &name, const Thread &blockOf,
                     const z3::expr &index, unsigned width);

  /// The uninterpreted function named \p name (one per name and width).
  z3::func_decl uf(const std::string &name, const z3::sort_vector &dom,
                   unsigned width);

  /// Pairs of folds (kv.fold, one per kernel) proved aligned.
  unsigned alignedFolds = 0;
  /// Pairs of loops with breaks aligned (Breaks.cpp).
  unsigned alignedBreaks = 0, rotatedBreaks = 0, mappedBreaks = 0;

private:
  /// With the block's shape fixed (a case split, or assumptions), the
  /// threads of the reader's block that may write array[index] in
  /// `interval`: every thread was considered, so the list is complete.
  /// Null where that does not apply (symbolic shape, an index that is not
  /// a constant, guards or indices that read memory).
  using Tid = std::array<uint64_t, 3>;
  const std::vector<Tid> *blockWriters(KernelModel &k, unsigned arg,
                                       unsigned interval, const z3::expr &index,
                                       const Thread &reader);
  /// Read \p r by a symbolic thread of a block of fixed shape, as one case
  /// per thread of the block (nullopt: the shape is not fixed).
  std::optional<z3::expr> perThreadValue(KernelModel &k, ReadOp r,
                                         const Thread &t);
  /// The thread with ids \p tid in the block of \p blockOf (one object
  /// per block and ids).
  Thread &blockThread(const Thread &blockOf, const Tid &tid, unsigned depth);
  std::map<std::tuple<KernelModel *, unsigned, unsigned>,
           std::optional<std::map<uint64_t, std::vector<Tid>>>>
      writerTables;
  std::map<std::array<unsigned, 6>, Thread *> blockThreads;
  /// (thread id, source linear id term) -> the thread of a shuffle's lane.
  std::map<std::pair<unsigned, unsigned>, Thread *> laneThreads;
  std::map<std::pair<void *, unsigned>, z3::expr> memo;
  /// Gives \p to the values pinned for \p from (Thread::pinned).
  void inheritPins(const Thread &from, Thread &to);
  std::map<unsigned, z3::expr> factMemo;
  std::set<unsigned> nowrapSeen;

public:
  using IndexMap = kv::IndexMap;
  /// Whether \p w's index tells apart any two threads of a launch that
  /// differ in one of the ids \p ids ("tid.x" ... "bid.z"): a mixed-radix
  /// number over thread and block ids alone whose cells the launch limits
  /// keep below 2^31 (the ids of one block, or blockIdx * blockDim +
  /// threadIdx along one axis), so that no wraparound maps two threads to
  /// one cell. Decided on the kernel's arithmetic, without a solver.
  bool idsTellApart(KernelModel &k, WriteOp w,
                    const std::set<std::string> &ids);
  /// For \p w in loops: the condition under which its index tells apart
  /// any two of its instances (a thread and an iteration of each loop)
  /// that differ in an iteration or in one of the ids \p ids, a mixed-radix
  /// number over them (a coarsened kernel's `gid * C + c`) whose product of
  /// ranges is below 2^31, so that its own arithmetic never wraps. None
  /// where the index is no such number.
  std::optional<z3::expr> instancesApartWhen(KernelModel &k, WriteOp w,
                                             const std::set<std::string> &ids);

private:
  struct RadixBound {
    z3::expr product, positive, exact;
  };
  std::map<std::pair<KernelModel *, mlir::Operation *>,
           std::unique_ptr<IndexMap>>
      indexMaps;
  /// The map of \p w's index, or null when it is not mixed-radix.
  const IndexMap *indexMap(KernelModel &k, WriteOp w);
  /// The product of the ranges (one term for one multiset of factors),
  /// whether its factors are positive, and whether it fits in 64 bits.
  RadixBound radixBound(const IndexMap &m);
  /// A factor atom's value in 64 bits: pN (parameter N, signed), bdim.x
  /// ... gdim.z.
  z3::expr atomValue(const std::string &atom);
  /// The launch dimension of an atom (bdim.x, gdimA.y: launchAtom).
  z3::expr dimOfAtom(const std::string &atom);
  z3::expr digitValue(const IndexMap::Digit &d, const Thread &t);
  z3::expr rangeValue(const IndexMap::Digit &d);
  /// Matches kernel \p k's index \p a (at its thread \p ta) with kernel
  /// \p o's \p b (at \p tb) operation by operation: the parts of \p a
  /// that ids compute, each equal to its counterpart's value, in \p eqs;
  /// false where a part computed from neither differs.
  bool matchIndices(KernelModel &k, mlir::Value a, const Thread &ta,
                    KernelModel &o, mlir::Value b, const Thread &tb,
                    std::vector<std::pair<mlir::Value, z3::expr>> &eqs,
                    unsigned depth);
  /// Sets \p tid, \p bid and \p iters from the \p digits of a
  /// coordinate (coordinateDigits); whether they make it exactly.
  bool
  putDigits(const std::vector<std::pair<IndexMap::Digit, z3::expr>> &digits,
            std::vector<z3::expr> &tid, std::vector<z3::expr> &bid,
            std::map<mlir::Operation *, z3::expr> &iters);
  /// The digits of a thread whose coordinate \p coord (a part of a write
  /// index computed from one axis's ids and loop iterations, launch
  /// dimensions and constants) is \p x: the coordinate as a mixed-radix
  /// number of its digits over scales that divide one another, taken apart
  /// from the most significant digit down. The digits put x back together
  /// exactly, whatever x is; whether they make a thread is the caller's
  /// check.
  std::optional<std::vector<std::pair<IndexMap::Digit, z3::expr>>>
  coordinateDigits(KernelModel &k, mlir::Value coord, const z3::expr &x);
  z3::expr digitsInRange(const IndexMap &m, const Thread &t);
  /// The thread whose digits are those of \p cell in \p w's index map,
  /// with the fact that it writes the cell where the cell is in range.
  Thread *radixWriter(KernelModel &k, WriteOp w, const z3::expr &cell,
                      unsigned depth);
  /// The application name(l, r) of an uninterpreted binary function.
  z3::expr binaryApp(const std::string &name, z3::expr l, z3::expr r,
                     unsigned width, bool commutative);
  std::map<std::pair<std::string, unsigned>, z3::func_decl> ufs;
  unsigned fresh = 0;
  unsigned curDepth = 0;
  z3::expr boolToBv(const z3::expr &e) {
    return z3::ite(e, ctx.bv_val(1, 1), ctx.bv_val(0, 1));
  }
  z3::expr bvToBool(const z3::expr &e) { return e == ctx.bv_val(1, 1); }
  z3::expr encodeOp(KernelModel &k, mlir::Operation *op, const Thread &t);
  /// A kv.apply, an uninterpreted application (EncodeApply.cpp).
  z3::expr encodeApply(KernelModel &k, ApplyOp a, const Thread &t);
  /// Records \p what as what has no encoding (the first such reason only)
  /// and returns a placeholder of \p op's result width.
  z3::expr unsupportedOp(mlir::Operation *op, llvm::StringRef what);
  /// The cases of encodeOp that take more than a few lines.
  z3::expr encodeRead(KernelModel &k, ReadOp r, const Thread &t);
  z3::expr encodeNoWrap(KernelModel &k, NoWrapOp nw, const Thread &t);
  z3::expr encodeCmp(KernelModel &k, mlir::arith::CmpIOp cmp, const Thread &t);
  /// An integer operation of two operands (not i1).
  z3::expr encodeBinary(KernelModel &k, mlir::Operation *op, const Thread &t);
  /// The product, quotient or remainder \p op of two non-constant values
  /// as an uninterpreted function (abstractNonlinear).
  z3::expr abstractArith(mlir::Operation *op, z3::expr l, z3::expr r);
  z3::expr sumValue(KernelModel &k, SumOp sum, const Thread &t);
  /// kv.carry and kv.fold (Folds.cpp): uninterpreted functions of the
  /// thread, the loops around the fold (and the iteration); folds that
  /// alignFolds proved to be segments of one fold read its function.
  z3::expr carryValue(KernelModel &k, CarryOp c, const Thread &t);
  z3::expr foldValue(KernelModel &k, FoldOp f, const Thread &t);
  z3::expr foldApp(KernelModel &k, FoldOp f, const Thread &t,
                   const z3::expr *x);
  /// Appends the ids and outer iterations a fold's functions take.
  void foldArgs(KernelModel &k, FoldOp f, const Thread &t,
                z3::expr_vector &args);
  /// The application of the \p width-bit function \p name to \p args.
  z3::expr appOf(const std::string &name, const z3::expr_vector &args,
                 unsigned width);
  /// Thread and block coordinates of a side proof's own thread, named
  /// PREFIX.N.tid.x etc.
  void namedIds(const std::string &prefix, std::vector<z3::expr> &tid,
                std::vector<z3::expr> &bid);
  /// \p t at iteration \p x of \p f's loop.
  Thread &foldThreadAt(KernelModel &k, FoldOp f, const Thread &t,
                       const z3::expr &x);
  /// The trip count of \p f's loop for \p t (a function with its
  /// definition from the exit test in `side`).
  z3::expr foldTrips(KernelModel &k, FoldOp f, const Thread &t);
  std::map<std::pair<mlir::Operation *, unsigned>, z3::expr> tripMemo;
  /// An aligned fold: its root's function, scale and the fold whose
  /// result it starts from (none: it starts where the root does).
  struct FoldAlignment {
    std::string cls;
    FoldOp root;
    KernelModel *kernel;
    unsigned scale;
    FoldOp from;
  };
  std::map<mlir::Operation *, FoldAlignment> alignment;
  /// The root's iteration at which aligned fold \p f starts.
  z3::expr foldOffset(FoldOp f, const Thread &t);
  /// The root's running value at its iteration \p p, for \p t.
  /// With \p unfold (a fold's result), also its definition one step down.
  z3::expr rootCarry(FoldOp f, const Thread &t, const z3::expr &p,
                     bool unfold = false);
  /// Write \p w's update of cell \p index by \p t (the identity where it
  /// does not update it).
  z3::expr updateOf(KernelModel &k, WriteOp w, const z3::expr &index,
                    const Thread &t);
  z3::expr opTotal(KernelModel &k, WriteOp w, unsigned interval,
                   const z3::expr &index, const Thread &blockOf,
                   unsigned depth);
  /// Whether no two threads of a block (no two instances, inside loops)
  /// update one cell with \p w (proved).
  bool oneUpdaterPerBlock(KernelModel &k, WriteOp w);
  /// Instances that may be the one updater of cell \p index of \p w in
  /// the block of the fresh instance \p fw: its index solved for a thread
  /// coordinate or the iteration of its loop.
  std::vector<Thread *> updaterCandidates(KernelModel &k, WriteOp w,
                                          const z3::expr &index,
                                          const Thread &fw);
  std::map<std::pair<KernelModel *, mlir::Operation *>, bool> oneUpdater;
  /// The name of the uninterpreted total of \p w's updates: that of an
  /// earlier write op whose summand is proved equal, else a new one.
  std::string totalClass(KernelModel &k, WriteOp w);
  struct TotalClass {
    KernelModel *kernel;
    WriteOp op;
    std::string name;
  };
  std::vector<TotalClass> totalClasses;
  std::map<std::pair<KernelModel *, mlir::Operation *>, std::string>
      totalClassOf;
  /// A side proof about shadow threads: the encoder's modes before it.
  struct SideProof {
    bool shadow, proofOnly, abstractNonlinear;
    unsigned sideBefore;
  };
  SideProof beginSideProof();
  /// Restores the modes; proves \p q unsatisfiable with the facts about
  /// \p t and the side conditions added since beginSideProof.
  bool endSideProof(const SideProof &p, const Thread &t, z3::expr_vector &q,
                    const char *what);
  /// The loops around \p f, outermost first.
  std::vector<mlir::Operation *> outerIters(KernelModel &k, FoldOp f);
  /// Aligns the folds of `bounded` with those of `trusted` (once per
  /// encoder).
  void alignFolds();
  bool proveSegment(KernelModel &k1, FoldOp f, KernelModel &k2, FoldOp x,
                    unsigned scale);
  bool foldsAligned = false;
  /// Loops with breaks (Breaks.cpp): T, the iterations a thread runs, an
  /// uninterpreted function named by the loop's class (shared by two
  /// aligned loops), with its facts added once per application.
  z3::expr breakTrips(KernelModel &k, IterOp it, const Thread &t);
  /// live() without the breaks: the kv.iter's own test and guard.
  z3::expr liveOwn(KernelModel &k, IterOp it, const Thread &t);
  /// Whether some break of \p it's loop holds at \p t's iteration.
  z3::expr breakCond(KernelModel &k, IterOp it, const Thread &t);
  /// Adds to `side` that \p t's iteration did not break if the loop went
  /// on (once per iteration term).
  z3::expr noEarlierBreak(KernelModel &k, IterOp it, const Thread &t,
                          const z3::expr &trips);
  z3::expr lastValue(KernelModel &k, LastOp l, const Thread &t);
  /// \p t at iteration \p x of \p it's loop.
  Thread &threadAtIter(IterOp it, const Thread &t, const z3::expr &x);
  std::vector<mlir::Operation *> outerItersOf(KernelModel &k, IterOp it);
  /// Aligns the loops with breaks of `bounded` with those of `trusted`
  /// (from alignFolds).
  void alignBreakLoops();
  /// The result of \p prove for after loop \p x, before loop \p f and a
  /// proof kind \p code (a fold's scale, or breakProofCode and up), proved
  /// once per kernel pair (alignCache).
  bool cachedLoopProof(mlir::Operation *x, mlir::Operation *f, unsigned code,
                       llvm::function_ref<bool()> prove);
  bool proveBreakAlignment(KernelModel &k1, IterOp f, std::vector<FoldOp> ff,
                           KernelModel &k2, IterOp x, std::vector<FoldOp> fx);
  /// The exits of \p it's loop that rotation moves (\p selected) or the
  /// others, in \p mode (see rotates() in Breaks.cpp).
  z3::expr breakGroup(KernelModel &k, IterOp it, const Thread &t, bool selected,
                      unsigned mode);
  z3::expr guardOf(KernelModel &k, IterOp it, const Thread &t);
  /// Each fold of \p it's loop at iteration \p p is its update at p - 1
  /// where p runs (facts in `side`).
  void foldStepFacts(KernelModel &k, IterOp it, const Thread &t,
                     const z3::expr &p);
  /// Whether loop \p x of \p k2 is loop \p f of \p k1 rotated.
  bool proveRotation(KernelModel &k1, IterOp f, std::vector<FoldOp> ff,
                     KernelModel &k2, IterOp x, std::vector<FoldOp> fx,
                     unsigned mode);
  /// Whether F's state is a value \p v that X computes from its own.
  bool mapState(KernelModel &k1, IterOp f, FoldOp ff, KernelModel &k2, IterOp x,
                FoldOp fx);
  bool proveMapped(KernelModel &k1, IterOp f, FoldOp ff, KernelModel &k2,
                   IterOp x, FoldOp fx, mlir::Value v);
  /// Before-kernel folds whose running value at iteration p is `v` of an
  /// after-kernel loop `x` at p.
  struct MappedFold {
    KernelModel *kernel;
    mlir::Value v;
    IterOp x;
  };
  std::map<mlir::Operation *, MappedFold> mapped;
  /// A side proof of Breaks.cpp: the encoder's modes before it, and the
  /// facts it added from.
  struct BreakProof {
    bool shadow, proofOnly, abstractNonlinear;
    unsigned sideBefore;
  };
  BreakProof beginBreakProof();
  /// Restores the modes and proves \p differ unsatisfiable with \p q and
  /// the facts about \p t.
  bool endBreakProof(const BreakProof &p, const Thread &t, z3::expr_vector &q,
                     const z3::expr &differ, const char *what,
                     llvm::StringRef how);
  /// The source's no-overflow preconditions at \p tf's iteration of \p f
  /// (and of the loops \p outer around it).
  z3::expr sourcePreconditions(KernelModel &k1, IterOp f,
                               const std::vector<mlir::Operation *> &outer,
                               const Thread &tf);
  struct RotatedLoop {
    IterOp x;
    KernelModel *kernel;
    unsigned mode;
  };
  /// Before-kernel loops with breaks that an after-kernel loop rotates.
  std::map<mlir::Operation *, RotatedLoop> rotated;
  std::map<mlir::Operation *, std::string> breakClass;
  bool inBreakAlignment = false;
  std::map<std::tuple<unsigned, mlir::Operation *, unsigned, bool>, Thread *>
      iterThreads;
  std::set<std::pair<mlir::Operation *, unsigned>> breakFacts;
  /// The ids the folds' and loops' functions take (foldIds), of \p t.
  void idArgs(KernelModel &k, z3::expr_vector &args, const Thread &t);
  /// How deep rootCarry is unfolding its definition.
  unsigned unfoldDepth = 0;
  std::map<mlir::Operation *, std::string> foldName;
  /// The thread and block ids the folds' functions take.
  std::set<SReg> foldIds;

  /// The bound variables of the kv.sum bodies being encoded.
  std::vector<z3::expr> sumVars;
  bool mentionsSumVar(const z3::expr &e);
  struct SumRecord {
    KernelModel *kernel;
    mlir::Operation *op;
    z3::expr var, body, pre, app;
    /// Whether iteration var runs (body is ite(runs, term, 0)).
    z3::expr runs;
    unsigned width;
    const Thread *thread;
    /// Not inside another loop: its value is a function of the thread.
    bool topLevel;
    /// The terms per iteration of an unrolled loop's sum (kv.sum's group
    /// hint), or 0.
    unsigned group = 0;
    /// For a group: its terms one by one (ite(runs, addend, 0)), when the
    /// term is a chain of that many additions.
    std::vector<z3::expr> parts;
  };
  /// Lemmas that an unrolled loop's sum plus a remainder loop's sum equal
  /// a sum of single terms, for the triples that \p added completes.
  void regroupSums(const SumRecord &added);
  /// Whether C1-C3 (see regroupSums) hold for every thread of the launch.
  /// With \p tail, no remainder loop: the unrolled loop's last U-1 terms
  /// are straight-line code after it (see regroupSums).
  /// proveRegroup for \p one, \p g and \p rest, once per kernel pair.
  bool regroupProved(const SumRecord &one, const SumRecord &g,
                     mlir::Operation *rest, bool tail);
  bool proveRegroup(KernelModel &k1, mlir::Operation *single, KernelModel &k2,
                    mlir::Operation *unrolled, mlir::Operation *remainder,
                    bool tail = false);
  /// The iterations of a sum's loop that tests `x != bound`: (bound - lb) /
  /// step, exact where the loop is entered (the checker proves that).
  std::optional<z3::expr> tripsOf(KernelModel &k, SumOp sum, const Thread &t);
  /// r's term at the 64-bit iteration \p x64 (0 where it does not run),
  /// encoded as the kernel computes it outside the loop.
  z3::expr termAt(const SumRecord &r, const z3::expr &x64);
  /// \p e (r's body, guard or preconditions) at iteration \p x of r.
  z3::expr atIteration(const SumRecord &r, const z3::expr &x, z3::expr e);
  /// Products become uninterpreted functions without refinement: for
  /// encodings that only serve proofs (unsat).
  bool proofOnly = false;
  /// Facts of the products of proof-only encodings (their signs).
  std::vector<z3::expr> proofFacts;
  /// A sum's body for thread \p t (the application left unset).
  SumRecord sumBody(KernelModel &k, SumOp sum, const Thread &t);
  RegroupCache regrouped;
  /// Every sum encoded: its iteration variable and body, the source's
  /// preconditions over that variable, and the application.
  std::vector<SumRecord> sums;
  std::vector<Thread *> candidates(KernelModel &k, unsigned arg,
                                   unsigned interval, const z3::expr &index,
                                   const Thread &reader, const Thread *writer,
                                   unsigned depth);
};

/// Checks a small side query of \p what (a subquery, a pin, a per-thread
/// case) with Z3's deterministic resource limit \p rlimit: unlike a
/// timeout, its answer does not depend on the machine's load. \p backstopMs
/// of wall clock still bounds it. $KV_SUBSTATS names a file that gets one
/// line per check (what, answer, ms, rlimit used): the data the limits
/// were chosen from.
z3::check_result checkSmall(z3::solver &s, const char *what, unsigned rlimit,
                            unsigned backstopMs);

} // namespace kv

#endif
