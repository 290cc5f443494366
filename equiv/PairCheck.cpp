//===- PairCheck.cpp - the query per output array -------------------------===//
//
// PairCheck::checkArray: is there a launch, an input and a cell k of one
// output array where the two kernels' final values differ? With the proof
// once per thread of a fixed block (proveByThread) and the search for a
// model that replays.
//
//===----------------------------------------------------------------------===//
#include "equiv/PairCheck.h"
#include "equiv/Assumptions.h"
#include "smt-encode/Debug.h"
#include "smt-encode/Encoder.h"
#include "smt-encode/Executor.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/Sequence.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <functional>

using namespace mlir;

namespace kv {

namespace {

/// The per-thread cases' deterministic limit (checkSmall), about what
/// 5 s cost.
unsigned perThreadRlimit = 30000000;

} // namespace

bool PairCheck::proveByThread(Encoder &enc, const z3::expr_vector &all,
                              const z3::expr_vector &lemmas, const Thread &w) {
  z3::context &ctx = enc.ctx;
  uint64_t dims[3];
  const std::vector<z3::expr> &bdim = enc.bdimOf(w.launch);
  for (int i = 0; i < 3; ++i) {
    if (!bdim[i].is_numeral() || !w.tid[i].is_const() || w.tid[i].is_numeral())
      return false;
    dims[i] = bdim[i].get_numeral_uint64();
  }
  if (dims[0] * dims[1] * dims[2] > 1024)
    return false;
  z3::tactic prep = z3::tactic(ctx, "simplify") &
                    z3::tactic(ctx, "propagate-values") &
                    z3::tactic(ctx, "solve-eqs") & z3::tactic(ctx, "simplify");
  for (uint64_t z = 0; z < dims[2]; ++z)
    for (uint64_t y = 0; y < dims[1]; ++y)
      for (uint64_t x = 0; x < dims[0]; ++x) {
        if (hasDeadline && remainingMs() <= 1)
          return false;
        z3::expr_vector from(ctx), to(ctx);
        uint64_t c[3] = {x, y, z};
        for (int i = 0; i < 3; ++i) {
          from.push_back(w.tid[i]);
          to.push_back(ctx.bv_val(c[i], w.tid[i].get_sort().bv_size()));
        }
        // Without the index lemmas first: with the thread's ids numerals,
        // most cases simplify to false without them, and simplifying
        // thousands of lemmas per thread cost most of the time.
        auto simplified = [&](bool withLemmas) {
          z3::goal g(ctx);
          for (z3::expr e : all)
            g.add(e.substitute(from, to));
          if (withLemmas)
            for (z3::expr e : lemmas)
              g.add(e.substitute(from, to));
          return prep(g);
        };
        z3::apply_result ar = simplified(false);
        if (!lemmas.empty() &&
            !llvm::all_of(llvm::seq(0u, ar.size()),
                          [&](unsigned i) { return ar[i].is_decided_unsat(); }))
          ar = simplified(true);
        for (unsigned i = 0; i < ar.size(); ++i) {
          if (ar[i].is_decided_unsat())
            continue;
          z3::solver s(ctx);
          s.add(ar[i].as_expr());
          if (checkSmall(s, "per-thread case", perThreadRlimit, 60000) !=
              z3::unsat)
            return false;
        }
      }
  if (debugEnabled("checker"))
    llvm::errs() << "proved once per thread of the block\n";
  return true;
}

bool PairCheck::checkArray(unsigned arg, Mode mode) {
  auto t0 = std::chrono::steady_clock::now();
  ContextLease lease;
  z3::context &ctx = lease;
  Encoder enc(ctx, opts.bits, before);
  if (opts.maxThreads)
    enc.maxThreads = opts.maxThreads;
  enc.regroupCache = &regrouped;
  enc.alignCache = &alignedCache;
  if (hasDeadline)
    enc.deadline = deadline;
  // KV_PRECISE=1 (a debugging aid) starts with precise products.
  enc.abstractNonlinear = !opts.preciseProducts;
  KernelModel ks(before, "before"), kt(after, "after");
  enc.trusted = &ks;
  // A chain of reads goes back one barrier interval per step: candidates
  // down to the first interval keep deep chains (a tree reduction's)
  // quantifier-free.
  enc.maxCandidateDepth = std::max(enc.maxCandidateDepth,
                                   std::max(ks.numIntervals, kt.numIntervals));
  enc.bounded = &kt;
  enc.hugeGrids = opts.hugeGrids;
  enc.realFloats = opts.realFloats;
  enc.facts = enc.launchConstraints();
  for (const std::string &a : opts.assumptions) {
    std::string err;
    auto e = parseAssumption(enc, a, err);
    if (!e) {
      result.verdict = Verdict::Error;
      result.reason = "cannot parse --assume='" + a + "': " + err;
      return false;
    }
    enc.facts = enc.facts && *e;
  }
  enc.pinDetermined();
  z3::expr k = ctx.bv_const("k", Encoder::indexBits);
  Thread &host = enc.freshThread(nullptr, 0);
  enc.host = &host;
  z3::expr vs(ctx), vt(ctx);
  encodeValues(enc, ks, kt, arg, mode, k, host, vs, vt);
  alignedFolds = std::max(alignedFolds, enc.alignedFolds);
  alignedBreaks = std::max(alignedBreaks, enc.alignedBreaks);
  rotatedBreaks = std::max(rotatedBreaks, enc.rotatedBreaks);
  mappedBreaks = std::max(mappedBreaks, enc.mappedBreaks);
  if (mode == Mode::AtomicTotals)
    atomicClasses += enc.totalsAbstract;
  // The before kernel's preconditions and absence of undefined behaviour
  // hold for every thread.
  // For the threads the query is about (the writers of the cell compared,
  // the host, and the candidate writers of the cell), also the facts about
  // data, such as no overflow in in[i] * k, where their reads are encoded
  // already: cheap, and without it a model may break the before kernel's
  // preconditions.
  size_t top = enc.threads.size();
  for (size_t i = 0; i < top; ++i)
    if (enc.threads[i].depth <= 1)
      enc.side.push_back(enc.dataFacts(enc.threads[i], /*onlyEncoded=*/true));
  for (size_t i = 0; i < enc.threads.size(); ++i) {
    enc.side.push_back(enc.threadFacts(enc.threads[i]));
    enc.side.push_back(enc.globalIndexFacts(enc.threads[i]));
  }
  // Over the reals, a difference is one of the cells' real values too (an
  // integer cell's "real value" is unconstrained, so it still differs
  // wherever its bits do).
  z3::expr differ = vs != vt;
  // The two cells' values as the solver gets them (simplified, one line
  // each): where they should be equal terms and are not, the difference
  // shows which encoding keeps them apart.
  if (debugEnabled("values"))
    for (const auto &[name, v] :
         {std::pair{"before", vs}, std::pair{"after", vt}}) {
      std::string text = v.simplify().to_string();
      llvm::erase_if(text, [](char c) { return c == '\n'; });
      llvm::errs() << "value of " << enc.paramNames[arg] << " (" << name
                   << "): " << text << "\n";
    }
  if (opts.realFloats && vs.is_bv() &&
      (vs.get_sort().bv_size() == 32 || vs.get_sort().bv_size() == 64))
    differ = differ && enc.realOf(vs) != enc.realOf(vt);
  enc.side.push_back(differ);
  z3::expr_vector lemmas = enc.indexLemmas(enc.side);
  enc.side.pop_back();
  if (!enc.unsupported.empty()) {
    result.verdict = Verdict::Unsupported;
    result.reason = "kv construct without an encoding: " + enc.unsupported;
    return false;
  }

  Portfolio s(
      ctx, [this] { return remainingMs(); },
      SolverSettings{opts.solver, opts.seed});
  s.add(enc.facts);
  s.add(enc.side);
  // Index lemmas are quadratic in the index terms: hundreds or thousands
  // of them (a sum's witnesses, unrolled; a padded tile's strides) dominate
  // a query refuted in seconds without them. With products abstracted the
  // query is refined anyway: then the lemmas join it where a model breaks
  // them, before any exact product. A few dozen cost nothing and keep the
  // first models (and the exact products they would call for) closer to
  // real ones.
  if (enc.abstractNonlinear && lemmas.size() > 150)
    s.addLazy(lemmas);
  else
    s.add(lemmas);
  s.add(differ);
  if (std::string path = dumpPath("query", enc.paramNames[arg]); !path.empty())
    dumpTo(path, s.to_smt2());
  if (debugEnabled("checker"))
    llvm::errs() << "array " << enc.paramNames[arg] << ": "
                 << enc.threads.size() << " threads, " << enc.side.size()
                 << " side conditions, " << lemmas.size()
                 << " index lemmas, encoded after "
                 << std::chrono::duration<double, std::milli>(
                        std::chrono::steady_clock::now() - t0)
                        .count()
                 << " ms\n";
  if (mode != Mode::AllCells && mode != Mode::AtomicTotals &&
      enc.perThreadCases) {
    z3::expr_vector all(ctx);
    all.push_back(enc.facts);
    for (const z3::expr &e : enc.side)
      all.push_back(e);
    all.push_back(differ);
    if (proveByThread(enc, all, lemmas, *enc.anchors[0]))
      return true;
  }
  // A model of the abstracted query (products uninterpreted) is replayed
  // as it comes: the executor multiplies exactly and checks the before
  // kernel's assumptions (no overflow included), so a model that replays is
  // a real counterexample, found without the exact products' bit-blasting.
  Counterexample early;
  // Set when a model's launch was too large to run, the first time: the
  // refinement stops there for a search among small launches, which often
  // finds a counterexample at once where refining that model would
  // bit-blast every product first (minutes for 64-bit indices).
  bool tooLarge = false, triedSmall = false;
  auto replaysEarly = [&](const z3::model &m) {
    // Over the reals no model is a counterexample: replays compute IEEE.
    if (opts.realFloats)
      return false;
    if (!triedSmall && launchThreads(enc, m) > maxReplayThreads) {
      tooLarge = true;
      return true;
    }
    std::string ignored;
    Counterexample c;
    // A launch the assumptions make large (an SDK sample's 64x64 blocks of
    // 16x16 threads) is run at its size: no smaller model exists.
    replayThreads = launchThreads(enc, m) > smallReplayThreads
                        ? maxReplayThreads
                        : smallReplayThreads;
    llvm::scope_exit restore([this] { replayThreads = smallReplayThreads; });
    if (!replay(enc, ks, kt, m, arg, k, c, ignored, true) &&
        !replay(enc, ks, kt, m, arg, k, c = Counterexample(), ignored, false) &&
        !replay(enc, ks, kt, m, arg, k, c = Counterexample(), ignored, true,
                /*smallInputs=*/true) &&
        !replay(enc, ks, kt, m, arg, k, c = Counterexample(), ignored, false,
                /*smallInputs=*/true))
      return false;
    early = c;
    return true;
  };
  z3::check_result r = checkRefined(enc, s, replaysEarly);
  if (r == z3::sat && tooLarge) {
    triedSmall = true;
    // One model per size, unrefined: one that does not replay ends the
    // detour (refining it is what the whole query does next anyway).
    for (uint64_t lim : {4, 64}) {
      s.setRemaining(Portfolio::capped([this] { return remainingMs(); },
                                       std::chrono::seconds(5)));
      s.push();
      limitLaunch(enc, s, lim);
      z3::check_result small = s.check();
      bool found =
          small == z3::sat && replaysEarly(s.get_model()) && early.replayed;
      s.pop();
      if (found) {
        s.setRemaining([this] { return remainingMs(); });
        result.verdict = Verdict::NotEquivalent;
        result.counterexample = early;
        result.reason = "the kernels write different values to '" +
                        early.mismatchArray + "'";
        return false;
      }
      if (small == z3::sat)
        break;
    }
    // No small launch (within a few seconds): the whole query again.
    s.setRemaining([this] { return remainingMs(); });
    r = checkRefined(enc, s, replaysEarly);
  }
  if (r == z3::unsat)
    return true;
  if (r == z3::sat && early.replayed) {
    reportReplayed(enc, s, early, replaysEarly);
    return false;
  }
  if (r == z3::unknown) {
    result.verdict = Verdict::Unknown;
    result.reason = "solver returned unknown for array '" +
                    enc.paramNames[arg] + "': " + s.reason_unknown();
    return false;
  }
  if (opts.realFloats) {
    result.verdict = Verdict::Unknown;
    result.reason = "array '" + enc.paramNames[arg] +
                    "': the kernels may differ over the reals (--fp=real "
                    "gives no counterexample: replays compute IEEE floats)";
    return false;
  }
  // Look for a model that replays: prefer a small launch (readable, fast to
  // run); a model that does not replay has its launch and scalars blocked.
  std::string why;
  // A model the executor cannot run (too many threads) is a likelier real
  // difference than a spurious one: its reason is the one reported, whichever
  // model the solvers' race happened to return last.
  std::string unrunnable;
  if (findReplaying(enc, s, ks, kt, arg, k, vs, vt, why, unrunnable))
    return false;
  // The model may be spurious because a "no other thread wrote here"
  // obligation was only instantiated. Stated as quantified formulas, the
  // obligations make the query exact (under race freedom): unsat is then a
  // proof and a model is a real candidate.
  z3::expr_vector quantified = enc.quantifiedObligations();
  if (quantified.size()) {
    if (debugEnabled("checker"))
      llvm::errs() << "retrying with " << quantified.size()
                   << " quantified obligations\n";
    s.add(quantified);
    // Quantifiers may keep the solver busy: this retry gets 30 s at most.
    s.setRemaining(Portfolio::capped([this] { return remainingMs(); },
                                     std::chrono::seconds(30)));
    z3::check_result qr = checkRefined(enc, s);
    if (qr == z3::unsat)
      return true;
    if (qr == z3::sat &&
        findReplaying(enc, s, ks, kt, arg, k, vs, vt, why, unrunnable))
      return false;
    if (qr == z3::unknown)
      why += "; with the quantified obligations the solver returned unknown";
  }
  result.verdict = Verdict::Unknown;
  result.reason = "array '" + enc.paramNames[arg] + "': " + why;
  if (mode == Mode::AtomicTotals)
    result.reason += " (its atomic updates were compared block by block: "
                     "what one block adds to a cell)";
  if (mode == Mode::PerThread)
    result.reason += " (what printf prints is compared thread by thread, in "
                     "each thread's order, and a replay compares the lines "
                     "the launch prints: the same lines in another order "
                     "within a thread, or from other threads, are neither)";
  return false;
}

void PairCheck::encodeValues(Encoder &enc, KernelModel &ks, KernelModel &kt,
                             unsigned arg, Mode mode, const z3::expr &k,
                             Thread &host, z3::expr &vs, z3::expr &vt) {
  if (mode == Mode::AtomicTotals) {
    // The host's block's totals: the grid's are their folds, over the same
    // blocks in both kernels.
    enc.anchors = {&host};
    auto total = [&](KernelModel &km) {
      std::optional<z3::expr> t;
      for (auto &[iv, ws] : km.writes[arg]) {
        if (!t) {
          Type et =
              getArrayElementType(km.op.getBlock().getArgument(arg).getType());
          t = rmwIdentityOf(*ws.front().getRmw(), enc.ctx, enc.widthOf(et));
        }
        t = enc.blockTotal(km, arg, iv, k, host, 0, *t);
      }
      return *t;
    };
    vs = total(ks);
    vt = total(kt);
    return;
  }
  if (mode == Mode::PerThread) {
    // Each thread's records are its own: the cell as the host's writes,
    // interval by interval, leave it.
    enc.anchors = {&host};
    auto own = [&](KernelModel &km) {
      z3::expr v = enc.arrayValue(km, arg, -1, k, host, 0);
      for (auto &[iv, ws] : km.writes[arg])
        v = enc.writeChain(km, arg, iv, k, host, v, /*atIndex=*/false);
      return v;
    };
    vs = own(ks);
    vt = own(kt);
    return;
  }
  if (mode == Mode::AllCells) {
    // The writers of out[k] in both kernels anchor the candidate search.
    Thread &ws = enc.freshThread(nullptr, 0, ks.launch);
    Thread &wt = enc.freshThread(nullptr, 0, kt.launch);
    enc.anchors = {&ws, &wt};
    enc.radixPair[0] = &ks;
    enc.radixPair[1] = &kt;
    enc.radixArg = arg;
    vs = enc.arrayValue(ks, arg, ks.numIntervals - 1, k, host, 0, &ws);
    vt = enc.arrayValue(kt, arg, kt.numIntervals - 1, k, host, 0, &wt);
  } else {
    // Only the cells one kernel writes (in its single interval writing the
    // array), by a symbolic thread w: the other kernel's writer is searched
    // among threads derived from w.
    bool afterWrites = mode == Mode::AfterWrites;
    KernelModel &km = afterWrites ? kt : ks, &other = afterWrites ? ks : kt;
    unsigned iv = km.writes[arg].begin()->first;
    Thread &w = enc.freshThread(nullptr, 0, km.launch);
    enc.anchors = {&w};
    enc.radixPair[0] = &ks;
    enc.radixPair[1] = &kt;
    enc.radixArg = arg;
    z3::expr hit = enc.hitAny(km, arg, iv, k, w);
    enc.side.push_back(hit);
    z3::expr mine = enc.writeChain(
        km, arg, iv, k, w, enc.arrayValue(km, arg, (int)iv - 1, k, host, 0),
        /*atIndex=*/false);
    // The other kernel's cell read at w's own index term where w's writes
    // are few, one read per write (under that write's hit it is the cell
    // k): a writer solved from it is then a term of w's ids, and the two
    // kernels' reads of their inputs come out as the same terms, where with
    // k (related to w only by the side fact) the solver would have to show
    // each pair of input indices equal, bit-blasting their arithmetic.
    unsigned last = other.numIntervals - 1;
    z3::expr theirs(enc.ctx);
    auto &writes = km.writes[arg][iv];
    if (writes.size() <= 4) {
      for (auto it = writes.rbegin(); it != writes.rend(); ++it) {
        z3::expr at = enc.toIndex(enc.value(km, it->getIndex(), w));
        z3::expr hitHere = enc.hits(km, *it, k, w);
        z3::expr v =
            enc.arrayValue(other, arg, last, at, host, 0, nullptr, hitHere);
        theirs = bool(theirs) ? z3::ite(hitHere, v, theirs) : v;
      }
    } else {
      theirs = enc.arrayValue(other, arg, last, k, host, 0, nullptr, hit);
    }
    vs = afterWrites ? theirs : mine;
    vt = afterWrites ? mine : theirs;
  }
}

uint64_t PairCheck::launchThreads(Encoder &enc, const z3::model &m) {
  // The larger launch, where each kernel has its own.
  uint64_t most = 0;
  for (unsigned l = 0; l < (enc.separateLaunches() ? 2u : 1u); ++l) {
    uint64_t total = 1;
    bool overflow = false;
    for (int i = 0; i < 3; ++i)
      for (const z3::expr &d : {enc.gdimOf(l)[i], enc.bdimOf(l)[i]})
        total = llvm::SaturatingMultiply<uint64_t>(
            total, m.eval(d, true).get_numeral_uint64(), &overflow);
    most = std::max(most, total);
  }
  return most;
}

// Launches of at most lim blocks and 4 * lim threads per x and y (2 in z):
// readable counterexamples that replay fast.
void PairCheck::limitLaunch(Encoder &enc, Portfolio &s, uint64_t lim) {
  z3::context &ctx = enc.ctx;
  unsigned w = modelWidth(32, opts.bits);
  // Each kernel's launch, where each has its own.
  for (unsigned l = 0; l < (enc.separateLaunches() ? 2u : 1u); ++l) {
    const std::vector<z3::expr> &gdim = enc.gdimOf(l), &bdim = enc.bdimOf(l);
    if (!lim) {
      // The product in 64 bits: six dimensions of at most 32 bits each
      // could wrap around, so each is bounded first.
      z3::expr total = ctx.bv_val(1, 64);
      uint64_t dimMax =
          w >= 32 ? maxReplayThreads
                  : std::min(maxReplayThreads, (uint64_t(1) << w) - 1);
      for (int i = 0; i < 3; ++i)
        for (const z3::expr &d : {gdim[i], bdim[i]}) {
          s.add(z3::ule(d, ctx.bv_val(dimMax, w)));
          total = total * z3::zext(d, 64 - w);
        }
      s.add(z3::ule(total, ctx.bv_val(maxReplayThreads, 64)));
      continue;
    }
    for (int i = 0; i < 3; ++i) {
      s.add(z3::ule(gdim[i], ctx.bv_val(i == 2 ? 2 : lim, w)));
      s.add(z3::ule(bdim[i], ctx.bv_val(i == 2 ? 2 : 4 * lim, w)));
    }
  }
}

void PairCheck::reportReplayed(
    Encoder &enc, Portfolio &s, Counterexample &early,
    const std::function<bool(const z3::model &)> &replaysEarly) {
  // The first model that replayed may have any launch: look for a small
  // one the same way (abstract products, replay as the test), a few
  // seconds per try, for a counterexample one can check by hand.
  for (uint64_t lim : {4, 64}) {
    // A launch within this tier's limits already: a model the limits admit
    // is no smaller, and replaying one again at a launch the assumptions
    // fix (2^20 threads) took as long as the first replay.
    bool within = true;
    for (int i = 0; i < 3; ++i)
      within &= early.gridDim[i] <= (i == 2 ? 2 : lim) &&
                early.blockDim[i] <= (i == 2 ? 2 : 4 * lim);
    if (within)
      break;
    s.setRemaining(Portfolio::capped([this] { return remainingMs(); },
                                     std::chrono::seconds(5)));
    s.push();
    limitLaunch(enc, s, lim);
    Counterexample found = early;
    early = Counterexample();
    bool small =
        checkRefined(enc, s, replaysEarly) == z3::sat && early.replayed;
    s.pop();
    if (!small)
      early = found;
    if (small)
      break;
  }
  s.setRemaining([this] { return remainingMs(); });
  result.verdict = Verdict::NotEquivalent;
  result.counterexample = early;
  result.reason =
      "the kernels write different values to '" + early.mismatchArray + "'";
}

// Returns true when a model replayed (verdict set). Blocked launches are
// popped afterwards: they only steer the search.
bool PairCheck::findReplaying(Encoder &enc, Portfolio &s, KernelModel &ks,
                              KernelModel &kt, unsigned arg, const z3::expr &k,
                              const z3::expr &vs, const z3::expr &vt,
                              std::string &why, std::string &unrunnable) {
  z3::context &ctx = enc.ctx;
  s.push();
  // A replay runs every thread: the before kernel's preconditions on data
  // (no overflow in in[i] * k) must hold for the deeper candidate threads
  // too, or the model's inputs break them there.
  {
    z3::expr_vector deep(ctx);
    size_t n = enc.threads.size();
    for (size_t i = 0; i < n; ++i)
      if (enc.threads[i].depth > 1)
        deep.push_back(enc.dataFacts(enc.threads[i]));
    if (deep.size()) {
      s.add(deep);
      if (checkRefined(enc, s) != z3::sat) {
        s.pop();
        return false;
      }
    }
  }
  for (unsigned attempt = 0; attempt < 6; ++attempt) {
    z3::model m = s.get_model();
    replayThreads = maxReplayThreads;
    // Small launches first, with small scalars, then with any scalars (a
    // difference may need, say, n == INT_MIN).
    for (auto [lim, smallScalars] : {std::pair<uint64_t, bool>{4, true},
                                     {4, false},
                                     {64, true},
                                     {64, false},
                                     {0, false}}) {
      // The last tier (all the threads a replay runs) only when the model's
      // own launch is larger, for a second: its product of six dimensions
      // is slow to refute when no such launch exists.
      if (!lim &&
          (launchThreads(enc, m) <= maxReplayThreads || noReplayableLaunch))
        break;
      if (!lim)
        s.setRemaining(Portfolio::capped([this] { return remainingMs(); },
                                         std::chrono::seconds(1)));
      s.push();
      limitLaunch(enc, s, lim);
      for (auto &prm : enc.params)
        if (smallScalars && prm && !prm->is_array() &&
            prm->get_sort().bv_size() > 8) {
          unsigned pw = prm->get_sort().bv_size();
          s.add(*prm >= ctx.bv_val(-64, pw) &&
                *prm <= ctx.bv_val(64 * lim, pw));
        }
      bool found = checkRefined(enc, s) == z3::sat;
      if (found) {
        m = s.get_model();
        // A tier bounds each dimension: the assumptions may still make the
        // launch large (64x64 blocks of 16x16 threads), and it runs at
        // its size.
        if (lim && launchThreads(enc, m) <= smallReplayThreads)
          replayThreads = smallReplayThreads;
      }
      s.pop();
      if (!lim) {
        s.setRemaining([this] { return remainingMs(); });
        // Not again for this pair: another model would not fare better.
        noReplayableLaunch = !found;
      }
      if (found)
        break;
    }
    if (debugEnabled("checker")) {
      llvm::errs() << "model: before " << m.eval(vs, true).to_string()
                   << " after " << m.eval(vt, true).to_string();
      dumpModel(enc, m);
    }
    Counterexample cex;
    if (replay(enc, ks, kt, m, arg, k, cex, why, true) ||
        replay(enc, ks, kt, m, arg, k, cex = Counterexample(), why, false) ||
        replay(enc, ks, kt, m, arg, k, cex = Counterexample(), why, false,
               /*smallInputs=*/true) ||
        replay(enc, ks, kt, m, arg, k, cex = Counterexample(), why, false,
               false, /*seed=*/1) ||
        replay(enc, ks, kt, m, arg, k, cex = Counterexample(), why, false,
               false, /*seed=*/2)) {
      replayThreads = smallReplayThreads;
      result.verdict = Verdict::NotEquivalent;
      result.counterexample = cex;
      result.reason =
          "the kernels write different values to '" + cex.mismatchArray + "'";
      s.pop();
      return true;
    }
    replayThreads = smallReplayThreads;
    if (unrunnable.empty() &&
        StringRef(why).starts_with("the counterexample could not be replayed"))
      unrunnable = why;
    s.add(!enc.sameLaunchAs(m));
    // Blocking launches only steers the search for a replaying model: an
    // unsat answer now proves nothing about the launches blocked.
    if (checkRefined(enc, s) != z3::sat)
      break;
  }
  s.pop();
  if (!unrunnable.empty())
    why = unrunnable;
  return false;
}

} // namespace kv
