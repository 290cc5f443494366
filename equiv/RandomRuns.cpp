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

namespace {
/// \p k's launch values and scalars with the facts every launch run must
/// satisfy (the launch limits and the assumptions), to be evaluated at
/// concrete values (in the thread's evaluation context), or solved (in a
/// fresh context of their own, with \p forSolving: a search's result
/// depends on the context's history); no facts when the assumptions do not
/// parse.
struct LaunchFacts {
  std::unique_ptr<ContextLease> lease;
  z3::context &ctx;
  Encoder enc;
  std::optional<z3::expr> facts;
  LaunchFacts(KernelOp k, const CheckOptions &opts, bool forSolving = false)
      : lease(forSolving ? std::make_unique<ContextLease>() : nullptr),
        ctx(lease ? lease->get() : evaluationContext()),
        enc(ctx, opts.bits, k) {
    enc.hugeGrids = opts.hugeGrids;
    std::string err;
    if (std::optional<z3::expr> a = parseAssumptions(enc, opts, err))
      facts = enc.launchConstraints() && *a;
  }
  /// The launch dimensions (blockDim.x, gridDim.x, ..., z), then the
  /// scalars, with the scalars' arguments.
  std::vector<z3::expr> values(std::vector<unsigned> *scalarArg = nullptr) {
    std::vector<z3::expr> vars;
    for (int i = 0; i < 3; ++i) {
      vars.push_back(enc.bdim[i]);
      vars.push_back(enc.gdim[i]);
    }
    for (unsigned a = 0; a < enc.params.size(); ++a)
      if (enc.params[a] && !enc.params[a]->is_array()) {
        vars.push_back(*enc.params[a]);
        if (scalarArg)
          scalarArg->push_back(a);
      }
    return vars;
  }
};
} // namespace

/// Whether \p k applies an uninterpreted operation (float arithmetic,
/// comparisons, conversions, libdevice): kv arrays are typed by width
/// only, so their cells may hold floats.
static bool appliesOperations(KernelOp k) {
  bool found = false;
  k.walk([&](ApplyOp) { found = true; });
  return found;
}

/// The same for LLVM IR: float arithmetic or a call to a declaration
/// (libdevice, an intrinsic that is not a special register).
static bool
appliesOperations(const llvm::Function *f,
                  llvm::SmallPtrSet<const llvm::Function *, 8> &seen) {
  if (!f || !seen.insert(f).second)
    return false;
  if (f->isDeclaration())
    return !f->isIntrinsic();
  for (const llvm::BasicBlock &bb : *f)
    for (const llvm::Instruction &inst : bb) {
      if (inst.getType()->isFPOrFPVectorTy())
        return true;
      for (const llvm::Value *op : inst.operands())
        if (op->getType()->isFPOrFPVectorTy())
          return true;
      if (auto *call = llvm::dyn_cast<llvm::CallBase>(&inst))
        if (const llvm::Function *callee = call->getCalledFunction())
          if (appliesOperations(callee, seen))
            return true;
    }
  return false;
}

static bool appliesOperations(const llvm::Function *f) {
  llvm::SmallPtrSet<const llvm::Function *, 8> seen;
  return appliesOperations(f, seen);
}

/// Runs \p k on \p cfg: its kv model, or with \p irOnly its LLVM IR \p ir
/// (\p k its signature), whose __shared__ arrays are left out of `written`:
/// global memory is what the kernels leave behind, and the two may lay out
/// their shared arrays differently.
static ExecResult runKernel(KernelOp k, const llvm::Function *ir, bool irOnly,
                            bool isSource, const LaunchConfig &cfg,
                            ExecInputs &in, uint64_t maxThreads,
                            uint64_t maxSteps) {
  if (!irOnly)
    return execute(k, cfg, in, maxThreads, maxSteps);
  IRInputs irIn = irInputsFor(k, *ir, in);
  irIn.noSignedOverflow = isSource;
  ExecResult r = executeIR(*ir, cfg, irIn, maxThreads, maxSteps);
  for (auto it = r.written.begin(); it != r.written.end();)
    it = it->first >= ir->arg_size() ? r.written.erase(it) : std::next(it);
  return r;
}

/// A difference of two IR runs: replayed on the IR, clean where both runs
/// checked themselves.
static void ranOnIR(Counterexample &cex, const ExecResult &rb,
                    const ExecResult &ra) {
  cex.replayedOn = "the LLVM IR of both kernels";
  cex.runsChecked = rb.unchecked.empty() && ra.unchecked.empty();
}

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

/// The first cell either run wrote that the two leave different, as a
/// counterexample of launch \p cfg, \p scalars and the input cells \p read
/// (not confirmed on the IR yet).
static std::optional<Counterexample> firstDifference(
    KernelOp before, Encoder &enc, const LaunchConfig &cfg,
    const std::map<unsigned, llvm::APInt> &scalars,
    const std::map<std::pair<unsigned, uint64_t>, llvm::APInt> &read,
    ExecResult &rb, ExecResult &ra, ExecInputs &inB, ExecInputs &inA,
    bool floats) {
  std::set<std::pair<unsigned, uint64_t>> cells;
  for (ExecResult *r : {&rb, &ra})
    for (auto &[arg, m] : r->written)
      for (auto &[idx, v] : m)
        cells.insert({arg, idx});
  for (auto [arg, idx] : cells) {
    auto value = [&](ExecResult &r, ExecInputs &in) {
      auto it = r.written[arg].find(idx);
      return it != r.written[arg].end() ? it->second : in.initial(arg, idx);
    };
    llvm::APInt vb = value(rb, inB), va = value(ra, inA);
    if (executor::sameOutput(vb, va, floats))
      continue;
    Counterexample cex;
    std::copy(cfg.grid, cfg.grid + 3, cex.gridDim);
    std::copy(cfg.block, cfg.block + 3, cex.blockDim);
    for (auto &[a, v] : scalars)
      cex.addScalar(before.getArgName(a).str(), v, enc.paramUnsigned[a]);
    for (auto &[key, v] : read)
      cex.arrays[before.getArgName(key.first).str()][(int64_t)key.second] =
          v.getSExtValue();
    cex.mismatchArray = before.getArgName(arg).str();
    cex.mismatchIndex = (int64_t)idx;
    cex.before = vb.getSExtValue();
    cex.after = va.getSExtValue();
    cex.replayed = true;
    return cex;
  }
  return std::nullopt;
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
  z3::context &ctx = lf.ctx;
  Encoder &enc = lf.enc;
  z3::expr facts = *lf.facts;
  unsigned w = modelWidth(32, opts.bits);
  mlir::Block &blk = before.getBlock();
  // The values drawn: the launch dimensions, then the scalars.
  std::vector<unsigned> scalarArg;
  std::vector<z3::expr> vars = lf.values(&scalarArg);
  z3::expr_vector from(ctx);
  for (const z3::expr &v : vars)
    from.push_back(v);
  using Values = std::vector<int64_t>;
  auto threadsOf = [&](const Values &vals) {
    uint64_t n = 1;
    bool overflow = false;
    for (int i = 0; i < 6; ++i)
      n = llvm::SaturatingMultiply<uint64_t>(n, (uint64_t)vals[i], &overflow);
    return n;
  };
  // Whether the assumptions hold for \p vals, by evaluation (no solver).
  auto holds = [&](const Values &vals) {
    if (threadsOf(vals) > limits.maxThreads)
      return false;
    z3::expr_vector to(ctx);
    for (size_t i = 0; i < vals.size(); ++i)
      to.push_back(ctx.bv_val(vals[i], vars[i].get_sort().bv_size()));
    return facts.substitute(from, to).simplify().is_true();
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
    LaunchConfig cfg;
    for (int i = 0; i < 3; ++i) {
      cfg.block[i] = (uint64_t)vals[2 * i];
      cfg.grid[i] = (uint64_t)vals[2 * i + 1];
    }
    std::map<unsigned, llvm::APInt> scalars;
    for (size_t i = 0; i < scalarArg.size(); ++i)
      scalars.emplace(
          scalarArg[i],
          llvm::APInt(enc.widthOf(blk.getArgument(scalarArg[i]).getType()),
                      (uint64_t)vals[6 + i], /*isSigned=*/true));
    // Floats of every magnitude (which tell float operations in two
    // orders apart), then small integers; not those where cells may be
    // floats: negative ones are NaNs there, whose payloads LLVM leaves
    // unspecified (a NaN-only difference is none).
    for (unsigned seed : {1u, 2u}) {
      // (A forced launch runs both inputs: what it finds must not depend
      // on the load.)
      if (seed == 2 && ((!forced && overBudget()) ||
                        (limits.irOnly ? appliesOperations(opts.beforeIR) ||
                                             appliesOperations(opts.afterIR)
                                       : appliesOperations(before) ||
                                             appliesOperations(after))))
        break;
      bool floats = seed == 1;
      std::map<std::pair<unsigned, uint64_t>, llvm::APInt> read;
      auto inputsFor = [&](KernelOp k) {
        ExecInputs in;
        in.bits = opts.bits;
        in.scalar = [&, k](unsigned a) mutable {
          unsigned aw = enc.widthOf(k.getBlock().getArgument(a).getType());
          llvm::APInt v = scalars.count(a) ? scalars.at(a) : llvm::APInt();
          return v.getBitWidth() == aw ? v : llvm::APInt(aw, 0);
        };
        in.initial = [&, k](unsigned a, uint64_t idx) mutable {
          unsigned ew = enc.widthOf(
              getArrayElementType(k.getBlock().getArgument(a).getType()));
          llvm::APInt v = executor::pseudoRandomCell(ew, a, idx, seed, floats);
          read.emplace(std::make_pair(a, idx), v);
          return v;
        };
        in.sharedInitial = [&, k](unsigned a, const uint64_t *,
                                  uint64_t) mutable {
          return llvm::APInt(enc.widthOf(getArrayElementType(
                                 k.getBlock().getArgument(a).getType())),
                             0);
        };
        return in;
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
      note(limits.irOnly ? "ran (LLVM IR)" : "ran");
      std::optional<Counterexample> cex = firstDifference(
          before, enc, cfg, scalars, read, rb, ra, inB, inA,
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
    std::vector<int64_t> sizes = {
        bx + 1, 2 * bx + 1,  tx + 1,     tx - 1, tx,         bx - 1,
        2 * bx, tx - bx + 1, 2 * tx + 1, bx,     2 * bx - 1, 2 * tx};
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
    if (!holds(start)) {
      LaunchFacts fresh(before, opts, /*forSolving=*/true);
      if (!fresh.facts)
        continue;
      z3::context &sctx = fresh.ctx;
      std::vector<z3::expr> svars = fresh.values();
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
        }
        if (admitted) {
          vals = cand;
          continue;
        }
        // Assumptions that tie two values (blockDim.x == blockDim.y, a
        // square matrix's n == m) reject every value drawn for one alone:
        // the value is tried for each other one as well.
        for (size_t j = 0; j < vals.size(); ++j) {
          if (j == i || cand[i] < range[j].first || cand[i] > range[j].second)
            continue;
          Values tied = cand;
          tied[j] = cand[i];
          if (holds(tied)) {
            vals = tied;
            break;
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
      // launch whatever the load (they take microseconds), the rest while
      // the budget lasts.
      unsigned edge = 0;
      edgeRun = true;
      llvm::scope_exit notEdges([&] { edgeRun = false; });
      for (const Values &e : edgesOf(vals)) {
        bool forced = ti == 0 && m == 0 && edge++ < 4;
        if (!forced && overBudget())
          break;
        if (!seen.insert(e).second)
          continue;
        if (tryValues(e, forced))
          return found;
      }
    }
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

namespace kv {

bool modelConditionFailsByRunning(KernelOp k, const CheckOptions &opts,
                                  unsigned budgetMs) {
  using Clock = std::chrono::steady_clock;
  Clock::time_point start = Clock::now();
  LaunchFacts lf(k, opts);
  if (!lf.facts)
    return false;
  z3::context &ctx = lf.ctx;
  Encoder &enc = lf.enc;
  z3::expr facts = *lf.facts;
  mlir::Block &blk = k.getBlock();
  std::vector<unsigned> scalarArg;
  std::vector<z3::expr> vars = lf.values(&scalarArg);
  z3::expr_vector from(ctx);
  for (const z3::expr &e : vars)
    from.push_back(e);
  unsigned w = enc.bdim[0].get_sort().bv_size();
  // Large blocks and scalars first: a loop over blockDim or a scalar runs
  // longest there. A few launches, each checked against the assumptions by
  // evaluation.
  const uint64_t blocks[][3] = {{1024, 1, 1}, {32, 32, 1}, {16, 16, 4},
                                {256, 1, 1},  {64, 1, 1},  {8, 8, 8}};
  const uint64_t grids[][3] = {{1, 1, 1}, {4, 2, 2}};
  const int64_t values[] = {1024, 65536, 100};
  for (const auto &b : blocks)
    for (const auto &g : grids)
      for (int64_t v : values) {
        if (Clock::now() - start > std::chrono::milliseconds(budgetMs))
          return false;
        z3::expr_vector to(ctx);
        for (int i = 0; i < 3; ++i) {
          to.push_back(ctx.bv_val(b[i], w));
          to.push_back(ctx.bv_val(g[i], w));
        }
        for (size_t i = 6; i < vars.size(); ++i)
          to.push_back(ctx.bv_val(v, vars[i].get_sort().bv_size()));
        if (!facts.substitute(from, to).simplify().is_true())
          continue;
        LaunchConfig cfg;
        for (int i = 0; i < 3; ++i) {
          cfg.block[i] = b[i];
          cfg.grid[i] = g[i];
        }
        ExecInputs in;
        in.bits = opts.bits;
        in.scalar = [&](unsigned a) {
          return llvm::APInt(enc.widthOf(blk.getArgument(a).getType()),
                             (uint64_t)v, /*isSigned=*/true);
        };
        in.initial = [&](unsigned a, uint64_t idx) {
          unsigned ew =
              enc.widthOf(getArrayElementType(blk.getArgument(a).getType()));
          return executor::pseudoRandomCell(ew, a, idx, 2, /*floats=*/false);
        };
        in.sharedInitial = [&](unsigned a, const uint64_t *, uint64_t) {
          return llvm::APInt(
              enc.widthOf(getArrayElementType(blk.getArgument(a).getType())),
              0);
        };
        ExecResult r =
            execute(k, cfg, in, uint64_t(1) << 16, uint64_t(1) << 22);
        if (!r.ok && !r.assumeViolated &&
            llvm::StringRef(r.error).starts_with("model condition")) {
          KV_DEBUG("driver", llvm::errs()
                                 << "a model condition fails by running: "
                                 << r.error << "\n");
          return true;
        }
      }
  return false;
}

} // namespace kv

namespace kv {

bool shrinkCounterexample(KernelOp before, KernelOp after,
                          const CheckOptions &opts, Counterexample &cex,
                          unsigned budgetMs, bool irOnly) {
  using Clock = std::chrono::steady_clock;
  Clock::time_point start = Clock::now();
  if (!cex.replayed || opts.bits != 32)
    return false;
  LaunchFacts lf(before, opts);
  if (!lf.facts)
    return false;
  z3::context &ctx = lf.ctx;
  Encoder &enc = lf.enc;
  z3::expr facts = *lf.facts;
  mlir::Block &blk = before.getBlock();
  std::vector<unsigned> scalarArg;
  std::vector<z3::expr> vars = lf.values(&scalarArg);
  z3::expr_vector from(ctx);
  for (const z3::expr &v : vars)
    from.push_back(v);
  using Values = std::vector<int64_t>;
  Values vals;
  for (int i = 0; i < 3; ++i) {
    vals.push_back((int64_t)cex.blockDim[i]);
    vals.push_back((int64_t)cex.gridDim[i]);
  }
  for (unsigned a : scalarArg) {
    std::string name = before.getArgName(a).str();
    auto it =
        llvm::find_if(cex.scalars, [&](auto &s) { return s.first == name; });
    if (it == cex.scalars.end())
      return false;
    vals.push_back(it->second);
  }
  // The input cells the counterexample lists, by kv argument; others 0.
  std::map<unsigned, std::map<int64_t, int64_t>> cells;
  for (unsigned a = 0; a < blk.getNumArguments(); ++a) {
    auto it = cex.arrays.find(before.getArgName(a).str());
    if (it != cex.arrays.end())
      cells[a] = it->second;
  }
  auto holds = [&](const Values &v) {
    z3::expr_vector to(ctx);
    for (size_t i = 0; i < v.size(); ++i)
      to.push_back(ctx.bv_val(v[i], vars[i].get_sort().bv_size()));
    return facts.substitute(from, to).simplify().is_true();
  };
  const uint64_t maxThreads = uint64_t(1) << 20, maxSteps = uint64_t(1) << 24;
  // Runs both kernels at \p v; a counterexample there, confirmed on the IR,
  // with the cells it read.
  auto differs = [&](const Values &v) -> std::optional<Counterexample> {
    LaunchConfig cfg;
    uint64_t threads = 1;
    for (int i = 0; i < 3; ++i) {
      cfg.block[i] = (uint64_t)v[2 * i];
      cfg.grid[i] = (uint64_t)v[2 * i + 1];
      threads *= cfg.block[i] * cfg.grid[i];
    }
    if (threads > maxThreads)
      return std::nullopt;
    std::map<std::pair<unsigned, uint64_t>, llvm::APInt> read;
    auto inputsFor = [&](KernelOp k) {
      ExecInputs in;
      in.bits = opts.bits;
      in.scalar = [&, k](unsigned a) mutable {
        unsigned aw = enc.widthOf(k.getBlock().getArgument(a).getType());
        for (size_t i = 0; i < scalarArg.size(); ++i)
          if (scalarArg[i] == a)
            return llvm::APInt(aw, (uint64_t)v[6 + i], /*isSigned=*/true);
        return llvm::APInt(aw, 0);
      };
      in.initial = [&, k](unsigned a, uint64_t idx) mutable {
        unsigned ew = enc.widthOf(
            getArrayElementType(k.getBlock().getArgument(a).getType()));
        int64_t x = 0;
        auto it = cells.find(a);
        if (it != cells.end()) {
          auto c = it->second.find((int64_t)idx);
          if (c != it->second.end())
            x = c->second;
        }
        llvm::APInt r(ew, (uint64_t)x, /*isSigned=*/true);
        read.emplace(std::make_pair(a, idx), r);
        return r;
      };
      in.sharedInitial = [&, k](unsigned a, const uint64_t *,
                                uint64_t) mutable {
        return llvm::APInt(enc.widthOf(getArrayElementType(
                               k.getBlock().getArgument(a).getType())),
                           0);
      };
      return in;
    };
    ExecInputs inB = inputsFor(before), inA = inputsFor(after);
    ExecResult rb =
        runKernel(before, opts.beforeIR, irOnly, opts.beforeIRIsSource, cfg,
                  inB, maxThreads, maxSteps);
    if (!rb.ok || rb.assumeViolated)
      return std::nullopt;
    ExecResult ra = runKernel(after, opts.afterIR, irOnly, opts.afterIRIsSource,
                              cfg, inA, maxThreads, maxSteps);
    if (!ra.ok || (irOnly && ra.assumeViolated))
      return std::nullopt;
    std::map<unsigned, llvm::APInt> scalars;
    for (size_t i = 0; i < scalarArg.size(); ++i)
      scalars.emplace(
          scalarArg[i],
          llvm::APInt(enc.widthOf(blk.getArgument(scalarArg[i]).getType()),
                      (uint64_t)v[6 + i], /*isSigned=*/true));
    std::optional<Counterexample> found =
        firstDifference(before, enc, cfg, scalars, read, rb, ra, inB, inA,
                        appliesOperations(before) || appliesOperations(after));
    if (!found)
      return std::nullopt;
    Counterexample &c = *found;
    if (irOnly)
      ranOnIR(c, rb, ra);
    else if (confirmOnIR(opts, before, after, cfg, inB, inA, rb, ra, c,
                         maxThreads, maxSteps))
      return std::nullopt;
    // What the original rested on: the same runs on the IR, and where it
    // stood on clean runs instead of the static checks, clean ones.
    if (c.replayedOn != cex.replayedOn || (cex.runsChecked && !c.runsChecked))
      return std::nullopt;
    return found;
  };
  // Each value in turn towards 1 (launch) or 0 (scalars): the first
  // candidate that still shows a difference is kept, until none does.
  bool shrunk = false;
  for (bool progress = true; progress;) {
    progress = false;
    for (size_t i = 0; i < vals.size(); ++i) {
      int64_t x = vals[i], low = i < 6 ? 1 : 0;
      std::vector<int64_t> tries = {low, x / 2, x - (x > 0 ? 1 : -1)};
      if (x < 0)
        tries = {low, x / 2, x + 1};
      for (int64_t t : tries) {
        if (Clock::now() - start > std::chrono::milliseconds(budgetMs))
          return shrunk;
        if (t == x || (i < 6 && t < 1) ||
            (x >= 0 ? (t < low || t > x) : (t > 0 || t < x)))
          continue;
        Values cand = vals;
        cand[i] = t;
        if (!holds(cand))
          continue;
        std::optional<Counterexample> c = differs(cand);
        KV_DEBUG("shrink", llvm::errs() << "shrink: value " << i << " = " << t
                                        << (c ? ": differs" : ": no") << "\n");
        if (c) {
          cex = std::move(*c);
          vals = std::move(cand);
          shrunk = progress = true;
          break;
        }
      }
    }
  }
  return shrunk;
}

} // namespace kv
