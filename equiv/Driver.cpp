//===- Driver.cpp - one validation pipeline for every front door ----------===//

#include "equiv/Driver.h"
#include "equiv/Assumptions.h"
#include "equiv/RandomRuns.h"
#include "kv/Budget.h"
#include "passes/lower/LowerToKV.h"
#include "smt-encode/Debug.h"
#include "smt-encode/Stats.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <functional>

using namespace llvm;

namespace kv {

CheckOptions checkOptionsFor(const Options &opts) {
  CheckOptions o;
  o.bits = opts.bits;
  o.timeoutSecs = opts.timeoutSecs;
  o.hugeGrids = opts.hugeGrids;
  o.assumeSafe = !opts.safetyChecks;
  o.assumptions = opts.assumptions;
  o.assumptionSources = opts.assumptionSources;
  o.lockstep = !opts.noLockstep;
  o.preciseProducts = opts.preciseProducts;
  o.solver = opts.solver;
  o.seed = opts.seed;
  o.realFloats = opts.fp == "real";
  return o;
}

static std::vector<std::string> namesOf(KernelInput in) {
  if (in.function)
    return parameterNames(*in.function);
  std::vector<std::string> names;
  for (mlir::Attribute n : in.kernel.getArgNames())
    names.push_back(cast<mlir::StringAttr>(n).getValue().str());
  return names;
}

/// The launch \p f declares: at most N threads in a block
/// (`__launch_bounds__(N)`, nvvm.maxntid) or exactly a block's shape
/// (nvvm.reqntid, MLIR's known_block_size), as assumptions. CUDA refuses
/// other launches, so they are no executions of the kernel; a run there
/// would confirm a defect no launch can show.
static std::vector<std::pair<std::string, std::string>>
declaredLaunch(const llvm::Function &f) {
  std::vector<std::pair<std::string, std::string>> out;
  auto dims = [&](StringRef key) {
    SmallVector<uint64_t, 3> d;
    Attribute a = f.getFnAttribute(key);
    if (!a.isValid() || !a.isStringAttribute())
      return d;
    SmallVector<StringRef, 3> parts;
    a.getValueAsString().split(parts, ',');
    for (StringRef p : parts) {
      uint64_t v;
      if (p.trim().getAsInteger(10, v) || v == 0 || d.size() == 3)
        return SmallVector<uint64_t, 3>();
      d.push_back(v);
    }
    return d;
  };
  static const char *axis[] = {"x", "y", "z"};
  if (SmallVector<uint64_t, 3> req = dims("nvvm.reqntid"); !req.empty()) {
    std::string a;
    for (unsigned i = 0; i < 3; ++i)
      a += std::string(i ? " && " : "") + "blockDim." + axis[i] +
           " == " + std::to_string(i < req.size() ? req[i] : 1);
    out.push_back({a, "the block shape (nvvm.reqntid)"});
  }
  if (SmallVector<uint64_t, 3> max = dims("nvvm.maxntid"); !max.empty()) {
    uint64_t n = 1;
    for (uint64_t v : max)
      n *= v;
    if (n < 1024)
      out.push_back(
          {"blockDim.x * blockDim.y * blockDim.z <= " + std::to_string(n),
           "the largest block (__launch_bounds__, nvvm.maxntid)"});
  }
  return out;
}

Driver::Driver(KernelInput before, KernelInput after, mlir::ModuleOp scratch,
               const Options &opts)
    : before(std::move(before)), after(std::move(after)), scratch(scratch),
      opts(opts) {
  beforeNames = namesOf(this->before);
  afterNames = namesOf(this->after);
  // Each kernel's declared launch: a launch outside either one's fails, so
  // the pair agrees on every launch that runs both (the verdict lists
  // them, and which kernel declares each).
  std::map<std::string, std::pair<std::string, unsigned>> declared;
  for (KernelInput *in : {&this->before, &this->after})
    if (in->function)
      for (auto &[a, what] : declaredLaunch(*in->function)) {
        auto &d = declared[a];
        d.first = what;
        d.second |= in == &this->before ? 1 : 2;
      }
  // With launches of their own, the user's launches are the kernels'.
  if (ownLaunches())
    declared.clear();
  if (!addLaunchAssumptions(launchError))
    declared.clear();
  for (auto &[a, d] : declared) {
    if (llvm::is_contained(this->opts.assumptions, a))
      continue;
    this->opts.assumptions.push_back(a);
    this->opts.assumptionSources[a] =
        d.first + " that " +
        (d.second == 3   ? "both kernels declare"
         : d.second == 1 ? "the before kernel declares"
                         : "the after kernel declares");
  }
}

/// Scalar parameters are matched by position; cases are named by the before
/// kernel's parameters. Launch dimensions keep their names.
std::string Driver::translateName(const std::string &name, bool toAfter) const {
  const std::vector<std::string> &from = toAfter ? beforeNames : afterNames;
  const std::vector<std::string> &to = toAfter ? afterNames : beforeNames;
  for (size_t i = 0; i < from.size() && i < to.size(); ++i)
    if (from[i] == name)
      return to[i];
  return name;
}

/// The bounded search's plan: whether lowering the pair with loops unrolled
/// \p bound times cuts a loop (a `kv.assume {bound}`; only then can the
/// search see more than the proof did), and the small domains it gives the
/// before kernel's integer scalars (0..32), so that loops whose trip count
/// they fix split into cases, each unrolled exactly: a barrier loop cut at
/// the bound would leave a barrier a whole block may skip.
std::optional<std::vector<std::string>> Driver::planHunt(unsigned bound) {
  std::vector<std::string> splitOn;
  KernelOp signature;
  CheckResult failure;
  std::optional<LoweredPair> pair =
      lowerPair({}, bound, /*reportSplit=*/false, splitOn, signature, failure);
  if (!pair)
    return std::nullopt;
  bool cut = false;
  for (KernelOp k : {pair->before, pair->after})
    k.walk([&](AssumeOp a) {
      if (a.getBound())
        cut = true;
    });
  std::vector<std::string> domains;
  KernelOp b = pair->before;
  // Each domain is kept only if the assumptions and the domains before it
  // still admit a launch: 0..32 against n == 100 would leave no case.
  CheckOptions co = checkOptionsFor(opts);
  for (mlir::BlockArgument a : b.getBlock().getArguments()) {
    if (!isa<mlir::IntegerType>(a.getType()))
      continue;
    std::string name = b.getArgName(a.getArgNumber()).str();
    co.assumptions.push_back(b.isUnsignedParam(name)
                                 ? name + " <= 32"
                                 : name + " >= 0 && " + name + " <= 32");
    CheckResult ignored;
    if (admitsLaunch(b, co, ignored))
      domains.push_back(co.assumptions.back());
    else
      co.assumptions.pop_back();
  }
  pair->before.erase();
  pair->after.erase();
  if (!cut)
    return std::nullopt;
  return domains;
}

/// The budget of an exact unrolling when the check has none.
static constexpr unsigned exactSecs = 30;
static constexpr unsigned exactMaxThreads = 40;
/// The attempt with constant-trip-count loops modelled as loops gets a third
/// of the budget, at most modelledLoopsSecs, and modelledLoopsFreeSecs when
/// the check has none, before the unrolled model's turn: where it proves,
/// it does so in 2-15 s idle (a 2-D coarsening's digits), twice that on a
/// loaded machine, and the unrolled model of such a loop seldom proves.
static constexpr unsigned modelledLoopsSecs = 60;
/// The least budget under which the command line (safety checks on)
/// splits it for the relational proof.
static constexpr unsigned relationalSplitMinSecs = 30;
static constexpr unsigned modelledLoopsFreeSecs = 30;

bool loopNotCounted(StringRef reason) {
  return reason.contains("loop whose trip count is not a constant") ||
         reason.contains("loop whose trip count depends on");
}

/// A number of iterations, at most --unroll-exact, to which every loop the
/// model cannot count may be unrolled with a proof that it stops by then
/// (kv.prove at the cut). The largest bound is proved first; then runs at
/// large launches find the smallest bound no run breaks (doubling from 4,
/// then bisecting; a probe that fails by running stops at its first broken
/// launch, far cheaper than a solver's probe), and the solver proves that one,
/// searching upward only where it finds a longer launch than the runs did.
/// A tight bound keeps the equivalence query free of iterations no launch
/// reaches.
std::optional<unsigned> Driver::exactBound(const CheckOptions &co) {
  CheckOptions mo = co;
  mo.modelConditionsOnly = true;
  // 1: the models are exact with this bound (by running: no run breaks
  // it); 0: a loop runs longer (or the models fail for another reason);
  // 2: undecided in the probe's budget; -1: the pair does not lower.
  auto holds = [&](unsigned k, bool runOnly) -> int {
    std::vector<std::string> splitOn;
    KernelOp signature;
    CheckResult failure;
    std::optional<LoweredPair> pair =
        lowerPair({}, k, /*reportSplit=*/false, splitOn, signature, failure,
                  /*exact=*/true);
    if (!pair)
      return -1;
    llvm::scope_exit erase([&] {
      pair->before.erase();
      pair->after.erase();
    });
    // A tightening probe that fails usually fails at the largest launch:
    // running there takes milliseconds where the solver's search for it
    // takes seconds (and may run out of the probe's budget).
    bool failsByRunning;
    {
      stats::Scoped timer("bound-runs");
      failsByRunning = modelConditionFailsByRunning(pair->before, mo) ||
                       modelConditionFailsByRunning(pair->after, mo);
    }
    if ((k < opts.unrollExact || runOnly) && failsByRunning) {
      KV_DEBUG("driver", llvm::errs()
                             << "unroll-exact " << k << ": fails by running\n");
      return 0;
    }
    if (runOnly) {
      KV_DEBUG("driver", llvm::errs()
                             << "unroll-exact " << k << ": runs hold\n");
      return 1;
    }
    // The first probe is the bound itself: a run that breaks it (a loop
    // over a scalar count, most often) leaves the solver a short budget
    // rather than none, as the launch run may break an in-kernel
    // assumption only in iterations past the bound, which the unrolled
    // model does not run. (Undecided, the probe costs 2 s, not 10.)
    CheckOptions po = mo;
    if (failsByRunning) {
      po.timeoutSecs = po.timeoutSecs ? std::min(po.timeoutSecs, 2u) : 2u;
      KV_DEBUG("driver", llvm::errs() << "unroll-exact " << k
                                      << ": broken by running; the solver's "
                                         "probe gets 2 s\n");
    }
    CheckResult r = checkEquivalence(pair->before, pair->after, po);
    // A bound kept only as an assumption (not proved in the budget) is no
    // proof that the unrolling is exact.
    bool assumed = any_of(r.assumptions, [](const std::string &a) {
      return StringRef(a).contains("(assumed: not proved");
    });
    int h = r.verdict == Verdict::Equivalent && !assumed ? 1
            : assumed || r.verdict == Verdict::Unknown   ? 2
                                                         : 0;
    KV_DEBUG("driver", llvm::errs() << "unroll-exact " << k << ": "
                                    << (h == 1 ? "holds"
                                        : h    ? "undecided"
                                               : "fails")
                                    << " after " << (int)r.timeMs
                                    << " ms: " << r.reason << "\n");
    return h;
  };
  // The largest bound first: most loops the model cannot count (over a
  // scalar n) have no bound, and one probe says so.
  auto cap = [&](unsigned secs) {
    mo.timeoutSecs = co.timeoutSecs ? std::min(co.timeoutSecs, secs) : secs;
  };
  cap(10);
  unsigned lo = 0, hi = opts.unrollExact; // lo fails (0: none tried), hi holds
  if (holds(hi, false) != 1)
    return std::nullopt;
  // The smallest bound that no run breaks, between lo and hi.
  auto bisect = [&](unsigned lo, unsigned hi, bool runOnly) -> unsigned {
    for (unsigned k = 4; k < hi; k *= 2) {
      if (k <= lo)
        continue;
      int h = holds(k, runOnly);
      if (h < 0)
        return hi;
      if (h == 2)
        continue; // a larger bound may still be proved quickly
      (h ? hi : lo) = k;
      if (h)
        break;
    }
    while (hi - lo > 1) {
      unsigned mid = lo + (hi - lo) / 2;
      int h = holds(mid, runOnly);
      if (h < 0 || h == 2)
        break;
      (h ? hi : lo) = mid;
    }
    return hi;
  };
  unsigned ran = bisect(lo, hi, /*runOnly=*/true);
  if (ran == hi)
    return hi;
  // Tightening is worth a few seconds, not more: a probe that runs out of
  // its short budget ends it (the bound proved stays), as larger unrolled
  // models only get harder.
  cap(3);
  int h = holds(ran, false);
  if (h == 1)
    return ran;
  if (h < 0)
    return hi;
  // The solver found a longer launch than the runs (0), or ran out (2):
  // the proved bounds lie above.
  return bisect(ran, hi, /*runOnly=*/false);
}

/// The verdict after the bounded search \p hunt (with the scalar domains
/// \p domains) that followed the undecided \p proof: a replayed
/// counterexample of the search settles it; anything else leaves the
/// proof's verdict, with what the search saw.
Validation Driver::mergeHunt(CheckResult proof, CheckResult hunt,
                             unsigned bound,
                             const std::vector<std::string> &domains) {
  std::string search = "the bounded search (--hunt) with loops unrolled " +
                       std::to_string(bound) + " times";
  if (!domains.empty())
    search += " and " + join(domains, ", ");
  Validation v;
  if (hunt.verdict == Verdict::NotEquivalent && hunt.counterexample &&
      hunt.counterexample->replayed) {
    // The counterexample satisfies the search's domains and bound: they are
    // not assumptions of the verdict.
    erase_if(hunt.assumptions, [&](const std::string &a) {
      return StringRef(a).starts_with("bounded: loops with a symbolic") ||
             any_of(domains, [&](const std::string &d) {
               return a == d + " (--assume)";
             });
    });
    v.foundBy = search + ", after the proof ended " +
                std::string(verdictName(proof.verdict)) + ": " + proof.reason;
    v.loweredUnroll = bound;
    hunt.timeMs += proof.timeMs;
    v.result = std::move(hunt);
    return v;
  }
  if (hunt.verdict == Verdict::EquivalentUpToBound ||
      hunt.verdict == Verdict::Equivalent)
    proof.reason += "; " + search + " found no counterexample";
  else
    proof.reason += "; " + search + " ended " +
                    std::string(verdictName(hunt.verdict)) + ": " + hunt.reason;
  proof.timeMs += hunt.timeMs;
  v.result = std::move(proof);
  return v;
}

Validation
Driver::validateUnbounded(const std::optional<LaunchConfig> &launch) {
  using Clock = std::chrono::steady_clock;
  Clock::time_point start = Clock::now();
  // The verdict's time is all of it: bound probes, a second attempt with
  // loops unrolled exactly, and the bounded search included.
  auto total = [&](Validation v) {
    // A counterexample as small as still shows the difference: a launch of
    // 65475 x 65531 cells is replayed but nobody can look at it.
    if (v.result.verdict == Verdict::NotEquivalent && v.result.counterexample &&
        !launch && !ownLaunches())
      shrink(v);
    v.result.timeMs =
        std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    return v;
  };
  if (!launchError.empty() || (launch && ownLaunches())) {
    Validation v;
    v.result.verdict = Verdict::Error;
    v.result.reason = !launchError.empty()
                          ? launchError
                          : "--launch-before/--launch-after and the "
                            "baseline's launch (--threads, --block, --grid) "
                            "are alternatives";
    return total(std::move(v));
  }
  if (std::optional<Validation> v = checkFrontDoorMarks())
    return total(std::move(*v));
  CheckOptions co = checkOptionsFor(opts);
  co.beforeIR = before.function;
  co.afterIR = after.function;
  co.beforeIRIsSource = before.isSource;
  co.afterIRIsSource = after.isSource;
  unsigned timeout = opts.timeoutSecs;
  // A concrete launch fixes the dimensions for the lowering too.
  Case initial;
  if (launch)
    for (int i = 0; i < 3; ++i) {
      std::string ax = std::string(".") + "xyz"[i];
      initial.push_back({"blockDim" + ax, (int64_t)launch->block[i]});
      initial.push_back({"gridDim" + ax, (int64_t)launch->grid[i]});
    }
  auto check = [&](KernelOp b, KernelOp a, const CheckOptions &o) {
    return launch ? checkFixedLaunch(b, a, o, *launch)
                  : checkEquivalence(b, a, o);
  };
  auto lowerWith = [this](unsigned unroll, bool exact = false) -> LowerPairFn {
    return [this, unroll, exact](const Case &pins, bool reportSplit,
                                 std::vector<std::string> &splitOn,
                                 KernelOp &signature, CheckResult &failure) {
      return lowerPair(pins, unroll, reportSplit, splitOn, signature, failure,
                       exact);
    };
  };

  // The bounded search after an undecided proof applies where lowering
  // with its bound cuts a loop; it gets a share of the budget, kept back
  // from the proof.
  std::optional<std::vector<std::string>> plan;
  if (opts.hunt && !opts.unroll && !launch && !co.realFloats)
    plan = planHunt(opts.hunt);
  bool hunt = plan.has_value();
  unsigned huntSecs = 0;
  if (hunt) {
    huntSecs = timeout ? std::clamp(timeout / 3, 5u, 60u) : 60;
    if (timeout && timeout <= huntSecs)
      hunt = false; // a budget this small goes to the proof
    else if (timeout)
      co.timeoutSecs = timeout - huntSecs;
  }
  // Both kernels run first on small launches with pseudo-random inputs: a
  // wrong kernel usually shows at once, where the solver may take minutes
  // to pick a launch that replays.
  // The baseline's one launch: the kernels' own IR runs there first (the
  // concrete model unrolls every thread; a wrong pair shows at once).
  if (launch && !co.realFloats && opts.runFirst && opts.runIRFirst)
    if (std::optional<Validation> found =
            runIRFirst(co, /*tiers=*/2, "before any solver query", launch))
      return total(std::move(*found));
  if (!launch && !co.realFloats && opts.runFirst && !ownLaunches() &&
      !debugEnabled("relational-only"))
    if (std::optional<Validation> found =
            runFirst(co, lowerWith(opts.unroll), check, opts.runFirstTiers))
      return total(std::move(*found));
  Clock::time_point checkStart = Clock::now();
  auto prove = [&](const CheckOptions &po) {
    Validation v;
    v.loweredUnroll = opts.unroll;
    v.result =
        checkByCases(lowerWith(opts.unroll), po, opts.maxCases, check, initial);
    // A loop the model cannot count: unrolled exactly where the checker proves
    // a bound on its iterations.
    if (opts.unrollExact && !opts.unroll && !launch &&
        v.result.verdict == Verdict::Unsupported &&
        loopNotCounted(v.result.reason)) {
      if (std::optional<unsigned> k = exactBound(co)) {
        // Without a budget of its own (the command line's default), the
        // attempt gets one: read chains through many unrolled barrier
        // intervals can grow without end, where the plain lowering stopped at
        // once.
        CheckOptions eo = po;
        if (!eo.timeoutSecs)
          eo.timeoutSecs = exactSecs;
        // Kernels the interval-by-interval proof does not align chain their
        // reads through every unrolled interval: past a few hundred threads
        // such a query does not finish, so it stops there, the same on any
        // machine, rather than at the time limit.
        eo.maxThreads = exactMaxThreads;
        CheckResult e = checkByCases(lowerWith(*k, /*exact=*/true), eo,
                                     opts.maxCases, check, initial);
        if (e.verdict == Verdict::Unknown)
          e.reason = "with loops unrolled exactly (at most " +
                     std::to_string(*k) + " iterations, proved): " + e.reason;
        if (e.verdict != Verdict::Unsupported || !loopNotCounted(e.reason)) {
          if (e.verdict == Verdict::Equivalent) {
            std::string unrolled = "loops unrolled exactly: each loop the "
                                   "model cannot count runs at most " +
                                   std::to_string(*k) +
                                   " iterations (proved) and is unrolled "
                                   "that far";
            e.method = e.method.empty() ? unrolled : e.method + "; " + unrolled;
          }
          v.result = std::move(e);
          v.loweredUnroll = *k;
        }
      }
    }
    return v;
  };
  // The relational proof over the kernels' own IR, within the proof's
  // share of the budget (DriverRelational.cpp).
  // (\p model: the model's verdict, whose proof of the before kernel's
  // safety, where it has one, the relational proof rests on.)
  auto relational = [&](const CheckResult *model) -> std::optional<Validation> {
    if (launch)
      return std::nullopt;
    bool beforeSafe = model && model->beforeSafetyProved;
    unsigned proofSecs = co.timeoutSecs ? co.timeoutSecs : timeout;
    long long leftMs =
        proofSecs ? (long long)proofSecs * 1000 -
                        std::chrono::duration_cast<std::chrono::milliseconds>(
                            Clock::now() - start)
                            .count()
                  : -1;
    std::optional<Validation> r = proveRelationally(co, leftMs, beforeSafe);
    // The safety checks it rests on hold where the assumptions do: the
    // verdict lists both.
    if (r && beforeSafe && !co.assumeSafe) {
      std::vector<std::string> checked;
      for (const std::string &a : model->assumptions)
        if (llvm::StringRef(a).ends_with(" (--assume)") ||
            llvm::StringRef(a).starts_with("checked: the before kernel"))
          checked.push_back(a);
      r->result.assumptions.insert(r->result.assumptions.begin(),
                                   checked.begin(), checked.end());
    }
    return r;
  };
  // The relational proof runs where the model's methods leave the pair
  // open (their proofs of the shapes they cover are cheaper), and first
  // under --kv-debug=relational-only.
  if (debugEnabled("relational-only")) {
    if (std::optional<Validation> r = relational(nullptr))
      return total(std::move(*r));
    Validation v;
    v.result.verdict = Verdict::Unknown;
    v.result.reason =
        "relational: " +
        (relationalWhy.empty()
             ? std::string("does not apply (the after kernel has no loop "
                           "or barrier, or the options exclude it)")
             : relationalWhy);
    return total(std::move(v));
  }
  auto open = [](Verdict x) {
    return x == Verdict::Unknown || x == Verdict::Unsupported;
  };
  // Loops with constant trip counts, which the lowering unrolls, modelled
  // as loops first (the model a symbolic trip count gets), so that a
  // constant K proves as a parameter K does (index maps, sums); within a
  // third of the budget (at most modelledLoopsSecs), the unrolled model
  // getting the rest.
  std::string modelledWhy;
  if (opts.modelConstantLoops && !launch && constantLoopsModelled()) {
    modelConstantLoops = true;
    CheckOptions mo = co;
    unsigned budgetSecs = mo.timeoutSecs ? mo.timeoutSecs : timeout;
    mo.timeoutSecs = budgetSecs
                         ? std::clamp(budgetSecs / 3, 1u, modelledLoopsSecs)
                         : modelledLoopsFreeSecs;
    Validation w = prove(mo);
    modelConstantLoops = false;
    if (!open(w.result.verdict) || w.result.defect || w.result.possibleDefect) {
      if (w.result.verdict == Verdict::Equivalent) {
        std::string how = "loops with constant trip counts modelled as "
                          "loops (one symbolic iteration each), not unrolled";
        w.result.method =
            w.result.method.empty() ? how : w.result.method + "; " + how;
      }
      return total(std::move(w));
    }
    modelledWhy = w.result.reason;
  }
  // Where the relational proof applies: the model's methods decide what they
  // cover in a fraction of a second to a few seconds; where they have not
  // within a fifth of the budget, the relational proof comes next (an -O2 loop
  // it proves in seconds is one they often spend their whole share on), and the
  // model's methods then get what is left. With the safety checks on, it
  // applies once they have proved the before kernel safe within that fifth,
  // and only under a budget that leaves it room (a split of a few seconds
  // would cost the pairs the model's methods decide late).
  CheckOptions mco = co;
  bool relationalNext =
      mco.timeoutSecs && !launch &&
      (co.assumeSafe || co.timeoutSecs >= relationalSplitMinSecs) &&
      relationalApplies(co, /*beforeSafe=*/true);
  if (relationalNext)
    mco.timeoutSecs = std::max(1u, co.timeoutSecs / 5);
  Validation v = prove(mco);
  if (relationalNext && open(v.result.verdict) && !v.result.defect &&
      !v.result.possibleDefect) {
    if (std::optional<Validation> r = relational(&v.result))
      return total(std::move(*r));
    unsigned spent = (unsigned)std::chrono::duration_cast<std::chrono::seconds>(
                         Clock::now() - start)
                         .count();
    if (spent < co.timeoutSecs) {
      mco.timeoutSecs = co.timeoutSecs - spent;
      v = prove(mco);
    }
  }
  if (!modelledWhy.empty() && open(v.result.verdict))
    v.result.reason +=
        "; with loops of constant trip counts modelled as loops: " +
        modelledWhy;
  if (!relationalNext &&
      (v.result.verdict == Verdict::Unknown ||
       v.result.verdict == Verdict::Unsupported) &&
      !v.result.defect && !v.result.possibleDefect)
    if (std::optional<Validation> r = relational(&v.result))
      return total(std::move(*r));
  // Loops with breaks that did not align (a loop -O2 rotated against its
  // source): the lowering without them unrolls, splits or unrolls exactly.
  if (sawBreakLoops && open(v.result.verdict) && !launch) {
    noBreakLoops = true;
    Validation w = prove(co);
    // Neither decides: the lowering without them says what stops it (a
    // loop it cannot count, by name), and what the loops with breaks gave.
    if (open(w.result.verdict))
      w.result.reason +=
          "; with its loops modelled with breaks: " + v.result.reason;
    v = std::move(w);
  }
  // An open verdict: the kernels run on launches the assumptions admit and
  // pseudo-random inputs, which tells apart what the solver cannot (float
  // additions in two orders are two uninterpreted terms to it).
  bool budgetLeft =
      !timeout || Clock::now() - start < std::chrono::seconds(timeout);
  // (Not over the reals, where the runs' IEEE results prove nothing.)
  // An unsupported proof, where the larger launches did not run before it:
  // they run now, with the safety checks and model conditions that make a
  // difference of the models the kernels' own (an uncounted loop's model
  // is not the loop).
  if (!launch && !ownLaunches() && v.result.verdict == Verdict::Unsupported &&
      opts.runFirst && opts.runFirstTiers < 2 && budgetLeft && !co.realFloats)
    if (std::optional<Validation> found =
            runFirst(co, lowerWith(opts.unroll), check, /*tiers=*/2,
                     "after the proof ended unsupported: " + v.result.reason))
      if (found->result.verdict != Verdict::Unknown)
        return total(std::move(*found));
  if (!launch && !ownLaunches() && v.result.verdict == Verdict::Unknown &&
      budgetLeft && !co.realFloats) {
    std::vector<std::string> splitOn;
    KernelOp signature;
    CheckResult failure;
    if (std::optional<LoweredPair> pair =
            lowerPair({}, v.loweredUnroll, /*reportSplit=*/false, splitOn,
                      signature, failure,
                      /*exact=*/v.loweredUnroll != opts.unroll)) {
      unsigned runs = 0;
      std::string disagreement;
      // A second: the edges' sizes and the real sizes are many runs.
      RunLimits limits;
      limits.budgetMs = 1000;
      std::optional<Counterexample> cex = findByRunning(
          pair->before, pair->after, co, runs, disagreement, limits);
      pair->before.erase();
      pair->after.erase();
      if (cex) {
        v.foundBy = "running both kernels on pseudo-random inputs (" +
                    std::to_string(runs) + (runs == 1 ? " run" : " runs") +
                    " on launches the assumptions admit), after the "
                    "proof ended unknown: " +
                    v.result.reason;
        v.result.verdict = Verdict::NotEquivalent;
        v.result.reason = "the kernels write different values to '" +
                          cex->mismatchArray + "'";
        v.result.counterexample = std::move(cex);
        return total(std::move(v));
      }
      if (!disagreement.empty())
        v.result.reason = disagreement;
      else if (runs)
        v.result.reason += "; " + std::to_string(runs) +
                           " runs on pseudo-random inputs found no difference";
    } else if (signature) {
      signature.erase();
    }
  }
  if (!hunt || (v.result.verdict != Verdict::Unknown &&
                v.result.verdict != Verdict::Unsupported))
    return total(std::move(v));
  CheckOptions ho = co;
  if (timeout) {
    auto used = std::chrono::duration_cast<std::chrono::seconds>(Clock::now() -
                                                                 checkStart)
                    .count();
    // A second short of the kernel's budget, so that the search's own
    // deadline, which says how far it got, comes first.
    ho.timeoutSecs = std::max<long long>(1, (long long)timeout - used - 1);
  } else {
    ho.timeoutSecs = huntSecs;
  }
  ho.assumptions.insert(ho.assumptions.end(), plan->begin(), plan->end());
  CheckResult h = checkByCases(lowerWith(opts.hunt), ho, opts.maxCases, check);
  return total(mergeHunt(std::move(v.result), std::move(h), opts.hunt, *plan));
}

Validation Driver::validate(const std::optional<LaunchConfig> &launch) {
  budget::Scope scope({opts.timeoutSecs, opts.maxMemoryMB},
                      before.spentMs + after.spentMs);
  Validation v = validateUnbounded(launch);
  if (v.result.verdict == Verdict::NotEquivalent && v.result.counterexample &&
      budget::stopped() == budget::Kind::None)
    completeCounterexample(*v.result.counterexample);
  KV_DEBUG("budget", llvm::errs() << "budget: the work's verdict: "
                                  << verdictName(v.result.verdict) << ": "
                                  << v.result.reason << "\n");
  // An open verdict at the deadline: the budget ran out, whichever step's
  // own limit (derived from it) noticed first.
  if (v.result.verdict == Verdict::Unknown)
    (void)budget::exceededNow();
  if (budget::stopped() == budget::Kind::None)
    return v;
  // A construct the model lacks, found before the deadline, still says
  // more than the deadline (the bounded search's own timeout lands on it):
  // `unsupported` claims nothing either way.
  if (v.result.verdict == Verdict::Unsupported &&
      llvm::StringRef(v.result.reason)
              .split("; the bounded search")
              .first.find("budget: ") == llvm::StringRef::npos) {
    v.result.reason += "; then the " + budget::reason();
    return v;
  }
  // Whatever the work returned after the stop was cut short: a lowering
  // that failed, a run or query abandoned. Never a proof or a
  // counterexample, only what ran out.
  Validation u;
  u.result.verdict = Verdict::Unknown;
  u.result.reason = budget::reason();
  // Where the work noticed: "the time budget ran out while encoding ...".
  if (llvm::StringRef(v.result.reason).starts_with("timeout: "))
    u.result.reason += "; " + v.result.reason.substr(9);
  u.result.assumptions = std::move(v.result.assumptions);
  u.result.timeMs = v.result.timeMs;
  u.loweredUnroll = v.loweredUnroll;
  return u;
}

} // namespace kv
