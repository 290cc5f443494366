//===- RandomRuns.cpp - counterexamples by running the kernels ------------===//
//
// When a proof ends unknown, both kernels are run on a few launches and
// scalars that the assumptions admit (the solver picks them, small ones
// first) and on pseudo-random inputs of the kernels' own choosing. A
// difference is a counterexample that owes nothing to a solver model: the
// kv models compute it and the LLVM IR confirms it (confirmOnIR). Two float
// reduction trees, which the solver cannot tell apart (its float operations
// are uninterpreted), differ this way on the first inputs tried.
//
//===----------------------------------------------------------------------===//
#include "equiv/RandomRuns.h"
#include "equiv/IRExecutor.h"
#include "equiv/RunsInternal.h"
#include "equiv/Safety.h"
#include "kv/Budget.h"
#include "smt-encode/Debug.h"
#include "smt-encode/Encoder.h"
#include "smt-encode/Executor.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/Support/MathExtras.h"

#include <chrono>
#include <map>
#include <memory>
#include <set>

namespace kv {

using namespace runs;

namespace {
/// splitmix64: a small deterministic generator (the same launches on every
/// machine and run).
struct Draws {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  /// Uniform in [lo, hi].
  int64_t in(int64_t lo, int64_t hi) {
    return lo + (int64_t)(next() % (uint64_t)(hi - lo + 1));
  }
};
} // namespace

/// Whether a defect a run of \p f shows (RunDefect) is the kernel's on
/// that launch: the run's bookkeeping orders accesses by __syncthreads()
/// alone (and atomic updates of one kind among themselves), so a kernel
/// that may order them otherwise (__syncwarp, fences, locks built from
/// atomicCAS or atomicExch, volatile warp-synchronous code, named
/// barriers, inline assembly) leaves its defects to the static checks.
static bool
runDefectsTrusted(const llvm::Function *f,
                  llvm::SmallPtrSet<const llvm::Function *, 8> &seen) {
  if (!f || !seen.insert(f).second)
    return true;
  for (const llvm::BasicBlock &bb : *f)
    for (const llvm::Instruction &inst : bb) {
      if (llvm::isa<llvm::FenceInst, llvm::AtomicCmpXchgInst>(inst))
        return false;
      if (auto *rmw = llvm::dyn_cast<llvm::AtomicRMWInst>(&inst);
          rmw && rmw->getOperation() == llvm::AtomicRMWInst::Xchg)
        return false;
      if (auto *ld = llvm::dyn_cast<llvm::LoadInst>(&inst);
          ld && ld->isVolatile())
        return false;
      if (auto *st = llvm::dyn_cast<llvm::StoreInst>(&inst);
          st && st->isVolatile())
        return false;
      auto *call = llvm::dyn_cast<llvm::CallBase>(&inst);
      if (!call)
        continue;
      // Inline assembly orders nothing where it has no effects.
      if (call->isInlineAsm() &&
          !(call->doesNotAccessMemory() &&
            !llvm::cast<llvm::InlineAsm>(call->getCalledOperand())
                 ->hasSideEffects()))
        return false;
      const llvm::Function *callee = call->getCalledFunction();
      if (!callee)
        return false;
      if (!callee->isIntrinsic()) {
        if (!runDefectsTrusted(callee, seen))
          return false;
        continue;
      }
      llvm::Intrinsic::ID id = callee->getIntrinsicID();
      if (id == llvm::Intrinsic::nvvm_barrier_cta_sync_aligned_all ||
          id == llvm::Intrinsic::nvvm_barrier_cta_sync_all)
        continue;
      llvm::StringRef name = callee->getName();
      if (name.contains("barrier") || name.contains("bar.") ||
          name.contains("membar") || name.contains("fence") ||
          name.contains("atomic"))
        return false;
    }
  return true;
}

static bool runDefectsTrusted(const llvm::Function *f) {
  llvm::SmallPtrSet<const llvm::Function *, 8> seen;
  return runDefectsTrusted(f, seen);
}

std::optional<Counterexample>
findByRunning(KernelOp before, KernelOp after, const CheckOptions &opts,
              unsigned &runs, std::string &disagreement, RunLimits limits) {
  using Clock = std::chrono::steady_clock;
  Clock::time_point began = Clock::now();
  auto overBudget = [&] {
    return budget::exceeded() ||
           (limits.budgetMs &&
            Clock::now() - began > std::chrono::milliseconds(limits.budgetMs));
  };
  runs = 0;
  LaunchFacts lf(before, opts);
  if (!lf.facts)
    return std::nullopt;
  unsigned w = modelWidth(32, opts.bits);
  // The values drawn: the launch dimensions, then the scalars.
  const std::vector<z3::expr> &vars = lf.vars;
  using Values = LaunchFacts::Values;
  auto threadsOf = [&](const Values &vals) {
    uint64_t n = 1;
    bool overflow = false;
    for (int i = 0; i < 6; ++i)
      n = llvm::SaturatingMultiply<uint64_t>(n, (uint64_t)vals[i], &overflow);
    return n;
  };
  // Whether the assumptions hold for \p vals, by evaluation (no solver).
  auto holds = [&](const Values &vals) {
    return threadsOf(vals) <= limits.maxThreads && lf.admits(vals);
  };
  // Runs both kernels on launch and scalars \p vals: true when the search
  // is over (a difference in `found`, a defect in limits.defect, or a
  // disagreement of model and IR). \p forced: a run that does not depend
  // on the load (the first launch of each tier, the first edges of the
  // first), with the whole work limit.
  std::optional<Counterexample> found;
  bool edgeRun = false;
  auto tryValues = [&](const Values &vals, bool forced) -> bool {
    // The kernel's budget is spent: no run, forced or not.
    if (budget::exceeded())
      return true;
    LaunchConfig cfg = LaunchFacts::launchAt(vals);
    std::map<unsigned, llvm::APInt> scalars = lf.scalarsAt(vals);
    // Floats of every magnitude (which tell float operations in two
    // orders apart), then small integers; not those where cells may be
    // floats: negative ones are NaNs there, whose payloads LLVM leaves
    // unspecified (a NaN-only difference is none).
    bool ranFirstInputs = false;
    for (unsigned seed : {1u, 2u}) {
      // (A forced launch runs both inputs: what it finds must not depend
      // on the load.) An edge is about a size, not values: the small
      // integers only where the first inputs did not run (indices read
      // from an array).
      if (seed == 2 &&
          ((edgeRun && ranFirstInputs) || (!forced && overBudget()) ||
           (limits.irOnly
                ? appliesOperations(opts.beforeIR) ||
                      appliesOperations(opts.afterIR)
                : appliesOperations(before) || appliesOperations(after))))
        break;
      bool floats = seed == 1;
      std::map<std::pair<unsigned, uint64_t>, llvm::APInt> read;
      auto inputsFor = [&](KernelOp k) {
        return recordedInputs(k, opts.bits, scalars, read,
                              [&](unsigned a, uint64_t idx, unsigned ew) {
                                return executor::pseudoRandomCell(ew, a, idx,
                                                                  seed, floats);
                              });
      };
      ExecInputs inB = inputsFor(before), inA = inputsFor(after);
      // A run the budget does not force stops at about the budget's end
      // (the interpreters run some 4M instructions a second): a large
      // launch must not take seconds of a 250 ms budget.
      uint64_t maxSteps = limits.maxSteps;
      // A forced edge: cheap runs only (a loop over n = 2 * threads + 1 in
      // an unrolled model is seconds).
      if (forced && edgeRun)
        maxSteps = std::min<uint64_t>(maxSteps, uint64_t(1) << 18);
      if (!forced && limits.budgetMs) {
        auto left =
            std::chrono::milliseconds(limits.budgetMs) - (Clock::now() - began);
        int64_t ms =
            std::chrono::duration_cast<std::chrono::milliseconds>(left).count();
        maxSteps = std::min<uint64_t>(
            maxSteps, std::max<int64_t>(int64_t(1) << 16, ms * 4000));
      }
      const uint64_t maxThreads = limits.maxThreads;
      auto run = [&](KernelOp k, const llvm::Function *ir, bool isSource,
                     ExecInputs &in) {
        return runKernel(k, ir, limits.irOnly, isSource, cfg, in, maxThreads,
                         maxSteps);
      };
      ExecResult rb = run(before, opts.beforeIR, opts.beforeIRIsSource, inB);
      // --kv-debug=runs: what became of each launch drawn.
      auto note = [&](const std::string &what) {
        if (!debugEnabled("runs"))
          return;
        llvm::errs() << "runs: block (" << cfg.block[0] << "," << cfg.block[1]
                     << "," << cfg.block[2] << "), grid (" << cfg.grid[0] << ","
                     << cfg.grid[1] << "," << cfg.grid[2] << ")";
        for (auto &[a, v] : scalars)
          llvm::errs() << ", " << before.getArgName(a) << " = "
                       << v.getSExtValue();
        llvm::errs() << ": " << what << "\n";
      };
      // A defect a run shows (irOnly) is the verdict.
      auto defectIn = [&](const ExecResult &r, bool inAfter) {
        if (!limits.irOnly || !limits.defect || !r.ok || r.assumeViolated ||
            !runDefectsTrusted(inAfter ? opts.afterIR : opts.beforeIR))
          return false;
        // An access out of bounds first (it may also collide with
        // another cell's), then a divergent barrier, then a race.
        std::vector<const RunDefect *> order;
        for (RunDefect::Kind kind :
             {RunDefect::OutOfBounds, RunDefect::Divergence, RunDefect::Race})
          for (const RunDefect &d : r.defects)
            if (d.kind == kind && !(kind == RunDefect::Race && d.sameValue))
              order.push_back(&d);
        for (const RunDefect *dp : order) {
          const RunDefect &d = *dp;
          SeenDefect seen;
          seen.inAfter = inAfter;
          seen.defect = d;
          seen.cfg = cfg;
          for (auto &[a, v] : scalars)
            seen.scalars.push_back(
                {before.getArgName(a).str(), v.getSExtValue()});
          seen.inputs = "pseudo-random";
          *limits.defect = std::move(seen);
          return true;
        }
        return false;
      };
      if (defectIn(rb, false))
        return true;
      if (!rb.ok || rb.assumeViolated) {
        note("before kernel: " +
             (rb.ok ? std::string("assumption violated") : rb.error));
        // Other inputs do not make the launch less work.
        if (rb.tooMuchWork)
          break;
        continue;
      }
      ExecResult ra = run(after, opts.afterIR, opts.afterIRIsSource, inA);
      if (defectIn(ra, true))
        return true;
      if (!ra.ok || (limits.irOnly && ra.assumeViolated)) {
        note("after kernel: " +
             (ra.ok ? std::string("assumption violated") : ra.error));
        continue;
      }
      ++runs;
      ranFirstInputs = true;
      note(limits.irOnly ? "ran (LLVM IR)" : "ran");
      std::optional<Counterexample> cex = firstDifference(
          before, lf.enc, cfg, scalars, read, rb, ra, inB, inA,
          appliesOperations(before) || appliesOperations(after));
      if (!cex)
        continue;
      if (limits.irOnly) {
        ranOnIR(*cex, rb, ra);
        if (!cex->runsChecked && debugEnabled("runs"))
          note("not known to be race free: " +
               (rb.unchecked.empty() ? ra.unchecked : rb.unchecked));
        found = std::move(cex);
        return true;
      }
      if (std::optional<std::string> d =
              confirmOnIR(opts, before, after, cfg, inB, inA, rb, ra, *cex,
                          maxThreads, maxSteps)) {
        // Unconfirmed (an IR that does not run): the proof decides.
        if (cex->onlyModels)
          continue;
        disagreement = *d;
        return true;
      }
      found = std::move(cex);
      return true;
    }
    return false;
  };
  // Scalars at the edges of launch \p vals, that the assumptions admit:
  // each size one past a block's worth of elements along x, two blocks',
  // the grid's, and the like (the grid's along y too), first for every
  // integer scalar at once (n, or a square matrix's width and height), then
  // the likeliest few for one scalar at a time: at most 8 + 4 per scalar.
  auto edgesOf = [&](const Values &vals) {
    int64_t bx = vals[0], tx = vals[0] * vals[1], by = vals[2],
            ty = vals[2] * vals[3];
    // The likeliest first (the forced runs take the first four): a halo
    // or tail past one block, past the grid, past two elements per thread.
    std::vector<int64_t> sizes = {bx + 1, tx + 1, 2 * tx + 1, 2 * bx + 1,
                                  tx - 1, tx,     bx - 1,     tx - bx + 1,
                                  2 * bx, bx,     2 * bx - 1, 2 * tx};
    if (ty > 1)
      for (int64_t v : {by + 1, ty + 1, ty - 1, ty})
        sizes.push_back(v);
    std::vector<size_t> wide;
    for (size_t i = 6; i < vars.size(); ++i)
      if (vars[i].get_sort().bv_size() > 8)
        wide.push_back(i);
    std::vector<Values> out;
    std::set<int64_t> tried;
    auto add = [&](Values v) {
      if (holds(v))
        out.push_back(std::move(v));
    };
    std::vector<int64_t> order;
    for (int64_t n : sizes)
      if (n > 0 && !wide.empty() && tried.insert(n).second)
        order.push_back(n);
    for (size_t k = 0; k < order.size() && k < 8; ++k) {
      Values all = vals;
      for (size_t i : wide)
        all[i] = order[k];
      add(all);
    }
    if (wide.size() > 1)
      for (size_t k = 0; k < order.size() && k < 4; ++k)
        for (size_t i : wide) {
          Values one = vals;
          one[i] = order[k];
          add(one);
        }
    return out;
  };
  Draws draws{0x6b76616c69646174ULL};
  // Small launches and scalars first, then larger ones. Each launch is
  // drawn at random within the tier, value by value, where the assumptions
  // admit the value drawn, starting from a launch they admit (one thread,
  // scalars 0, or else the solver's). A solver's model alone sits on the
  // bounds (0, the largest value), where a wrong halo or a missed tail
  // often does not show.
  struct Tier {
    uint64_t grid[3], block[3];
    int64_t lo, hi;
    unsigned models;
  };
  const Tier tiers[] = {{{2, 2, 2}, {64, 16, 2}, 0, 64, 3},
                        {{8, 4, 2}, {256, 32, 4}, -1024, 1024, 2}};
  std::set<Values> seen;
  // Runs the first \p count edges of launch \p vals not run yet (the
  // others while the budget lasts, unless \p forced): true when the search
  // is over.
  auto runEdges = [&](const Values &vals, unsigned count, bool forced) {
    edgeRun = true;
    llvm::scope_exit notEdges([&] { edgeRun = false; });
    unsigned edge = 0;
    for (const Values &e : edgesOf(vals)) {
      if (edge++ >= count || (!forced && overBudget()))
        return false;
      if (seen.insert(e).second && tryValues(e, forced))
        return true;
    }
    return false;
  };
  std::vector<Values> drawn;
  for (unsigned ti = 0; ti < std::min<unsigned>(limits.tiers, 2); ++ti) {
    const Tier &t = tiers[ti];
    std::vector<std::pair<int64_t, int64_t>> range;
    for (int i = 0; i < 3; ++i) {
      range.push_back({1, (int64_t)t.block[i]});
      range.push_back({1, (int64_t)t.grid[i]});
    }
    for (size_t i = 6; i < vars.size(); ++i)
      range.push_back(vars[i].get_sort().bv_size() > 8
                          ? std::pair<int64_t, int64_t>{t.lo, t.hi}
                          : std::pair<int64_t, int64_t>{0, 1});
    Values start(vars.size(), 0);
    for (int i = 0; i < 6; ++i)
      start[i] = 1;
    if (limits.fixed)
      for (int i = 0; i < 3; ++i) {
        int64_t b = (int64_t)limits.fixed->block[i],
                g = (int64_t)limits.fixed->grid[i];
        range[2 * i] = {b, b};
        range[2 * i + 1] = {g, g};
        start[2 * i] = b;
        start[2 * i + 1] = g;
      }
    // Sizes at the start launch's edges (n = 1 for one thread) before
    // the solver, whose search takes a few hundred milliseconds: the runs'
    // whole budget.
    if (!holds(start))
      if (std::vector<Values> edges = edgesOf(start); !edges.empty())
        start = edges.front();
    if (!holds(start)) {
      LaunchFacts fresh(before, opts, /*forSolving=*/true);
      if (!fresh.facts)
        continue;
      z3::context &sctx = fresh.ctx;
      const std::vector<z3::expr> &svars = fresh.vars;
      z3::solver s(sctx);
      z3::params p(sctx);
      p.set("timeout", 2000u);
      s.set(p);
      s.add(*fresh.facts);
      z3::expr threads = sctx.bv_val(1, 64);
      for (int i = 0; i < 6; ++i)
        threads = threads * z3::zext(svars[i], 64 - w);
      s.add(z3::ule(threads, sctx.bv_val(limits.maxThreads, 64)));
      // Within the tier's ranges; else (a block fixed at 512, a size fixed
      // at 4096) the launch the assumptions leave, within the thread limit.
      s.push();
      for (int i = 0; i < 6; ++i)
        s.add(limits.fixed
                  ? svars[i] == sctx.bv_val(range[i].second, w)
                  : z3::ule(svars[i], sctx.bv_val(range[i].second, w)));
      for (size_t i = 6; i < svars.size(); ++i)
        s.add(svars[i] >=
                  sctx.bv_val(range[i].first, svars[i].get_sort().bv_size()) &&
              svars[i] <=
                  sctx.bv_val(range[i].second, svars[i].get_sort().bv_size()));
      z3::check_result r = s.check();
      if (r == z3::unsat && !limits.fixed) {
        s.pop();
        for (int i = 1; i < 6; i += 2)
          s.add(z3::ule(svars[i], sctx.bv_val(range[i].second, w)));
        r = s.check();
      }
      if (r != z3::sat)
        continue;
      z3::model m = s.get_model();
      for (size_t i = 0; i < svars.size(); ++i) {
        llvm::APInt v =
            numeralOf(m.eval(svars[i], true), svars[i].get_sort().bv_size());
        start[i] = i < 6 ? (int64_t)v.getZExtValue() : v.getSExtValue();
      }
    }
    // One launch per tier at least: what the runs find should not depend
    // on how loaded the machine is.
    for (unsigned m = 0; m < t.models && (m == 0 || !overBudget()); ++m) {
      Values vals = start;
      for (size_t i = 0; i < vals.size(); ++i) {
        Values cand = vals;
        // A few draws: assumptions such as n % 16 == 0 admit one value in
        // sixteen.
        bool admitted = false;
        for (int d = 0; d < 8 && !admitted; ++d) {
          cand[i] = draws.in(range[i].first, range[i].second);
          admitted = holds(cand);
          // Assumptions that tie a size to the launch (gridDim.x *
          // blockDim.x >= n && gridDim.x * blockDim.x < n + blockDim.x)
          // admit one grid per size: the sizes follow a launch dimension
          // drawn, to one of its edges, so that several blocks run too.
          if (!admitted && i < 6)
            if (std::vector<Values> edges = edgesOf(cand); !edges.empty()) {
              cand = edges[draws.in(0, (int64_t)edges.size() - 1)];
              admitted = true;
            }
        }
        if (admitted) {
          vals = cand;
          continue;
        }
        // Assumptions that tie two values (blockDim.x == blockDim.y, a
        // square matrix's n == m) reject every value drawn for one alone:
        // the value is tried for each other one as well.
        for (size_t j = 0; j < vals.size() && !admitted; ++j) {
          if (j == i || cand[i] < range[j].first || cand[i] > range[j].second)
            continue;
          Values tied = cand;
          tied[j] = cand[i];
          if (holds(tied)) {
            vals = tied;
            admitted = true;
          }
        }
      }
      if (!seen.insert(vals).second)
        continue;
      if (tryValues(vals, /*forced=*/m == 0))
        return found;
      // The launch's edges: sizes one past a block's or the grid's worth
      // of elements (a halo or a tail that only shows there), which values
      // drawn at random almost never hit. The first few of the first small
      // launch at once, whatever the load (they take microseconds); the
      // rest once every tier's launches have run, while the budget lasts.
      if (ti == 0 && m == 0 && runEdges(vals, 4, /*forced=*/true))
        return found;
      drawn.push_back(vals);
    }
  }
  for (const Values &vals : drawn) {
    if (overBudget())
      break;
    if (runEdges(vals, ~0u, /*forced=*/false))
      return found;
  }
  // Real sizes, while the budget lasts: the largest block along x the
  // assumptions admit and a grid of a few dozen blocks, at the edges'
  // sizes (the first of these launches any of them admits).
  if (limits.tiers < 2 || limits.fixed)
    return std::nullopt;
  for (int64_t bx : {1024, 512, 256, 128})
    for (int64_t gx : {24, 8, 2}) {
      if (overBudget() || (uint64_t)(bx * gx) > limits.maxThreads)
        continue;
      Values wide(vars.size(), 0);
      wide[0] = bx;
      wide[1] = gx;
      for (int i = 2; i < 6; ++i)
        wide[i] = 1;
      std::vector<Values> sized = edgesOf(wide);
      if (holds(wide))
        sized.insert(sized.begin(), wide);
      for (const Values &v : sized) {
        if (overBudget())
          break;
        if (seen.insert(v).second && tryValues(v, /*forced=*/false))
          return found;
      }
      if (!sized.empty())
        return std::nullopt;
    }
  return std::nullopt;
}

} // namespace kv
