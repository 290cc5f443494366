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
#include "equiv/SafetyCheck.h"
#include "smt-encode/Debug.h"
#include "smt-encode/Encoder.h"
#include "smt-encode/Executor.h"
#include "smt-encode/Solver.h"

#include "mlir/IR/Location.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <set>

using namespace mlir;

namespace kv {

// Z3's resource units per safety query and strategy. With 8M (about 3 s of
// the default solver on these machines) the tiled transpose's race query
// (`out[y2 * height + x2]`, 12M-16M units) ended `unknown`, its race
// freedom assumed rather than proved, and the before kernel's in
// lowering/vector-structs.cu (8.25M) was left to the slower strategy (12 s
// instead of 4.7 s).
unsigned safetyRlimit = 16000000;
unsigned safetyBudgetMs = 30000;

namespace safety {

std::string locationOf(Operation *op) {
  // A source line, where the op has one (inside a fused or call-site
  // location too); never MLIR's own text (`loc(unknown)`).
  if (auto f = op->getLoc()->findInstanceOf<FileLineColLoc>())
    return f.getFilename().str() + ":" + std::to_string(f.getLine()) + ":" +
           std::to_string(f.getColumn());
  return "";
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

z3::check_result Query::solve(const z3::expr &cond,
                              const std::function<unsigned()> &remainingMs,
                              bool readable) {
  auto s = std::make_unique<Portfolio>(ctx, remainingMs, solver);
  s->rlimit = safetyRlimit;
  s->add(enc.facts);
  z3::expr_vector products(ctx);
  products.push_back(enc.launchProducts());
  s->addLazy(products);
  s->add(cond);
  s->add(enc.side);
  z3::expr_vector all(ctx);
  all.push_back(cond);
  for (const Thread &t : enc.threads) {
    all.push_back(enc.threadFacts(t));
    all.push_back(enc.globalIndexFacts(t));
  }
  s->add(all);
  for (unsigned i = 0; i < enc.side.size(); ++i)
    all.push_back(enc.side[i]);
  s->add(enc.indexLemmas(all, /*exactFits=*/true));
  if (!enc.unsupported.empty())
    return z3::unknown;
  if (std::string path = dumpPath("safety"); !path.empty())
    dumpTo(path, s->to_smt2());
  auto t0 = std::chrono::steady_clock::now();
  // A model of the abstracted query that gets a product wrong would be
  // refined product by product, each round bit-blasting more multipliers
  // (seconds). Where the query holds at the sample launch, whose numerals
  // make the products linear, a model there is found at once (and is
  // small, so readable).
  bool unrefined = false;
  // The query with the sample point's values pinned (the launch's only, or
  // the scalars' too) for at most \p cap: true with `model` set when sat.
  auto satAtSample = [&](bool launchOnly, std::chrono::seconds cap) {
    const auto &[vars, vals] = enc.samplePoint();
    if (vars.empty())
      return false;
    std::vector<Encoder::LaunchVar> launch = enc.launchVars();
    s->push();
    for (unsigned i = 0; i < vars.size(); ++i)
      if (!launchOnly || llvm::none_of(launch, [&](const auto &x) {
            return x.dim < 0 && z3::eq(x.sym, vars[i]);
          }))
        s->add(vars[i] == vals[i]);
    s->setRemaining(Portfolio::capped(remainingMs, cap));
    bool sat = s->checkRefined(enc.abstracted) == z3::sat;
    if (sat)
      model = s->get_model();
    s->pop();
    s->setRemaining(remainingMs);
    return sat;
  };
  // The launch pinned (its products then linear), the scalars free: a loop
  // that may wrap around usually does at any launch for some n, found at
  // once where the whole query may run out of its budget.
  bool atSample =
      sampleLaunchFirst && satAtSample(true, std::chrono::seconds(1));
  z3::check_result r =
      atSample ? z3::sat
               : s->checkRefined(enc.abstracted, [&](const z3::model &m) {
                   for (const auto &[app, precise] : enc.abstracted)
                     if (!z3::eq(m.eval(app, true), m.eval(precise, true)))
                       return unrefined = true;
                   return false;
                 });
  if (r == z3::sat && unrefined) {
    atSample = satAtSample(false, std::chrono::seconds(2));
    if (!atSample)
      r = s->checkRefined(enc.abstracted);
  }
  if (debugEnabled("safety"))
    llvm::errs() << km.label << " safety query: "
                 << (r == z3::sat     ? "sat"
                     : r == z3::unsat ? "unsat"
                                      : "unknown")
                 << " after "
                 << std::chrono::duration<double, std::milli>(
                        std::chrono::steady_clock::now() - t0)
                        .count()
                 << " ms\n";
  last.reset();
  if (r != z3::sat)
    return r;
  if (!atSample)
    model = s->get_model();
  last = std::move(s);
  madeReadable = atSample;
  if (readable)
    makeReadable(ctx.bool_val(true));
  return r;
}

void Query::makeReadable(const z3::expr &focus) {
  if (!last || madeReadable)
    return;
  madeReadable = true;
  // A small grid (and block) makes a readable report. Only the tiers below
  // the one the model is in already can make it smaller.
  const std::vector<z3::expr> &gdim = enc.gdimOf(km.launch),
                              &bdim = enc.bdimOf(km.launch);
  unsigned w = gdim[0].get_sort().bv_size();
  auto within = [&](uint64_t lim) {
    for (int i = 0; i < 3; ++i)
      if (evalU(*model, gdim[i]) > lim ||
          evalU(*model, bdim[i]) > (i == 0 ? 1024 : lim))
        return false;
    return true;
  };
  for (uint64_t lim : {2, 4, 64}) {
    if (within(lim))
      break;
    last->push();
    last->add(focus);
    for (int i = 0; i < 3; ++i) {
      last->add(z3::ule(gdim[i], ctx.bv_val(lim, w)));
      last->add(z3::ule(bdim[i], ctx.bv_val(i == 0 ? 1024 : lim, w)));
    }
    bool found = last->checkRefined(enc.abstracted) == z3::sat;
    if (found)
      model = last->get_model();
    last->pop();
    if (found)
      break;
  }
}

void Query::fillLaunch(Defect &d) {
  for (int i = 0; i < 3; ++i) {
    // The defective kernel's launch (its own, where it has one).
    d.gridDim[i] = evalU(*model, enc.gdimOf(km.launch)[i]);
    d.blockDim[i] = evalU(*model, enc.bdimOf(km.launch)[i]);
  }
  for (unsigned i = 0; i < enc.params.size(); ++i)
    if (enc.params[i] && !enc.params[i]->is_array()) {
      d.scalars.push_back(
          {enc.paramNames[i], enc.paramUnsigned[i]
                                  ? (int64_t)evalU(*model, *enc.params[i])
                                  : evalS(*model, *enc.params[i])});
      if (enc.paramUnsigned[i])
        d.unsignedScalars.insert(enc.paramNames[i]);
    }
}

Defect::Site Query::site(const Thread &t, Operation *op, std::string access) {
  Defect::Site s;
  for (int i = 0; i < 3; ++i) {
    s.block[i] = evalU(*model, t.bid[i]);
    s.thread[i] = evalU(*model, t.tid[i]);
  }
  s.location = locationOf(op);
  s.access = std::move(access);
  return s;
}

OverApprox::OverApprox(KernelOp k) {
  for (Operation &o : k.getBlock())
    if (auto w = dyn_cast<WriteOp>(o))
      written.insert(cast<BlockArgument>(w.getArray()).getArgNumber());
}

bool OverApprox::operator()(Value v) {
  if (!v)
    return false;
  // Post-order over the operands: a value is decided once they are.
  llvm::SmallVector<std::pair<Value, bool>> stack{{v, false}};
  while (!stack.empty()) {
    auto [x, operandsDone] = stack.pop_back_val();
    if (memo.count(x))
      continue;
    Operation *d = x.getDefiningOp();
    if (!d) {
      memo[x] = false;
      continue;
    }
    if (auto r = dyn_cast<ReadOp>(d))
      if (written.count(cast<BlockArgument>(r.getArray()).getArgNumber())) {
        memo[x] = true;
        continue;
      }
    if (!operandsDone) {
      stack.push_back({x, true});
      for (Value o : d->getOperands())
        if (!memo.count(o))
          stack.push_back({o, false});
      continue;
    }
    memo[x] =
        llvm::any_of(d->getOperands(), [&](Value o) { return memo.lookup(o); });
  }
  return memo.lookup(v);
}

namespace {

std::string coords(const uint64_t v[3]) {
  return "(" + std::to_string(v[0]) + "," + std::to_string(v[1]) + "," +
         std::to_string(v[2]) + ")";
}

} // namespace

std::string describe(const Defect &d) {
  std::string s = d.kernel + " kernel: " + d.kind;
  if (!d.array.empty())
    s += " on " + d.array + "[" + std::to_string(d.index) + "]";
  for (size_t i = 0; i < d.sites.size(); ++i) {
    const Defect::Site &x = d.sites[i];
    s += (i == 0 ? ": " : "; ") + std::string("thread ") + coords(x.thread) +
         " of block " + coords(x.block) + " " + x.access +
         (x.location.empty() ? "" : " at " + x.location);
  }
  return s + " (" + describeLaunch(d) + ")";
}

std::string describeLaunch(const Defect &d) {
  std::string s =
      "gridDim " + coords(d.gridDim) + ", blockDim " + coords(d.blockDim);
  for (auto &[n, v] : d.scalars)
    s += ", " + n + " = " + scalarText(v, d.unsignedScalars.count(n));
  return s;
}

bool SafetyCheck::start(Query &q) {
  q.solver = solver;
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
}

bool SafetyCheck::undecided(Query &q, const std::string &what) {
  if (!q.enc.unsupported.empty()) {
    result.verdict = Verdict::Unsupported;
    result.reason = std::string(label) + " kernel: " + what +
                    ": kv construct without an encoding: " + q.enc.unsupported;
    return false;
  }
  assumed.push_back(what);
  return true;
}

bool SafetyCheck::report(Query &q, Verdict v, Defect d, bool dataDependent) {
  d.kernel = label;
  q.fillLaunch(d);
  // A thread of the witness in a loop the model does not count at this
  // launch: its iterations there are not the loop's own.
  bool uncounted = false;
  for (IterOp it : q.km.iterOps)
    for (const Thread *t : {q.t1, q.t2})
      if (it.getUncounted() && t &&
          q.model->eval(q.enc.uncountable(q.km, it, *t, true), true).is_true())
        uncounted = true;
  if (uncounted) {
    result.verdict = Verdict::Unknown;
    result.possibleDefect = true;
    result.reason = "possible " + describe(d) +
                    "; at this launch a loop the model does not count is "
                    "entered, and it is not confirmed";
    return false;
  }
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
}

std::function<unsigned()> SafetyCheck::budget() {
  unsigned ms = capMs ? std::min(capMs, safetyBudgetMs) : safetyBudgetMs;
  return Portfolio::capped(remainingMs, std::chrono::milliseconds(ms));
}

void SafetyCheck::collectAccesses() {
  KernelModel km(k, label);
  unsigned blockInterval = 0, gridInterval = 0;
  std::optional<unsigned> stream = printStreamArg(k);
  for (Operation &o : k.getBlock()) {
    if (auto r = dyn_cast<ReadOp>(o))
      accesses.push_back({&o, cast<BlockArgument>(r.getArray()).getArgNumber(),
                          false, km.intervalOf.lookup(&o), r.getIndex(),
                          r.getGuard(), blockInterval, gridInterval});
    else if (auto w = dyn_cast<WriteOp>(o);
             w && cast<BlockArgument>(w.getArray()).getArgNumber() == stream)
      continue; // each thread's records are its own: no race
    else if (w)
      accesses.push_back({&o, cast<BlockArgument>(w.getArray()).getArgNumber(),
                          true, km.intervalOf.lookup(&o), w.getIndex(),
                          w.getGuard(), blockInterval, gridInterval});
    else if (auto b = dyn_cast<BarrierOp>(o)) {
      if (b.getWarp())
        warpBarriers.push_back(b);
      else
        ++blockInterval;
      if (b.getGrid()) {
        ++gridInterval;
        gridBarriers.push_back(b);
      } else if (b.getGuard() && !b.getWarp())
        guardedBarriers.push_back(b);
    }
  }
}

bool SafetyCheck::dataDependentAccess() {
  return llvm::any_of(accesses, [&](const Access &a) {
    return overApproxOf(a.guard) || overApproxOf(a.index);
  });
}

void SafetyCheck::abstractReads(Query &q) {
  // Per kernel: the before kernel's preconditions read its own memory, not
  // the after kernel's.
  q.enc.readHook = [&q](KernelModel &km, unsigned arg, int interval,
                        const z3::expr &index, const Thread &t) {
    return q.enc.intervalState("state." + km.label, km, arg, interval, index,
                               t);
  };
}

bool SafetyCheck::overApprox(Value v, llvm::StringRef) {
  return overApproxOf(v);
}

bool SafetyCheck::isShared(unsigned arg) {
  return isa<SharedArrayType>(k.getBlock().getArgument(arg).getType());
}

void SafetyCheck::listProperties() {
  if (!loopsOnly && (!guardedBarriers.empty() || !gridBarriers.empty()) &&
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
  result.beforeSafetyProved |= !loopsOnly && !boundsAssumed &&
                               assumed.empty() && impliedByBounds.empty() &&
                               llvm::StringRef(label) == "before";
  if (!impliedByBounds.empty())
    result.assumptions.push_back(
        std::string("the ") + label + " kernel has " +
        llvm::join(impliedByBounds, ", ") +
        " (as it has no out-of-bounds shared access, assumed)");
}

} // namespace safety

bool checkSafety(KernelOp k, KernelOp paramSource, const char *label,
                 unsigned bits, const FactsFn &facts,
                 const std::function<unsigned()> &remainingMs,
                 CheckResult &result, bool loopsOnly,
                 const SolverSettings &solver, bool quiet, bool boundsAssumed) {
  safety::SafetyCheck sc{k,           paramSource, label,     bits,  facts,
                         remainingMs, result,      loopsOnly, solver};
  sc.quiet = quiet;
  sc.boundsAssumed = boundsAssumed;
  // Each step below starts with work that does not look at the clock (a
  // walk over every access of a kernel unrolled into thousands): none
  // starts once the budget is spent (1 ms left; 0 is no budget at all).
  auto checkBudget = [&] {
    if (remainingMs() == 1)
      throw EncodeTimeout{};
  };
  checkBudget();
  sc.collectAccesses();

  // 1. Out-of-bounds accesses to fixed-size shared arrays.
  checkBudget();
  if (!loopsOnly && !sc.checkBounds())
    return false;

  // 2. Barrier divergence: two threads of a block disagree on a barrier's
  // condition. A condition a whole block may fail is not modelled.
  checkBudget();
  if (!sc.checkDivergence() || !sc.checkShuffles() || !sc.checkVotes())
    return false;

  // 3. Loops with a symbolic trip count: the kv.iter model is the loop's
  // iterations when the step is positive, the loop stops within 2^31
  // iterations, and the induction variable does not wrap before it ends.
  checkBudget();
  if (!sc.checkLoops())
    return false;

  // 3b. Conditions the lowering's model relies on (kv.prove): a staged
  // shared-memory read in a barrier loop is served by the writer the
  // lowering picked, and stays in bounds.
  checkBudget();
  if (!sc.checkModelConditions())
    return false;

  // 4. Data races.
  checkBudget();
  if (!loopsOnly && !sc.checkRaces())
    return false;
  sc.listProperties();
  return true;
}

} // namespace kv
