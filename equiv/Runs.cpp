//===- Runs.cpp - what the runs of two kernels share ----------------------===//
//
// The launch facts the runs evaluate, running a kernel's model or its IR,
// the first difference of two runs (RunsInternal.h); and the bound probes'
// quick runs at large launches (modelConditionFailsByRunning).
//
//===----------------------------------------------------------------------===//
#include "equiv/IRExecutor.h"
#include "equiv/RandomRuns.h"
#include "equiv/RunsInternal.h"
#include "equiv/Safety.h"
#include "passes/lower/LowerToKV.h"
#include "smt-encode/Debug.h"

#include "llvm/IR/Instructions.h"

#include <chrono>
#include <set>

namespace kv {
namespace runs {

LaunchFacts::LaunchFacts(KernelOp k, const CheckOptions &opts, bool forSolving)
    : kernel(k), lease(forSolving ? std::make_unique<ContextLease>() : nullptr),
      ctx(lease ? lease->get() : evaluationContext()), enc(ctx, opts.bits, k),
      from(ctx) {
  enc.hugeGrids = opts.hugeGrids;
  std::string err;
  if (std::optional<z3::expr> a = parseAssumptions(enc, opts, err))
    facts = enc.launchConstraints() && *a;
  for (int i = 0; i < 3; ++i) {
    vars.push_back(enc.bdim[i]);
    vars.push_back(enc.gdim[i]);
  }
  for (unsigned a = 0; a < enc.params.size(); ++a)
    if (enc.params[a] && !enc.params[a]->is_array()) {
      vars.push_back(*enc.params[a]);
      scalarArg.push_back(a);
    }
  for (const z3::expr &v : vars)
    from.push_back(v);
}

bool LaunchFacts::admits(const Values &vals) {
  z3::expr_vector to(ctx);
  for (size_t i = 0; i < vals.size(); ++i)
    to.push_back(ctx.bv_val(vals[i], vars[i].get_sort().bv_size()));
  return facts->substitute(from, to).simplify().is_true();
}

std::map<unsigned, llvm::APInt> LaunchFacts::scalarsAt(const Values &vals) {
  mlir::Block &blk = kernel.getBlock();
  std::map<unsigned, llvm::APInt> scalars;
  for (size_t i = 0; i < scalarArg.size(); ++i)
    scalars.emplace(
        scalarArg[i],
        llvm::APInt(enc.widthOf(blk.getArgument(scalarArg[i]).getType()),
                    (uint64_t)vals[6 + i], /*isSigned=*/true,
                    /*implicitTrunc=*/true));
  return scalars;
}

LaunchConfig LaunchFacts::launchAt(const Values &vals) {
  LaunchConfig cfg;
  for (int i = 0; i < 3; ++i) {
    cfg.block[i] = (uint64_t)vals[2 * i];
    cfg.grid[i] = (uint64_t)vals[2 * i + 1];
  }
  return cfg;
}

ExecInputs recordedInputs(
    KernelOp k, unsigned bits, const std::map<unsigned, llvm::APInt> &scalars,
    std::map<std::pair<unsigned, uint64_t>, llvm::APInt> &read,
    std::function<llvm::APInt(unsigned a, uint64_t idx, unsigned w)> cell) {
  return kernelInputs(
      k, bits,
      [&scalars](unsigned a) -> int64_t {
        auto it = scalars.find(a);
        return it == scalars.end() ? 0 : it->second.getSExtValue();
      },
      [&read, cell = std::move(cell),
       nulls = nullParamsArg(k)](unsigned a, uint64_t idx, unsigned w) {
        // Runs pass no null pointer; a solver's model may.
        if (a == nulls)
          return llvm::APInt(w, 0);
        llvm::APInt v = cell(a, idx, w);
        read.emplace(std::make_pair(a, idx), v);
        return v;
      });
}

bool appliesOperations(KernelOp k) {
  bool found = false;
  k.walk([&](ApplyOp) { found = true; });
  return found;
}

static bool
appliesOperationsIn(const llvm::Function *f,
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
          if (appliesOperationsIn(callee, seen))
            return true;
    }
  return false;
}

bool appliesOperations(const llvm::Function *f) {
  llvm::SmallPtrSet<const llvm::Function *, 8> seen;
  return appliesOperationsIn(f, seen);
}

ExecResult runKernel(KernelOp k, const llvm::Function *ir, bool irOnly,
                     bool isSource, const LaunchConfig &cfg, ExecInputs &in,
                     uint64_t maxThreads, uint64_t maxSteps) {
  if (!irOnly)
    return execute(k, cfg, in, maxThreads, maxSteps);
  IRInputs irIn = irInputsFor(k, *ir, in);
  irIn.noSignedOverflow = isSource;
  ExecResult r = executeIR(*ir, cfg, irIn, maxThreads, maxSteps);
  for (auto it = r.written.begin(); it != r.written.end();)
    it = it->first >= kvParamCount(*ir) && it->first != irIn.printStream
             ? r.written.erase(it)
             : std::next(it);
  return r;
}

void ranOnIR(Counterexample &cex, const ExecResult &rb, const ExecResult &ra) {
  cex.replayedOn = "the LLVM IR of both kernels";
  cex.runsChecked = rb.unchecked.empty() && ra.unchecked.empty();
  cex.uncheckedForRacesOnly =
      !rb.uncheckedOtherThanRaces && !ra.uncheckedOtherThanRaces;
}

static std::string approximateNote(const ExecResult &rb, const ExecResult &ra,
                                   unsigned arg, uint64_t idx) {
  std::string note;
  for (const ExecResult *r : {&rb, &ra}) {
    auto in = r->ranges.find(arg);
    if (in == r->ranges.end() || !in->second.count(idx))
      continue;
    auto [lo, hi] = in->second.at(idx);
    char text[96];
    snprintf(text, sizeof text, "%s in [%.9g, %.9g]",
             r == &rb ? "before" : "after", lo, hi);
    note += (note.empty() ? "" : ", ") + std::string(text);
  }
  return note;
}

std::optional<Counterexample> firstDifference(
    KernelOp before, Encoder &enc, const LaunchConfig &cfg,
    const std::map<unsigned, llvm::APInt> &scalars,
    const std::map<std::pair<unsigned, uint64_t>, llvm::APInt> &read,
    ExecResult &rb, ExecResult &ra, ExecInputs &inB, ExecInputs &inA,
    bool floats) {
  // The before kernel read a variable it never set: any value there is
  // its behaviour (the after kernel may refine it), so the run's zero is
  // no counterexample. (The after kernel's zero is one of its behaviours.)
  if (rb.readUnset)
    return std::nullopt;
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
    if (!executor::certainlyDiffer(rb, ra, arg, idx, vb, va, floats))
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
    cex.approximate = approximateNote(rb, ra, arg, idx);
    cex.replayed = true;
    return cex;
  }
  return std::nullopt;
}

} // namespace runs

bool modelConditionFailsByRunning(KernelOp k, const CheckOptions &opts,
                                  unsigned budgetMs) {
  using Clock = std::chrono::steady_clock;
  Clock::time_point start = Clock::now();
  runs::LaunchFacts lf(k, opts);
  if (!lf.facts)
    return false;
  // Large blocks and scalars first: a loop over blockDim or a scalar runs
  // longest there. A few launches, each checked against the assumptions by
  // evaluation.
  const uint64_t blocks[][3] = {{1024, 1, 1}, {32, 32, 1}, {16, 16, 4},
                                {256, 1, 1},  {64, 1, 1},  {8, 8, 8}};
  const uint64_t grids[][3] = {{1, 1, 1}, {4, 2, 2}};
  const int64_t values[] = {1024, 65536, 100};
  std::set<runs::LaunchFacts::Values> tried;
  for (const auto &b : blocks)
    for (const auto &g : grids)
      for (int64_t v : values) {
        if (Clock::now() - start > std::chrono::milliseconds(budgetMs))
          return false;
        runs::LaunchFacts::Values vals;
        for (int i = 0; i < 3; ++i) {
          vals.push_back((int64_t)b[i]);
          vals.push_back((int64_t)g[i]);
        }
        vals.resize(lf.vars.size(), v);
        // A kernel without scalar parameters has one launch per block and
        // grid, whatever v is: each runs once.
        if (!tried.insert(vals).second || !lf.admits(vals))
          continue;
        LaunchConfig cfg = runs::LaunchFacts::launchAt(vals);
        ExecInputs in = kernelInputs(
            k, opts.bits, [v](unsigned) { return v; },
            [](unsigned a, uint64_t idx, unsigned ew) {
              return executor::pseudoRandomCell(ew, a, idx, 2,
                                                /*floats=*/false);
            });
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
