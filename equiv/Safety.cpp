//===- Safety.cpp - race, divergence and bounds checks --------------------===//
//
// Two distinct symbolic threads t1, t2 (GPUVerify's two-thread reduction):
// a race is a pair of accesses to one cell, at least one a write, that no
// barrier orders. Within a block a barrier orders accesses of different
// intervals; blocks never synchronize, so accesses of two blocks to a global
// cell race in any intervals. Everything is decided in one query per check;
// the model names the pair.
//
// Values that depend on array contents are over-approximated by the encoding
// (fresh writers whose obligations are only instantiated). A defect found
// through such a value is reported as `unknown` (possible defect), never as
// a certain one; a defect proved absent is absent.
//
//===----------------------------------------------------------------------===//
#include "equiv/Safety.h"
#include "equiv/Portfolio.h"
#include "smt-encode/Encoder.h"
#include "smt-encode/Executor.h"

#include "mlir/IR/Location.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <set>

using namespace mlir;

namespace kv {

unsigned safetyRlimit = 8000000;
unsigned safetyBudgetMs = 30000;

namespace {

struct Access {
  Operation *op;
  unsigned arg;
  bool write;
  unsigned interval;
  Value index, guard;
};

std::string locationOf(Operation *op) {
  Location loc = op->getLoc();
  if (auto f = dyn_cast<FileLineColLoc>(loc))
    return f.getFilename().str() + ":" + std::to_string(f.getLine()) + ":" +
           std::to_string(f.getColumn());
  std::string s;
  llvm::raw_string_ostream os(s);
  os << loc;
  return s;
}

uint64_t evalU(const z3::model &m, const z3::expr &e) {
  z3::expr v = m.eval(e, true);
  uint64_t out = 0;
  if (v.is_numeral())
    v.is_numeral_u64(out);
  return out;
}

int64_t evalS(const z3::model &m, const z3::expr &e) {
  z3::expr v = m.eval(e, true);
  if (v.is_bool())
    return v.is_true();
  unsigned w = v.get_sort().bv_size();
  uint64_t u = 0;
  if (!v.is_numeral_u64(u))
    return 0;
  if (w < 64 && (u >> (w - 1)) & 1)
    return (int64_t)(u | (~uint64_t(0) << w));
  return (int64_t)u;
}

/// One check: its own context and encoder, two threads t1 and t2.
struct Query {
  z3::context ctx;
  Encoder enc;
  KernelModel km;
  Thread *t1 = nullptr, *t2 = nullptr;
  std::optional<z3::model> model;

  KernelModel before;

  Query(KernelOp k, KernelOp paramSource, const char *label, unsigned bits)
      : enc(ctx, bits, paramSource), km(k, label),
        before(paramSource, "before") {
    // As in the equivalence query, the before kernel's preconditions and
    // absence of undefined behaviour hold for every thread: facts about the
    // launch, valid for the after kernel's threads too.
    enc.trusted = &before;
    enc.bounded = &km;
    // Products as uninterpreted functions with index lemmas, refined where
    // a model needs them: `unsat` stays a proof, a model is exact.
    enc.abstractNonlinear = true;
  }

  z3::expr asBool(const z3::expr &e) {
    return e.is_bool() ? e : e == ctx.bv_val(1, e.get_sort().bv_size());
  }
  z3::expr guard(Value g, const Thread &t) {
    return asBool(enc.value(km, g, t));
  }
  /// The guard of access \p op, with the loops it is in.
  z3::expr access(Operation *op, const Thread &t) {
    return enc.accessGuard(km, op, t);
  }
  z3::expr index(Value i, const Thread &t) {
    return enc.toIndex(enc.value(km, i, t));
  }

  z3::check_result solve(const z3::expr &cond,
                         const std::function<unsigned()> &remainingMs) {
    Portfolio s(ctx, remainingMs);
    s.rlimit = safetyRlimit;
    s.add(enc.facts);
    s.add(cond);
    s.add(enc.side);
    z3::expr_vector all(ctx);
    all.push_back(cond);
    for (const Thread &t : enc.threads) {
      all.push_back(enc.threadFacts(t));
      all.push_back(enc.globalIndexFacts(t));
    }
    s.add(all);
    for (unsigned i = 0; i < enc.side.size(); ++i)
      all.push_back(enc.side[i]);
    s.add(enc.indexLemmas(all, /*exactFits=*/true));
    if (!enc.unsupported.empty())
      return z3::unknown;
    if (const char *dump = getenv("KV_DUMP_SAFETY")) {
      static int n = 0;
      z3::solver d(ctx);
      d.add(s.assertions());
      std::string path = std::string(dump) + std::to_string(n++) + ".smt2";
      if (FILE *f = fopen(path.c_str(), "w")) {
        fputs(d.to_smt2().c_str(), f);
        fclose(f);
      }
    }
    auto t0 = std::chrono::steady_clock::now();
    z3::check_result r = s.checkRefined(enc.abstracted);
    if (getenv("KV_DEBUG"))
      llvm::errs() << km.label << " safety query: "
                   << (r == z3::sat ? "sat" : r == z3::unsat ? "unsat" : "unknown")
                   << " after "
                   << std::chrono::duration<double, std::milli>(
                          std::chrono::steady_clock::now() - t0)
                          .count()
                   << " ms\n";
    if (r != z3::sat)
      return r;
    model = s.get_model();
    // A small grid (and block) makes a readable report.
    unsigned w = enc.gdim[0].get_sort().bv_size();
    for (uint64_t lim : {2, 4, 64}) {
      s.push();
      for (int i = 0; i < 3; ++i) {
        s.add(z3::ule(enc.gdim[i], ctx.bv_val(lim, w)));
        s.add(z3::ule(enc.bdim[i], ctx.bv_val(i == 0 ? 1024 : lim, w)));
      }
      bool found = s.checkRefined(enc.abstracted) == z3::sat;
      if (found)
        model = s.get_model();
      s.pop();
      if (found)
        break;
    }
    return r;
  }

  void fillLaunch(Defect &d) {
    for (int i = 0; i < 3; ++i) {
      d.gridDim[i] = evalU(*model, enc.gdim[i]);
      d.blockDim[i] = evalU(*model, enc.bdim[i]);
    }
    for (unsigned i = 0; i < enc.params.size(); ++i)
      if (enc.params[i] && !enc.params[i]->is_array())
        d.scalars.push_back({enc.paramNames[i],
                             enc.paramUnsigned[i]
                                 ? (int64_t)evalU(*model, *enc.params[i])
                                 : evalS(*model, *enc.params[i])});
  }
  Defect::Site site(const Thread &t, Operation *op, std::string access) {
    Defect::Site s;
    for (int i = 0; i < 3; ++i) {
      s.block[i] = evalU(*model, t.bid[i]);
      s.thread[i] = evalU(*model, t.tid[i]);
    }
    s.location = locationOf(op);
    s.access = std::move(access);
    return s;
  }
};

/// Whether the encoding of \p v may over-approximate: it reads an array the
/// kernel writes (a read of an input array is its exact initial content).
bool overApproxIn(KernelOp k, Value v) {
  llvm::SmallVector<Value> work{v};
  llvm::DenseSet<Value> seen;
  std::set<unsigned> written;
  for (Operation &o : k.getBlock())
    if (auto w = dyn_cast<WriteOp>(o))
      written.insert(cast<BlockArgument>(w.getArray()).getArgNumber());
  while (!work.empty()) {
    Value x = work.pop_back_val();
    if (!seen.insert(x).second)
      continue;
    Operation *d = x.getDefiningOp();
    if (!d)
      continue;
    if (auto r = dyn_cast<ReadOp>(d))
      if (written.count(cast<BlockArgument>(r.getArray()).getArgNumber()))
        return true;
    for (Value o : d->getOperands())
      work.push_back(o);
  }
  return false;
}

std::string coords(const uint64_t v[3]) {
  return "(" + std::to_string(v[0]) + "," + std::to_string(v[1]) + "," +
         std::to_string(v[2]) + ")";
}

std::string describe(const Defect &d) {
  std::string s = d.kernel + " kernel: " + d.kind;
  if (!d.array.empty())
    s += " on " + d.array + "[" + std::to_string(d.index) + "]";
  for (size_t i = 0; i < d.sites.size(); ++i) {
    const Defect::Site &x = d.sites[i];
    s += (i == 0 ? ": " : "; ") + std::string("thread ") + coords(x.thread) +
         " of block " + coords(x.block) + " " + x.access + " at " +
         x.location;
  }
  s += " (gridDim " + coords(d.gridDim) + ", blockDim " +
       coords(d.blockDim);
  for (auto &[n, v] : d.scalars)
    s += ", " + n + " = " + std::to_string(v);
  return s + ")";
}

} // namespace

bool checkSafety(KernelOp k, KernelOp paramSource, const char *label,
                 unsigned bits, const FactsFn &facts,
                 const std::function<unsigned()> &remainingMs,
                 CheckResult &result, bool loopsOnly) {
  auto start = [&](Query &q) {
    std::string err;
    std::optional<z3::expr> f = facts(q.enc, err);
    if (!f) {
      result.verdict = Verdict::Error;
      result.reason = err;
      return false;
    }
    q.enc.facts = *f;
    // Encoding past the overall deadline throws EncodeTimeout: the check
    // as a whole is out of time.
    if (unsigned ms = remainingMs())
      q.enc.deadline =
          std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
    q.enc.pinDetermined();
    q.t1 = &q.enc.freshThread(nullptr, 0);
    q.t2 = &q.enc.freshThread(nullptr, 0);
    return true;
  };
  // A check the solver cannot decide within its budget leaves its property
  // as a stated assumption; a construct without an encoding stops.
  std::vector<std::string> proved, assumed;
  auto undecided = [&](Query &q, const std::string &what) {
    if (!q.enc.unsupported.empty()) {
      result.verdict = Verdict::Unsupported;
      result.reason = std::string(label) + " kernel: " + what +
                      ": kv construct without an encoding: " +
                      q.enc.unsupported;
      return false;
    }
    assumed.push_back(what);
    return true;
  };
  // A defect seen only through values read from arrays may be an artefact
  // of the over-approximated reads.
  auto report = [&](Query &q, Verdict v, Defect d, bool dataDependent) {
    d.kernel = label;
    q.fillLaunch(d);
    if (dataDependent) {
      result.verdict = Verdict::Unknown;
      result.possibleDefect = true;
      result.reason = "possible " + describe(d) +
                      "; it depends on array contents and is not confirmed";
      return false;
    }
    result.verdict = v;
    result.reason = describe(d);
    result.defect = std::move(d);
    return false;
  };

  // Each query gets a few seconds (within the overall deadline).
  auto budget = [&]() -> std::function<unsigned()> {
    return Portfolio::capped(remainingMs,
                             std::chrono::milliseconds(safetyBudgetMs));
  };
  std::vector<Access> accesses;
  std::vector<BarrierOp> guardedBarriers;
  {
    KernelModel km(k, label);
    for (Operation &o : k.getBlock()) {
      if (auto r = dyn_cast<ReadOp>(o))
        accesses.push_back({&o, cast<BlockArgument>(r.getArray()).getArgNumber(),
                            false, km.intervalOf.lookup(&o), r.getIndex(),
                            r.getGuard()});
      else if (auto w = dyn_cast<WriteOp>(o))
        accesses.push_back({&o, cast<BlockArgument>(w.getArray()).getArgNumber(),
                            true, km.intervalOf.lookup(&o), w.getIndex(),
                            w.getGuard()});
      else if (auto b = dyn_cast<BarrierOp>(o))
        if (b.getGuard())
          guardedBarriers.push_back(b);
    }
  }
  auto overApprox = [&](Value v, llvm::StringRef) {
    return overApproxIn(k, v);
  };
  auto isShared = [&](unsigned arg) {
    return isa<SharedArrayType>(k.getBlock().getArgument(arg).getType());
  };

  // 1. Out-of-bounds accesses to fixed-size shared arrays.
  if (!loopsOnly) {
    Query q(k, paramSource, label, bits);
    q.enc.assumeInBounds = false;
    if (!start(q))
      return false;
    std::vector<std::pair<const Access *, z3::expr>> conds;
    z3::expr any = q.ctx.bool_val(false);
    for (const Access &a : accesses) {
      auto sh = dyn_cast<SharedArrayType>(
          k.getBlock().getArgument(a.arg).getType());
      if (!sh || sh.getSize() <= 0)
        continue;
      z3::expr c = q.access(a.op, *q.t1) &&
                   z3::uge(q.index(a.index, *q.t1),
                           q.ctx.bv_val((uint64_t)sh.getSize(),
                                        Encoder::indexBits));
      conds.push_back({&a, c});
      any = any || c;
    }
    if (!conds.empty()) {
      z3::check_result r = q.solve(any, budget());
      if (r == z3::unknown && !undecided(q, "in-bounds shared-array accesses"))
        return false;
      if (r == z3::unsat)
        proved.push_back("in-bounds shared-array accesses");
      if (r == z3::sat)
        for (auto &[a, c] : conds) {
          if (!q.model->eval(c, true).is_true())
            continue;
          auto sh = cast<SharedArrayType>(
              k.getBlock().getArgument(a->arg).getType());
          Defect d;
          d.kind = "out-of-bounds " + std::string(a->write ? "write" : "read") +
                   " (the array has " + std::to_string(sh.getSize()) +
                   " elements)";
          d.array = k.getArgName(a->arg).str();
          d.index = evalS(*q.model, q.index(a->index, *q.t1));
          d.sites.push_back(q.site(*q.t1, a->op, a->write ? "writes" : "reads"));
          bool dep = overApprox(a->index, "") || overApprox(a->guard, "");
          return report(q, Verdict::OutOfBounds, std::move(d), dep);
        }
    }
  }

  // 2. Barrier divergence: two threads of a block disagree on a barrier's
  // condition. A condition a whole block may fail is not modelled.
  for (BarrierOp b : loopsOnly ? std::vector<BarrierOp>() : guardedBarriers) {
    Query q(k, paramSource, label, bits);
    if (!start(q))
      return false;
    z3::expr c = q.enc.sameBlock(*q.t1, *q.t2) && q.guard(b.getGuard(), *q.t1) &&
                 !q.guard(b.getGuard(), *q.t2);
    z3::check_result r = q.solve(c, budget());
    if (r == z3::unknown) {
      if (!undecided(q, "no barrier divergence"))
        return false;
      continue;
    }
    if (r == z3::sat) {
      Defect d;
      d.kind = "barrier divergence";
      d.sites.push_back(q.site(*q.t1, b, "reaches the barrier"));
      d.sites.push_back(q.site(*q.t2, b, "does not reach the barrier"));
      return report(q, Verdict::Divergence, std::move(d),
                    overApprox(b.getGuard(), ""));
    }
    Query all(k, paramSource, label, bits);
    if (!start(all))
      return false;
    r = all.solve(!all.guard(b.getGuard(), *all.t1), budget());
    if (r != z3::unsat) {
      result.verdict = Verdict::Unsupported;
      result.reason = std::string(label) + " kernel: " + locationOf(b) +
                      ": __syncthreads() under a condition that a whole block "
                      "may skip";
      return false;
    }
  }

  // 3. Loops with a symbolic trip count: the kv.iter model is the loop's
  // iterations when the step is positive, the loop stops within 2^31
  // iterations, and the induction variable does not wrap before it ends.
  for (Operation &o : k.getBlock()) {
    auto it = dyn_cast<IterOp>(o);
    if (!it)
      continue;
    Query q(k, paramSource, label, bits);
    if (!start(q))
      return false;
    const Thread &t = *q.t1;
    auto v = [&](Value x) {
      return z3::sext(q.enc.value(q.km, x, t), 64); // 128 bits: exact
    };
    bool sgn = it.isSigned();
    z3::expr lb = v(it.getLb()), step = v(it.getStep()), bound = v(it.getBound());
    if (!sgn) {
      auto u = [&](Value x) { return z3::zext(q.enc.value(q.km, x, t), 64); };
      lb = u(it.getLb());
      step = u(it.getStep());
      bound = u(it.getBound());
    }
    auto pred = [&](const z3::expr &x) {
      return it.isStrict() ? (sgn ? x < bound : z3::ult(x, bound))
                           : (sgn ? x <= bound : z3::ule(x, bound));
    };
    z3::expr zero = q.ctx.bv_val(0, 128);
    z3::expr bad = step <= zero ||
                   pred(lb + q.ctx.bv_val(uint64_t(1) << 31, 128) * step);
    std::string what = "positive step, fewer than 2^31 iterations";
    // The first value tested (iteration 1's for a do-while).
    z3::expr first = it.getDoWhile() ? lb + step : lb;
    if (it.getFromNe()) {
      // The source tests x != bound: the first value tested is at most
      // bound, which the steps reach exactly.
      bad = bad || first > bound || z3::urem(bound - first, step) != zero;
      what += ", reaching its bound exactly (x != bound)";
    }
    if (auto w = it.getWidth()) {
      // The first value past the bound still fits in the variable, and so
      // does the first value tested: the model's 64-bit test is then the
      // program's w-bit one.
      uint64_t bitsW = *w;
      llvm::APInt max = sgn ? llvm::APInt::getSignedMaxValue(bitsW)
                            : llvm::APInt::getMaxValue(bitsW);
      z3::expr min = sgn ? -q.ctx.bv_val(uint64_t(1) << (bitsW - 1), 128)
                         : zero;
      z3::expr past = bound + step - (it.isStrict() ? q.ctx.bv_val(1, 128) : zero);
      z3::expr top = q.ctx.bv_val(max.getZExtValue(), 128);
      bad = bad || past > top || first < min || first > top;
      what += ", no wraparound";
    }
    z3::expr g = q.enc.value(q.km, it.getGuard(), t);
    z3::check_result r = q.solve((g.is_bool() ? g : g == q.ctx.bv_val(1, 1)) &&
                                     bad,
                                 budget());
    std::string site = "a countable loop at " + locationOf(it) + " (" + what + ")";
    if (r == z3::unknown && !undecided(q, site))
      return false;
    if (r == z3::unsat)
      proved.push_back(site);
    if (r == z3::sat) {
      Defect d;
      d.kernel = label;
      q.fillLaunch(d);
      d.kind = "loop that the model cannot count";
      d.sites.push_back(q.site(t, it, "enters it"));
      result.verdict = Verdict::Unsupported;
      result.reason = describe(d) + "; the model needs a " + what +
                      " (an --assume that bounds the loop helps)";
      return false;
    }
  }

  // 3b. Conditions the lowering's model relies on (kv.prove): a staged
  // shared-memory read in a barrier loop is served by the writer the
  // lowering picked, and stays in bounds.
  // One entry per condition, with its distinct source locations.
  using Sites = std::vector<std::pair<std::string, std::vector<std::string>>>;
  Sites provedAt, assumedAt;
  auto note = [](Sites &to, std::string what, std::string where) {
    auto it = llvm::find_if(to, [&](auto &e) { return e.first == what; });
    if (it == to.end())
      it = to.insert(to.end(), {what, {}});
    if (!llvm::is_contained(it->second, where))
      it->second.push_back(where);
  };
  for (Operation &o : k.getBlock()) {
    auto pr = dyn_cast<ProveOp>(o);
    if (!pr)
      continue;
    Query q(k, paramSource, label, bits);
    if (!start(q))
      return false;
    const Thread &t = *q.t1;
    z3::expr c = q.enc.value(q.km, pr.getCond(), t);
    if (!c.is_bool())
      c = c == q.ctx.bv_val(1, 1);
    z3::check_result r = q.solve(!c, budget());
    if (r == z3::unknown) {
      if (!q.enc.unsupported.empty())
        return undecided(q, pr.getWhat().str());
      note(assumedAt, pr.getWhat().str(), locationOf(pr));
    }
    if (r == z3::unsat)
      note(provedAt, pr.getWhat().str(), locationOf(pr));
    if (r == z3::sat) {
      Defect d;
      d.kernel = label;
      q.fillLaunch(d);
      d.kind = "model condition that fails";
      d.sites.push_back(q.site(t, pr, "breaks it"));
      result.verdict = Verdict::Unsupported;
      result.reason = describe(d) + ": " + pr.getWhat().str();
      return false;
    }
  }
  for (auto [from, to] : {std::pair{&provedAt, &proved}, {&assumedAt, &assumed}})
    for (auto &[what, locs] : *from)
      to->push_back(what + " at " + llvm::join(locs, ", "));

  // 4. Data races.
  if (!loopsOnly) {
    struct Pair {
      const Access *a, *b;
      z3::expr cond;
    };
    // Two accesses of threads t1 and t2 that conflict: same cell, one a
    // write, not ordered by a barrier or program order.
    auto conflicts = [&](Query &q) {
      z3::expr sameBlock = q.enc.sameBlock(*q.t1, *q.t2);
      std::vector<Pair> pairs;
      for (size_t i = 0; i < accesses.size(); ++i)
        for (size_t j = i; j < accesses.size(); ++j) {
          const Access &a = accesses[i], &b = accesses[j];
          if (a.arg != b.arg || (!a.write && !b.write))
            continue;
          // One thread at one iteration of the loops both accesses are in
          // is ordered by program order; iterations of a loop are not (a
          // loop that writes a cell twice is reported like a race).
          std::vector<Operation *> common;
          for (Operation *l : q.km.itersOf(a.op))
            if (llvm::is_contained(q.km.itersOf(b.op), l))
              common.push_back(l);
          z3::expr same = q.enc.sameInstance(*q.t1, *q.t2, common);
          z3::expr order = q.ctx.bool_val(true);
          if (isShared(a.arg)) {
            if (a.interval != b.interval)
              continue;
            order = sameBlock && !same;
          } else {
            order = a.interval == b.interval ? !same : !sameBlock;
          }
          z3::expr i1 = q.index(a.index, *q.t1), i2 = q.index(b.index, *q.t2);
          z3::expr c = order && q.access(a.op, *q.t1) &&
                       q.access(b.op, *q.t2) && i1 == i2;
          pairs.push_back({&a, &b, c});
        }
      return pairs;
    };
    // The conflicts that remain when two writes of the same value are
    // tolerated (GPUVerify's benign races: a 1-D kernel launched with
    // y > 1 is no defect).
    auto harmful = [](Query &q, std::vector<Pair> &pairs) {
      z3::expr any = q.ctx.bool_val(false);
      for (Pair &p : pairs) {
        if (p.a->write && p.b->write)
          p.cond =
              p.cond &&
              q.enc.value(q.km, cast<WriteOp>(p.a->op).getValue(), *q.t1) !=
                  q.enc.value(q.km, cast<WriteOp>(p.b->op).getValue(), *q.t2);
        any = any || p.cond;
      }
      return any;
    };
    Query q(k, paramSource, label, bits);
    if (!start(q))
      return false;
    std::vector<Pair> pairs = conflicts(q);
    z3::expr any = q.ctx.bool_val(false);
    for (Pair &p : pairs)
      any = any || p.cond;
    if (!pairs.empty()) {
      // First without the written values: most kernels have no conflicting
      // accesses at all, and the values pull in every read behind them.
      z3::check_result r = q.solve(any, budget());
      if (r == z3::sat) {
        // Threads that differ only in ids the kernel never reads (a 1-D
        // kernel's blocks along y) do the same from the same memory: by
        // induction over the intervals their writes carry equal values.
        // Outside loops only (elsewhere their iterations may differ).
        std::set<std::string> used;
        k.walk([&](SRegOp op) { used.insert(op.getName().str()); });
        z3::expr symmetric = q.ctx.bool_val(true);
        for (int i = 0; i < 3; ++i) {
          std::string axis(1, "xyz"[i]);
          if (used.count("tid." + axis))
            symmetric = symmetric && q.t1->tid[i] == q.t2->tid[i];
          if (used.count("bid." + axis))
            symmetric = symmetric && q.t1->bid[i] == q.t2->bid[i];
        }
        z3::expr asym = q.ctx.bool_val(false);
        for (Pair &p : pairs) {
          bool plain = p.a->write && p.b->write &&
                       q.km.itersOf(p.a->op).empty() &&
                       q.km.itersOf(p.b->op).empty();
          asym = asym || (plain ? p.cond && !symmetric : p.cond);
        }
        r = q.solve(asym, budget());
      }
      if (r == z3::sat) {
        // The values with the memory each interval starts from one
        // uninterpreted function (the threads read the same memory): equal
        // for every content is equal for the real one, and no read chain
        // is built. Otherwise the exact values decide.
        Query u(k, paramSource, label, bits);
        if (!start(u))
          return false;
        // Per kernel: the before kernel's preconditions read its own
        // memory, not the after kernel's.
        u.enc.readHook = [&u](KernelModel &km, unsigned arg, int interval,
                              const z3::expr &index, const Thread &t) {
          return u.enc.intervalState("state." + km.label, km, arg, interval,
                                     index, t);
        };
        std::vector<Pair> upairs = conflicts(u);
        if (u.solve(harmful(u, upairs), budget()) == z3::unsat) {
          r = z3::unsat;
        } else {
          any = harmful(q, pairs);
          r = q.solve(any, budget());
        }
      }
      if (r == z3::unknown && !undecided(q, "no data race"))
        return false;
      if (r == z3::unsat)
        proved.push_back("no data race (writes of equal values tolerated)");
      if (r == z3::sat)
        for (Pair &p : pairs) {
          if (!q.model->eval(p.cond, true).is_true())
            continue;
          Defect d;
          d.kind = p.a->write && p.b->write
                       ? "write-write race (different values)"
                       : "read-write race";
          d.array = k.getArgName(p.a->arg).str();
          d.index = evalS(*q.model, q.index(p.a->index, *q.t1));
          d.sites.push_back(
              q.site(*q.t1, p.a->op, p.a->write ? "writes" : "reads"));
          d.sites.push_back(
              q.site(*q.t2, p.b->op, p.b->write ? "writes" : "reads"));
          bool dep = false;
          for (const Access *x : {p.a, p.b}) {
            dep |= overApprox(x->index, "") ||
                   overApprox(x->guard, "");
            if (p.a->write && p.b->write)
              dep |= overApprox(cast<WriteOp>(x->op).getValue(), "");
          }
          return report(q, Verdict::Race, std::move(d), dep);
        }
    }
  }
  if (!loopsOnly && !guardedBarriers.empty() &&
      llvm::find(assumed, "no barrier divergence") == assumed.end())
    proved.push_back("no barrier divergence");
  if (!proved.empty())
    result.assumptions.push_back(std::string("checked: the ") + label +
                                 " kernel has " + llvm::join(proved, ", ") +
                                 " (proved)");
  if (!assumed.empty())
    result.assumptions.push_back(
        std::string("the ") + label + " kernel has " +
        llvm::join(assumed, ", ") +
        " (assumed: not proved within the solver's budget)");
  return true;
}

} // namespace kv
