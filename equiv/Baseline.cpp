//===- Baseline.cpp - the non-parameterized encoding (--threads) ----------===//
//
// PUG_para's section III: one concrete launch, every thread modelled. Each
// array is a chain of conditional stores per barrier interval over all
// threads (shared arrays per block); reads select from the state at the
// start of their interval. The verdict holds for that launch only. It is
// the cross-check of the parameterized proof and the yardstick of its speed:
// the encoding grows with the number of threads.
//
//===----------------------------------------------------------------------===//
#include "equiv/Checker.h"
#include "equiv/IRExecutor.h"
#include "equiv/Safety.h"
#include "smt-encode/Encoder.h"
#include "smt-encode/Executor.h"
#include "smt-encode/Solver.h"

#include "llvm/ADT/StringExtras.h"

#include <chrono>
#include <map>
#include <set>

using namespace mlir;

namespace kv {
namespace {

/// \p cell after an atomic update \p kind with \p v.
z3::expr combine(RmwKind kind, const z3::expr &cell, const z3::expr &v) {
  switch (kind) {
  case RmwKind::add:
    return cell + v;
  case RmwKind::and_:
    return cell & v;
  case RmwKind::or_:
    return cell | v;
  case RmwKind::xor_:
    return cell ^ v;
  case RmwKind::smin:
    return z3::ite(z3::slt(v, cell), v, cell);
  case RmwKind::smax:
    return z3::ite(z3::sgt(v, cell), v, cell);
  case RmwKind::umin:
    return z3::ite(z3::ult(v, cell), v, cell);
  case RmwKind::umax:
    return z3::ite(z3::ugt(v, cell), v, cell);
  }
  llvm_unreachable("unknown atomic kind");
}

struct FixedLaunch {
  Encoder &enc;
  z3::context &ctx;
  LaunchConfig cfg;
  std::vector<Thread *> threads; // every thread of the launch
  /// (kernel, arg, interval, linear block or -1) -> array after interval.
  std::map<std::tuple<KernelModel *, unsigned, int, int64_t>, z3::expr> state;

  FixedLaunch(Encoder &enc, const LaunchConfig &cfg)
      : enc(enc), ctx(enc.ctx), cfg(cfg) {
    unsigned w = modelWidth(32, enc.bits);
    for (uint64_t bz = 0; bz < cfg.grid[2]; ++bz)
      for (uint64_t by = 0; by < cfg.grid[1]; ++by)
        for (uint64_t bx = 0; bx < cfg.grid[0]; ++bx)
          for (uint64_t tz = 0; tz < cfg.block[2]; ++tz)
            for (uint64_t ty = 0; ty < cfg.block[1]; ++ty)
              for (uint64_t tx = 0; tx < cfg.block[0]; ++tx)
                threads.push_back(&enc.makeThread(
                    {ctx.bv_val(tx, w), ctx.bv_val(ty, w), ctx.bv_val(tz, w)},
                    {ctx.bv_val(bx, w), ctx.bv_val(by, w), ctx.bv_val(bz, w)},
                    0));
    enc.readHook = [this](KernelModel &k, unsigned arg, int interval,
                          const z3::expr &index, const Thread &t) {
      return z3::select(arrayAfter(k, arg, interval, blockOf(k, arg, t)),
                        index);
    };
  }

  int64_t blockOf(KernelModel &k, unsigned arg, const Thread &t) {
    if (!enc.isShared(k, arg))
      return -1;
    int64_t b = 0;
    for (int i = 2; i >= 0; --i)
      b = b * (int64_t)cfg.grid[i] + (int64_t)t.bid[i].get_numeral_uint64();
    return b;
  }

  z3::expr arrayAfter(KernelModel &k, unsigned arg, int interval,
                      int64_t block) {
    auto key = std::make_tuple(&k, arg, interval, block);
    auto it = state.find(key);
    if (it != state.end())
      return it->second;
    z3::expr a(ctx);
    if (interval < 0) {
      if (!enc.isShared(k, arg)) {
        a = *enc.params[arg];
      } else {
        // Uninitialized shared memory: the same unknown content in both
        // kernels (by array name), per block.
        Type et =
            getArrayElementType(k.op.getBlock().getArgument(arg).getType());
        a = ctx.constant(("shared." + k.op.getArgName(arg).str() + "@init.b" +
                          std::to_string(block))
                             .c_str(),
                         ctx.array_sort(ctx.bv_sort(Encoder::indexBits),
                                        ctx.bv_sort(enc.widthOf(et))));
      }
    } else {
      a = arrayAfter(k, arg, interval - 1, block);
      auto &ws = k.writes[arg][interval];
      for (Thread *t : threads) {
        if (block >= 0 && blockOf(k, arg, *t) != block)
          continue;
        for (WriteOp w : ws) {
          z3::expr g = enc.value(k, w.getGuard(), *t);
          if (!g.is_bool())
            g = g == ctx.bv_val(1, 1);
          z3::expr i = enc.toIndex(enc.value(k, w.getIndex(), *t));
          z3::expr v = enc.value(k, w.getValue(), *t);
          // Threads one after another: an order the hardware may pick,
          // and any other gives the same cells.
          if (std::optional<RmwKind> kind = w.getRmw())
            v = combine(*kind, z3::select(a, i), v);
          a = z3::ite(g, z3::store(a, i, v), a);
        }
      }
    }
    state.emplace(key, a);
    return a;
  }
};

} // namespace

CheckResult checkFixedLaunch(KernelOp before, KernelOp after,
                             const CheckOptions &opts,
                             const LaunchConfig &cfg) {
  auto start = std::chrono::steady_clock::now();
  CheckResult result;
  auto finish = [&]() {
    result.timeMs = std::chrono::duration<double, std::milli>(
                        std::chrono::steady_clock::now() - start)
                        .count();
    return result;
  };
  std::string launch =
      "gridDim (" + std::to_string(cfg.grid[0]) + "," +
      std::to_string(cfg.grid[1]) + "," + std::to_string(cfg.grid[2]) +
      "), blockDim (" + std::to_string(cfg.block[0]) + "," +
      std::to_string(cfg.block[1]) + "," + std::to_string(cfg.block[2]) + ")";
  result.assumptions.push_back("bounded: this launch only, every thread "
                               "modelled (" +
                               launch + ")");
  for (const std::string &a : opts.assumptions)
    result.assumptions.push_back(opts.describeAssumption(a));
  try {
    ContextLease lease;
    z3::context &ctx = lease;
    Encoder enc(ctx, opts.bits, before);
    KernelModel kb(before, "before"), ka(after, "after");
    for (KernelModel *km : {&kb, &ka})
      if (!km->iterOps.empty()) {
        // Every thread is modelled, but not every iteration.
        result.verdict = Verdict::Unsupported;
        result.reason = km->label +
                        " kernel: a loop with a symbolic trip count (kv.iter) "
                        "has no non-parameterized encoding";
        return finish();
      }
    enc.trusted = &kb;
    FixedLaunch fl(enc, cfg);
    z3::expr facts = enc.launchConstraints();
    for (int i = 0; i < 3; ++i) {
      unsigned w = enc.bdim[i].get_sort().bv_size();
      facts = facts && enc.bdim[i] == ctx.bv_val(cfg.block[i], w) &&
              enc.gdim[i] == ctx.bv_val(cfg.grid[i], w);
    }
    std::string err;
    if (std::optional<z3::expr> f = parseAssumptions(enc, opts, err))
      facts = facts && *f;
    else {
      result.verdict = Verdict::Error;
      result.reason = err;
      return finish();
    }
    z3::expr k = ctx.bv_const("k", Encoder::indexBits);
    z3::expr differ = ctx.bool_val(false);
    std::vector<std::pair<unsigned, z3::expr>> outs;
    std::set<unsigned> outputs;
    for (KernelModel *km : {&kb, &ka})
      for (auto &[arg, byInterval] : km->writes)
        if (!enc.isShared(*km, arg))
          outputs.insert(arg);
    for (unsigned arg : outputs) {
      z3::expr d =
          z3::select(fl.arrayAfter(kb, arg, kb.numIntervals - 1, -1), k) !=
          z3::select(fl.arrayAfter(ka, arg, ka.numIntervals - 1, -1), k);
      outs.push_back({arg, d});
      differ = differ || d;
    }
    if (!enc.unsupported.empty()) {
      result.verdict = Verdict::Unsupported;
      result.reason = "kv construct without an encoding: " + enc.unsupported;
      return finish();
    }
    auto deadline = start + std::chrono::seconds(opts.timeoutSecs);
    Portfolio s(
        ctx,
        [&]() -> unsigned {
          if (!opts.timeoutSecs)
            return 0;
          auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                          deadline - std::chrono::steady_clock::now())
                          .count();
          return left <= 1 ? 1 : (unsigned)left;
        },
        SolverSettings{opts.solver, opts.seed});
    s.add(facts);
    s.add(enc.side);
    // The before kernel's preconditions for every thread of the launch.
    for (Thread *t : fl.threads)
      s.add(enc.threadFacts(*t));
    s.add(differ);
    z3::check_result r = s.check();
    if (r == z3::unknown) {
      result.verdict = Verdict::Unknown;
      result.reason = "solver: " + s.reason_unknown();
      return finish();
    }
    if (r == z3::unsat) {
      result.verdict = Verdict::EquivalentForLaunch;
      result.reason = "no difference for " + launch + " (bounded)";
      return finish();
    }
    // Replay the model on the executor.
    z3::model m = s.get_model();
    Counterexample cex;
    for (int i = 0; i < 3; ++i) {
      cex.gridDim[i] = cfg.grid[i];
      cex.blockDim[i] = cfg.block[i];
    }
    std::map<std::pair<unsigned, uint64_t>, llvm::APInt> read;
    auto inputsFor = [&](KernelModel &km) {
      ExecInputs in;
      in.bits = opts.bits;
      in.scalar = [&, kmp = &km](unsigned a) {
        Type t = kmp->op.getBlock().getArgument(a).getType();
        return numeralOf(m.eval(*enc.params[a], true), enc.widthOf(t));
      };
      in.initial = [&, kmp = &km](unsigned a, uint64_t idx) {
        Type et =
            getArrayElementType(kmp->op.getBlock().getArgument(a).getType());
        llvm::APInt v =
            numeralOf(m.eval(z3::select(*enc.params[a],
                                        ctx.bv_val(idx, Encoder::indexBits)),
                             true),
                      enc.widthOf(et));
        read.emplace(std::make_pair(a, idx), v);
        return v;
      };
      in.sharedInitial = [&, kmp = &km](unsigned a, const uint64_t bid[3],
                                        uint64_t idx) {
        Thread t;
        unsigned w = modelWidth(32, enc.bits);
        for (int i = 0; i < 3; ++i) {
          t.bid.push_back(ctx.bv_val(bid[i], w));
          t.tid.push_back(ctx.bv_val(0, w));
        }
        Type et =
            getArrayElementType(kmp->op.getBlock().getArgument(a).getType());
        z3::expr arr = fl.arrayAfter(*kmp, a, -1, fl.blockOf(*kmp, a, t));
        return numeralOf(
            m.eval(z3::select(arr, ctx.bv_val(idx, Encoder::indexBits)), true),
            enc.widthOf(et));
      };
      quietPrintStream(km.op, in);
      return in;
    };
    ExecInputs inB = inputsFor(kb), inA = inputsFor(ka);
    ExecResult rb = execute(before, cfg, inB);
    ExecResult ra = execute(after, cfg, inA);
    if (rb.ok && ra.ok && !rb.assumeViolated)
      for (auto &[arg, d] : outs) {
        std::set<uint64_t> cells;
        for (ExecResult *x : {&rb, &ra})
          for (auto &[i, v] : x->written[arg])
            cells.insert(i);
        for (uint64_t i : cells) {
          auto val = [&](ExecResult &x) {
            auto it = x.written[arg].find(i);
            if (it != x.written[arg].end())
              return it->second.getSExtValue();
            return numeralOf(
                       m.eval(z3::select(*enc.params[arg],
                                         ctx.bv_val(i, Encoder::indexBits)),
                              true),
                       64)
                .getSExtValue();
          };
          int64_t b = val(rb), a = val(ra);
          unsigned w =
              getArrayElementType(before.getBlock().getArgument(arg).getType())
                  .getIntOrFloatBitWidth();
          if (executor::sameOutput(llvm::APInt(w, b, /*isSigned=*/true),
                                   llvm::APInt(w, a, /*isSigned=*/true),
                                   kb.hasApply || ka.hasApply))
            continue;
          cex.mismatchArray = enc.paramNames[arg];
          cex.mismatchIndex = (int64_t)i;
          cex.before = b;
          cex.after = a;
          cex.replayed = true;
          for (unsigned p = 0; p < enc.params.size(); ++p)
            if (enc.params[p] && !enc.params[p]->is_array())
              cex.addScalar(enc.paramNames[p],
                            numeralOf(m.eval(*enc.params[p], true),
                                      enc.params[p]->get_sort().bv_size()),
                            enc.paramUnsigned[p]);
          for (auto &[key, v] : read)
            cex.arrays[enc.paramNames[key.first]][(int64_t)key.second] =
                v.getSExtValue();
          // The same run on the kernels' own LLVM IR.
          if (std::optional<std::string> d =
                  confirmOnIR(opts, before, after, cfg, inB, inA, rb, ra, cex,
                              ~uint64_t(0))) {
            result.verdict = Verdict::Unknown;
            result.reason = *d;
            return finish();
          }
          result.verdict = Verdict::NotEquivalent;
          result.reason = "the kernels write different values to '" +
                          cex.mismatchArray + "' for " + launch;
          result.counterexample = cex;
          return finish();
        }
      }
    result.verdict = Verdict::Unknown;
    result.reason =
        "the solver's counterexample for " + launch + " does not replay" +
        (rb.ok && ra.ok ? "" : ": " + (rb.ok ? ra.error : rb.error));
    return finish();
  } catch (z3::exception &e) {
    result.verdict = Verdict::Unknown;
    result.reason = std::string("solver error: ") + e.msg();
    return finish();
  }
}

} // namespace kv
