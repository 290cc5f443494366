//===- Checker.cpp - equivalence of two kv kernels ------------------------===//
//
// One query per global array that either kernel writes: is there a launch,
// an input and a cell k where the two kernels' final values differ? The
// "no other thread wrote here" obligations of the encoding are instantiated
// with candidate threads (the other kernel's writers, their x/y swaps, and
// threads obtained by solving the write index for one coordinate). Dropping
// or instantiating a universally quantified hypothesis only weakens the
// query, so `unsat` is a proof. A `sat` model is replayed on the concrete
// executor and only reported when the two kernels really differ.
//
//===----------------------------------------------------------------------===//
#include "equiv/Checker.h"
#include "equiv/Assumptions.h"
#include "equiv/Lockstep.h"
#include "equiv/Portfolio.h"
#include "equiv/Safety.h"
#include "smt-encode/Encoder.h"
#include "smt-encode/Executor.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <functional>
#include <memory>
#include <set>

using namespace mlir;

namespace kv {

namespace {

/// The per-thread cases' deterministic limit (checkSmall), about what
/// 5 s cost.
unsigned perThreadRlimit = 30000000;

//===----------------------------------------------------------------------===//
// Model -> concrete values
//===----------------------------------------------------------------------===//


/// The model's scalars (ending the line) and sums (KV_DEBUG).
void dumpModel(Encoder &enc, const z3::model &m) {
  for (auto &prm : enc.params)
    if (prm && !prm->is_array())
      llvm::errs() << " " << prm->to_string() << "="
                   << m.eval(*prm, true).to_string();
  llvm::errs() << "\n";
  enc.dumpSums(m);
}

struct PairCheck {
  KernelOp before, after;
  const CheckOptions &opts;
  CheckResult &result;
  std::chrono::steady_clock::time_point deadline;
  bool hasDeadline;
  /// Regroupings of sums proved for this pair, shared by its queries.
  RegroupCache regrouped = {};

  unsigned remainingMs() {
    if (!hasDeadline)
      return 0;
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    deadline - std::chrono::steady_clock::now())
                    .count();
    return left <= 1 ? 1 : (unsigned)left;
  }

  z3::check_result
  checkRefined(Encoder &enc, Portfolio &s,
               const std::function<bool(const z3::model &)> &accept = {}) {
    if (!enc.abstractNonlinear)
      return s.check();
    return s.checkRefined(enc.abstracted, getenv("KV_DEBUG") != nullptr,
                          accept);
  }

  /// In a block of fixed shape, \p all (the negated equivalence of a cell
  /// that thread \p w writes) is refuted once per thread id of w, each
  /// instance simplified first: sums built in different orders (a scan's
  /// tree against its steps) become equal terms, where one query over all
  /// ids bit-blasts adders. False if an instance is not refuted (the full
  /// query then decides).
  bool proveByThread(Encoder &enc, const z3::expr_vector &all,
                     const Thread &w) {
    z3::context &ctx = enc.ctx;
    uint64_t dims[3];
    for (int i = 0; i < 3; ++i) {
      if (!enc.bdim[i].is_numeral() || !w.tid[i].is_const() ||
          w.tid[i].is_numeral())
        return false;
      dims[i] = enc.bdim[i].get_numeral_uint64();
    }
    if (dims[0] * dims[1] * dims[2] > 1024)
      return false;
    z3::tactic prep = z3::tactic(ctx, "simplify") &
                      z3::tactic(ctx, "propagate-values") &
                      z3::tactic(ctx, "solve-eqs") &
                      z3::tactic(ctx, "simplify");
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
          z3::goal g(ctx);
          for (z3::expr e : all)
            g.add(e.substitute(from, to));
          z3::apply_result ar = prep(g);
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
    if (getenv("KV_DEBUG"))
      llvm::errs() << "proved once per thread of the block\n";
    return true;
  }

  enum class Mode { AllCells, AfterWrites, BeforeWrites };
  /// Check one output array; returns false when the verdict is settled
  /// (not-equivalent, unknown, error).
  bool checkArray(unsigned arg, Mode mode);
  bool replay(Encoder &enc, KernelModel &ks, KernelModel &kt,
              const z3::model &m, unsigned arg, const z3::expr &k,
              Counterexample &cex, std::string &why, bool zeroUnread,
              bool smallInputs = false);
  /// The launch and scalars of the last replay that hit the work limit.
  std::string tooMuchWork;
};

namespace {
/// A model's value of an array as a table: its stores and its default,
/// read from the term Z3 gives (stores over a constant array, or a function
/// interpretation). Evaluating `select` in the model per cell costs
/// microseconds; a replay may read millions of cells.
class ModelArray {
public:
  ModelArray(const z3::model &m, const z3::expr &array) : m(m), array(array) {
    z3::expr v = m.eval(array, true);
    while (v.is_app() && v.decl().decl_kind() == Z3_OP_STORE) {
      if (!v.arg(1).is_numeral() || !v.arg(2).is_numeral())
        return;
      cells.emplace(v.arg(1).get_numeral_uint64(), v.arg(2));
      v = v.arg(0);
    }
    if (v.is_app() && v.decl().decl_kind() == Z3_OP_CONST_ARRAY &&
        v.arg(0).is_numeral()) {
      fallback = v.arg(0);
      exact = true;
      return;
    }
    if (v.is_app() && v.decl().decl_kind() == Z3_OP_AS_ARRAY) {
      z3::func_decl f(v.ctx(), Z3_get_as_array_func_decl(v.ctx(), v));
      if (!m.has_interp(f))
        return;
      z3::func_interp fi = m.get_func_interp(f);
      for (unsigned i = 0; i < fi.num_entries(); ++i) {
        z3::func_entry e = fi.entry(i);
        if (e.num_args() != 1 || !e.arg(0).is_numeral() ||
            !e.value().is_numeral())
          return;
        cells.emplace(e.arg(0).get_numeral_uint64(), e.value());
      }
      if (!fi.else_value().is_numeral())
        return;
      fallback = fi.else_value();
      exact = true;
    }
  }
  z3::expr at(uint64_t index) {
    if (exact) {
      auto it = cells.find(index);
      return it != cells.end() ? it->second : *fallback;
    }
    return m.eval(
        z3::select(array, array.ctx().bv_val(index, Encoder::indexBits)), true);
  }

private:
  const z3::model &m;
  z3::expr array;
  // Outer stores first: emplace keeps the first (the one a select sees).
  std::map<uint64_t, z3::expr> cells;
  std::optional<z3::expr> fallback;
  bool exact = false;
};
} // namespace

bool PairCheck::replay(Encoder &enc, KernelModel &ks, KernelModel &kt,
                       const z3::model &m, unsigned arg, const z3::expr &k,
                       Counterexample &cex, std::string &why,
                       bool zeroUnread, bool smallInputs) {
  // The input cells the query constrains; with zeroUnread every other cell
  // is 0 (the model's default value may break the before kernel's
  // preconditions in threads the query never looked at).
  z3::context &ctx = enc.ctx;
  // (Keeps the previous attempt's reason.)
  if (smallInputs && !zeroUnread && (ks.hasApply || kt.hasApply))
    return false;
  LaunchConfig cfg;
  unsigned w32 = modelWidth(32, enc.bits);
  for (int i = 0; i < 3; ++i) {
    cfg.grid[i] = numeralOf(m.eval(enc.gdim[i], true), w32).getZExtValue();
    cfg.block[i] = numeralOf(m.eval(enc.bdim[i], true), w32).getZExtValue();
    cex.gridDim[i] = cfg.grid[i];
    cex.blockDim[i] = cfg.block[i];
  }
  // The work a replay does hardly depends on the input cells: a launch
  // and scalars that ran into the work limit are not run again with other
  // inputs.
  std::string workKey;
  for (int i = 0; i < 3; ++i)
    workKey +=
        std::to_string(cfg.grid[i]) + "," + std::to_string(cfg.block[i]) + ",";
  for (auto &prm : enc.params)
    if (prm && !prm->is_array())
      workKey += m.eval(*prm, true).to_string() + ",";
  if (workKey == tooMuchWork) {
    why = "the counterexample could not be replayed: the run exceeds the "
          "replay's work limit";
    return false;
  }
  std::map<std::pair<unsigned, uint64_t>, llvm::APInt> inputsRead;
  std::set<std::pair<unsigned, uint64_t>> constrained;
  // Only reads of threads that exist in the model's launch: a candidate
  // out of range may "read" a cell whose value some real thread's
  // precondition forbids.
  for (auto &[a, idx, live] : enc.initialReads)
    if (m.eval(live, true).is_true())
      constrained.insert(
        {a, numeralOf(m.eval(idx, true), Encoder::indexBits).getZExtValue()});
  std::map<unsigned, ModelArray> tables;
  auto inputsFor = [&](KernelModel &km) {
    ExecInputs in;
    in.bits = enc.bits;
    in.scalar = [&](unsigned a) {
      Type t = km.op.getBlock().getArgument(a).getType();
      return numeralOf(m.eval(*enc.params[a], true), enc.widthOf(t));
    };
    in.initial = [&](unsigned a, uint64_t idx) {
      Type et = getArrayElementType(km.op.getBlock().getArgument(a).getType());
      bool isConstrained = constrained.count({a, idx});
      if (zeroUnread && !isConstrained)
        return llvm::APInt(enc.widthOf(et), 0);
      // Cells no query read spelled out (those inside sums): small values
      // 1..7 that vary with the index, so that sums over ranges that differ
      // usually differ too (a constant default may be 0 everywhere). Only
      // for integer kernels: as float bit patterns these are tiny numbers,
      // and negative ones would be NaNs, whose payloads the executor does
      // not model as hardware does.
      if (smallInputs && !isConstrained && !zeroUnread) {
        uint64_t h = (idx + 1 + a * 0x51ed27ull) * 0x9e3779b97f4a7c15ull;
        llvm::APInt v(enc.widthOf(et), (h >> 33) % 7 + 1);
        inputsRead.emplace(std::make_pair(a, idx), v);
        return v;
      }
      auto table = tables.find(a);
      if (table == tables.end())
        table = tables.try_emplace(a, m, *enc.params[a]).first;
      llvm::APInt v = numeralOf(table->second.at(idx), enc.widthOf(et));
      // Small values keep products and sums of a model found with
      // uninterpreted products clear of overflow (the before kernel's
      // no-overflow assumption), and usually keep the difference.
      if (smallInputs)
        v = llvm::APInt(v.getBitWidth(), (int64_t)v.urem(7) - 3,
                        /*isSigned=*/true);
      inputsRead.emplace(std::make_pair(a, idx), v);
      return v;
    };
    in.sharedInitial = [&, km = &km](unsigned a, const uint64_t bid[3],
                                      uint64_t idx) {
      std::vector<z3::expr> b, t;
      for (int i = 0; i < 3; ++i) {
        b.push_back(ctx.bv_val(bid[i], w32));
        t.push_back(ctx.bv_val(0, w32));
      }
      Thread &th = enc.makeThread(t, b, 2);
      z3::expr v = enc.arrayValue(*km, a, -1, ctx.bv_val(idx, Encoder::indexBits), th, 2);
      Type et = getArrayElementType(km->op.getBlock().getArgument(a).getType());
      return numeralOf(m.eval(v, true), enc.widthOf(et));
    };
    in.apply = [&](llvm::StringRef fn, llvm::ArrayRef<llvm::APInt> args,
                   unsigned width) -> std::optional<llvm::APInt> {
      z3::sort_vector dom(ctx);
      z3::expr_vector vals(ctx);
      for (const llvm::APInt &a : args) {
        dom.push_back(ctx.bv_sort(a.getBitWidth()));
        vals.push_back(ctx.bv_val(llvm::toString(a, 10, false).c_str(),
                                  a.getBitWidth()));
      }
      z3::expr r = enc.uf("uf." + fn.str(), dom, width)(vals);
      return numeralOf(m.eval(r, true), width);
    };
    return in;
  };
  // The interpreter runs every thread: a launch larger than this is not
  // replayed (it would take minutes and blow the time budget).
  const uint64_t maxReplayThreads = 1u << 16;
  if (hasDeadline && remainingMs() <= 1) {
    why = "the time budget ran out before the counterexample was replayed";
    return false;
  }
  // And a limit on the work: a model with a long loop in every thread
  // (n = 8192 over 16k threads) would take a minute; a smaller one is
  // searched for instead. 2^30 instructions run in about five seconds.
  const uint64_t maxReplaySteps = uint64_t(1) << 30;
  ExecResult rs =
      execute(ks.op, cfg, inputsFor(ks), maxReplayThreads, maxReplaySteps);
  ExecResult rt = rs.ok ? execute(kt.op, cfg, inputsFor(kt), maxReplayThreads,
                                  maxReplaySteps)
                        : ExecResult();
  if (getenv("KV_DEBUG")) {
    llvm::errs() << "replay: grid " << cfg.grid[0] << "," << cfg.grid[1] << ","
                 << cfg.grid[2] << " block " << cfg.block[0] << ","
                 << cfg.block[1] << "," << cfg.block[2] << " k="
                 << m.eval(k, true).to_string();
    dumpModel(enc, m);
    for (const Thread &t : enc.threads) {
      llvm::errs() << "  t" << t.id << ": tid";
      for (auto &c : t.tid)
        llvm::errs() << " " << m.eval(c, true).to_string();
      llvm::errs() << " bid";
      for (auto &c : t.bid)
        llvm::errs() << " " << m.eval(c, true).to_string();
      llvm::errs() << "\n";
    }
    for (auto *r : {&rs, &rt})
      for (auto &[i, v] : r->written[arg])
        llvm::errs() << "  " << (r == &rs ? "before" : "after") << "[" << i
                     << "] = " << v << "\n";
  }
  if (!rs.ok || !rt.ok) {
    why = "the counterexample could not be replayed: " +
          (!rs.ok ? rs.error : rt.error);
    if ((!rs.ok ? rs : rt).tooMuchWork)
      tooMuchWork = workKey;
    if (getenv("KV_DEBUG"))
      llvm::errs() << "replay failed: " << why << "\n";
    return false;
  }
  if (rs.assumeViolated) {
    why = "the counterexample violates a __builtin_assume or the no-overflow "
          "precondition of the before kernel";
    return false;
  }
  // Compare every cell either kernel wrote; prefer the solver's cell.
  Type et = getArrayElementType(ks.op.getBlock().getArgument(arg).getType());
  unsigned ew = enc.widthOf(et);
  auto cell = [&](ExecResult &r, uint64_t idx) {
    auto it = r.written[arg].find(idx);
    if (it != r.written[arg].end())
      return it->second;
    return numeralOf(m.eval(z3::select(*enc.params[arg], ctx.bv_val(idx, Encoder::indexBits)),
                          true),
                   ew);
  };
  std::vector<uint64_t> order;
  order.push_back(
      numeralOf(m.eval(k, true), Encoder::indexBits).getZExtValue());
  for (auto &[i, v] : rs.written[arg])
    order.push_back(i);
  for (auto &[i, v] : rt.written[arg])
    order.push_back(i);
  for (uint64_t idx : order) {
    llvm::APInt a = cell(rs, idx), b = cell(rt, idx);
    if (a == b)
      continue;
    cex.mismatchArray = enc.paramNames[arg];
    cex.mismatchIndex = (int64_t)idx;
    cex.before = a.getSExtValue();
    cex.after = b.getSExtValue();
    cex.replayed = true;
    for (unsigned i = 0; i < enc.params.size(); ++i)
      if (enc.params[i] && !enc.params[i]->is_array()) {
        Type t = ks.op.getBlock().getArgument(i).getType();
        llvm::APInt v =
            numeralOf(m.eval(*enc.params[i], true), enc.widthOf(t));
        cex.scalars.push_back(
            {enc.paramNames[i], enc.paramUnsigned[i]
                                    ? (int64_t)v.getZExtValue()
                                    : v.getSExtValue()});
      }
    unsigned shown = 0;
    for (auto &[key, v] : inputsRead)
      if (shown++ < 4096)
        cex.arrays[enc.paramNames[key.first]][(int64_t)key.second] =
            v.getSExtValue();
    return true;
  }
  why = "the solver's counterexample does not replay (an obligation the "
        "encoding could not discharge)";
  return false;
}

bool PairCheck::checkArray(unsigned arg, Mode mode) {
  auto t0 = std::chrono::steady_clock::now();
  z3::context ctx;
  Encoder enc(ctx, opts.bits, before);
  enc.regroupCache = &regrouped;
  if (hasDeadline)
    enc.deadline = deadline;
  // KV_PRECISE=1 (a debugging aid) starts with precise products.
  enc.abstractNonlinear = getenv("KV_PRECISE") == nullptr;
  KernelModel ks(before, "before"), kt(after, "after");
  enc.trusted = &ks;
  // A chain of reads goes back one barrier interval per step: candidates
  // down to the first interval keep deep chains (a tree reduction's)
  // quantifier-free.
  enc.maxCandidateDepth =
      std::max(enc.maxCandidateDepth, std::max(ks.numIntervals, kt.numIntervals));
  enc.bounded = &kt;
  enc.hugeGrids = opts.hugeGrids;
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
  if (mode == Mode::AllCells) {
    // The writers of out[k] in both kernels anchor the candidate search.
    Thread &ws = enc.freshThread(nullptr, 0);
    Thread &wt = enc.freshThread(nullptr, 0);
    enc.anchors = {&ws, &wt};
    vs = enc.arrayValue(ks, arg, ks.numIntervals - 1, k, host, 0, &ws);
    vt = enc.arrayValue(kt, arg, kt.numIntervals - 1, k, host, 0, &wt);
  } else {
    // Only the cells one kernel writes (in its single interval writing the
    // array), by a symbolic thread w: the other kernel's writer is searched
    // among threads derived from w.
    bool afterWrites = mode == Mode::AfterWrites;
    KernelModel &km = afterWrites ? kt : ks, &other = afterWrites ? ks : kt;
    unsigned iv = km.writes[arg].begin()->first;
    Thread &w = enc.freshThread(nullptr, 0);
    enc.anchors = {&w};
    z3::expr hit = enc.hitAny(km, arg, iv, k, w);
    enc.side.push_back(hit);
    z3::expr mine = enc.writeChain(
        km, arg, iv, k, w, enc.arrayValue(km, arg, (int)iv - 1, k, host, 0));
    z3::expr theirs = enc.arrayValue(other, arg, other.numIntervals - 1, k,
                                     host, 0, nullptr, hit);
    vs = afterWrites ? theirs : mine;
    vt = afterWrites ? mine : theirs;
  }
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
  enc.side.push_back(vs != vt);
  z3::expr_vector lemmas = enc.indexLemmas(enc.side);
  enc.side.pop_back();
  if (!enc.unsupported.empty()) {
    result.verdict = Verdict::Unsupported;
    result.reason = "kv construct without an encoding: " + enc.unsupported;
    return false;
  }

  Portfolio s(ctx, [this] { return remainingMs(); });
  s.add(enc.facts);
  s.add(enc.side);
  s.add(lemmas);
  s.add(vs != vt);
  if (const char *dump = getenv("KV_DUMP_SMT")) {
    std::string path = std::string(dump) + "." + enc.paramNames[arg] + ".smt2";
    if (FILE *f = fopen(path.c_str(), "w")) {
      fputs(s.to_smt2().c_str(), f);
      fclose(f);
    }
  }
  if (getenv("KV_DEBUG"))
    llvm::errs() << "array " << enc.paramNames[arg] << ": "
                 << enc.threads.size() << " threads, " << enc.side.size()
                 << " side conditions, " << lemmas.size()
                 << " index lemmas, encoded after "
                 << std::chrono::duration<double, std::milli>(
                        std::chrono::steady_clock::now() - t0)
                        .count()
                 << " ms\n";
  if (mode != Mode::AllCells && enc.perThreadCases) {
    z3::expr_vector all(ctx);
    all.push_back(enc.facts);
    for (const z3::expr &e : enc.side)
      all.push_back(e);
    for (const z3::expr &e : lemmas)
      all.push_back(e);
    all.push_back(vs != vt);
    if (proveByThread(enc, all, *enc.anchors[0]))
      return true;
  }
  // A model of the abstracted query (products uninterpreted) is replayed
  // as it comes: the executor multiplies exactly and checks the before
  // kernel's assumptions (no overflow included), so a model that replays is
  // a real counterexample, found without the exact products' bit-blasting.
  Counterexample early;
  auto replaysEarly = [&](const z3::model &m) {
    std::string ignored;
    Counterexample c;
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
  if (r == z3::unsat)
    return true;
  // Launches of at most lim blocks and 4 * lim threads per x and y (2 in z):
  // readable counterexamples that replay fast.
  auto limitLaunch = [&](uint64_t lim) {
    unsigned w = modelWidth(32, opts.bits);
    for (int i = 0; i < 3; ++i) {
      s.add(z3::ule(enc.gdim[i], ctx.bv_val(i == 2 ? 2 : lim, w)));
      s.add(z3::ule(enc.bdim[i], ctx.bv_val(i == 2 ? 2 : 4 * lim, w)));
    }
  };
  if (r == z3::sat && early.replayed) {
    // The first model that replayed may have any launch: look for a small
    // one the same way (abstract products, replay as the test), a few
    // seconds per try, for a counterexample one can check by hand.
    for (uint64_t lim : {4, 64}) {
      s.setRemaining(Portfolio::capped([this] { return remainingMs(); },
                                        std::chrono::seconds(5)));
      s.push();
      limitLaunch(lim);
      Counterexample found = early;
      early = Counterexample();
      bool small = checkRefined(enc, s, replaysEarly) == z3::sat &&
                   early.replayed;
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
    return false;
  }
  if (r == z3::unknown) {
    result.verdict = Verdict::Unknown;
    result.reason = "solver returned unknown for array '" +
                    enc.paramNames[arg] + "': " + s.reason_unknown();
    return false;
  }
  // Look for a model that replays: prefer a small launch (readable, fast to
  // run); a model that does not replay has its launch and scalars blocked.
  std::string why;
  // A model the executor cannot run (too many threads) is a likelier real
  // difference than a spurious one: its reason is the one reported, whichever
  // model the solvers' race happened to return last.
  std::string unrunnable;
  // Returns true when a model replayed (verdict set). Blocked launches are
  // popped afterwards: they only steer the search.
  auto findReplaying = [&]() {
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
    // Small launches first, with small scalars, then with any scalars (a
    // difference may need, say, n == INT_MIN).
    for (auto [lim, smallScalars] :
         {std::pair<uint64_t, bool>{4, true}, {4, false}, {64, true},
          {64, false}}) {
      s.push();
      limitLaunch(lim);
      for (auto &prm : enc.params)
        if (smallScalars && prm && !prm->is_array() &&
            prm->get_sort().bv_size() > 8) {
          unsigned pw = prm->get_sort().bv_size();
          s.add(*prm >= ctx.bv_val(-64, pw) &&
                *prm <= ctx.bv_val(64 * lim, pw));
        }
      bool found = checkRefined(enc, s) == z3::sat;
      if (found)
        m = s.get_model();
      s.pop();
      if (found)
        break;
    }
    if (getenv("KV_DEBUG")) {
      llvm::errs() << "model: before " << m.eval(vs, true).to_string()
                   << " after " << m.eval(vt, true).to_string();
      dumpModel(enc, m);
    }
    Counterexample cex;
    if (replay(enc, ks, kt, m, arg, k, cex, why, true) ||
        replay(enc, ks, kt, m, arg, k, cex = Counterexample(), why, false) ||
        replay(enc, ks, kt, m, arg, k, cex = Counterexample(), why, false,
               /*smallInputs=*/true)) {
      result.verdict = Verdict::NotEquivalent;
      result.counterexample = cex;
      result.reason = "the kernels write different values to '" +
                      cex.mismatchArray + "'";
      s.pop();
      return true;
    }
    if (unrunnable.empty() &&
        StringRef(why).starts_with("the counterexample could not be replayed"))
      unrunnable = why;
    z3::expr same = ctx.bool_val(true);
    for (int i = 0; i < 3; ++i)
      same = same && enc.gdim[i] == m.eval(enc.gdim[i], true) &&
             enc.bdim[i] == m.eval(enc.bdim[i], true);
    for (auto &prm : enc.params)
      if (prm && !prm->is_array())
        same = same && *prm == m.eval(*prm, true);
    s.add(!same);
    // Blocking launches only steers the search for a replaying model: an
    // unsat answer now proves nothing about the launches blocked.
    if (checkRefined(enc, s) != z3::sat)
      break;
  }
  s.pop();
  if (!unrunnable.empty())
    why = unrunnable;
  return false;
  };
  if (findReplaying())
    return false;
  // The model may be spurious because a "no other thread wrote here"
  // obligation was only instantiated. Stated as quantified formulas, the
  // obligations make the query exact (under race freedom): unsat is then a
  // proof and a model is a real candidate.
  z3::expr_vector quantified = enc.quantifiedObligations();
  if (quantified.size()) {
    if (getenv("KV_DEBUG"))
      llvm::errs() << "retrying with " << quantified.size()
                   << " quantified obligations\n";
    s.add(quantified);
    // Quantifiers may keep the solver busy: this retry gets 30 s at most.
    s.setRemaining(Portfolio::capped([this] { return remainingMs(); },
                                      std::chrono::seconds(30)));
    z3::check_result qr = checkRefined(enc, s);
    if (qr == z3::unsat)
      return true;
    if (qr == z3::sat && findReplaying())
      return false;
    if (qr == z3::unknown)
      why += "; with the quantified obligations the solver returned unknown";
  }
  result.verdict = Verdict::Unknown;
  result.reason = "array '" + enc.paramNames[arg] + "': " + why;
  return false;
}

} // namespace

namespace {

/// Human-readable reason when the parameter lists cannot be matched.
std::string matchParams(KernelOp a, KernelOp b) {
  auto params = [](KernelOp k) {
    std::vector<BlockArgument> v;
    for (BlockArgument x : k.getBlock().getArguments())
      if (!isa<SharedArrayType>(x.getType()))
        v.push_back(x);
    return v;
  };
  auto pa = params(a), pb = params(b);
  if (pa.size() != pb.size())
    return "the kernels have " + std::to_string(pa.size()) + " and " +
           std::to_string(pb.size()) + " parameters";
  for (size_t i = 0; i < pa.size(); ++i) {
    Type ta = pa[i].getType(), tb = pb[i].getType();
    if (ta == tb)
      continue;
    std::string s;
    llvm::raw_string_ostream os(s);
    os << "parameter #" << i << " ('" << a.getArgName(i) << "') has type " << ta
       << " in the before kernel and " << tb << " in the after kernel";
    return s;
  }
  return "";
}

} // namespace

CheckResult checkEquivalence(KernelOp before, KernelOp after,
                             const CheckOptions &opts) {
  auto start = std::chrono::steady_clock::now();
  CheckResult result;
  auto finish = [&]() {
    result.timeMs = std::chrono::duration<double, std::milli>(
                        std::chrono::steady_clock::now() - start)
                        .count();
    return result;
  };
  if (std::string m = matchParams(before, after); !m.empty()) {
    // Kernels that cannot be compared are a usage error, not a limitation.
    result.verdict = Verdict::Error;
    result.reason = m;
    return finish();
  }

  // What the verdict rests on.
  bool bounded = false;
  int64_t bound = 0;
  listAssumptions(before, after, opts, result, bounded, bound);

  PairCheck pc{before, after, opts, result, {}, opts.timeoutSecs > 0};
  if (pc.hasDeadline)
    pc.deadline = start + std::chrono::seconds(opts.timeoutSecs);

  // Assumptions that no launch satisfies would make every verdict vacuous.
  if (!admitsLaunch(before, opts, result))
    return finish();

  auto encodingTimeout = [&] {
    return std::string("timeout: the time budget ran out while encoding "
                       "the query, before the solver ran");
  };
  // The encoding is only valid for kernels free of races and divergence.
  FactsFn facts = [&](Encoder &enc,
                      std::string &err) -> std::optional<z3::expr> {
    enc.hugeGrids = opts.hugeGrids;
    std::optional<z3::expr> a = parseAssumptions(enc, opts, err);
    if (!a)
      return std::nullopt;
    return enc.launchConstraints() && *a;
  };
  if (opts.assumeSafe)
    result.assumptions.push_back(
        "both kernels are free of data races, barrier divergence and "
        "out-of-bounds shared accesses (not checked here; the CLI checks "
        "them)");
  // A defect seen only through over-approximated reads is not confirmed:
  // the equivalence check still runs, since a replayed counterexample is a
  // definite answer; "equivalent" is not (it rests on race freedom).
  std::string unconfirmed;
  try {
    for (auto [k, label] : {std::pair{before, "before"}, {after, "after"}}) {
      if (checkSafety(k, before, label, opts.bits, facts,
                      [&] { return pc.remainingMs(); }, result,
                      /*loopsOnly=*/opts.assumeSafe))
        continue;
      if (!result.possibleDefect)
        return finish();
      if (unconfirmed.empty())
        unconfirmed = result.reason;
      result.possibleDefect = false;
      result.verdict = Verdict::Equivalent;
      result.reason.clear();
    }
  } catch (z3::exception &e) {
    result.verdict = Verdict::Unknown;
    result.reason = std::string("solver error: ") + e.msg();
    return finish();
  } catch (EncodeTimeout &) {
    result.verdict = Verdict::Unknown;
    result.reason = encodingTimeout();
    return finish();
  }

  // Every global array either kernel writes is an output.
  std::set<unsigned> outputs;
  for (KernelOp k : {before, after}) {
    KernelModel km(k, "");
    for (auto &[arg, byInterval] : km.writes)
      if (isa<GlobalArrayType>(k.getBlock().getArgument(arg).getType()))
        outputs.insert(arg);
  }
  auto finishPossible = [&]() {
    if (!unconfirmed.empty()) {
      if (result.verdict == Verdict::NotEquivalent)
        result.assumptions.push_back(unconfirmed);
      else if (result.verdict == Verdict::Unknown)
        result.reason = unconfirmed + "; and " + result.reason;
    }
    return finish();
  };
  // Barriers and thread mapping kept (an optimizer's rewrite): proved
  // interval by interval without the read chains.
  std::optional<std::chrono::steady_clock::time_point> deadline;
  if (pc.hasDeadline)
    deadline = pc.deadline;
  bool lockstep = proveLockstep(before, after, opts, deadline);
  if (lockstep)
    outputs.clear();
  try {
    for (unsigned arg : outputs) {
      // With the array written in one interval of each kernel, the cells
      // each kernel writes are checked apart: smaller queries in which the
      // other kernel's writer is usually found without a fresh thread.
      KernelModel kb(before, ""), ka(after, "");
      bool single = kb.writes[arg].size() <= 1 && ka.writes[arg].size() <= 1;
      if (single) {
        bool ok = true;
        if (!ka.writes[arg].empty())
          ok = pc.checkArray(arg, PairCheck::Mode::AfterWrites);
        if (ok && !kb.writes[arg].empty())
          ok = pc.checkArray(arg, PairCheck::Mode::BeforeWrites);
        if (!ok)
          return finishPossible();
        continue;
      }
      if (!pc.checkArray(arg, PairCheck::Mode::AllCells))
        return finishPossible();
    }
  } catch (z3::exception &e) {
    result.verdict = Verdict::Unknown;
    result.reason = std::string("solver error: ") + e.msg();
    return finishPossible();
  } catch (EncodeTimeout &) {
    result.verdict = Verdict::Unknown;
    result.reason = encodingTimeout();
    return finishPossible();
  }
  if (!unconfirmed.empty()) {
    result.verdict = Verdict::Unknown;
    result.reason = unconfirmed + " (the equivalence proof rests on its "
                                     "absence)";
    return finish();
  }
  result.verdict = Verdict::Equivalent;
  result.reason = "proved for every launch configuration and input";
  if (lockstep)
    result.method = "interval by interval: each thread makes the same writes "
                    "in each barrier interval";
  if (bounded) {
    result.verdict = Verdict::EquivalentUpToBound;
    result.reason = "proved for executions whose symbolic loops run at most " +
                    std::to_string(bound) + " iterations (bounded)";
  }
  return finish();
}

} // namespace kv
