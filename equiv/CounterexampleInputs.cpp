//===- CounterexampleInputs.cpp - the inputs a difference depends on ------===//
//
// Driver::completeCounterexample: both kernels' LLVM IR run on the
// counterexample as it is printed (the cells listed, every other 0, shared
// memory 0: what `kvalidate replay` runs), following the mismatched cell's
// value back thread by thread to the input cells it comes from
// (inputSources). They are listed, whatever their value and however far
// from index 0, and shown first.
//
//===----------------------------------------------------------------------===//
#include "equiv/Driver.h"
#include "equiv/IRExecutor.h"

#include <algorithm>

using namespace mlir;

namespace kv {

void Driver::completeCounterexample(Counterexample &cex) {
  if (opts.bits != 32 || cex.mismatchArray.empty() || cex.mismatchIndex < 0)
    return;
  ScratchKernels sig;
  if (!irSignatures(sig))
    return;
  Block &blk = sig.k[0].getBlock();
  std::optional<unsigned> arg;
  std::map<unsigned, const std::map<int64_t, int64_t> *> cells;
  std::map<unsigned, int64_t> scalars;
  for (unsigned i = 0; i < blk.getNumArguments(); ++i) {
    std::string name = sig.k[0].getArgName(i).str();
    if (name == cex.mismatchArray)
      arg = i;
    if (auto it = cex.arrays.find(name); it != cex.arrays.end())
      cells[i] = &it->second;
    for (auto &[n, v] : cex.scalars)
      if (n == name)
        scalars[i] = v;
  }
  if (!arg)
    return;
  // An input cell's value as the counterexample lists it; 0 if unlisted.
  auto listed = [&](unsigned a, uint64_t idx) -> int64_t {
    if (auto it = cells.find(a); it != cells.end())
      if (auto c = it->second->find((int64_t)idx); c != it->second->end())
        return c->second;
    return 0;
  };
  // Each kernel's launch (the after kernel's own, where it has one).
  LaunchConfig cfgs[2];
  uint64_t threads = 1;
  for (int s = 0; s < 2; ++s) {
    bool own = s == 1 && cex.ownAfterLaunch;
    uint64_t n = 1;
    for (int d = 0; d < 3; ++d) {
      cfgs[s].grid[d] = own ? cex.afterGridDim[d] : cex.gridDim[d];
      cfgs[s].block[d] = own ? cex.afterBlockDim[d] : cex.blockDim[d];
      n *= cfgs[s].grid[d] * cfgs[s].block[d];
    }
    threads = std::max(threads, n);
  }
  // As the replay of a model's counterexample, but a traced run costs some
  // ten times a plain one: at most about a second per kernel (the cells
  // are listed either way; only which of them matter is then not said).
  const uint64_t maxThreads = uint64_t(1) << 20, maxSteps = uint64_t(1) << 23;
  if (threads > maxThreads)
    return;
  std::set<std::pair<unsigned, uint64_t>> sources;
  const llvm::Function *fns[2] = {before.function, after.function};
  for (int s = 0; s < 2; ++s) {
    ExecInputs in = kernelInputs(
        sig.k[s], /*bits=*/32,
        [&](unsigned a) -> int64_t {
          auto it = scalars.find(a);
          return it == scalars.end() ? 0 : it->second;
        },
        [&](unsigned a, uint64_t idx, unsigned w) {
          return llvm::APInt(w, (uint64_t)listed(a, idx), /*isSigned=*/true,
                             /*implicitTrunc=*/true);
        });
    IRInputs irIn = irInputsFor(sig.k[s], *fns[s], in);
    for (auto cell :
         inputSources(*fns[s], cfgs[s], irIn, *arg, (uint64_t)cex.mismatchIndex,
                      maxThreads, maxSteps))
      sources.insert(cell);
  }
  for (auto [a, idx] : sources) {
    std::string name = sig.k[0].getArgName(a).str();
    if (name == kPrintStream)
      continue; // the kernels' output, which no input sets

    cex.arrays[name][(int64_t)idx] = listed(a, idx);
    cex.sources[name].insert((int64_t)idx);
  }
}

} // namespace kv
