//===- DriverRelational.cpp - the driver's relational loop proof ----------===//
//
// Where the relational proof (Relational.h) applies and how much of a
// kernel's budget it gets. It assumes the before kernel free of races,
// barrier divergence and undefined behaviour, so it runs where safety is
// assumed (the plugin; --safety-checks=false) or where the model's safety
// checks proved the before kernel free of races, divergence and
// out-of-bounds shared accesses (the command line), on kernels with a loop or a
// barrier (without either, the model's own methods are complete).
//
//===----------------------------------------------------------------------===//

#include "equiv/Driver.h"
#include "equiv/Relational.h"
#include "kv/Budget.h"
#include "smt-encode/Debug.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdlib>
#include <functional>

namespace kv {

/// Whether \p f has a loop (a block reached again from itself) or calls a
/// barrier.
/// The most the relational proof runs (the plugin's default budget leaves
/// it less: what is left of the proof's share).
static constexpr unsigned relationalMaxMs = 30000;

static bool hasLoopOrBarrier(const llvm::Function &f) {
  for (const llvm::BasicBlock &bb : f)
    for (const llvm::Instruction &i : bb)
      if (auto *c = llvm::dyn_cast<llvm::CallBase>(&i))
        if (const llvm::Function *g = c->getCalledFunction())
          if (g->getName().contains("barrier"))
            return true;
  llvm::SmallPtrSet<const llvm::BasicBlock *, 32> done, open;
  std::function<bool(const llvm::BasicBlock *)> cyclic =
      [&](const llvm::BasicBlock *bb) {
        open.insert(bb);
        for (const llvm::BasicBlock *s : llvm::successors(bb))
          if (open.count(s) || (!done.count(s) && cyclic(s)))
            return true;
        open.erase(bb);
        done.insert(bb);
        return false;
      };
  return !f.empty() && cyclic(&f.getEntryBlock());
}

bool Driver::relationalApplies(const CheckOptions &co, bool beforeSafe) const {
  // Its integers are the kernels' own: not under --bits; nor over the
  // reals.
  // It follows one thread through both kernels: one launch for both.
  return opts.relational && !ownLaunches() && before.function &&
         after.function && !co.realFloats && co.bits == 32 &&
         hasLoopOrBarrier(*after.function) &&
         (co.assumeSafe || beforeSafe || debugEnabled("relational-only"));
}

std::optional<Validation> Driver::proveRelationally(const CheckOptions &co,
                                                    long long proofLeftMs,
                                                    bool beforeSafe) {
  bool only = debugEnabled("relational-only");
  if (!relationalApplies(co, beforeSafe))
    return std::nullopt;
  RelationalOptions ro;
  ro.beforeSafetyChecked = beforeSafe && !co.assumeSafe;
  ro.timeoutMs = relationalMaxMs;
  // What is left of the proof's share of the budget (the bounded search
  // keeps its own; the model's methods left it this share), and half of
  // the kernel's budget, which counts the plugin's lowering of the source
  // too.
  if (proofLeftMs >= 0) {
    if (proofLeftMs < 500)
      return std::nullopt;
    ro.timeoutMs = (unsigned)std::min<long long>(proofLeftMs, relationalMaxMs);
  }
  if (unsigned budgetLeft = budget::remainingMs()) {
    if (budgetLeft < 500)
      return std::nullopt;
    ro.timeoutMs = std::min(ro.timeoutMs, budgetLeft / 2);
  }
  if (only) {
    ro.timeoutMs = std::max(ro.timeoutMs, 60000u);
    // (KV_RELATIONAL_MS: a longer attempt, to see where it converges.)
    unsigned ms = 0;
    if (const char *e = getenv("KV_RELATIONAL_MS"))
      if (!llvm::StringRef(e).getAsInteger(10, ms))
        ro.timeoutMs = std::max(ro.timeoutMs, ms);
  }
  RelationalResult r = proveRelational(*before.function, *after.function, ro);
  if (debugEnabled("relational"))
    llvm::errs() << "[kv] relational: "
                 << (r.proved ? r.method : "not proved: " + r.why) << "\n";
  if (!r.proved) {
    relationalWhy = r.why;
    return std::nullopt;
  }
  Validation v;
  v.result.verdict = Verdict::Equivalent;
  v.result.method = r.method;
  v.result.assumptions = std::move(r.assumptions);
  return v;
}

} // namespace kv
