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
#include "smt-encode/Encoder.h"
#include "smt-encode/Executor.h"

#include <map>
#include <set>

namespace kv {

std::optional<Counterexample>
findByRunning(KernelOp before, KernelOp after, const CheckOptions &opts,
              unsigned &runs, std::string &disagreement) {
  runs = 0;
  z3::context ctx;
  Encoder enc(ctx, opts.bits, before);
  enc.hugeGrids = opts.hugeGrids;
  std::string err;
  std::optional<z3::expr> assumed = parseAssumptions(enc, opts, err);
  if (!assumed)
    return std::nullopt;
  z3::solver s(ctx);
  z3::params p(ctx);
  p.set("timeout", 2000u);
  s.set(p);
  s.add(enc.launchConstraints() && *assumed);
  unsigned w = modelWidth(32, opts.bits);
  mlir::Block &blk = before.getBlock();
  // Small launches and scalars first, then larger ones.
  struct Tier {
    uint64_t grid, block;
    int64_t lo, hi;
    unsigned models;
  };
  for (Tier t : {Tier{2, 64, 0, 64, 3}, Tier{8, 256, -1024, 1024, 2}}) {
    s.push();
    for (int i = 0; i < 3; ++i) {
      s.add(z3::ule(enc.gdim[i], ctx.bv_val(i ? 2 : t.grid, w)));
      s.add(z3::ule(enc.bdim[i], ctx.bv_val(i ? 4 : t.block, w)));
    }
    for (auto &prm : enc.params)
      if (prm && !prm->is_array() && prm->get_sort().bv_size() > 8) {
        unsigned pw = prm->get_sort().bv_size();
        s.add(*prm >= ctx.bv_val(t.lo, pw) && *prm <= ctx.bv_val(t.hi, pw));
      }
    for (unsigned m = 0; m < t.models && s.check() == z3::sat; ++m) {
      z3::model model = s.get_model();
      LaunchConfig cfg;
      for (int i = 0; i < 3; ++i) {
        cfg.grid[i] =
            numeralOf(model.eval(enc.gdim[i], true), w).getZExtValue();
        cfg.block[i] =
            numeralOf(model.eval(enc.bdim[i], true), w).getZExtValue();
      }
      std::map<unsigned, llvm::APInt> scalars;
      for (unsigned a = 0; a < enc.params.size(); ++a)
        if (enc.params[a] && !enc.params[a]->is_array())
          scalars.emplace(
              a, numeralOf(model.eval(*enc.params[a], true),
                           enc.widthOf(blk.getArgument(a).getType())));
      for (unsigned seed : {1u, 2u}) {
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
            llvm::APInt v =
                executor::pseudoRandomCell(ew, a, idx, seed, floats);
            read.emplace(std::make_pair(a, idx), v);
            return v;
          };
          in.sharedInitial = [&, k](unsigned a, const uint64_t *,
                                    uint64_t) mutable {
            return llvm::APInt(
                enc.widthOf(getArrayElementType(
                    k.getBlock().getArgument(a).getType())),
                0);
          };
          return in;
        };
        ExecInputs inB = inputsFor(before), inA = inputsFor(after);
        const uint64_t maxThreads = 1u << 16, maxSteps = uint64_t(1) << 22;
        ExecResult rb = execute(before, cfg, inB, maxThreads, maxSteps);
        if (!rb.ok || rb.assumeViolated)
          continue;
        ExecResult ra = execute(after, cfg, inA, maxThreads, maxSteps);
        if (!ra.ok)
          continue;
        ++runs;
        // The first cell either kernel wrote that the two leave different.
        std::set<std::pair<unsigned, uint64_t>> cells;
        for (ExecResult *r : {&rb, &ra})
          for (auto &[arg, m] : r->written)
            for (auto &[idx, v] : m)
              cells.insert({arg, idx});
        for (auto [arg, idx] : cells) {
          auto value = [&](ExecResult &r, ExecInputs &in) {
            auto it = r.written[arg].find(idx);
            return it != r.written[arg].end() ? it->second
                                              : in.initial(arg, idx);
          };
          llvm::APInt vb = value(rb, inB), va = value(ra, inA);
          if (vb == va)
            continue;
          Counterexample cex;
          for (int i = 0; i < 3; ++i) {
            cex.gridDim[i] = cfg.grid[i];
            cex.blockDim[i] = cfg.block[i];
          }
          for (auto &[a, v] : scalars)
            cex.scalars.push_back({before.getArgName(a).str(),
                                   enc.paramUnsigned[a]
                                       ? (int64_t)v.getZExtValue()
                                       : v.getSExtValue()});
          for (auto &[key, v] : read)
            cex.arrays[before.getArgName(key.first).str()]
                      [(int64_t)key.second] = v.getSExtValue();
          cex.mismatchArray = before.getArgName(arg).str();
          cex.mismatchIndex = (int64_t)idx;
          cex.before = vb.getSExtValue();
          cex.after = va.getSExtValue();
          cex.replayed = true;
          if (std::optional<std::string> d =
                  confirmOnIR(opts, before, after, cfg, inB, inA, rb, ra, cex,
                              maxThreads, maxSteps)) {
            disagreement = *d;
            return std::nullopt;
          }
          return cex;
        }
      }
      // Another launch and other scalars next.
      s.add(!enc.sameLaunchAs(model));
    }
    s.pop();
  }
  return std::nullopt;
}

} // namespace kv
