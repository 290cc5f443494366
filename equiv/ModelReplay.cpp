//===- ModelReplay.cpp - a solver model run on the executor ---------------===//
//
// PairCheck::replay: the launch, scalars and input cells of a model of the
// per-array query, run concretely on both kernels; a counterexample is only
// reported when the runs really differ.
//
//===----------------------------------------------------------------------===//
#include "equiv/IRExecutor.h"
#include "equiv/PairCheck.h"
#include "passes/lower/LowerToKV.h"
#include "smt-encode/Debug.h"
#include "smt-encode/Encoder.h"
#include "smt-encode/Executor.h"
#include "smt-encode/Stats.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalVariable.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <optional>
#include <set>
#include <tuple>

using namespace mlir;

namespace kv {

//===----------------------------------------------------------------------===//
// Model -> concrete values
//===----------------------------------------------------------------------===//

void PairCheck::dumpModel(Encoder &enc, const z3::model &m) {
  for (auto &prm : enc.params)
    if (prm && !prm->is_array())
      llvm::errs() << " " << prm->to_string() << "="
                   << m.eval(*prm, true).to_string();
  llvm::errs() << "\n";
  enc.dumpSums(m);
}

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

/// The launch, the cell, the threads and both kernels' writes of a replay
/// (KV_DEBUG).
void dumpReplay(Encoder &enc, const z3::model &m, const LaunchConfig &cfg,
                const z3::expr &k, ExecResult &rs, ExecResult &rt,
                unsigned arg) {
  llvm::errs() << "replay: grid " << cfg.grid[0] << "," << cfg.grid[1] << ","
               << cfg.grid[2] << " block " << cfg.block[0] << ","
               << cfg.block[1] << "," << cfg.block[2]
               << " k=" << m.eval(k, true).to_string();
  PairCheck::dumpModel(enc, m);
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

/// Fills \p cex with the first cell of array \p arg where the runs \p rs
/// and \p rt differ (the solver's cell \p k first), if there is one.
bool firstMismatch(
    Encoder &enc, KernelModel &ks, const z3::model &m, unsigned arg,
    const z3::expr &k, ExecResult &rs, ExecResult &rt,
    const std::map<std::pair<unsigned, uint64_t>, llvm::APInt> &inputsRead,
    Counterexample &cex,
    const std::function<llvm::APInt(unsigned, uint64_t)> &initial,
    bool floats) {
  // Compare every cell either kernel wrote; prefer the solver's cell.
  // A cell a kernel leaves alone keeps the content the run started from:
  // the input the executor was given (which the small and pseudo-random
  // inputs take from the model's only in part).
  auto cell = [&](ExecResult &r, uint64_t idx) {
    auto it = r.written[arg].find(idx);
    if (it != r.written[arg].end())
      return it->second;
    return initial(arg, idx);
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
    if (!executor::certainlyDiffer(rs, rt, arg, idx, a, b, floats))
      continue;
    cex.mismatchArray = enc.paramNames[arg];
    cex.mismatchIndex = (int64_t)idx;
    cex.before = a.getSExtValue();
    cex.after = b.getSExtValue();
    cex.replayed = true;
    for (unsigned i = 0; i < enc.params.size(); ++i)
      if (enc.params[i] && !enc.params[i]->is_array()) {
        Type t = ks.op.getBlock().getArgument(i).getType();
        llvm::APInt v = numeralOf(m.eval(*enc.params[i], true), enc.widthOf(t));
        cex.addScalar(enc.paramNames[i], v, enc.paramUnsigned[i]);
      }
    // Every cell read that is not 0 (a model's are few; a cell not listed
    // is 0 to a replay).
    for (auto &[key, v] : inputsRead)
      if (!v.isZero())
        cex.arrays[enc.paramNames[key.first]][(int64_t)key.second] =
            v.getSExtValue();
    return true;
  }
  return false;
}

} // namespace

IRInputs irInputsFor(KernelOp op, const llvm::Function &ir,
                     const ExecInputs &from) {
  Block &blk = op.getBlock();
  IRInputs in;
  in.scalar = from.scalar;
  in.initial = from.initial;
  in.sharedInitial = from.sharedInitial;
  std::map<std::string, unsigned> globalArgs;
  for (unsigned i = 0; i < blk.getNumArguments(); ++i) {
    Type t = blk.getArgument(i).getType();
    unsigned bytes = 0;
    if (isa<GlobalArrayType, SharedArrayType>(t))
      bytes = getArrayElementType(t).getIntOrFloatBitWidth() / 8;
    in.elemBytes.push_back(bytes);
    if (bytes && i >= kvParamCount(ir))
      globalArgs[op.getArgName(i).str()] = i;
  }
  in.printStream = printStreamArg(op);
  in.nullParams = nullParamsArg(op);
  in.globalArray =
      [globalArgs = std::move(globalArgs)](
          const llvm::GlobalVariable &gv) -> std::optional<unsigned> {
    auto it = globalArgs.find(globalArrayName(gv.getName()));
    if (it == globalArgs.end())
      return std::nullopt;
    return it->second;
  };
  return in;
}

std::optional<std::string>
confirmOnIR(const CheckOptions &opts, KernelOp before, KernelOp after,
            const LaunchConfig &beforeCfg, const ExecInputs &inB,
            const ExecInputs &inA, ExecResult &rb, ExecResult &ra,
            Counterexample &cex, uint64_t maxThreads, uint64_t maxSteps,
            const LaunchConfig *afterCfg) {
  stats::Scoped timer("replay");
  if (!opts.beforeIR && !opts.afterIR) {
    cex.replayedOn = "the kv models (no LLVM IR for either kernel)";
    return std::nullopt;
  }
  if (opts.bits != 32) {
    cex.replayedOn = "the kv models at --bits=" + std::to_string(opts.bits) +
                     " (the LLVM IR computes at full width)";
    return std::nullopt;
  }
  struct Side {
    const llvm::Function *ir;
    KernelOp op;
    const ExecInputs &in;
    ExecResult &kvRun;
    const char *label;
    const LaunchConfig &cfg;
  };
  Side sides[] = {{opts.beforeIR, before, inB, rb, "before", beforeCfg},
                  {opts.afterIR, after, inA, ra, "after",
                   afterCfg ? *afterCfg : beforeCfg}};
  std::string notRun;
  bool clean = true;
  for (Side &s : sides) {
    if (!s.ir)
      continue;
    IRInputs in = irInputsFor(s.op, *s.ir, s.in);
    const LaunchConfig &cfg = s.cfg;
    ExecResult ir = executeIR(*s.ir, cfg, in, maxThreads, maxSteps);
    if (!ir.ok) {
      if (notRun.empty())
        notRun = std::string("the LLVM IR of the ") + s.label +
                 " kernel did not run: " + ir.error;
      continue;
    }
    if (!ir.unchecked.empty()) {
      clean = false;
      if (debugEnabled("runs"))
        llvm::errs() << "runs: the " << s.label << " kernel's IR run is not "
                     << "known to be race free: " << ir.unchecked << "\n";
    }
    // The after kernel fails (a trap, a failed assert, undefined behaviour)
    // on an input where the before kernel is defined, and its model says so
    // too: that is the difference, whatever the cells hold.
    if (s.op == after && ir.assumeViolated && s.kvRun.assumeViolated) {
      cex.afterFails = true;
      continue;
    }
    // Every cell either run wrote, as both leave it: the two sorted maps
    // walked side by side.
    std::optional<std::tuple<unsigned, uint64_t, llvm::APInt, llvm::APInt>>
        differs;
    auto compare = [&](unsigned arg) {
      auto &km = s.kvRun.written[arg], &im = ir.written[arg];
      auto a = km.begin(), b = im.begin();
      while (a != km.end() || b != im.end()) {
        uint64_t idx = b == im.end() || (a != km.end() && a->first < b->first)
                           ? a->first
                           : b->first;
        bool inA = a != km.end() && a->first == idx,
             inB = b != im.end() && b->first == idx;
        llvm::APInt m = inA ? a->second : s.in.initial(arg, idx);
        llvm::APInt v = inB ? b->second : s.in.initial(arg, idx);
        if (m.getBitWidth() != v.getBitWidth() || m != v) {
          differs.emplace(arg, idx, m, v);
          return;
        }
        if (inA)
          ++a;
        if (inB)
          ++b;
      }
    };
    std::set<unsigned> args;
    for (ExecResult *r : {&s.kvRun, &ir})
      for (auto &[arg, m] : r->written)
        args.insert(arg);
    for (unsigned arg : args)
      if (!differs)
        compare(arg);
    if (differs) {
      auto &[arg, idx, m, v] = *differs;
      std::string at =
          s.op.getArgName(arg).str() + "[" + std::to_string((int64_t)idx) + "]";
      return "internal error: on the counterexample (gridDim (" +
             std::to_string(cfg.grid[0]) + "," + std::to_string(cfg.grid[1]) +
             "," + std::to_string(cfg.grid[2]) + "), blockDim (" +
             std::to_string(cfg.block[0]) + "," + std::to_string(cfg.block[1]) +
             "," + std::to_string(cfg.block[2]) +
             ")) kvalidate's model of the " + s.label + " kernel leaves " + at +
             " = " + llvm::toString(m, 10, true) + " but its LLVM IR leaves " +
             llvm::toString(v, 10, true) +
             ": the lowering into kv is wrong here" +
             (opts.assumeSafe ? " (or the kernel has a data race, which is "
                                "assumed away without the safety checks)"
                              : "") +
             ", so the difference found is not reported as a counterexample "
             "(please report this)";
    }
    if (ir.assumeViolated && !s.kvRun.assumeViolated)
      return std::string("internal error: on the counterexample the LLVM IR "
                         "of the ") +
             s.label +
             " kernel violates a __builtin_assume or reaches unreachable, "
             "which its kv model does not";
  }
  // A difference shown only by kvalidate's own models is not one of the
  // kernels' code: not a counterexample.
  if (!notRun.empty()) {
    cex.onlyModels = true;
    return notRun + " (the difference is only the models')";
  }
  if (opts.beforeIR && opts.afterIR) {
    cex.replayedOn = "the LLVM IR of both kernels";
    cex.runsChecked = clean;
  } else
    cex.replayedOn = std::string("the LLVM IR of the ") +
                     (opts.beforeIR ? "before kernel and the kv model of the "
                                      "after kernel"
                                    : "after kernel and the kv model of the "
                                      "before kernel") +
                     " (no IR for it)";
  return std::nullopt;
}

bool PairCheck::replay(Encoder &enc, KernelModel &ks, KernelModel &kt,
                       const z3::model &m, unsigned arg, const z3::expr &k,
                       Counterexample &cex, std::string &why, bool zeroUnread,
                       bool smallInputs, unsigned seed) {
  // The input cells the query constrains; with zeroUnread every other cell
  // is 0 (the model's default value may break the before kernel's
  // preconditions in threads the query never looked at).
  z3::context &ctx = enc.ctx;
  // (Keeps the previous attempt's reason.)
  if (smallInputs && !zeroUnread && (ks.hasApply || kt.hasApply))
    return false;
  // A model of the abstracted query satisfies the facts only with their
  // products uninterpreted (gridDim.y * blockDim.y >= h held for a launch
  // of 24 rows and h = 8320): the kernels may well differ at such a launch,
  // but the assumptions exclude it, so it is no counterexample.
  if (!enc.factsHoldIn(m)) {
    why = "the model's launch or scalars break the assumptions";
    return false;
  }
  // Each kernel's launch: the after kernel's its own where it has one.
  LaunchConfig cfg, cfgT;
  unsigned w32 = modelWidth(32, enc.bits);
  auto launchOf = [&](unsigned l) {
    LaunchConfig c;
    for (int i = 0; i < 3; ++i) {
      c.grid[i] = numeralOf(m.eval(enc.gdimOf(l)[i], true), w32).getZExtValue();
      c.block[i] =
          numeralOf(m.eval(enc.bdimOf(l)[i], true), w32).getZExtValue();
    }
    return c;
  };
  cfg = launchOf(ks.launch);
  cfgT = launchOf(kt.launch);
  cex.ownAfterLaunch = kt.launch != ks.launch;
  for (int i = 0; i < 3; ++i) {
    cex.gridDim[i] = cfg.grid[i];
    cex.blockDim[i] = cfg.block[i];
    cex.afterGridDim[i] = cfgT.grid[i];
    cex.afterBlockDim[i] = cfgT.block[i];
  }
  // The work a replay does hardly depends on the input cells: a launch
  // and scalars that ran into the work limit are not run again with other
  // inputs.
  std::string workKey;
  for (const LaunchConfig *c : {&cfg, &cfgT})
    for (int i = 0; i < 3; ++i)
      workKey +=
          std::to_string(c->grid[i]) + "," + std::to_string(c->block[i]) + ",";
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
    std::optional<unsigned> nulls = nullParamsArg(km.op);
    in.initial = [&, nulls](unsigned a, uint64_t idx) {
      Type et = getArrayElementType(km.op.getBlock().getArgument(a).getType());
      bool isConstrained = constrained.count({a, idx});
      // A null pointer parameter only where the model has one: other inputs
      // may be of the replay's choosing, this one would fault the run.
      if (a == nulls) {
        if (!isConstrained)
          return llvm::APInt(enc.widthOf(et), 0);
        auto table = tables.find(a);
        if (table == tables.end())
          table = tables.try_emplace(a, m, *enc.params[a]).first;
        llvm::APInt v = numeralOf(table->second.at(idx), enc.widthOf(et));
        inputsRead.emplace(std::make_pair(a, idx), v);
        return v;
      }
      // Inputs of the kernels' own choosing, the launch and scalars the
      // model's: where the model's cells do not tell the kernels apart
      // (two folds in different orders are two free functions to the
      // solver), pseudo-random cells usually do. Float kernels get floats
      // of magnitudes 2^-8 .. 2^12, whose sums round differently in
      // different orders; integer kernels small integers, clear of the
      // before kernel's no-overflow precondition.
      if (seed) {
        llvm::APInt v = executor::pseudoRandomCell(
            enc.widthOf(et), a, idx, seed, ks.hasApply || kt.hasApply);
        inputsRead.emplace(std::make_pair(a, idx), v);
        return v;
      }
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
      // A shadow thread: one per cell read, which would otherwise count
      // against the query's thread limit (a tile of a few blocks is
      // thousands of cells).
      bool wasShadow = enc.shadow;
      enc.shadow = true;
      llvm::scope_exit restore([&] { enc.shadow = wasShadow; });
      Thread &th = enc.makeThread(t, b, 2, km->launch);
      z3::expr v = enc.arrayValue(*km, a, -1,
                                  ctx.bv_val(idx, Encoder::indexBits), th, 2);
      Type et = getArrayElementType(km->op.getBlock().getArgument(a).getType());
      return numeralOf(m.eval(v, true), enc.widthOf(et));
    };
    // No in.apply: an operation the executor cannot compute (approximate
    // math, a libdevice call) ends the replay. Its value in the model is
    // the solver's choice, not the kernels': a "counterexample" built on it
    // could be a false alarm.
    quietPrintStream(km.op, in);
    return in;
  };
  // The interpreter runs every thread, one block at a time: a launch
  // larger than replayThreads is not replayed (its written cells alone
  // would take gigabytes).
  if (hasDeadline && remainingMs() <= 1) {
    why = "the time budget ran out before the counterexample was replayed";
    return false;
  }
  // And a limit on the work: a model with a long loop in every thread
  // (n = 8192 over 16k threads) would take a minute; a smaller one is
  // searched for instead. 2^30 instructions run in about five seconds.
  const uint64_t maxReplaySteps = uint64_t(1) << 30;
  ExecInputs inS = inputsFor(ks), inT = inputsFor(kt);
  ExecResult rs = execute(ks.op, cfg, inS, replayThreads, maxReplaySteps);
  ExecResult rt = rs.ok
                      ? execute(kt.op, cfgT, inT, replayThreads, maxReplaySteps)
                      : ExecResult();
  if (debugEnabled("checker"))
    dumpReplay(enc, m, cfg, k, rs, rt, arg);
  if (!rs.ok || !rt.ok) {
    why = "the counterexample could not be replayed: " +
          (!rs.ok ? rs.error : rt.error);
    if ((!rs.ok ? rs : rt).tooMuchWork)
      tooMuchWork = workKey;
    if (debugEnabled("checker"))
      llvm::errs() << "replay failed: " << why << "\n";
    return false;
  }
  if (rs.assumeViolated) {
    why = "the counterexample violates a __builtin_assume or the no-overflow "
          "precondition of the before kernel";
    return false;
  }
  if (firstMismatch(enc, ks, m, arg, k, rs, rt, inputsRead, cex, inS.initial,
                    ks.hasApply || kt.hasApply)) {
    if (std::optional<std::string> d =
            confirmOnIR(opts, ks.op, kt.op, cfg, inS, inT, rs, rt, cex,
                        replayThreads, maxReplaySteps, &cfgT)) {
      why = *d;
      if (irDisagreement.empty())
        irDisagreement = *d;
      return false;
    }
    return true;
  }
  why = "the solver's counterexample does not replay (an obligation the "
        "encoding could not discharge)";
  return false;
}

} // namespace kv
